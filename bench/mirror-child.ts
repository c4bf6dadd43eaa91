/** One reader of a mirror bench index (bench/mirror.bench.ts): open, the concept query, a title search, an id lookup. */
import { toFtsQuery } from "../src/adapters/arxiv/mirror/ftsQuery.js"
import { MirrorIndex } from "../src/adapters/arxiv/mirror/MirrorIndex.js"
import { parseQuery } from "../src/adapters/query/queryParser.js"

const [dir, query] = process.argv.slice(2) as [string, string]
const ML = ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"]
const fts = (q: string) => {
  const p = parseQuery(q)
  if (p._tag === "Error") throw new Error(p.error.message)
  const f = toFtsQuery(p.query, ML)
  if ("reason" in f) throw new Error(f.reason)
  return f.match
}
let t = performance.now()
const index = MirrorIndex.open(dir, { create: false })
const openMillis = performance.now() - t
t = performance.now()
const r = index.search({ match: fts(query), sortBy: "relevance", sortOrder: "descending", start: 0, limit: 1000 })
const queryMillis = performance.now() - t
t = performance.now()
index.search({ match: fts("ti:attention AND ti:translation"), sortBy: "relevance", sortOrder: "descending", start: 0, limit: 1000 })
const titleMillis = performance.now() - t
const ids = r.rows.slice(0, 50).map((row) => row.id)
t = performance.now()
index.byIds(ids)
const idMillis = performance.now() - t
index.close()
process.stdout.write(JSON.stringify({ openMillis, queryMillis, titleMillis, idMillis, total: r.total, maxRssMiB: process.resourceUsage().maxRSS / 1024 }))
