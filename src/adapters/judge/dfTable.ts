/**
 * The shipped document-frequency table, unpacked once on first use.
 *
 * @since 0.1.0
 */
import { packedDfTable } from "./dfTable.generated.js"
import type { DfTable } from "./score.js"

const unpack = (packed: string): Map<string, number> => {
  const m = new Map<string, number>()
  for (const line of packed.split("\n")) {
    const tab = line.indexOf("\t")
    if (tab > 0) m.set(line.slice(0, tab), Number(line.slice(tab + 1)))
  }
  return m
}

let cached: DfTable | undefined

/** Stem and stem-pair document frequencies over 36k CC0 arXiv abstracts (cs.LG, stat.ML, cs.CL, cs.CV, cs.NE, cs.AI). */
export const arxivDfTable = (): DfTable => {
  if (cached === undefined) {
    cached = {
      source: packedDfTable.source,
      documents: packedDfTable.documents,
      averageLength: packedDfTable.averageLength,
      minUnigramDf: packedDfTable.minUnigramDf,
      minBigramDf: packedDfTable.minBigramDf,
      unigrams: unpack(packedDfTable.unigrams),
      bigrams: unpack(packedDfTable.bigrams)
    }
  }
  return cached
}
