/** Runs a scoring configuration over CSFCube units (shared by eval/csfcube.ts and eval/tune.ts). */
import { extractKeywords } from "../src/core/keywords.js"
import { type DfTable, prepareConcept, type ScoringParams, scorePaper, type TermVectors } from "../src/adapters/judge/score.js"
import { type Benchmark, ndcgAt, precisionAt, rank, type Unit, type UnitResult } from "./csfcube-data.js"

/** The concept a note would give: title, text, and the core's keyword extraction. */
export const conceptOf = (u: Unit) => ({
  title: u.query.title,
  text: u.query.abstract,
  keywords: extractKeywords(u.query.abstract, u.query.title).map((k) => k.term)
})

export interface Scored {
  readonly unit: Unit
  readonly ids: ReadonlyArray<string>
  readonly relevance: ReadonlyArray<number>
  readonly rankScore: ReadonlyArray<number>
  /** the combined score before the logistic map (coverage + semanticWeight · similarity) */
  readonly coverage: ReadonlyArray<number>
}

export const scoreUnits = (
  units: ReadonlyArray<Unit>,
  table: DfTable,
  p: ScoringParams,
  vectors?: TermVectors
): Array<Scored> =>
  units.map((unit) => {
    const c = prepareConcept(conceptOf(unit), table, p, vectors)
    const s = unit.candidates.map((cand) => scorePaper(c, cand, table, p, vectors))
    return {
      unit,
      ids: unit.candidates.map((x) => x.id),
      relevance: s.map((x) => x.relevance),
      rankScore: s.map((x) => x.score),
      coverage: s.map((x) => x.score)
    }
  })

export const metrics = (scored: ReadonlyArray<Scored>): Array<UnitResult> =>
  scored.map(({ unit, ids, rankScore }) => {
    const r = rank(ids, rankScore)
    return { key: unit.key, facet: unit.facet, ndcg10: ndcgAt(r, unit.grades), p5: precisionAt(r, unit.grades) }
  })

export type { Benchmark }
