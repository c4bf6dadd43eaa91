/**
 * The concept gate (prec9, eval/precision/README.md), diagnostic: over the graded tuning pools, the places the gate
 * removes and adds (by grade) and the landmarks it takes out of the places, with their concept match.
 *
 *   [GATES=0.2,0.3] [PARAMS='{"conceptCompounds":true}'] node --import tsx eval/concept-gate-diff.ts
 *
 * PARAMS (prec10): the gate over a changed concept match; the shipped judge stays the reference.
 */
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams, gateRelevance, prepareConcept, scorePaper, type ScoringParams } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import { setTokenCacheLimit } from "../src/adapters/judge/tokenize.js"
import { NEAR_EQUAL_RELEVANCE } from "../src/core/rules.js"
import { bandCleared, gradedTuningPools } from "./pools-data.js"
setTokenCacheLimit(50_000)
const gates = (process.env.GATES ?? "0.2,0.3").split(",").map(Number)
const table = arxivDfTable(); const vectors = arxivTermVectors()
const variant: ScoringParams = { ...defaultParams, ...(JSON.parse(process.env.PARAMS ?? "{}") as Partial<ScoringParams>) }
const near = (a: number, b: number) => a - b < NEAR_EQUAL_RELEVANCE
const out: Record<string, { removed: number[]; added: Array<number | "u">; lostLm: string[]; gainedLm: string[]; below: number[]; lmBelow: number }> = {}
for (const g of gates) out[g] = { removed: [0, 0, 0, 0], added: [], lostLm: [], gainedLm: [], below: [0, 0, 0], lmBelow: 0 }
// over every graded paper judged relevant by the shipped judge (and every landmark so judged): how many the gate holds back
const relevantGraded = [0, 0, 0]
let relevantLm = 0
for (const { pool, grades } of gradedTuningPools()) {
  const c = prepareConcept(pool.concept, table, defaultParams, vectors)
  const s = new Map(pool.papers.map((p) => [p.arxivId, scorePaper(c, p, table, defaultParams, vectors)]))
  const cv = prepareConcept(pool.concept, table, variant, vectors)
  const sv = new Map(pool.papers.map((p) => [p.arxivId, scorePaper(cv, p, table, variant, vectors)]))
  const rel0 = new Map([...s].map(([id, x]) => [id, x.relevance]))
  const base = bandCleared(pool, rel0, near, true).slice(0, 10)
  for (const [id, x] of s) {
    if (x.relevance < 0.5) continue
    const gr = grades[id]?.grade
    const lm = pool.landmarks.some((l) => l.id === id)
    if (gr !== undefined) relevantGraded[gr]!++
    if (lm) relevantLm++
    const v = sv.get(id)!
    for (const g of gates) {
      if (!(v.features.strength > 0 && v.concept < g)) continue
      if (gr !== undefined) out[g]!.below[gr]!++
      if (lm) out[g]!.lmBelow++
    }
  }
  for (const g of gates) {
    const rel = new Map([...sv].map(([id, x]) => [id, x.features.strength > 0 && x.concept < g ? gateRelevance(x.relevance) : x.relevance]))
    const places = bandCleared(pool, rel, near, true).slice(0, 10)
    const o = out[g]!
    for (const id of base) if (!places.includes(id)) o.removed[grades[id]?.grade ?? 3]!++
    for (const id of places) if (!base.includes(id)) o.added.push(grades[id]?.grade ?? "u")
    const title = (id: string) => pool.papers.find((p) => p.arxivId === id)!.title.slice(0, 70)
    for (const l of pool.landmarks) {
      if (base.includes(l.id) && !places.includes(l.id)) o.lostLm.push(`${pool.split}/${pool.note} "${pool.concept.title}" — ${l.id} ${title(l.id)} rel ${rel0.get(l.id)!.toFixed(2)} concept ${sv.get(l.id)!.concept.toFixed(2)} strength ${s.get(l.id)!.features.strength}`)
      if (!base.includes(l.id) && places.includes(l.id)) o.gainedLm.push(`${pool.split}/${pool.note} ${l.id}`)
    }
  }
}
for (const g of gates) {
  const o = out[g]!
  const count = (k: number | "u") => o.added.filter((x) => x === k).length
  console.log(`\n## gate ${g}: of the graded papers judged relevant, held back: 2s ${o.below[2]}/${relevantGraded[2]} 1s ${o.below[1]}/${relevantGraded[1]} 0s ${o.below[0]}/${relevantGraded[0]}; landmarks ${o.lmBelow}/${relevantLm}`)
  console.log(`gate ${g}: removed from the places 2s ${o.removed[2]} 1s ${o.removed[1]} 0s ${o.removed[0]} ungraded ${o.removed[3]}; added 2s ${count(2)} 1s ${count(1)} 0s ${count(0)} ungraded ${count("u")}; landmarks lost ${o.lostLm.length}, gained ${o.gainedLm.length}`)
  for (const l of o.lostLm) console.log(`  lost ${l}`)
  for (const l of o.gainedLm) console.log(`  gained ${l}`)
}
