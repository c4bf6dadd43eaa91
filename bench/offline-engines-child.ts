/**
 * One process of bench/offline-engines.bench.ts: the recorded corpus (`corpus`:
 * the offline mode's, a sealed mirror index) or a mirror (`mirror DIR`), as the
 * footprint bench measures the corpus: the first lookup (what opening costs),
 * then queries of new terms, then the same queries again. Prints one JSON line.
 */
import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import * as CorpusArxiv from "../src/adapters/arxiv/CorpusArxiv.js"
import * as MirrorArxiv from "../src/adapters/arxiv/mirror/MirrorArxiv.js"
import { readQuery } from "../src/adapters/query/queryParser.js"
import type { ArxivService } from "../src/core/ports/ArxivPort.js"
import { QUERIES } from "./corpus-queries.mjs"

const [engine, dir] = process.argv.slice(2) as [string, string | undefined]
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const port: ArxivService = await Effect.runPromise(
  engine === "mirror" ? MirrorArxiv.make({ dir: dir! }) : CorpusArxiv.make().pipe(Effect.provide(NodeContext.layer))
)
const search = (q: string) => {
  const query = readQuery(q)
  if (query._tag === "Left") throw new Error(`${q}: ${String(query.left)}`)
  return Effect.runPromise(port.search({ query: query.right, categories: ["cs.LG", "cs.AI", "cs.CL", "stat.ML"], maxResults: 10 }))
}
let t = performance.now()
let c = cpu()
await Effect.runPromise(port.getPapers(["1706.03762"]))
const loadMs = performance.now() - t
const loadCpuMs = cpu() - c
const newMs: Array<number> = []
const newCpuMs: Array<number> = []
const tops: Array<ReadonlyArray<string>> = []
for (const q of QUERIES) {
  t = performance.now()
  c = cpu()
  const r = await search(q)
  newMs.push(performance.now() - t)
  newCpuMs.push(cpu() - c)
  if (r.papers.length === 0) throw new Error(`no result for ${q}`)
  tops.push(r.papers.map((p) => p.arxivId))
}
const repeatedMs: Array<number> = []
for (const q of QUERIES) {
  t = performance.now()
  await search(q)
  repeatedMs.push(performance.now() - t)
}
process.stdout.write(
  `${JSON.stringify({ loadMs, loadCpuMs, newMs, newCpuMs, repeatedMs, tops, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`
)
