/**
 * TermStatsPort over the document-frequency table the local judge ships
 * (stems and adjacent stem pairs of 36k CC0 arXiv abstracts), normalised with
 * the same tokenizer that built the table, so a term is counted the way the
 * table counted it.
 *
 * A word is its stem's document frequency; a phrase (or a hyphenated word,
 * "self-attention") is the frequency of its adjacent stem pair, and a longer
 * phrase the least frequent of its pairs (an upper bound). Stems and pairs
 * below the table's floor are reported "below" that floor; compounds the
 * table cannot count (a piece it skips) "unknown".
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { type SharedWordsOptions, type TermStat, type TermLookup, TermStatsPort, type TermStatsService } from "../../core/ports/TermStatsPort.js"
import { arxivDfTable } from "./dfTable.js"
import { type DfTable, idf } from "./score.js"
import { isStopWord, stem, tokenize } from "./tokenize.js"

/** The statistics of one term against a table. */
export const termStat = (table: DfTable, term: string): TermStat => {
  const folded = term.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
  const pieces = folded.match(/[a-z0-9]+/g) ?? []
  // a word the statistics skip as a function or boilerplate word ("novel approach") makes the term generic
  const standalone = folded.split(/\s+/).filter((w) => /^[a-z0-9]+$/.test(w))
  if (pieces.length === 0 || standalone.some(isStopWord)) {
    return { term, documentFrequency: table.documents, count: "exact", ignored: true }
  }
  // the table was built without one-letter, all-digit and stop-word tokens, so a compound
  // that holds one ("q-learning", "few-shot") cannot be counted
  if (pieces.some((p) => p.length < 2 || !/[a-z]/.test(p) || isStopWord(p))) {
    return { term, documentFrequency: pieces.length === 1 ? table.minUnigramDf : table.minBigramDf, count: "unknown", ignored: false }
  }
  const stems = pieces.map(stem)
  let df = Infinity
  let rare = false
  for (const s of stems) {
    const n = table.unigrams.get(s)
    if (n === undefined) {
      rare = true
      df = Math.min(df, table.minUnigramDf)
    } else df = Math.min(df, n)
  }
  for (let i = 0; i + 1 < stems.length; i++) {
    if (stems[i] === stems[i + 1]) continue
    const n = table.bigrams.get(`${stems[i]} ${stems[i + 1]}`)
    if (n === undefined) {
      rare = true
      df = Math.min(df, table.minBigramDf)
    } else df = Math.min(df, n)
  }
  return { term, documentFrequency: df, count: rare ? "below" : "exact", ignored: false }
}

/**
 * The words several titles share against a table: a stem counted once a title, kept when at least `least` titles use
 * it, no known text does, and fewer than `share` of the table's abstracts do; by titles × the stem's IDF (then the
 * stem), the first `count`, each as the first title wrote it (eval/ask-replay.ts `feedbackWords`).
 */
export const sharedWords = (
  table: DfTable,
  titles: ReadonlyArray<string>,
  known: ReadonlyArray<string>,
  options: SharedWordsOptions
): ReadonlyArray<string> => {
  const knownStems = new Set(known.flatMap((w) => tokenize(w)).flatMap((t) => t === null ? [] : [t.stem]))
  const counted = new Map<string, { n: number; word: string }>()
  for (const title of titles) {
    for (const [s, word] of new Map(tokenize(title).flatMap((t) => t === null ? [] : [[t.stem, t.word] as const]))) {
      const x = counted.get(s)
      counted.set(s, { n: (x?.n ?? 0) + 1, word: x?.word ?? word })
    }
  }
  return [...counted]
    .filter(([s, x]) => x.n >= options.least && !knownStems.has(s) && (table.unigrams.get(s) ?? 0) < options.share * table.documents)
    .map(([s, x]) => ({ s, word: x.word, score: x.n * idf(table, s, false) }))
    .sort((a, b) => b.score - a.score || a.s.localeCompare(b.s))
    .slice(0, options.count)
    .map((x) => x.word)
}

/** Build the service over a table (the shipped one by default). */
export const makeWith = (table: () => DfTable = arxivDfTable): TermStatsService => ({
  source: "document frequencies of 36,421 CC0 arXiv abstracts (cs.LG, stat.ML, cs.CL, cs.CV, cs.NE, cs.AI; 2007–2017)",
  lookup: (terms) =>
    Effect.sync((): TermLookup => {
      const t = table()
      return { documents: t.documents, stats: terms.map((term) => termStat(t, term)) }
    }),
  sharedWords: (titles, known, options) => Effect.sync(() => sharedWords(table(), titles, known, options))
})

/** The shipped statistics as a service (the table is unpacked on first use). */
export const make: Effect.Effect<TermStatsService> = Effect.sync(() => makeWith())

/** The shipped statistics as the TermStatsPort. */
export const layer: Layer.Layer<TermStatsPort> = Layer.effect(TermStatsPort, make)

/** Statistics over another table (tests, other corpora). */
export const layerWith = (table: DfTable): Layer.Layer<TermStatsPort> => Layer.succeed(TermStatsPort, makeWith(() => table))
