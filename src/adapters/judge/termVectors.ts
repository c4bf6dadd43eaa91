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
  const bytes = new Int8Array(Uint8Array.from(Buffer.from(packed.int8Base64, "base64")).buffer)
  const sif = packed.sif.split(",").map(Number)
  const stems = packed.stems.split("\n")
  const vectors = new Map<string, Float32Array>()
  const weights = new Map<string, number>()
  stems.forEach((stem, i) => {
    const v = new Float32Array(dims)
    for (let c = 0; c < dims; c++) v[c] = bytes[i * dims + c]! / 127
    vectors.set(stem, v)
    weights.set(stem, sif[i]!)
  })
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
