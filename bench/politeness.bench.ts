/**
 * arXiv politeness under load (issue 15), measured on the BUILT stdio bin
 * (`dist/mcp.js`; run `npm run build` first), live against the loopback arXiv
 * stand-in, which records when each request arrives:
 *
 * 1. 50 concurrent distinct searches (plus 10 repeating five of them): the gaps
 *    between arrivals at the stand-in (min / median / how many under 3,000 ms),
 *    how long the calls took, how many reported progress while queued, how
 *    many were refused by their deadline and with what message;
 * 2. 10 concurrent searches whose first three answers are 429 Retry-After 5:
 *    the arrival times (a Retry-After must hold back every queued call);
 * 3. a hung arXiv: how long one search takes to give up, and what it says.
 *
 * `npm run bench -- politeness` (about 4 minutes: the 3 s spacing is real).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type ArxivStandIn, Fault, startArxivStandIn } from "../test/support/arxiv-standin.js"
import { BIN, connectToStandIn } from "./mcp-client.js"


const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

const connect = (standIn: ArxivStandIn) =>
  connectToStandIn(standIn.url, fs.mkdtempSync(path.join(os.tmpdir(), "politeness-bench-")), ["--no-cache"])

interface Call {
  readonly startedAt: number
  readonly ms: number
  readonly ok: boolean
  readonly text: string
  readonly progress: number
}

const search = async (client: Client, query: string, t0: number): Promise<Call> => {
  const started = performance.now()
  let progress = 0
  const r = (await client.callTool(
    { name: "search_arxiv_papers", arguments: { query, max_results: 5, categories: [] } },
    undefined,
    { onprogress: () => void progress++, timeout: 600_000 }
  )) as CallToolResult
  const first = r.content[0]
  return {
    startedAt: started - t0,
    ms: performance.now() - started,
    ok: r.isError !== true,
    text: first?.type === "text" ? first.text : "",
    progress
  }
}

const gapsOf = (standIn: ArxivStandIn, from: number) => {
  const arrivals = standIn.requests.slice(from).map((r) => r.at)
  return { arrivals, gaps: arrivals.slice(1).map((a, i) => a - arrivals[i]!) }
}

export default async (): Promise<void> => {
  if (!fs.existsSync(BIN)) {
    console.log("dist/mcp.js is missing: run `npm run build` first")
    process.exitCode = 1
    return
  }
  console.log(`load average at start: ${os.loadavg().map((l) => l.toFixed(1)).join(" / ")} (${os.cpus().length} cores)`)

  // 1. 50 distinct + 10 repeated concurrent searches
  {
    const standIn = await startArxivStandIn({ latencyMillis: 200, padSearches: true, corpus: "landmarks" })
    const client = await connect(standIn)
    try {
      const queries = Array.from({ length: 50 }, (_, i) => `all:network AND all:q${i}`)
      const repeated = queries.slice(0, 5).flatMap((q) => [q, q])
      const t0 = performance.now()
      const calls = await Promise.all([...queries, ...repeated].map((q) => search(client, q, t0)))
      const { gaps } = gapsOf(standIn, 0)
      const ok = calls.filter((c) => c.ok)
      const refused = calls.filter((c) => !c.ok)
      console.log(
        `60 concurrent MCP searches (50 distinct, 5 of them asked 3 times): ${standIn.requests.length} arXiv requests; ` +
          `gaps at the stand-in min ${gaps.length === 0 ? "-" : Math.min(...gaps).toFixed(0)} ms, median ${
            median(gaps).toFixed(0)
          } ms, ${gaps.filter((g) => g < 3000).length} of ${gaps.length} under 3,000 ms`
      )
      console.log(
        `  answered ${ok.length}, refused ${refused.length}; longest call ${seconds(Math.max(...calls.map((c) => c.ms)))}, ` +
          `${calls.filter((c) => c.ms > 60_000).length} over 60 s; ` +
          `${calls.filter((c) => c.progress > 0).length} calls got progress notifications ` +
          `(${calls.reduce((n, c) => n + c.progress, 0)} in all)`
      )
      // the 15 calls of the 5 repeated queries share 5 requests; each should hear the wait of the one it shares
      const sharing = calls.filter((_, i) => i < 5 || i >= 50)
      const silent = calls.filter((c) => c.ms > 2000 && c.progress === 0)
      console.log(
        `  calls sharing a request: ${sharing.filter((c) => c.progress > 0).length} of ${sharing.length} got progress; ` +
          `calls that took over 2 s without any progress: ${silent.length}`
      )
      if (refused.length > 0) {
        const fastest = Math.min(...refused.map((c) => c.ms))
        console.log(`  refused after ${seconds(fastest)} to ${seconds(Math.max(...refused.map((c) => c.ms)))}, e.g.: ${refused[0]!.text}`)
      }
    } finally {
      await client.close()
      await standIn.close()
    }
  }

  // 2. a Retry-After holds back every queued call
  {
    const standIn = await startArxivStandIn({ padSearches: true, corpus: "landmarks" })
    const client = await connect(standIn)
    try {
      standIn.failNext(Fault.rateLimited("5"), Fault.rateLimited("5"), Fault.rateLimited("5"))
      const t0 = performance.now()
      const calls = await Promise.all(Array.from({ length: 10 }, (_, i) => search(client, `all:network AND all:r${i}`, t0)))
      const { arrivals } = gapsOf(standIn, 0)
      const first = arrivals[0] ?? 0
      console.log(
        `10 concurrent searches, the first three answers 429 Retry-After 5: arrivals at ${
          arrivals.map((a) => (a - first).toFixed(0)).join(" / ")
        } ms; ${calls.filter((c) => c.ok).length}/10 answered`
      )
    } finally {
      await client.close()
      await standIn.close()
    }
  }

  // 3. a hung arXiv
  {
    const standIn = await startArxivStandIn()
    standIn.failAlways(Fault.hang())
    const client = await connect(standIn)
    try {
      const t0 = performance.now()
      const call = await search(client, "all:network", t0)
      console.log(
        `a hung arXiv: the search gave up after ${seconds(call.ms)} with ${standIn.requests.length} requests, ` +
          `${call.progress} progress notifications: ${call.text}`
      )
    } finally {
      await client.close()
      await standIn.close()
    }
  }
}
