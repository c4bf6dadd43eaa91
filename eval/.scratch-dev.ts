import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import { benchmarkRoot, foldKeys, loadBenchmark, summarize } from "./csfcube-data.js"
import { metrics, scoreUnits } from "./run-scorer.js"
const bench = loadBenchmark(benchmarkRoot()); const dev = foldKeys(bench, "fold1_dev")
const units = bench.units.filter((u) => dev.has(u.key))
for (const g of JSON.parse(process.env.GRID ?? "[{}]")) {
  const p = { ...defaultParams, ...g }
  console.log(JSON.stringify(g), "fold1_dev nDCG@10", summarize(metrics(scoreUnits(units, arxivDfTable(), p, arxivTermVectors()))).ndcg10.toFixed(4))
}
if (process.env.ROWS) {
  const [a, b] = (JSON.parse(process.env.GRID!) as object[]).map((g) => metrics(scoreUnits(units, arxivDfTable(), { ...defaultParams, ...g }, arxivTermVectors())))
  a!.forEach((x, i) => { if (Math.abs(x.ndcg10 - b![i]!.ndcg10) > 1e-9) console.log(x.key, x.ndcg10.toFixed(3), "→", b![i]!.ndcg10.toFixed(3), units[i]!.query.title) })
}
