import { MirrorIndex } from "/work/wt-mirror2/src/adapters/arxiv/mirror/MirrorIndex.js"
import { toFtsQuery } from "/work/wt-mirror2/src/adapters/arxiv/mirror/ftsQuery.js"
import { parseQuery } from "/work/wt-mirror2/src/adapters/query/queryParser.js"
const idx = MirrorIndex.open("/tmp/mirror2/corpus-mirror", { create: false })
for (const q of ["ti:adversarial AND submittedDate:[201401010000 TO 201412312359]", "ti:adversarial", "ti:adversarial AND submittedDate:[199101010000 TO 201312312359]"]) {
  const p = parseQuery(q); if (p._tag !== "Ok") throw 1
  const f = toFtsQuery(p.query, ["stat.ML"]) as any
  for (let i = 0; i < 2; i++) { const t = performance.now(); const r = idx.search({ ...f, sortBy: "relevance", sortOrder: "descending", start: 0, limit: 50 }); console.log(q, r.total, (performance.now() - t).toFixed(0), "ms") }
}
