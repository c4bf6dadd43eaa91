/**
 * The shipped document-frequency table (`data/judge/df-table.json`, written
 * by eval/build-df-table.ts), read and unpacked once per process, on first use.
 *
 * @since 0.1.0
 */
import { readPackageJson } from "../corpus/packageData.js"
import type { DfTable } from "./score.js"

const unpack = (packed: string): Map<string, number> => {
  const m = new Map<string, number>()
  for (const line of packed.split("\n")) {
    const tab = line.indexOf("\t")
    if (tab > 0) m.set(line.slice(0, tab), Number(line.slice(tab + 1)))
  }
  return m
}

/** The file's format: "stem<TAB>df" lines, sorted. */
export interface PackedDfTable {
  readonly source: string
  readonly documents: number
  readonly averageLength: number
  readonly minUnigramDf: number
  readonly minBigramDf: number
  readonly unigrams: string
  readonly bigrams: string
}

/** Unpack the data file's format (also used by the evaluation scripts for alternative tables). */
export const unpackDfTable = (packed: PackedDfTable): DfTable => ({
  source: packed.source,
  documents: packed.documents,
  averageLength: packed.averageLength,
  minUnigramDf: packed.minUnigramDf,
  minBigramDf: packed.minBigramDf,
  unigrams: unpack(packed.unigrams),
  bigrams: unpack(packed.bigrams)
})

let cached: DfTable | undefined

/** Stem and stem-pair document frequencies over 36k CC0 arXiv abstracts (cs.LG, stat.ML, cs.CL, cs.CV, cs.NE, cs.AI). */
export const arxivDfTable = (): DfTable => (cached ??= unpackDfTable(readPackageJson<PackedDfTable>("judge", "df-table.json")))
