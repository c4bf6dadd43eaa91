/**
 * Words the recorded arXiv corpus uses for a question's words: the nearest
 * stems in the shipped term vectors (a skip-gram model of the same 36k
 * abstracts the document frequencies come from), each given back as the
 * corpus's most common surface word of that stem, so a search can ask for it
 * ("distillation" → "teacher"). Read once per process, on first use.
 *
 * @since 0.9.0
 */
import { arxivTermVectors } from "../judge/termVectors.js"
import type { TermVectors } from "../judge/score.js"
import { isStopWord, stem } from "../judge/tokenize.js"

/** One word related to another, with the cosine of their stems' vectors. */
export interface RelatedWord {
  readonly word: string
  readonly similarity: number
}

/** How many neighbours are read per word before filtering. */
const NEIGHBOURS = 12

interface Index {
  readonly vectors: TermVectors
  /** each stem's unit vector, in the model's order */
  readonly units: ReadonlyArray<Float32Array>
  readonly stems: ReadonlyArray<string>
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
  const built: Index = { vectors, units, stems }
  cached = built
  return built
}

/**
 * The stems nearest to a word's stem by cosine, most similar first (at most {@link NEIGHBOURS}), each with its
 * similarity; none when the model does not know the word.
 */
export const nearestStems = (word: string): ReadonlyArray<{ readonly stem: string; readonly similarity: number }> => {
  const w = word.toLowerCase()
  if (isStopWord(w)) return []
  const { stems, units } = index()
  const at = stems.indexOf(stem(w))
  if (at < 0) return []
  const q = units[at]!
  const best: Array<{ stem: string; similarity: number }> = []
  for (let i = 0; i < units.length; i++) {
    if (i === at) continue
    const u = units[i]!
    let s = 0
    for (let c = 0; c < u.length; c++) s += u[c]! * q[c]!
    if (best.length < NEIGHBOURS || s > best[best.length - 1]!.similarity) {
      best.push({ stem: stems[i]!, similarity: s })
      best.sort((a, b) => b.similarity - a.similarity)
      if (best.length > NEIGHBOURS) best.pop()
    }
  }
  return best
}
