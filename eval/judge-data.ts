/**
 * The judge data the evaluation scripts use: the shipped IDF table and term
 * vectors, or, to compare alternatives, modules written by
 * build-df-table.ts / build-term-vectors.ts with OUT= and named by DF= / TV=
 * (import paths relative to eval/).
 */
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import type { DfTable, TermVectors } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"

export const loadTable = async (): Promise<DfTable> => {
  if (!process.env.DF) return arxivDfTable()
  const { packedDfTable: t } = await import(process.env.DF)
  const unpack = (packed: string) =>
    new Map(packed.split("\n").map((l) => [l.slice(0, l.indexOf("\t")), Number(l.slice(l.indexOf("\t") + 1))] as [string, number]))
  return { ...t, unigrams: unpack(t.unigrams), bigrams: unpack(t.bigrams) }
}

export const loadVectors = async (): Promise<TermVectors> => {
  if (!process.env.TV) return arxivTermVectors()
  const { packedTermVectors } = await import(process.env.TV)
  const dims = packedTermVectors.dims as number
  const bytes = new Int8Array(Uint8Array.from(Buffer.from(packedTermVectors.int8Base64, "base64")).buffer)
  const map = new Map<string, Float32Array>()
  ;(packedTermVectors.stems as string).split("\n").forEach((stem, i) => {
    const v = new Float32Array(dims)
    for (let c = 0; c < dims; c++) v[c] = bytes[i * dims + c]! / 127
    map.set(stem, v)
  })
  return { dims, get: (s) => map.get(s) }
}
