/**
 * The shipped document-frequency table (`data/judge/df-table.json`, written
 * by eval/build-df-table.ts), read and unpacked once per process, on first use.
 *
 * @since 0.1.0
 */
import { readPackageJson } from "../corpus/packageData.js"
import type { DfTable } from "./score.js"

/**
 * "key<TAB>count" lines into a map, read in place (no array of lines): a count of digits alone is read digit by
 * digit, any other as `Number` reads it; a line without a tab after its first character is skipped.
 */
const unpack = (packed: string): Map<string, number> => {
  const m = new Map<string, number>()
  for (let at = 0; at < packed.length;) {
    let end = packed.indexOf("\n", at)
    if (end < 0) end = packed.length
    const tab = packed.indexOf("\t", at)
    if (tab > at && tab < end) {
      let n = 0
      let i = tab + 1
      for (let c: number; i < end && (c = packed.charCodeAt(i)) >= 0x30 && c <= 0x39; i++) n = n * 10 + (c - 0x30)
      m.set(packed.slice(at, tab), i === end && end > tab + 1 ? n : Number(packed.slice(tab + 1, end)))
    }
    at = end + 1
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

/** `data/judge/concept-variants.json` (eval/build-concept-variants.ts): acronyms the corpus defines, word families. */
export interface PackedConceptVariants {
  readonly source: string
  readonly documents: number
  /** lower-case acronym → its long forms, most often written first */
  readonly acronyms: Readonly<Record<string, ReadonlyArray<string>>>
  /** "family<TAB>df" lines, sorted */
  readonly families: string
}

/** A table with the corpus's acronyms and word families added. */
export const withConceptVariants = (table: DfTable, variants: PackedConceptVariants): DfTable => ({
  ...table,
  acronyms: new Map(Object.entries(variants.acronyms)),
  families: unpack(variants.families)
})

let cached: DfTable | undefined

/**
 * Stem and stem-pair document frequencies over 36k CC0 arXiv abstracts (cs.LG, stat.ML, cs.CL, cs.CV, cs.NE, cs.AI),
 * with the acronyms those abstracts define and the word families Porter conflates.
 */
export const arxivDfTable = (): DfTable =>
  (cached ??= withConceptVariants(
    unpackDfTable(readPackageJson<PackedDfTable>("judge", "df-table.json")),
    readPackageJson<PackedConceptVariants>("judge", "concept-variants.json")
  ))
