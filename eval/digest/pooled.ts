/**
 * The digest evals' figures: a share pooled over the graded papers of every note, and its 95 % percentile
 * bootstrap interval over notes (2,000 draws, seed 27), as eval/digest/bars.ts and eval/digest/heldout.ts report it.
 */
import { seededRandom } from "../retrieval-data.js"

/** The share `num` of the graded papers, pooled over the rows (0 when nothing is graded). */
export const pooledShare = <R extends { readonly graded: number }>(rows: ReadonlyArray<R>, num: (r: R) => number): number => {
  const d = rows.reduce((s, r) => s + r.graded, 0)
  return d === 0 ? 0 : rows.reduce((s, r) => s + num(r), 0) / d
}

/** The pooled share and its 95 % percentile bootstrap interval over the rows (notes): [share, low, high]. */
export const pooledInterval = <R extends { readonly graded: number }>(
  rows: ReadonlyArray<R>,
  num: (r: R) => number
): readonly [number, number, number] => {
  const random = seededRandom(27)
  const samples: Array<number> = []
  for (let b = 0; b < 2000; b++) samples.push(pooledShare(rows.map(() => rows[Math.floor(random() * rows.length)]!), num))
  samples.sort((a, b) => a - b)
  return [pooledShare(rows, num), samples[50]!, samples[1949]!]
}
