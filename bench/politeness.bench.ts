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
 * 3. a hung arXiv: how long one search takes to give up, and what it says;
 * 4. every process of the user (issue 23): five built CLI runs at once on
 *    different notes and on the same note, sharing one lease: the smallest
 *    gap between arXiv request starts, the most in flight at once;
 * 5. five concurrent MCP searches against arXiv answering in 800 ms: how long
 *    they take (the rule allows about 12.8 s: starts 3 s apart);
 * 6. a 500 MB upstream answer: the CLI's peak RSS.
 *
 * `npm run bench -- politeness` (about 6 minutes: the 3 s spacing is real).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { execFile } from "node:child_process"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { type ArxivStandIn, Fault, startArxivStandIn } from "../test/support/arxiv-standin.js"
import { startOpenAlexStandIn } from "../test/support/openalex-standin.js"
import { BIN, connectToStandIn, ROOT } from "./mcp-client.js"

const CLI = path.join(ROOT, "dist", "cli.js")

/** POLITENESS_CASES=4,5 runs only those cases (default: all). */
const wanted = (n: number): boolean => {
  const only = process.env["POLITENESS_CASES"]
  return only === undefined || only.trim() === "" || only.split(",").map((s) => s.trim()).includes(String(n))
}

/** Five notes on five subjects, for five runs that each ask arXiv their own searches. */
const NOTES: ReadonlyArray<readonly [string, string]> = [
  ["Attention in Translation", "Attention mechanisms let a neural machine translation model align source and target words; the encoder-decoder with soft alignment, self-attention and the Transformer architecture."],
  ["Adversarial Training", "Generative adversarial networks train a generator against a discriminator; mode collapse, Wasserstein distance and training stability of GANs for image synthesis."],
  ["Residual Learning", "Residual networks add identity shortcut connections so very deep convolutional networks train; batch normalization, degradation and image classification on ImageNet."],
  ["Dropout Regularization", "Dropout randomly drops units of a neural network during training to prevent overfitting; regularization, ensembles of thinned networks and co-adaptation of features."],
  ["Word Embeddings", "Word embeddings map words to dense vectors; the skip-gram model, negative sampling, distributed representations of words and phrases and their compositionality."]
]

/** Run the built CLI; its exit code, output and (with `rssFile`) peak RSS. */
const cli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, ["--import", path.join(ROOT, "bench", "peak-rss.mjs"), CLI, ...args], {
      cwd: ROOT,
      // the user's default cache and lease folders, under the run's XDG_CACHE_HOME
      env: Object.fromEntries(
        Object.entries({ ...(process.env as Record<string, string>), ...env })
          .filter(([k]) => k !== "ARXIV_COMPANION_CACHE_DIR" && k !== "ARXIV_COMPANION_LEASE_DIR")
      ),
      maxBuffer: 64 * 1024 * 1024
    }, (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }))
  )


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
  if (wanted(1)) {
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
  if (wanted(2)) {
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

  // 4. five CLI processes at once, one lease
  for (const same of wanted(4) ? [false, true] : []) {
    const standIn = await startArxivStandIn({ latencyMillis: 200, padSearches: true, corpus: "landmarks" })
    const openalex = await startOpenAlexStandIn()
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "politeness-bench-procs-"))
    try {
      const runs = NOTES.map(([title, text], i) => {
        const vault = path.join(home, `vault${i}`)
        fs.mkdirSync(vault)
        const [noteTitle, noteText] = same ? NOTES[0]! : [title, text]
        fs.writeFileSync(path.join(vault, `${noteTitle}.md`), `# ${noteTitle}\n\n${noteText}\n`)
        return cli(["run", `Find papers related to my '${noteTitle}'`, "--vault", vault, "--json", "--judge", "local"], {
          ARXIV_API_URL: standIn.url,
          OPENALEX_API_URL: openalex.url,
          OPENALEX_API_KEY: "bench",
          XDG_CACHE_HOME: home
        })
      })
      const t0 = performance.now()
      const done = await Promise.all(runs)
      const ms = performance.now() - t0
      const { gaps } = gapsOf(standIn, 0)
      console.log(
        `5 CLI runs at once on ${same ? "the same note" : "different notes"} (one cache, one lease): ${standIn.requests.length} arXiv requests, ` +
          `smallest gap between starts ${gaps.length === 0 ? "-" : Math.min(...gaps).toFixed(0)} ms ` +
          `(${gaps.filter((g) => g < 3000).length} of ${gaps.length} under 3,000 ms), at most ${standIn.maxInFlight()} in flight; ` +
          `${done.filter((r) => r.code === 0).length}/5 succeeded in ${seconds(ms)}`
      )
      for (const r of done.filter((r) => r.code !== 0)) console.log(`  failed: ${r.stderr.trim().split("\n").pop()}`)
    } finally {
      await standIn.close()
      await openalex.close()
    }
  }

  // 5. five concurrent MCP searches against an 800 ms arXiv
  if (wanted(5)) {
    const standIn = await startArxivStandIn({ latencyMillis: 800, padSearches: true, corpus: "landmarks" })
    const client = await connect(standIn)
    try {
      // the server is up and its layers built before the clock starts (a malformed id: no request)
      await client.callTool({ name: "get_paper", arguments: { arxiv_id: "not-an-id" } })
      const from = standIn.requests.length
      const t0 = performance.now()
      const calls = await Promise.all(Array.from({ length: 5 }, (_, i) => search(client, `all:network AND all:s${i}`, t0)))
      const ms = performance.now() - t0
      const { gaps } = gapsOf(standIn, from)
      console.log(
        `5 concurrent MCP searches, arXiv answering in 800 ms: all done in ${(ms / 1000).toFixed(2)} s (the rule allows about 12.8 s); ` +
          `starts ${gaps.map((g) => g.toFixed(0)).join(" / ")} ms apart; ${calls.filter((c) => c.ok).length}/5 answered`
      )
    } finally {
      await client.close()
      await standIn.close()
    }
  }

  // 6. a 500 MB answer
  if (wanted(6)) {
    const chunk = Buffer.alloc(1_000_000, "<entry>x</entry>\n")
    let sent = 0
    const server = http.createServer((_, res) => {
      res.writeHead(200, { "content-type": "application/atom+xml" })
      let left = 500
      const pump = () => {
        while (left > 0 && !res.destroyed) {
          left--
          sent += chunk.length
          if (!res.write(chunk)) return void res.once("drain", pump)
        }
        if (!res.destroyed) res.end()
      }
      pump()
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const rssFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "politeness-bench-rss-")), "rss.json")
    try {
      const r = await cli(["search", "all:huge", "--max-results", "3"], {
        ARXIV_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/query`,
        ARXIV_COMPANION_CACHE: "off",
        BENCH_RSS_FILE: rssFile
      })
      const { maxRssKb } = JSON.parse(fs.readFileSync(rssFile, "utf8")) as { maxRssKb: number }
      console.log(
        `a 500 MB arXiv answer: peak RSS ${(maxRssKb / 1024).toFixed(0)} MB, ${(sent / 1e6).toFixed(0)} MB sent before the client let go, ` +
          `exit ${r.code}: ${r.stderr.trim().split("\n").pop()}`
      )
    } finally {
      server.closeAllConnections()
      server.close()
    }
  }

  // 3. a hung arXiv
  if (wanted(3)) {
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
