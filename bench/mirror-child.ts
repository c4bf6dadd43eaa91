/**
 * One reader of a mirror bench index (bench/mirror.bench.ts): open, the
 * concept query as the mirror adapter asks it (a wide OR is narrowed to its
 * rarest alternatives), the same query ranked whole (what narrowing saves and
 * what it changes: how many of the whole ranking's first 20 distinct titles
 * the narrowed pool holds; titles, since the bench's copies of a paper share
 * one), a title search, an id lookup. Each step's wall and CPU time; the
 * engine is the one the index chose (ARXIV_COMPANION_SQLITE, set by the
 * bench); a digest of every answer, so that two engines can be compared.
 */
import { createHash } from "node:crypto"
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
/** `f`'s answer, wall and CPU milliseconds. */
const timed = <A>(f: () => A): [A, number, number] => {
  const t = performance.now()
  const c = cpu()
  const a = f()
  return [a, performance.now() - t, cpu() - c]
}
const digest = (rows: ReadonlyArray<{ readonly id: string }>, total: number) =>
  createHash("sha1").update(`${total}:${rows.map((r) => r.id).join(",")}`).digest("hex").slice(0, 12)

const [index, openMillis, openCpuMillis] = timed(() => MirrorIndex.open(dir, { create: false }))
const concept = fts(query)
const [r, queryMillis, queryCpuMillis] = timed(() =>
  index.search({ ...concept, sortBy: "relevance", sortOrder: "descending", start: 0, limit: 1000 })
)
let wholeMillis: number | undefined
let wholeCpuMillis: number | undefined
let top20Held: number | undefined
let wholeTotal: number | undefined
let wholeDigest: string | undefined
if (whole === "whole") {
  const [w, millis, cpuMillis] = timed(() => index.search({ match: concept.match, sortBy: "relevance", sortOrder: "descending", start: 0, limit: 1000 }))
  wholeMillis = millis
  wholeCpuMillis = cpuMillis
  wholeTotal = w.total
  wholeDigest = digest(w.rows, w.total)
  const pool = new Set(r.rows.map((row) => row.title))
  top20Held = [...new Set(w.rows.map((row) => row.title))].slice(0, 20).filter((title) => pool.has(title)).length
}
const [title, titleMillis, titleCpuMillis] = timed(() =>
  index.search({ ...fts("ti:attention AND ti:translation"), sortBy: "relevance", sortOrder: "descending", start: 0, limit: 1000 })
)
const ids = r.rows.slice(0, 50).map((row) => row.id)
const [byIds, idMillis, idCpuMillis] = timed(() => index.byIds(ids))
const engine = index.engine
index.close()
process.stdout.write(
  JSON.stringify({
    engine,
    openMillis,
    openCpuMillis,
    queryMillis,
    queryCpuMillis,
    wholeMillis,
    wholeCpuMillis,
    top20Held,
    wholeTotal,
    titleMillis,
    titleCpuMillis,
    idMillis,
    idCpuMillis,
    total: r.total,
    digests: { concept: digest(r.rows, r.total), whole: wholeDigest, title: digest(title.rows, title.total), ids: digest(byIds, byIds.length) },
    maxRssMiB: process.resourceUsage().maxRSS / 1024
  })
)
