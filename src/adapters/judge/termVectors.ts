/**
 * The shipped term vectors (a 63-dimension LSA model of 36k CC0 arXiv
 * abstracts, int8), unpacked once on first use.
 *
 * @since 0.1.0
 */
import type { TermVectors } from "./score.js"
import { packedTermVectors } from "./termVectors.generated.js"

let cached: TermVectors | undefined

/** Unit-length term vectors keyed by stem. */
export const arxivTermVectors = (): TermVectors => {
  if (cached === undefined) {
    const dims = packedTermVectors.dims
    const bytes = new Int8Array(Uint8Array.from(Buffer.from(packedTermVectors.int8Base64, "base64")).buffer)
    const map = new Map<string, Float32Array>()
    packedTermVectors.stems.split("\n").forEach((stem, i) => {
      const v = new Float32Array(dims)
      for (let c = 0; c < dims; c++) v[c] = bytes[i * dims + c]! / 127
      map.set(stem, v)
    })
    cached = { dims, get: (stem) => map.get(stem) }
  }
  return cached
}
