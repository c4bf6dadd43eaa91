/**
 * The local judge's scoring rule, as plain functions (no Effect, no I/O) so the
 * evaluation script can run it with other settings.
 *
 * relevance — BM25F with fixed corpus statistics. The concept (note title +
 * text + keywords) is reduced to its `maxQueryTerms` most salient stems and
 * stem pairs (salience = log-scaled count in the note × IDF). Each paper is
 * scored on its own with BM25F (title counts `titleWeight` times an abstract
 * occurrence); IDF and average length come from a document-frequency table of
 * 36k CC0 arXiv abstracts shipped with the package, never from the other
 * candidates, so a paper's score does not depend on which papers it is judged
 * with or in what order. The raw score is divided by the most the concept's
 * terms could earn (every term saturated), giving `coverage` in [0, 1); a
 * fixed logistic curve maps coverage to relevance.
 *
 * novelty — the share (IDF-weighted) of the paper's own most salient stems
 * that the note never mentions: what the paper adds beyond the note.
 *
 * @since 0.1.0
 */
import { bigrams, type Token, tokenize } from "./tokenize.js"

/** Document frequencies from a reference corpus. */
export interface DfTable {
  readonly source: string
  readonly documents: number
  readonly averageLength: number
  readonly minUnigramDf: number
  readonly minBigramDf: number
  readonly unigrams: ReadonlyMap<string, number>
  readonly bigrams: ReadonlyMap<string, number>
}

/** The knobs of the scoring rule. */
export interface ScoringParams {
  /** BM25 term-frequency saturation */
  readonly k1: number
  /** BM25 length normalisation */
  readonly b: number
  /** a title occurrence counts as this many abstract occurrences */
  readonly titleWeight: number
  /** weight of a matched stem pair relative to a matched stem */
  readonly bigramWeight: number
  /** how many of the concept's most salient stems (and, separately, stem pairs) make the query */
  readonly maxQueryTerms: number
  /** extra note-occurrences credited to each word of the note's extracted keywords */
  readonly keywordBoost: number
  /** extra note-occurrences credited to each word of the note's title */
  readonly conceptTitleBoost: number
  /** logistic map from coverage to relevance: relevance = 1 / (1 + exp(-slope · (coverage − midpoint))) */
  readonly midpoint: number
  readonly slope: number
  /** how many of the paper's salient stems novelty looks at */
  readonly noveltyTerms: number
  /** share of the score taken from the reverse direction (the paper's salient terms found in the note) */
  readonly reverseWeight: number
  /** how a term's count in the note becomes its weight */
  readonly queryTf: "log" | "raw" | "sqrt" | "one"
}

export const defaultParams: ScoringParams = {
  k1: 1.2,
  b: 0.75,
  titleWeight: 2,
  bigramWeight: 0.5,
  maxQueryTerms: 40,
  keywordBoost: 1,
  conceptTitleBoost: 1,
  midpoint: 0.15,
  slope: 20,
  noveltyTerms: 10,
  reverseWeight: 0,
  queryTf: "log"
}

/** One query term: a stem or a stem pair, with what the note said and how much it weighs. */
interface QueryTerm {
  readonly key: string
  readonly surface: string
  readonly idf: number
  readonly weight: number
  readonly pair: boolean
}

/** A concept prepared for scoring many papers. */
export interface PreparedConcept {
  readonly terms: ReadonlyArray<QueryTerm>
  /** all stems the note uses (for novelty) */
  readonly vocabulary: ReadonlySet<string>
  /** the most a paper could score: every query term saturated */
  readonly maxScore: number
  /** stem and stem-pair counts of the note, and its length (for the reverse direction) */
  readonly tf: ReadonlyMap<string, number>
  readonly length: number
}

export interface ConceptInput {
  readonly title: string
  readonly text: string
  readonly keywords: ReadonlyArray<string>
}

export interface PaperInput {
  readonly title: string
  readonly abstract: string
}

/** A matched query term and what it contributed. */
export interface Match {
  readonly term: string
  readonly contribution: number
}

export interface PaperScore {
  /** raw BM25F score */
  readonly raw: number
  /** raw / maxScore, in [0, 1) */
  readonly coverage: number
  readonly relevance: number
  readonly novelty: number
  /** matched query terms, largest contribution first */
  readonly matches: ReadonlyArray<Match>
  /** the paper's salient words the note does not use, most salient first */
  readonly additions: ReadonlyArray<string>
}

const qtf = (n: number, p: ScoringParams): number =>
  p.queryTf === "log" ? 1 + Math.log(Math.max(n, 1)) : p.queryTf === "raw" ? n : p.queryTf === "sqrt" ? Math.sqrt(n) : 1

const idfOf = (df: number, n: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5))

/** IDF of a stem or a stem pair; a term rarer than the table's cut-off gets df = cut-off / 2. */
export const idf = (table: DfTable, key: string, pair: boolean): number =>
  pair
    ? idfOf(table.bigrams.get(key) ?? table.minBigramDf / 2, table.documents)
    : idfOf(table.unigrams.get(key) ?? table.minUnigramDf / 2, table.documents)

const count = (m: Map<string, number>, k: string, by: number) => m.set(k, (m.get(k) ?? 0) + by)

/** The word most often written for a stem (ties: alphabetical), for rationales. */
const surfaceForms = (tokens: ReadonlyArray<Token | null>): Map<string, string> => {
  const seen = new Map<string, Map<string, number>>()
  for (const t of tokens) {
    if (t === null) continue
    const m = seen.get(t.stem) ?? new Map<string, number>()
    count(m, t.word, 1)
    seen.set(t.stem, m)
  }
  const out = new Map<string, string>()
  for (const [s, m] of seen) {
    out.set(s, [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0])
  }
  return out
}

/** Reduce a concept to its weighted query terms. */
export const prepareConcept = (concept: ConceptInput, table: DfTable, p: ScoringParams): PreparedConcept => {
  const body = tokenize(concept.text)
  const title = tokenize(concept.title)
  const kw = concept.keywords.flatMap((k) => [...tokenize(k), null])
  const all = [...title, null, ...body, null, ...kw]
  const surface = surfaceForms(all)

  const tf = new Map<string, number>()
  const pairTf = new Map<string, number>()
  for (const t of body) if (t !== null) count(tf, t.stem, 1)
  for (const b of bigrams(body)) count(pairTf, b, 1)
  for (const t of title) if (t !== null) count(tf, t.stem, p.conceptTitleBoost)
  for (const b of bigrams(title)) count(pairTf, b, p.conceptTitleBoost)
  for (const t of kw) if (t !== null) count(tf, t.stem, p.keywordBoost)
  for (const b of bigrams(kw)) count(pairTf, b, p.keywordBoost)

  const pick = (m: Map<string, number>, pair: boolean): Array<QueryTerm> =>
    [...m]
      .filter(([, n]) => n > 0)
      .map(([key, n]) => {
        const i = idf(table, key, pair)
        const weight = qtf(n, p)
        const shown = pair ? key.split(" ").map((s) => surface.get(s) ?? s).join(" ") : surface.get(key) ?? key
        return { key, surface: shown, idf: i, weight, pair, salience: weight * i }
      })
      .sort((a, b) => b.salience - a.salience || (a.key < b.key ? -1 : 1))
      .slice(0, p.maxQueryTerms)
  const terms = [...pick(tf, false), ...(p.bigramWeight > 0 ? pick(pairTf, true) : [])]
  const maxScore = terms.reduce((s, t) => s + t.idf * t.weight * (t.pair ? p.bigramWeight : 1) * (p.k1 + 1), 0)
  const docTf = new Map<string, number>([...tf, ...pairTf])
  let length = 0
  for (const t of [...title, ...body]) if (t !== null) length++
  return { terms, vocabulary: new Set(tf.keys()), maxScore, tf: docTf, length }
}

/** Score one paper against a prepared concept. Depends on nothing but the two and the table. */
export const scorePaper = (
  concept: PreparedConcept,
  paper: PaperInput,
  table: DfTable,
  p: ScoringParams
): PaperScore => {
  const title = tokenize(paper.title)
  const abstract = tokenize(paper.abstract)
  const tf = new Map<string, number>()
  let length = 0
  for (const t of title) if (t !== null) count(tf, t.stem, p.titleWeight), length++
  for (const t of abstract) if (t !== null) count(tf, t.stem, 1), length++
  for (const b of bigrams(title)) count(tf, b, p.titleWeight)
  for (const b of bigrams(abstract)) count(tf, b, 1)

  const norm = 1 - p.b + p.b * (length / table.averageLength)
  let raw = 0
  const matches: Array<Match> = []
  for (const t of concept.terms) {
    const f = tf.get(t.key)
    if (f === undefined) continue
    const tfn = f / norm
    const c = t.idf * t.weight * (t.pair ? p.bigramWeight : 1) * ((tfn * (p.k1 + 1)) / (tfn + p.k1))
    raw += c
    matches.push({ term: t.surface, contribution: c })
  }
  matches.sort((a, b) => b.contribution - a.contribution || (a.term < b.term ? -1 : 1))
  let coverage = concept.maxScore > 0 ? Math.min(raw / concept.maxScore, 1) : 0
  if (p.reverseWeight > 0) {
    // the paper's salient terms as the query, the note as the document
    const pick = [...tf]
      .map(([k, f]) => ({ k, pair: k.includes(" "), w: qtf(f, p), i: idf(table, k, k.includes(" ")) }))
      .filter((x) => !x.pair || p.bigramWeight > 0)
    const uni = pick.filter((x) => !x.pair).sort((a, b) => b.w * b.i - a.w * a.i || (a.k < b.k ? -1 : 1)).slice(0, p.maxQueryTerms)
    const bi = pick.filter((x) => x.pair).sort((a, b) => b.w * b.i - a.w * a.i || (a.k < b.k ? -1 : 1)).slice(0, p.maxQueryTerms)
    const cn = 1 - p.b + p.b * (concept.length / table.averageLength)
    let rr = 0
    let rm = 0
    for (const x of [...uni, ...bi]) {
      const m = x.i * x.w * (x.pair ? p.bigramWeight : 1)
      rm += m * (p.k1 + 1)
      const f = concept.tf.get(x.k)
      if (f === undefined) continue
      const tfn = f / cn
      rr += m * ((tfn * (p.k1 + 1)) / (tfn + p.k1))
    }
    const rev = rm > 0 ? rr / rm : 0
    coverage = (1 - p.reverseWeight) * coverage + p.reverseWeight * rev
    raw = coverage
  }
  const relevance = 1 / (1 + Math.exp(-p.slope * (coverage - p.midpoint)))

  // novelty: the paper's own salient stems (tf·idf), and how much of that weight the note never uses
  const surface = surfaceForms([...title, null, ...abstract])
  const salient = [...tf]
    .filter(([k]) => !k.includes(" "))
    .map(([k, f]) => ({ k, w: (1 + Math.log(f)) * idf(table, k, false) }))
    .sort((a, b) => b.w - a.w || (a.k < b.k ? -1 : 1))
    .slice(0, p.noveltyTerms)
  const total = salient.reduce((s, x) => s + x.w, 0)
  const outside = salient.filter((x) => !concept.vocabulary.has(x.k))
  const novelty = total > 0 ? outside.reduce((s, x) => s + x.w, 0) / total : 0
  return {
    raw,
    coverage,
    relevance: clamp01(relevance),
    novelty: clamp01(novelty),
    matches,
    additions: outside.map((x) => surface.get(x.k) ?? x.k)
  }
}

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0)
