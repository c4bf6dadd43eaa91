/**
 * The companion's first search through both engines of the recorded corpus (README, "The recorded corpus through
 * the mirror's engine"): for each tuning note, the concept query a default offline run sends (with the ML
 * categories, a pool of 1000) is asked of today's index and of the mirror's (built from the same records by
 * `npm run mirror:corpus -- --dir DIR`), and the two rankings compared: the share of the first 10 and 100 they hold
 * in common, of the pools, and the landmarks each pool holds. Tuning notes only.
 *
 *   node --import tsx eval/engines.ts --dir DIR
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Either, Schema } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as CorpusArxiv from "../src/adapters/arxiv/CorpusArxiv.js"
import * as MirrorArxiv from "../src/adapters/arxiv/mirror/MirrorArxiv.js"
import { readQuery } from "../src/adapters/query/queryParser.js"
import { COMPANION_CATEGORIES } from "../src/core/models.js"
import { CompanionOptions, Layers, Workflow } from "../src/index.js"
import { readLandmarks, readNote, SPLIT_SETS } from "./retrieval-data.js"

const at = process.argv.indexOf("--dir")
const dir = at >= 0 ? process.argv[at + 1] : undefined
if (dir === undefined) {
  console.error("eval/engines: --dir DIR is required (a mirror built by `npm run mirror:corpus -- --dir DIR`)")
  process.exit(2)
}
const notes = readLandmarks().filter((n) => SPLIT_SETS.tuning.includes(n.split))
const vault = mkdtempSync(join(tmpdir(), "eval-engines-"))
const options = Schema.decodeUnknownSync(CompanionOptions)({})
const queries: Array<{ note: string; query: string; landmarks: ReadonlyArray<string> }> = []
try {
  for (const n of notes) writeFileSync(join(vault, `${n.title}.md`), readNote(n))
  for (const n of notes) {
    const r = await Effect.runPromise(
      Workflow.runCompanion(`Find papers related to my '${n.title}' note`, options).pipe(Effect.provide(Layers.OfflineLayer({ vault, offline: true })))
    )
    queries.push({ note: n.note, query: r.query, landmarks: n.landmarks.map((l) => l.id) })
  }
} finally {
  rmSync(vault, { recursive: true, force: true })
}
const corpus = await Effect.runPromise(CorpusArxiv.make().pipe(Effect.provide(NodeContext.layer)))
const mirror = await Effect.runPromise(MirrorArxiv.make({ dir }))
const shared = (k: number, a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
  const first = new Set(b.slice(0, k))
  return a.slice(0, k).filter((id) => first.has(id)).length / Math.max(1, Math.min(k, a.length))
}
const sum = { top10: 0, top100: 0, pool: 0, landmarks: 0, inCorpus: 0, inMirror: 0 }
for (const q of queries) {
  const parsed = readQuery(q.query)
  if (Either.isLeft(parsed)) throw new Error(`${q.note}: ${parsed.left.message}`)
  const request = { query: parsed.right, categories: [...COMPANION_CATEGORIES], maxResults: 1000 }
  const a = (await Effect.runPromise(corpus.search(request))).papers.map((p) => p.arxivId)
  const b = (await Effect.runPromise(mirror.search(request))).papers.map((p) => p.arxivId)
  sum.top10 += shared(10, a, b)
  sum.top100 += shared(100, a, b)
  sum.pool += shared(1000, a, b)
  sum.landmarks += q.landmarks.length
  sum.inCorpus += q.landmarks.filter((l) => a.includes(l)).length
  sum.inMirror += q.landmarks.filter((l) => b.includes(l)).length
}
const pct = (x: number) => `${(100 * x / queries.length).toFixed(0)} %`
console.log(`${queries.length} tuning notes' concept queries (ML categories, pool 1000), today's index against the mirror's engine:`)
console.log(`  first 10 in common ${pct(sum.top10)}, first 100 ${pct(sum.top100)}, pools ${pct(sum.pool)}`)
console.log(`  landmarks in the pool: ${sum.inCorpus} of ${sum.landmarks} through today's index, ${sum.inMirror} through the mirror's`)
