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
  /** every stem's unit vector, one after another in the model's order (dims floats each) */
  readonly units: Float32Array
}

let cached: Index | undefined

const index = (): Index => {
  if (cached !== undefined) return cached
  const vectors = arxivTermVectors()
  const stems = vectors.stems ?? []
  const dims = vectors.dims
  const units = new Float32Array(stems.length * dims)
  for (let i = 0; i < stems.length; i++) {
    const v = vectors.get(stems[i]!)!
    let n = 0
    for (let c = 0; c < dims; c++) n += v[c]! * v[c]!
    const norm = Math.sqrt(n) || 1
    for (let c = 0; c < dims; c++) units[i * dims + c] = v[c]! / norm
  }
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
  const dims = vectors.dims
  for (let i = 0; i < stems.length; i++) {
    if (own.has(stems[i]!)) continue
    let s = 0
    for (let k = 0, at = i * dims; k < dims; k++) s += units[at + k]! * c[k]!
    s /= n
    if (best.length < NEAREST || s > best[best.length - 1]!.similarity) {
      best.push({ stem: stems[i]!, similarity: s })
      best.sort((a, b) => b.similarity - a.similarity)
      if (best.length > NEAREST) best.pop()
    }
  }
  return best
}
