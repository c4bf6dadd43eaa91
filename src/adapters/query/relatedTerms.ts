/**
 * Words the recorded arXiv corpus uses beside a question's own: the stems the
 * shipped term vectors (a skip-gram model of the same 36k abstracts the
 * document frequencies come from) place nearest to the question's words taken
 * together (their SIF-weighted centroid, without the corpus's common
 * direction, as the local judge builds a text's vector), so that "forget old
 * tasks" points at "catastroph(ic)" and "inputs crafted to fool" at
 * "impercept(ible)" and "adversari(al)". Read once per process, on first use
 * (the local judge reads the same vectors).
 *
 * @since 0.9.0
 */
import type { TermVectors } from "../judge/score.js"
import { arxivTermVectors } from "../judge/termVectors.js"
import { stems as stemsOf } from "../judge/tokenize.js"

/** How many nearest stems are returned, before the caller's filters. */
const NEAREST = 12

interface Index {
  readonly vectors: TermVectors
  readonly stems: ReadonlyArray<string>
  /** each stem's unit vector, in the model's order */
  readonly units: ReadonlyArray<Float32Array>
}

let cached: Index | undefined

const index = (): Index => {
  if (cached !== undefined) return cached
  const vectors = arxivTermVectors()
  const stems = vectors.stems ?? []
  const units = stems.map((s) => {
    const v = vectors.get(s)!
    let n = 0
    for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!
    const norm = Math.sqrt(n) || 1
    return Float32Array.from(v, (x) => x / norm)
  })
  const built: Index = { vectors, stems, units }
  cached = built
  return built
}

/**
 * The stems nearest (by cosine) to a text's words taken together, most similar first, at most {@link NEAREST}; the
 * text's own stems are left out. None when the model knows none of its words.
 */
export const nearestToText = (text: string): ReadonlyArray<{ readonly stem: string; readonly similarity: number }> => {
  const { stems, units, vectors } = index()
  const own = new Set(stemsOf(text))
  const c = new Float32Array(vectors.dims)
  for (const s of own) {
    const v = vectors.get(s)
    if (v === undefined) continue
    const w = vectors.weight(s)
    for (let i = 0; i < c.length; i++) c[i]! += w * v[i]!
  }
  let along = 0
  for (let i = 0; i < c.length; i++) along += c[i]! * vectors.common[i]!
  let n = 0
  for (let i = 0; i < c.length; i++) {
    c[i]! -= along * vectors.common[i]!
    n += c[i]! * c[i]!
  }
  n = Math.sqrt(n)
  if (n === 0) return []
  const best: Array<{ stem: string; similarity: number }> = []
  for (let i = 0; i < units.length; i++) {
    if (own.has(stems[i]!)) continue
    const u = units[i]!
    let s = 0
    for (let k = 0; k < u.length; k++) s += u[k]! * c[k]!
    s /= n
    if (best.length < NEAREST || s > best[best.length - 1]!.similarity) {
      best.push({ stem: stems[i]!, similarity: s })
      best.sort((a, b) => b.similarity - a.similarity)
      if (best.length > NEAREST) best.pop()
    }
  }
  return best
}
