/**
 * Term statistics for the rule-based query builder, over the judge's shipped
 * document-frequency table (36k CC0 arXiv abstracts): a word's or an
 * adjacent pair's document frequency, by Porter stem.
 *
 * @since 0.1.0
 */
import type { TermStatistics } from "../../core/question.js"
import { arxivDfTable } from "../judge/dfTable.js"
import type { DfTable } from "../judge/score.js"
import { isStopWord, stem } from "../judge/tokenize.js"
import { nearestStems } from "./relatedTerms.js"

/** Statistics over a document-frequency table (default: the shipped arXiv table). */
export const fromDfTable = (table: DfTable = arxivDfTable()): TermStatistics => {
  const reverse = new Map<string, string>()
  for (const [a, longs] of table.acronyms ?? []) {
    for (const l of longs) {
      const key = l.split(/\s+/).map((w) => stem(w)).join(" ")
      if (!reverse.has(key)) reverse.set(key, a)
    }
  }
  return {
  acronym: (word) => table.acronyms?.get(word.toLowerCase()),
  acronymOf: (phrase) => reverse.get(phrase.toLowerCase().split(/[\s-]+/).map((w) => stem(w)).join(" ")),
  documents: table.documents,
  floor: table.minUnigramDf,
  df: (words) => {
    const parts = words.flatMap((w) => w.toLowerCase().split(/[-'\s]+/)).filter((w) => w !== "")
    // a function word the table leaves out ("another", "versus") is in every abstract, not rarer than its floor
    if (parts.length > 0 && parts.every(isStopWord)) return table.documents
    const stems = parts.filter((w) => !isStopWord(w)).map(stem)
    if (stems.length === 1) return table.unigrams.get(stems[0]!)
    if (stems.length === 2) return table.bigrams.get(`${stems[0]} ${stems[1]}`)
    return undefined
  },
  related: nearestStems
  }
}
