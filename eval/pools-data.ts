/** The recorded judge pools (eval/judge-pools.ts `record`) and the keep rule simulated over them. */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Concept } from "../src/index.js"
import { NEAR_EQUAL_RELEVANCE } from "../src/core/rules.js"
import { repoRoot, type Split, SPLIT_SETS } from "./retrieval-data.js"

export interface Pool {
  readonly note: string
  readonly split: Split
  readonly landmarks: ReadonlyArray<{ readonly id: string; readonly title: string }>
  readonly concept: Concept
  readonly papers: ReadonlyArray<{ readonly arxivId: string; readonly title: string; readonly abstract: string }>
  /**
   * Per pool paper: whether it passes the impact bar as recorded offline (every paper looked up, so a judge
   * that calls other papers relevant can be simulated), its citations a year, and whether the most-cited
   * channel brought it with its count (the workflow looks up only the 50 most relevant of the others).
   */
  readonly impact?: Readonly<Record<string, { readonly pass: boolean; readonly perYear: number | undefined; readonly cited: boolean }>>
}

/** A note's grades (eval/precision/grades/<note>.json), by arXiv id. */
export type Grades = Readonly<Record<string, { readonly grade: 0 | 1 | 2 }>>

/**
 * The recorded tuning pools (eval/.cache/judge-pools-tuning.json, from `judge-pools.ts record --split tuning`) whose
 * note has a grade file, with its grades, in the recording's order. Only tuning notes are read.
 */
export const gradedTuningPools = (): ReadonlyArray<{ readonly pool: Pool; readonly grades: Grades }> =>
  (JSON.parse(readFileSync(join(repoRoot, "eval/.cache/judge-pools-tuning.json"), "utf8")) as Array<Pool>).flatMap((pool) => {
    if (!(SPLIT_SETS.tuning as ReadonlyArray<string>).includes(pool.split)) return []
    const file = join(repoRoot, "eval/precision/grades", `${pool.note}.json`)
    if (!existsSync(file)) return []
    return [{ pool, grades: (JSON.parse(readFileSync(file, "utf8")) as { papers: Grades }).papers }]
  })

/** What a paper of a pool is to the diagnostics that count by kind: a landmark, graded 2, graded 0 (none, one or two). */
export type Kind = "lm" | "2" | "0"

/** The kinds of `arxivId` in its note: a landmark of `pool`, and its grade when it is 2 or 0. */
export const kindsOf = (pool: Pool, grades: Grades, arxivId: string): Array<Kind> => {
  const kinds: Array<Kind> = []
  if (pool.landmarks.some((l) => l.id === arxivId)) kinds.push("lm")
  const g = grades[arxivId]?.grade
  if (g === 2) kinds.push("2")
  if (g === 0) kinds.push("0")
  return kinds
}

/** The papers of a pool that are relevant (≥ 0.5) and whose impact the workflow looks up, most relevant first. */
export const relevantOf = (pool: Pool, relevance: ReadonlyMap<string, number>) => {
  const impact = pool.impact ?? {}
  const relevant = pool.papers.map((p) => p.arxivId).filter((id) => relevance.get(id)! >= 0.5)
    .sort((a, b) => relevance.get(b)! - relevance.get(a)! || a.localeCompare(b))
  // the workflow looks up the 50 most relevant papers the most-cited channel did not bring a count for
  const looked = new Set(relevant.filter((id) => !impact[id]?.cited).slice(0, 50))
  const survivors = relevant.filter((id) => (impact[id]?.cited || looked.has(id)) && impact[id]?.pass)
  // relevant, looked up, failing impact for want of a count (older than the exemption): "impact not recorded"
  const unrecorded = relevant.filter((id) =>
    (impact[id]?.cited || looked.has(id)) && impact[id]?.pass !== true && impact[id]?.perYear === undefined
  )
  return { relevant, looked, survivors, unrecorded }
}

/**
 * keepOrder of src/core/rules.ts over plain ids: the papers that clear both bars, by relevance, citations per year
 * inside a run of near-equal relevance (`near(top, x)`, by default within NEAR_EQUAL_RELEVANCE of the run's top).
 * With `withUnrecorded`, the relevant papers without a recorded count compete too (a missing count sorts last in
 * its run, so such a paper loses only a near tie to a counted one): the places of the rule "a relevant paper
 * without a count takes its place".
 */
export const bandCleared = (
  pool: Pool,
  relevance: ReadonlyMap<string, number>,
  near: (top: number, x: number) => boolean = (top, x) => top - x < NEAR_EQUAL_RELEVANCE,
  withUnrecorded = false
): ReadonlyArray<string> => {
  const impact = pool.impact ?? {}
  const of = relevantOf(pool, relevance)
  const survivors = withUnrecorded
    ? [...of.survivors, ...of.unrecorded].sort((a, b) => relevance.get(b)! - relevance.get(a)! || a.localeCompare(b))
    : of.survivors
  const perYear = (id: string) => impact[id]?.perYear ?? -1
  const ordered: Array<string> = []
  for (let start = 0; start < survivors.length;) {
    const top = relevance.get(survivors[start]!)!
    let end = start + 1
    while (end < survivors.length && near(top, relevance.get(survivors[end]!)!)) end++
    ordered.push(...survivors.slice(start, end).sort((a, b) =>
      perYear(b) - perYear(a) || relevance.get(b)! - relevance.get(a)! || a.localeCompare(b)
    ))
    start = end
  }
  return ordered
}
