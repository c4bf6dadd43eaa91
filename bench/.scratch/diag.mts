// scratch diagnostic: each tuning note's concept query (as the corpus run sent it) through both engines
import { NodeContext } from "@effect/platform-node"
import { Effect, Either, Schema } from "effect"
import { mkdtempSync, writeFileSync, readFileSync } from "node:fs"
import { join } from "node:path"
import * as CorpusArxiv from "/work/wt-mirror2/src/adapters/arxiv/CorpusArxiv.js"
import * as MirrorArxiv from "/work/wt-mirror2/src/adapters/arxiv/mirror/MirrorArxiv.js"
import { MirrorIndex } from "/work/wt-mirror2/src/adapters/arxiv/mirror/MirrorIndex.js"
import { toFtsQuery } from "/work/wt-mirror2/src/adapters/arxiv/mirror/ftsQuery.js"
import { readQuery } from "/work/wt-mirror2/src/adapters/query/queryParser.js"
import { CompanionOptions, Layers, Workflow } from "/work/wt-mirror2/src/index.js"
import { readLandmarks, readNote, SPLIT_SETS } from "/work/wt-mirror2/eval/retrieval-data.js"

const notes = readLandmarks().filter((n) => SPLIT_SETS.tuning.includes(n.split))
const vault = mkdtempSync("/tmp/mirror2/diag-vault-")
for (const n of notes) writeFileSync(join(vault, `${n.title}.md`), readNote(n))
const cacheFile = "/tmp/mirror2/diag-queries.json"
let queries: Array<{ note: string; query: string; titleQuery?: string; landmarks: string[] }>
try { queries = JSON.parse(readFileSync(cacheFile, "utf8")) } catch {
  queries = []
  for (const n of notes) {
    const r = await Effect.runPromise(Workflow.runCompanion(`Find papers related to my '${n.title}' note`, Schema.decodeUnknownSync(CompanionOptions)({})).pipe(Effect.provide(Layers.OfflineLayer({ vault, offline: true }))))
    queries.push({ note: n.note, query: r.query, titleQuery: r.titleQuery, landmarks: n.landmarks.map((l) => l.id) })
  }
  writeFileSync(cacheFile, JSON.stringify(queries))
}
const ML = ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"]
const corpus = await Effect.runPromise(CorpusArxiv.make().pipe(Effect.provide(NodeContext.layer)))
const mirror = await Effect.runPromise(MirrorArxiv.make({ dir: "/tmp/mirror2/corpus-mirror" }))
const idx = MirrorIndex.open("/tmp/mirror2/corpus-mirror", { create: false })
let sum1000 = 0, sum10 = 0, sum100 = 0, sumWhole = 0, narrowed = 0, lmC = 0, lmM = 0, lmW = 0, n = 0
for (const q of queries) {
  const parsed = readQuery(q.query)
  if (Either.isLeft(parsed)) { console.log(q.note, "unparsed"); continue }
  const req = { query: parsed.right, categories: ML, maxResults: 1000 }
  const a = await Effect.runPromise(corpus.search(req))
  const b = await Effect.runPromise(mirror.search(req))
  const f = toFtsQuery(parsed.right, ML)
  const whole = "reason" in f ? [] : idx.search({ match: f.match, sortBy: "relevance", sortOrder: "descending", start: 0, limit: 1000 }).rows.map((r) => r.id)
  const A = a.papers.map((p) => p.arxivId), B = b.papers.map((p) => p.arxivId)
  const ov = (k: number, x: string[], y: string[]) => { const s = new Set(y.slice(0, k)); return x.slice(0, k).filter((i) => s.has(i)).length / Math.max(1, Math.min(k, x.length)) }
  const isNarrow = b.total !== whole.length && JSON.stringify(B) !== JSON.stringify(whole)
  if (JSON.stringify(B) !== JSON.stringify(whole)) narrowed++
  sum10 += ov(10, A, B); sum100 += ov(100, A, B); sum1000 += ov(1000, A, B); sumWhole += ov(1000, A, whole); n++
  const inC = q.landmarks.filter((l) => A.includes(l)).length, inM = q.landmarks.filter((l) => B.includes(l)).length, inW = q.landmarks.filter((l) => whole.includes(l)).length
  lmC += inC; lmM += inM; lmW += inW
  if (inC !== inM || inM !== inW) console.log(q.note, `totals corpus ${a.total} mirror ${b.total}`, `landmarks in pool: corpus ${inC} mirror ${inM} mirror-whole ${inW} of ${q.landmarks.length}`, isNarrow ? "narrowed" : "")
}
console.log({ notes: n, top10: (sum10 / n).toFixed(3), top100: (sum100 / n).toFixed(3), pool1000: (sum1000 / n).toFixed(3), poolVsMirrorWhole: (sumWhole / n).toFixed(3), narrowedQueries: narrowed, landmarksInPool: { corpus: lmC, mirror: lmM, mirrorWhole: lmW } })
