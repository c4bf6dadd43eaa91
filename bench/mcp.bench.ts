/**
 * The MCP server's "fast and light" figures (issue 4), measured on the BUILT
 * stdio bin (`dist/mcp.js`; run `npm run build` first):
 *
 * 1. start to initialize: spawn → the `initialize` answer on stdout (and to
 *    the first `tools/list` answer), median of several cold starts, offline;
 * 2. the size of `tools/list` in characters;
 * and, live against the loopback arXiv stand-in (ARXIV_API_URL, an empty
 * cache directory), counting the requests the stand-in receives:
 * 3. an identical search within its TTL answered from cache (no upstream request);
 * 4. identical concurrent searches coalesced into one upstream call;
 * 5. five concurrent distinct searches: all succeed, arXiv requests started
 *    ≥ 3 s apart, and the whole batch takes no longer than that floor needs.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startArxivStandIn } from "../test/support/arxiv-standin.js"
import { BIN, connectToStandIn, ROOT } from "./mcp-client.js"

const STARTS = 7
const ARXIV_LATENCY = 300
const ARXIV_SPACING = 3000

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** Spawn the bin, send initialize then tools/list; times from spawn, and the tools/list JSON. */
const coldStart = (): Promise<{ initMs: number; listMs: number; toolsList: string }> =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, [BIN, "--offline"], { cwd: ROOT, stdio: ["pipe", "pipe", "ignore"] })
    let buffer = ""
    let initMs = 0
    child.stdout.on("data", (d: Buffer) => {
      buffer += d.toString("utf8")
      let nl: number
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        const message = JSON.parse(line) as { id?: number; result?: unknown }
        if (message.id === 1) {
          initMs = performance.now() - t0
          child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n")
          child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) + "\n")
        } else if (message.id === 2) {
          const listMs = performance.now() - t0
          child.kill()
          resolve({ initMs, listMs, toolsList: JSON.stringify(message.result) })
        }
      }
    })
    child.on("error", reject)
    child.stdin.write(JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } }
    }) + "\n")
  })

export default async (): Promise<void> => {
  if (!fs.existsSync(BIN)) {
    console.log("dist/mcp.js is missing: run `npm run build` first")
    process.exitCode = 1
    return
  }

  // 1–2. cold starts, offline
  const starts: Array<{ initMs: number; listMs: number; toolsList: string }> = []
  for (let i = 0; i < STARTS; i++) starts.push(await coldStart())
  const toolsList = starts[0]!.toolsList
  const tools = (JSON.parse(toolsList) as { tools: Array<unknown> }).tools.length
  console.log(`start → initialize (built stdio bin, ${STARTS} cold starts): median ${median(starts.map((s) => s.initMs)).toFixed(0)} ms, ` +
    `min ${Math.min(...starts.map((s) => s.initMs)).toFixed(0)} ms`)
  console.log(`start → first tools/list answer: median ${median(starts.map((s) => s.listMs)).toFixed(0)} ms`)
  console.log(`tools/list: ${tools} tools in ${toolsList.length} characters (${Math.round(toolsList.length / tools)} per tool)`)

  // 3–5. live against the loopback arXiv stand-in
  const standIn = await startArxivStandIn({ latencyMillis: ARXIV_LATENCY, padSearches: true, corpus: "landmarks" })
  const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-bench-cache-"))
  const client = await connectToStandIn(standIn.url, cacheHome)
  const search = async (query: string) => {
    const t0 = performance.now()
    const r = (await client.callTool({ name: "search_arxiv_papers", arguments: { query, max_results: 10 } })) as CallToolResult
    return { ms: performance.now() - t0, ok: r.isError !== true, papers: (r.structuredContent as { papers?: Array<unknown> } | undefined)?.papers?.length ?? 0 }
  }
  try {
    const before = standIn.requests.length
    const cold = await search("attention translation")
    const afterCold = standIn.requests.length
    const warm = await search("attention translation")
    const afterWarm = standIn.requests.length
    console.log(`identical search: cold ${cold.ms.toFixed(0)} ms (${afterCold - before} arXiv request), ` +
      `again ${warm.ms.toFixed(0)} ms with ${afterWarm - afterCold} arXiv requests (answered from cache)`)

    // wait out the spacing so the next figures start from a free slot
    await new Promise((r) => setTimeout(r, ARXIV_SPACING))
    const beforeBurst = standIn.requests.length
    const same = await Promise.all([1, 2, 3, 4, 5].map(() => search("residual networks")))
    console.log(`5 identical concurrent searches: ${same.filter((s) => s.ok).length}/5 succeeded with ` +
      `${standIn.requests.length - beforeBurst} arXiv request (coalesced)`)

    await new Promise((r) => setTimeout(r, ARXIV_SPACING))
    const queries = ["generative adversarial", "word embeddings", "batch normalization", "sequence to sequence", "neural translation"]
    const beforeDistinct = standIn.requests.length
    const t0 = performance.now()
    const distinct = await Promise.all(queries.map(search))
    const wall = performance.now() - t0
    const arrivals = standIn.requests.slice(beforeDistinct).map((r) => r.at)
    const gaps = arrivals.slice(1).map((a, i) => a - arrivals[i]!)
    const floor = (queries.length - 1) * ARXIV_SPACING + ARXIV_LATENCY
    console.log(`5 concurrent distinct searches: ${distinct.filter((s) => s.ok && s.papers > 0).length}/5 succeeded, ` +
      `${arrivals.length} arXiv requests, starts ${gaps.map((g) => (g / 1000).toFixed(2)).join(" s, ")} s apart ` +
      `(min ${(Math.min(...gaps) / 1000).toFixed(2)} s); all done in ${(wall / 1000).toFixed(1)} s, ` +
      `floor ${(floor / 1000).toFixed(1)} s (4 × 3 s spacing + ${ARXIV_LATENCY} ms latency), slowest single call ` +
      `${(Math.max(...distinct.map((d) => d.ms)) / 1000).toFixed(1)} s`)
  } finally {
    await client.close()
    await standIn.close()
    fs.rmSync(cacheHome, { recursive: true, force: true })
  }
}
