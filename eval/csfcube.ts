/**
 * `npm run eval`: scores the shipped offline judge (LocalJudge with its
 * defaults, through the LlmJudgePort interface) on CSFCube and prints
 * nDCG@10 and P@5 per facet and overall, the upstream fold split, the
 * threshold calibration and timings.
 *
 * Data: ../shared/data/relevance next to the repository (CC BY-NC 4.0, read in
 * place, never copied), or CSFCUBE_DIR. Timings use CC0 arXiv abstracts from
 * ../shared/data/corpus (or ARXIV_CORPUS_DIR).
 */
import { Effect } from "effect"
import MiniSearch from "minisearch"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as LocalJudge from "../src/adapters/judge/LocalJudge.js"
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import { setTokenCacheLimit } from "../src/adapters/judge/tokenize.js"
import type { LlmJudgeService } from "../src/core/ports/LlmJudgePort.js"
import {
  benchmarkRoot,
  bm25Results,
  bootstrapInterval,
  FACETS,
  foldKeys,
  loadBenchmark,
  ndcgAt,
  paperDisjointKeys,
  precisionAt,
  queryPaperOf,
  rank,
  specterResults,
  summarize,
  type Unit,
  type UnitResult
} from "./csfcube-data.js"
import { CL_FILE, corpusDir } from "./arxiv-corpus.js"
import { conceptOf } from "./run-scorer.js"


const REFERENCE = {
  random: { all: 0.194, background: 0.255, method: 0.16, result: 0.171 },
  "BM25 (README recipe)": { all: 0.505, background: 0.65, method: 0.38, result: 0.493 },
  "SPECTER (upstream run)": { all: 0.505, background: 0.629, method: 0.336, result: 0.557 }
} as const
const ORACLE_P5 = { all: 0.916, background: 1.0, method: 0.812, result: 0.941 } as const
const TARGET = 0.56

const f3 = (x: number) => x.toFixed(3)
const pct = (x: number) => `${(100 * x).toFixed(1)}%`

// ---- timings first, so peak memory reflects the judge and not the benchmark ----
const timing = (judge: LlmJudgeService) => {
  const lines = readFileSync(join(corpusDir(), CL_FILE), "utf8").split("\n").filter(Boolean)
  const papers = lines.slice(0, 501).map((l) => {
    const r = JSON.parse(l) as { id: string; title: string; abstract: string }
    return { arxivId: r.id, title: r.title, abstract: r.abstract }
  })
  const [note, ...cands] = papers
  const concept = { title: note!.title, text: note!.abstract, keywords: [] }
  const run = (n: number) => {
    const xs = cands.slice(0, n)
    const times: Array<number> = []
    for (let i = 0; i < 7; i++) {
      setTokenCacheLimit(2048) // empties the token cache: every run tokenises its papers afresh
      const t = performance.now()
      Effect.runSync(judge.judge(concept, xs))
      times.push(performance.now() - t)
    }
    times.sort((a, b) => a - b)
    return { first: times[0]!, median: times[3]! }
  }
  const heapBefore = process.memoryUsage().heapUsed
  const t0 = performance.now()
  arxivDfTable()
  const load = performance.now() - t0
  const t1 = performance.now()
  arxivTermVectors()
  const vectorsLoad = performance.now() - t1
  const cold = performance.now()
  Effect.runSync(judge.judge(concept, cands.slice(0, 50)))
  const coldMs = performance.now() - cold
  const r50 = run(50)
  const r500 = run(500)
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20
  return { load, vectorsLoad, coldMs, r50, r500, heapMb, peakRssMb: process.resourceUsage().maxRSS / 1024 }
}

const judge = Effect.runSync(LocalJudge.make)
const t = timing(judge)

// ---- the benchmark ----
const bench = loadBenchmark(benchmarkRoot())
interface Ranked {
  readonly unit: Unit
  readonly result: UnitResult
  readonly relevance: ReadonlyMap<string, number>
}
const scoreAll = (judge: LlmJudgeService): Array<Ranked> =>
  bench.units.map((unit) => {
    const js = Effect.runSync(
      judge.judge(conceptOf(unit), unit.candidates.map((c) => ({ arxivId: c.id, title: c.title, abstract: c.abstract })))
    )
    const ids = js.map((j) => j.arxivId)
    const r = rank(ids, js.map((j) => j.relevance))
    return {
      unit,
      relevance: new Map(js.map((j) => [j.arxivId, j.relevance])),
      result: { key: unit.key, facet: unit.facet, ndcg10: ndcgAt(r, unit.grades), p5: precisionAt(r, unit.grades) }
    }
  })
const t1 = performance.now()
const ranked = scoreAll(judge)
const evalMs = performance.now() - t1
const results = ranked.map((r) => r.result)

const line = (label: string, rs: ReadonlyArray<UnitResult>) => {
  const s = summarize(rs)
  return `${label.padEnd(34)} ${String(s.n).padStart(3)}  ${f3(s.ndcg10)}   ${f3(s.p5)}`
}

console.log(`CSFCube (${bench.root}), variant A query text (title + abstract), ${results.length} units, ${ranked.reduce((s, r) => s + r.unit.candidates.length, 0)} judged pairs`)
console.log(`judge: ${judge.name}; IDF table: ${arxivDfTable().documents} CC0 arXiv abstracts`)
console.log("")
console.log(`${"".padEnd(34)} ${"n".padStart(3)}  nDCG@10 P@5(>=2)`)
console.log(line("all", results))
for (const f of FACETS) console.log(line(`  ${f} (oracle P@5 ${ORACLE_P5[f]})`, results.filter((r) => r.facet === f)))
console.log("")
console.log("upstream 2-fold split (settings were chosen on fold1_dev only):")
const dev = foldKeys(bench, "fold1_dev")
const test = foldKeys(bench, "fold1_test")
console.log(line("  fold1_dev  (tuning fold)", results.filter((r) => dev.has(r.key))))
console.log(line("  fold1_test (held out)", results.filter((r) => test.has(r.key))))
console.log(line("  both folds (all 50 units)", results))
console.log("")

// ---- held out by paper: the upstream folds split (paper, facet) units, so 7 held-out units repeat a tuning paper ----
const disjoint = paperDisjointKeys(bench, "fold1_dev", "fold1_test")
const devPapers = new Set([...dev].map(queryPaperOf))
const bm25 = bm25Results(bench)
const specter = specterResults(bench)
const ci = (rs: ReadonlyArray<UnitResult>) => {
  const [lo, hi] = bootstrapInterval(rs)
  return `${f3(summarize(rs).ndcg10)} (95% CI ${f3(lo)}..${f3(hi)})`
}
console.log(
  `held out by paper: ${disjoint.size} of ${test.size} fold1_test units have a query paper that is not in fold1_dev ` +
    `(${devPapers.size} tuning papers; ${test.size - disjoint.size} held-out units repeat one of them with another facet)`
)
console.log(`  ${"nDCG@10".padEnd(28)} ${"all 50".padEnd(26)} ${"fold1_test".padEnd(26)} paper-disjoint held out`)
for (const [label, rs] of [["this judge", results], ["plain BM25 (recipe)", bm25], ["SPECTER (upstream run)", specter]] as const) {
  console.log(
    `  ${label.padEnd(28)} ${ci(rs).padEnd(26)} ${ci(rs.filter((r) => test.has(r.key))).padEnd(26)} ${ci(rs.filter((r) => disjoint.has(r.key)))}`
  )
}
console.log("")
console.log("reference points, nDCG@10 (all / background / method / result):")
for (const [name, v] of Object.entries(REFERENCE)) {
  console.log(`  ${name.padEnd(26)} ${f3(v.all)} / ${f3(v.background)} / ${f3(v.method)} / ${f3(v.result)}`)
}
const s = summarize(results)
const byFacet = FACETS.map((f) => f3(summarize(results.filter((r) => r.facet === f)).ndcg10)).join(" / ")
console.log(`  ${"this judge".padEnd(26)} ${f3(s.ndcg10)} / ${byFacet}`)
console.log("")

// ---- does the term-vector similarity earn its place? the same judge without it ----
const lexical = scoreAll(LocalJudge.makeWith({ params: { semanticWeight: 0 } })).map((r) => r.result)
const diffs = results.map((r, i) => r.ndcg10 - lexical[i]!.ndcg10)
let seed = 1
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
const boots: Array<number> = []
for (let k = 0; k < 5000; k++) {
  let sum = 0
  for (let i = 0; i < diffs.length; i++) sum += diffs[Math.floor(random() * diffs.length)]!
  boots.push(sum / diffs.length)
}
boots.sort((a, b) => a - b)
console.log(`ablation: without the term-vector similarity (semanticWeight 0 instead of ${defaultParams.semanticWeight}):`)
console.log(line("  all", lexical))
console.log(line("  fold1_test (held out)", lexical.filter((r) => test.has(r.key))))
console.log(
  `  paired over 50 units: with vectors better on ${diffs.filter((d) => d > 1e-9).length}, worse on ${diffs.filter((d) => d < -1e-9).length}; ` +
    `mean gain ${f3(diffs.reduce((a, b) => a + b, 0) / diffs.length)} nDCG@10 (bootstrap 95% CI ${f3(boots[125]!)}..${f3(boots[4875]!)})`
)
console.log("")

// ---- a BM25 library as-is: minisearch over each pool (its IDF comes from the pool itself) ----
const minisearchResults: Array<UnitResult> = bench.units.map((unit) => {
  const ms = new MiniSearch<{ id: string; title: string; abstract: string }>({
    fields: ["title", "abstract"],
    searchOptions: { boost: { title: 2 }, combineWith: "OR" }
  })
  ms.addAll(unit.candidates.map((c) => ({ id: c.id, title: c.title, abstract: c.abstract })))
  const hits = new Map(ms.search(`${unit.query.title} ${unit.query.abstract}`).map((h) => [String(h.id), h.score]))
  const ids = unit.candidates.map((c) => c.id)
  const r = rank(ids, ids.map((id) => hits.get(id) ?? 0))
  return { key: unit.key, facet: unit.facet, ndcg10: ndcgAt(r, unit.grades), p5: precisionAt(r, unit.grades) }
})
console.log("for comparison, minisearch 7 (BM25+, title boost 2, IDF from each pool, default tokenizer, no stemming):")
console.log(line("  all", minisearchResults))
console.log("")

// ---- calibration of the fixed threshold 0.5 ----
const rates = (keys?: ReadonlySet<string>) => {
  let pos = 0
  let posPass = 0
  let neg = 0
  let negPass = 0
  let one = 0
  let onePass = 0
  for (const r of ranked) {
    if (keys !== undefined && !keys.has(r.unit.key)) continue
    for (const [id, g] of r.unit.grades) {
      const pass = (r.relevance.get(id) ?? 0) >= 0.5
      if (g >= 2) (pos++, pass && posPass++)
      else if (g === 0) (neg++, pass && negPass++)
      else (one++, pass && onePass++)
    }
  }
  return { pos, posRate: posPass / pos, neg, negRate: 1 - negPass / neg, one, oneRate: onePass / one }
}
console.log("calibration of relevance >= 0.5 (per (unit, candidate) pair):")
for (const [label, keys] of [["fold1_dev", dev], ["fold1_test", test], ["all", undefined]] as const) {
  const c = rates(keys)
  console.log(
    `  ${label.padEnd(11)} grade>=2 clear 0.5: ${pct(c.posRate)} of ${c.pos}   grade 0 stay below: ${pct(c.negRate)} of ${c.neg}   (grade 1 clear: ${pct(c.oneRate)} of ${c.one})`
  )
}
// ---- precision at the bar: of the candidates the judge calls relevant, the share the experts graded relevant ----
const precision = (keys?: ReadonlySet<string>) => {
  let called = 0
  let g2 = 0
  let g1 = 0
  for (const r of ranked) {
    if (keys !== undefined && !keys.has(r.unit.key)) continue
    for (const [id, rel] of r.relevance) {
      if (rel < 0.5) continue
      called++
      const g = r.unit.grades.get(id) ?? 0
      if (g >= 2) g2++
      if (g >= 1) g1++
    }
  }
  return { called, g2: g2 / Math.max(1, called), g1: g1 / Math.max(1, called) }
}
console.log("precision at relevance >= 0.5 (of the pairs the judge calls relevant, the share the experts graded):")
for (const [label, keys] of [["fold1_dev", dev], ["fold1_test", test], ["all", undefined]] as const) {
  const p = precision(keys)
  console.log(`  ${label.padEnd(11)} grade>=2: ${pct(p.g2)}   grade>=1: ${pct(p.g1)}   (${p.called} pairs called relevant)`)
}
console.log("")
console.log("timings (this machine, CC0 arXiv abstracts, median of 7, token cache emptied before each run):")
console.log(`  model load: IDF table ${t.load.toFixed(0)} ms, term vectors ${t.vectorsLoad.toFixed(0)} ms; first call (50 papers, cold caches) ${t.coldMs.toFixed(0)} ms`)
console.log(`  50 candidates ${t.r50.median.toFixed(1)} ms; 500 candidates ${t.r500.median.toFixed(1)} ms; peak RSS ${t.peakRssMb.toFixed(0)} MB (whole process, before CSFCube is loaded); judge data + caches on the heap ~${t.heapMb.toFixed(0)} MB`)
console.log(`  whole benchmark (6,242 pairs) ${evalMs.toFixed(0)} ms`)
console.log("")
console.log(s.ndcg10 >= TARGET ? `target nDCG@10 >= ${TARGET}: met (${f3(s.ndcg10)})` : `target nDCG@10 >= ${TARGET}: NOT met (${f3(s.ndcg10)})`)
