/**
 * The shipped term vectors (a 100-dimension skip-gram word2vec model of 36k
 * CC0 arXiv abstracts, int8, with SIF weights and the corpus's common
 * direction) in `data/judge/term-vectors.json` (written by
 * eval/build-term-vectors.ts), read and unpacked once per process, on first use.
 *
 * @since 0.1.0
 */
import { readPackageJson } from "../corpus/packageData.js"
import type { TermVectors } from "./score.js"

/** The file's format: one stem per line, SIF weights comma-separated, the int8 vectors in base64. */
export interface PackedTermVectors {
  readonly source?: string
  readonly dims: number
  readonly stems: string
  readonly sif: string
  readonly common: ReadonlyArray<number>
  readonly int8Base64: string
}

/** Unpack the data file's format (also used by the evaluation scripts for alternative models). */
export const unpackTermVectors = (packed: PackedTermVectors): TermVectors => {
  const dims = packed.dims
  const raw = Buffer.from(packed.int8Base64, "base64")
  const bytes = new Int8Array(raw.buffer, raw.byteOffset, raw.length)
  const sif = packed.sif.split(",").map(Number)
  const stems = packed.stems.split("\n")
  // every vector in one buffer, in the order of the stems; each stem's is a view of its part
  const matrix = new Float32Array(stems.length * dims)
  for (let j = 0; j < matrix.length; j++) matrix[j] = bytes[j]! / 127
  const vectors = new Map<string, Float32Array>()
  const weights = new Map<string, number>()
  for (let i = 0; i < stems.length; i++) {
    vectors.set(stems[i]!, matrix.subarray(i * dims, (i + 1) * dims))
    weights.set(stems[i]!, sif[i]!)
  }
  return {
    dims,
    get: (stem) => vectors.get(stem),
    weight: (stem) => weights.get(stem) ?? 0,
    common: Float32Array.from(packed.common),
    stems
  }
}

let cached: TermVectors | undefined

/** The shipped term vectors, unpacked on first use. */
export const arxivTermVectors = (): TermVectors =>
  (cached ??= unpackTermVectors(readPackageJson<PackedTermVectors>("judge", "term-vectors.json")))
