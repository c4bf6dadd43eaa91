/** Runs a scoring configuration over CSFCube units (shared by eval/csfcube.ts and eval/tune.ts). */
import { extractKeywords } from "../src/core/keywords.js"
import type { Ranker } from "../src/adapters/judge/ranker.js"
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
  vectors?: TermVectors,
  ranker?: Ranker | null
): Array<Scored> =>
  units.map((unit) => {
    const c = prepareConcept(conceptOf(unit), table, p, vectors)
    const s = unit.candidates.map((cand) => scorePaper(c, cand, table, p, vectors, ranker))
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

/**
 * The fixed map from combined score to relevance, relevance = 1 / (1 + exp(-slope · (score − midpoint))):
 * a class-balanced logistic fit, grade >= 2 vs grade 0 (grade 1 left out), by Newton's method.
 */
export const fitRelevanceMap = (scored: ReadonlyArray<Scored>): { readonly slope: number; readonly midpoint: number } => {
  const xs: Array<number> = []
  const ys: Array<number> = []
  for (const s of scored) {
    s.ids.forEach((id, i) => {
      const g = s.unit.grades.get(id) ?? 0
      if (g === 1) return
      xs.push(s.coverage[i]!)
      ys.push(g >= 2 ? 1 : 0)
    })
  }
  const nPos = ys.filter((y) => y === 1).length
  const nNeg = ys.length - nPos
  const wPos = ys.length / (2 * nPos)
  const wNeg = ys.length / (2 * nNeg)
  // Newton's method on (a, c) for p = sigmoid(a·x + c)
  let a = 10
  let c = -1
  for (let it = 0; it < 100; it++) {
    let ga = 0
    let gc = 0
    let haa = 0
    let hac = 0
    let hcc = 0
    xs.forEach((x, i) => {
      const w = ys[i] === 1 ? wPos : wNeg
      const p = 1 / (1 + Math.exp(-(a * x + c)))
      const r = (p - ys[i]!) * w
      ga += r * x
      gc += r
      const h = p * (1 - p) * w
      haa += h * x * x
      hac += h * x
      hcc += h
    })
    const det = haa * hcc - hac * hac
    const da = (hcc * ga - hac * gc) / det
    const dc = (haa * gc - hac * ga) / det
    a -= da
    c -= dc
    if (Math.abs(da) + Math.abs(dc) < 1e-9) break
  }
  return { slope: Math.round(a * 10) / 10, midpoint: Math.round((-c / a) * 10_000) / 10_000 }
}

/**
 * Precision at the relevance bar: of the (unit, candidate) pairs the judge calls relevant (relevance >= bar),
 * the share graded >= 2 and the share graded >= 1 by CSFCube's experts.
 */
export const precisionAtBar = (
  scored: ReadonlyArray<Scored>,
  bar = 0.5
): { readonly called: number; readonly pairs: number; readonly grade2: number; readonly grade1: number } => {
  let called = 0
  let pairs = 0
  let g2 = 0
  let g1 = 0
  for (const s of scored) {
    s.ids.forEach((id, i) => {
      pairs++
      if (s.relevance[i]! < bar) return
      called++
      const g = s.unit.grades.get(id) ?? 0
      if (g >= 2) g2++
      if (g >= 1) g1++
    })
  }
  return { called, pairs, grade2: called === 0 ? 0 : g2 / called, grade1: called === 0 ? 0 : g1 / called }
}
