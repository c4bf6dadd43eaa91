/**
 * Scores parameter overrides on both folds and all 50 CSFCube units, one line each
 * (for trying a knob; choose on fold1_dev only):
 *
 *   node --import tsx eval/sweep.ts '[{}, {"k1": 1.6}, {"semanticWeight": 0}]'
 */
import { defaultParams, type ScoringParams } from "../src/adapters/judge/score.js"
import { setTokenCacheLimit } from "../src/adapters/judge/tokenize.js"
import { benchmarkRoot, FACETS, foldKeys, loadBenchmark, summarize } from "./csfcube-data.js"
import { loadTable, loadVectors } from "./judge-data.js"
import { metrics, scoreUnits } from "./run-scorer.js"

setTokenCacheLimit(20_000)
const bench = loadBenchmark(benchmarkRoot())
const table = await loadTable()
const vectors = await loadVectors()
const dev = foldKeys(bench, "fold1_dev"), test = foldKeys(bench, "fold1_test")
const cfgs = JSON.parse(process.argv[2] ?? "[{}]") as Array<Partial<ScoringParams>>
for (const o of cfgs) {
  const p = { ...defaultParams, ...o }
  const rs = metrics(scoreUnits(bench.units, table, p, vectors))
  const f = (ks: ReadonlySet<string>) => summarize(rs.filter((r) => ks.has(r.key))).ndcg10.toFixed(4)
  const fac = FACETS.map((x) => summarize(rs.filter((r) => r.facet === x)).ndcg10.toFixed(3)).join("/")
  console.log(`dev ${f(dev)} test ${f(test)} all ${summarize(rs).ndcg10.toFixed(4)} [${fac}]  ${JSON.stringify(o)}`)
}
