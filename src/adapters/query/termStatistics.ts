/**
 * Term statistics for the rule-based query builder, over the judge's shipped
 * document-frequency table (36k CC0 arXiv abstracts): a word's or an
 * adjacent pair's document frequency, by Porter stem; and the stems the
 * shipped term vectors place nearest to a text's words (relatedTerms.ts).
 *
 * @since 0.1.0
 */
import type { TermStatistics } from "../../core/question.js"
import { arxivDfTable } from "../judge/dfTable.js"
import type { DfTable } from "../judge/score.js"
import { isStopWord, stem } from "../judge/tokenize.js"
import { nearestToText } from "./relatedTerms.js"

/** Statistics over a document-frequency table (default: the shipped arXiv table). */
export const fromDfTable = (table: DfTable = arxivDfTable()): TermStatistics => ({
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
  related: nearestToText
})
