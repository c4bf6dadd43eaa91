import { benchmarkRoot, foldKeys, loadBenchmark } from "./csfcube-data.js"
import { conceptOf } from "./run-scorer.js"
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams, prepareConcept } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
const bench = loadBenchmark(benchmarkRoot()); const dev = foldKeys(bench, "fold1_dev")
const t = arxivDfTable(), v = arxivTermVectors()
for (const u of bench.units) { const c = prepareConcept(conceptOf(u), t, defaultParams, v); if (c.central.strength > 0) console.log(u.key, dev.has(u.key) ? "DEV " : "test", c.central.strength.toFixed(2), (u.query as any).title) }
