/**
 * The local judge's learned relevance: a logistic model over the signals the
 * scoring rule computes for a paper (./score.ts `PaperFeatures`), fitted on
 * the graded tuning notes to predict that a reader who knows the field grades
 * the paper 2 ("about the note's concept: a student of this note should read
 * it") rather than 1 (related background) or 0 (off-topic). Its probability is
 * the relevance, so 0.5 is the line between "related" and "worth reading".
 *
 * The coefficients are data (`data/judge/ranker.json`, written by
 * eval/fit-ranker.ts, which anyone can re-run); the model is a weighted sum,
 * deterministic and as fast as the signals it reads.
 *
 * @since 0.3.0
 */
import { readPackageJson } from "../corpus/packageData.js"
import type { PaperFeatures } from "./score.js"

/** One signal of the model and its weight (a product of signals is written "a*b"). */
export interface RankerTerm {
  readonly name: string
  readonly weight: number
}

/** A fitted model: relevance = 1 / (1 + exp(−(bias + Σ weight · feature))). */
export interface Ranker {
  /** what the model predicts, in words */
  readonly target: string
  readonly features: ReadonlyArray<RankerTerm>
  readonly bias: number
  /** what it was fitted on (for people; not read by the judge) */
  readonly fitted?: unknown
  /**
   * The least relevance, on this model's scale, at which a digest announces a paper (the local judge names it as
   * its `digestRelevance`). It belongs to these weights: a refit changes the scale, so it is chosen again by
   * re-running eval/digest/bars.ts on the graded tuning notes (`--write-ranker` writes the rule's pick here).
   * Absent: the digest's own default bar.
   */
  readonly digestRelevance?: number | undefined
  /** how the digest's bar was chosen (for people; not read by the judge) */
  readonly digestChosen?: unknown
}

/** The signals a model may read. */
export const rankerFeatureNames: ReadonlyArray<keyof PaperFeatures> = [
  "fixed",
  "coverage",
  "similarity",
  "concept",
  "conceptTitle",
  "conceptHead",
  "conceptModifier",
  "strength",
  "titleCoverage",
  "matchedShare",
  "novelty",
  "length"
]

const known = new Set<string>(rankerFeatureNames)

/** Check a model read from a file: every term names known signals and has a finite weight. */
export const validRanker = (value: unknown): Ranker => {
  const r = value as Ranker
  const finite = (x: unknown) => typeof x === "number" && Number.isFinite(x)
  if (typeof r !== "object" || r === null || !Array.isArray(r.features) || !finite(r.bias)) {
    throw new Error("ranker: expected {target, features: [{name, weight}], bias}")
  }
  for (const t of r.features) {
    if (typeof t?.name !== "string" || !finite(t.weight) || !t.name.split("*").every((n: string) => known.has(n))) {
      throw new Error(`ranker: term ${JSON.stringify(t)} is not a weighted product of ${rankerFeatureNames.join(", ")}`)
    }
  }
  if (r.digestRelevance !== undefined && !(finite(r.digestRelevance) && r.digestRelevance > 0 && r.digestRelevance <= 1)) {
    throw new Error(`ranker: digestRelevance ${JSON.stringify(r.digestRelevance)} is not a relevance above 0 and at most 1`)
  }
  return r
}

/** The model's log-odds for a paper's signals. */
export const rankerScore = (ranker: Ranker, f: PaperFeatures): number => {
  let z = ranker.bias
  for (const t of ranker.features) {
    let v = t.weight
    for (const n of t.name.split("*")) v *= f[n as keyof PaperFeatures]
    z += v
  }
  return z
}

let cached: Ranker | undefined

/** The shipped model (`data/judge/ranker.json`), read once per process. */
export const arxivRanker = (): Ranker => (cached ??= validRanker(readPackageJson<unknown>("judge", "ranker.json")))
