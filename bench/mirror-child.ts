/**
 * One reader of a mirror bench index (bench/mirror.bench.ts): open, the
 * concept query as the mirror adapter asks it (a wide OR is narrowed to its
 * rarest alternatives), the same query ranked whole (what narrowing saves and
 * what it changes: how many of the whole ranking's first 20 distinct titles
 * the narrowed pool holds; titles, since the bench's copies of a paper share
 * one), a title search, an id lookup.
 */
import { toFtsQuery } from "../src/adapters/arxiv/mirror/ftsQuery.js"
import { MirrorIndex } from "../src/adapters/arxiv/mirror/MirrorIndex.js"
import { parseQuery } from "../src/adapters/query/queryParser.js"

const [dir, query, whole] = process.argv.slice(2) as [string, string, string | undefined]
const ML = ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"]
const fts = (q: string) => {
  const p = parseQuery(q)
  if (p._tag === "Error") throw new Error(p.error.message)
  const f = toFtsQuery(p.query, ML)
  if ("reason" in f) throw new Error(f.reason)
  return f
}
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
let t = performance.now()
const index = MirrorIndex.open(dir, { create: false })
const openMillis = performance.now() - t
const concept = fts(query)
t = performance.now()
let c = cpu()
const r = index.search({ ...concept, sortBy: "relevance", sortOrder: "descending", start: 0, limit: 1000 })
const queryMillis = performance.now() - t
const queryCpuMillis = cpu() - c
let wholeMillis: number | undefined
let wholeCpuMillis: number | undefined
let top20Held: number | undefined
let wholeTotal: number | undefined
if (whole === "whole") {
  t = performance.now()
  c = cpu()
  const w = index.search({ match: concept.match, sortBy: "relevance", sortOrder: "descending", start: 0, limit: 1000 })
  wholeMillis = performance.now() - t
  wholeCpuMillis = cpu() - c
  wholeTotal = w.total
  const pool = new Set(r.rows.map((row) => row.title))
  top20Held = [...new Set(w.rows.map((row) => row.title))].slice(0, 20).filter((title) => pool.has(title)).length
}
t = performance.now()
index.search({ ...fts("ti:attention AND ti:translation"), sortBy: "relevance", sortOrder: "descending", start: 0, limit: 1000 })
const titleMillis = performance.now() - t
const ids = r.rows.slice(0, 50).map((row) => row.id)
t = performance.now()
index.byIds(ids)
const idMillis = performance.now() - t
index.close()
process.stdout.write(
  JSON.stringify({
    openMillis,
    queryMillis,
    queryCpuMillis,
    wholeMillis,
    wholeCpuMillis,
    top20Held,
    wholeTotal,
    titleMillis,
    idMillis,
    total: r.total,
    maxRssMiB: process.resourceUsage().maxRSS / 1024
  })
)
