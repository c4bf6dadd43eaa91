/**
 * One process of `footprint.bench.ts`, run against the BUILT package
 * (dist/index.js), as a library user would load it. Prints one JSON line.
 * BENCH_ROOT names another built checkout to load instead of this one.
 *
 *   node bench/footprint-child.mjs import              time of import("arxiv-companion")
 *   node bench/footprint-child.mjs corpus              offline corpus: load, new-term and repeated queries
 *   node bench/footprint-child.mjs twice <vault> <p>   runCompanion offline twice in one process
 */
import { performance } from "node:perf_hooks"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { QUERIES } from "./corpus-queries.mjs"

const ROOT = process.env["BENCH_ROOT"] || path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const INDEX = pathToFileURL(path.join(ROOT, "dist", "index.js")).href
const [mode, ...rest] = process.argv.slice(2)


const print = (value) => process.stdout.write(JSON.stringify(value) + "\n")

if (mode === "import") {
  const t0 = performance.now()
  await import(INDEX)
  print({ importMs: performance.now() - t0 })
} else if (mode === "corpus") {
  const { Adapters } = await import(INDEX)
  const { Effect } = await import("effect")
  const { NodeContext } = await import("@effect/platform-node")
  const run = (effect) => Effect.runPromise(Effect.provide(effect, NodeContext.layer))
  const port = await run((Adapters.CorpusArxiv ?? Adapters.FixtureArxiv).make())
  // the port's calls need no services of their own (the layer's were given to `make`): run them as they are
  // the port takes a structured query: the strings are read as a person's typed query is, by the query port's
  // parser (a checkout from before the structured query takes the string itself)
  const reader = Adapters.RuleQueryBuilder?.makeWith?.()
  const structured = (query) => (reader?.read === undefined ? Effect.succeed(query) : reader.read(query))
  const search = (query) =>
    Effect.runPromise(Effect.flatMap(structured(query), (q) =>
      port.search({ query: q, categories: ["cs.LG", "cs.AI", "cs.CL", "stat.ML"], maxResults: 10 })))
  // the first call loads the corpus; a lookup by id does no term search
  const t0 = performance.now()
  await Effect.runPromise(port.getPapers(["1706.03762"]))
  const loadMs = performance.now() - t0
  const newMs = []
  for (const q of QUERIES) {
    const t = performance.now()
    const r = await search(q)
    newMs.push(performance.now() - t)
    if (r.papers.length === 0) throw new Error(`no result for ${q}`)
  }
  const repeatedMs = []
  for (const q of QUERIES) {
    const t = performance.now()
    await search(q)
    repeatedMs.push(performance.now() - t)
  }
  print({ loadMs, newMs, repeatedMs, rssMb: process.memoryUsage().rss / 2 ** 20 })
} else if (mode === "twice") {
  const [vault, prompt] = rest
  const { runCompanion } = await import(INDEX)
  const runs = []
  for (let i = 0; i < 2; i++) {
    const t = performance.now()
    await runCompanion(prompt, { vault, offline: true })
    runs.push(performance.now() - t)
  }
  print({ firstMs: runs[0], secondMs: runs[1] })
} else {
  console.error("usage: footprint-child.mjs import | corpus | twice <vault> <prompt>")
  process.exit(2)
}
