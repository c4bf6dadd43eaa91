import { readFileSync } from "node:fs"
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams, prepareConcept, scorePaper } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
const pools = JSON.parse(readFileSync("/work/wt-prec6/eval/.cache/judge-pools-tuning.json", "utf8")) as any[]
const table = arxivDfTable(); const vectors = arxivTermVectors()
for (const note of (process.env.NOTES ?? "pose-estimation").split(",")) {
const pool = pools.find((x) => x.note === note)
const c = prepareConcept(pool.concept, table, defaultParams, vectors)
console.log(pool.concept.title, c.central.strength, c.central.parts, c.central.units.map((u) => `${u.key}:${u.weight.toFixed(2)}${u.modifier ? "m" : ""}[${[...u.forms.keys()].slice(0, 6).join(",")}]`).join(" "))
for (const x of pool.papers.filter((x: any) => /pose estimation/i.test(x.title)).slice(0, 3)) { const s = scorePaper(c, x, table, defaultParams, vectors); console.log(x.title, s.concept, s.features.conceptTitle) }
}
