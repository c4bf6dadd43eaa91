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
 * terms could earn on the words arXiv abstracts use (every such term
 * saturated), giving `coverage` in [0, 1]: a student's names, shorthand and
 * own phrasings, which no abstract writes, do not count against a paper, and a
 * paper that does use one still earns it. Topic similarity is the cosine of
 * the note's and the paper's SIF text vectors (word2vec of the same corpus).
 * The concept match (./concept.ts) is how much of the note's central concept
 * (its title's informative stems and stem pairs, and their variants) the
 * paper is about: a paper that shares the note's incidental words but not its
 * concept loses conceptWeight · conceptCentre, one about the concept gains up to
 * conceptWeight · (1 − conceptCentre). A fixed logistic curve maps
 * coverage + semanticWeight · similarity + that to relevance.
 *
 * novelty — the share (IDF-weighted) of the paper's own most salient stems
 * that the note never mentions: what the paper adds beyond the note.
 *
 * @since 0.1.0
 */
import { type CentralConcept, centralConcept, type ConceptParams, conceptMatchParts, familyKey } from "./concept.js"
import { type Ranker, rankerScore } from "./ranker.js"
import { bigrams, skipBigrams, type Token, tokenize } from "./tokenize.js"

/** Document frequencies from a reference corpus. */
export interface DfTable {
  readonly source: string
  readonly documents: number
  readonly averageLength: number
  readonly minUnigramDf: number
  readonly minBigramDf: number
  readonly unigrams: ReadonlyMap<string, number>
  readonly bigrams: ReadonlyMap<string, number>
  /** acronyms the corpus defines, by lower-case acronym, with their long forms (words apart by spaces) */
  readonly acronyms?: ReadonlyMap<string, ReadonlyArray<string>> | undefined
  /** document frequencies of the word families Porter conflates with unrelated words (concept.ts `familyKey`) */
  readonly families?: ReadonlyMap<string, number> | undefined
}

/**
 * The knobs of the scoring rule. `defaultParams` holds the values eval/tune.ts
 * chose on CSFCube's fold1_dev (a joint search over the interacting knobs, then coordinate
 * ascent; the relevance map fitted on the same fold); `unseenInMax` was chosen on the
 * tune split of the retrieval notes (it does not change CSFCube's ranking).
 */
export interface ScoringParams extends ConceptParams {
  /** weight of the concept match (concept.ts) added to the score (0 = not required), around conceptCentre */
  readonly conceptWeight: number
  readonly conceptCentre: number
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
  /** how a term's count in the note becomes its weight */
  readonly queryTf: "log" | "raw" | "sqrt"
  /** exponent on IDF (1 = BM25) */
  readonly idfPower: number
  /** weight of the term-vector cosine added to coverage (0 = lexical only) */
  readonly semanticWeight: number
  /**
   * how much a query term the reference corpus never (or almost never) uses counts in the most a paper could
   * earn (0 = not at all: coverage is read against what arXiv text can match, eval/README.md "The local judge
   * on student notes"; 1 = like any term, the rule before). A matched term always earns its part.
   */
  readonly unseenInMax: number
  /** the least share of every term's part the most a paper could earn is taken as (a note of names and shorthand) */
  readonly minReach: number
  /**
   * weight of novelty (what the paper adds beyond the note) taken off the score, around noveltyCentre, times the
   * concept strength (0: not read; eval/precision/README.md "novelty against the concept")
   */
  readonly noveltyWeight?: number | undefined
  readonly noveltyCentre?: number | undefined
  /**
   * The concept gate: for a note whose title names a concept (concept strength > 0), a paper whose concept match is
   * below this is held back ({@link PaperScore.gate}; its `relevance` mapped under the 0.5 bar, order kept,
   * {@link gateRelevance}) unless it is spared; absent or 0: no gate (eval/precision/README.md, prec9, prec11, prec13;
   * {@link citationSparedGate})
   */
  readonly conceptGate?: number | undefined
  /** the gate spares a paper whose relevance before the gate is at least this (absent: none is spared by relevance) */
  readonly gateSpareRelevance?: number | undefined
  /**
   * the gate spares a paper whose recorded citations per year are at least this: the count arrives after judging,
   * so the judge hands it on with the paper ({@link PaperScore.gate}) and the keep rule reads it (src/core/rules.ts);
   * absent: none is spared by citations
   */
  readonly gateSpareCites?: number | undefined
}

/** Word vectors keyed by stem (word2vec over the same arXiv corpus), with what SIF text vectors need. */
export interface TermVectors {
  readonly dims: number
  /** the stem's unit-length vector, when the model knows the stem */
  readonly get: (stem: string) => Float32Array | undefined
  /** SIF weight a / (a + p(stem)) of a known stem: frequent stems count less */
  readonly weight: (stem: string) => number
  /** the corpus's common direction (unit length), removed from every text vector */
  readonly common: Float32Array
  /** every stem the model knows (absent: no word-vector neighbours for the concept) */
  readonly stems?: ReadonlyArray<string> | undefined
}

export const defaultParams: ScoringParams = {
  k1: 1.6,
  b: 0.75,
  titleWeight: 2,
  bigramWeight: 1,
  maxQueryTerms: 40,
  keywordBoost: 1,
  conceptTitleBoost: 1,
  queryTf: "log",
  idfPower: 0.25,
  semanticWeight: 0.1,
  unseenInMax: 0,
  minReach: 0.4,
  midpoint: 0.164,
  slope: 24.6,
  noveltyTerms: 10,
  // the concept match, chosen on the graded tuning notes (tune3, tune4; eval/README.md "Relevance that knows the
  // concept"): AUC of graded 2 against 0 over the graded papers 0.807 → 0.887; conceptCentre keeps the bar where it
  // was for a paper half about the concept; titles of 7+ content words (CSFCube's paper titles) require nothing
  conceptWeight: 0.05,
  conceptCentre: 0.52,
  conceptShortTitle: 5,
  conceptLongTitle: 7,
  conceptIdfFloor: 2,
  conceptPairFloor: 4,
  conceptPairWeight: 1,
  conceptAlternative: 1,
  conceptModifier: 0.3,
  conceptAbstractCredit: 0.6,
  conceptRepeatCredit: 0.2,
  conceptNeighbourCosine: 0.7,
  conceptNeighbourCredit: 0.5,
  conceptNeighbours: 5,
  conceptPairsApart: false
}

/**
 * The concept gate of prec13, an option (eval/precision/README.md): a paper that does not name the note's concept
 * (concept match < 0.3) is held back unless the judge is sure of it (relevance ≥ 0.95 before the gate) or the field
 * cites it (≥ 20 citations a year, read by the keep rule), over the match that knows compounds, pairs named apart in a
 * title and near neighbours in a title (prec10). Found on the tuning notes (prec11); through the real pipeline it
 * cut off-topic places and kept the landmarks, but moved CSFCube by −0.0008 and the digest's notes with nothing by
 * one, so it is not the default: `LocalJudge.makeWith({ params: citationSparedGate })`.
 */
export const citationSparedGate: Partial<ScoringParams> = {
  conceptCompounds: true,
  conceptPairsInTitle: 0.6,
  conceptTitleNeighbourCosine: 0.8,
  conceptGate: 0.3,
  gateSpareRelevance: 0.95,
  gateSpareCites: 20
}

/** One query term: a stem or a stem pair, with what the note said and how much it weighs. */
interface QueryTerm {
  readonly key: string
  readonly surface: string
  readonly idf: number
  readonly weight: number
  readonly pair: boolean
  /** whether the reference corpus counts the term (a stem in ≥ minUnigramDf abstracts, a pair in ≥ minBigramDf) */
  readonly seen: boolean
}

/** A concept prepared for scoring many papers. */
export interface PreparedConcept {
  readonly terms: ReadonlyArray<QueryTerm>
  /** all stems the note uses (for novelty) */
  readonly vocabulary: ReadonlySet<string>
  /** the most a paper could score: every query term saturated */
  readonly maxScore: number
  /** maxScore ÷ what every query term saturated would earn: the share of the note arXiv text can match */
  readonly reach: number
  /** the note's SIF text vector, when term vectors are in use */
  readonly vector: Float32Array | undefined
  /** the note's central concept (its title's informative stems and their variants) */
  readonly central: CentralConcept
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
  /** BM25F score of the paper for the concept's query terms */
  readonly bm25: number
  /** raw / maxScore, in [0, 1] */
  readonly coverage: number
  /** cosine of the note's and the paper's SIF text vectors, when term vectors are in use */
  readonly similarity: number | undefined
  /** how much of the note's central concept the paper is about, in [0, 1] */
  readonly concept: number
  /** coverage + semanticWeight · similarity + conceptWeight · concept: what relevance is a fixed function of */
  readonly score: number
  readonly relevance: number
  readonly novelty: number
  /** matched query terms, largest contribution first */
  readonly matches: ReadonlyArray<Match>
  /** the paper's salient words the note does not use, most salient first */
  readonly additions: ReadonlyArray<string>
  /** the signals the rule computed, by name (what a learned ranker reads; ./ranker.ts) */
  readonly features: PaperFeatures
  /**
   * Set when the concept gate holds the paper back (`conceptGate`): its concept match, the gate, the relevance before
   * the gate (`relevance` is then mapped under the bar) and the citations per year that would still spare it.
   */
  readonly gate?: ConceptGateSignal | undefined
}

/** What the concept gate says of a paper it holds back ({@link PaperScore.gate}). */
export interface ConceptGateSignal {
  /** the paper's concept match, below the gate */
  readonly match: number
  /** the least concept match the gate asks for */
  readonly gate: number
  /** the relevance before the gate */
  readonly before: number
  /** the citations per year at which the paper is spared after all (absent: nothing spares it) */
  readonly spareCites?: number | undefined
}

/** The signals of one paper's score, each a plain number (see {@link scorePaper}). */
export interface PaperFeatures {
  /** the log-odds of the fixed map: slope · (coverage + semanticWeight · similarity + concept term − midpoint) */
  readonly fixed: number
  /** BM25F coverage of the note's weighted terms, in [0, 1] */
  readonly coverage: number
  /** cosine of the note's and the paper's SIF text vectors (0 without term vectors) */
  readonly similarity: number
  /** concept strength · (concept match − conceptCentre): what the concept requirement adds */
  readonly concept: number
  /** concept strength · the share of the concept the paper's title alone names */
  readonly conceptTitle: number
  /** concept strength · (the share of the title's head the paper is about − conceptCentre) */
  readonly conceptHead: number
  /** concept strength · (the share of the title's modifier words the paper is about − ½); 0 without modifier words */
  readonly conceptModifier: number
  /** the concept strength of the note (0: a title that names no concept) */
  readonly strength: number
  /** the share of the most the note's terms could earn that the paper's title matches, at most 1 */
  readonly titleCoverage: number
  /** the share of the note's query terms the paper matches */
  readonly matchedShare: number
  /** novelty: the share of the paper's salient stems the note never uses */
  readonly novelty: number
  /** log of the paper's length over the corpus's average length */
  readonly length: number
}

const qtf = (n: number, p: ScoringParams): number =>
  p.queryTf === "log" ? 1 + Math.log(Math.max(n, 1)) : p.queryTf === "raw" ? n : Math.sqrt(n)

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
export const prepareConcept = (
  concept: ConceptInput,
  table: DfTable,
  p: ScoringParams,
  vectors?: TermVectors
): PreparedConcept => {
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
        const i = Math.pow(idf(table, key, pair), p.idfPower)
        const weight = qtf(n, p)
        const shown = pair ? key.split(" ").map((s) => surface.get(s) ?? s).join(" ") : surface.get(key) ?? key
        const seen = pair ? table.bigrams.has(key) : table.unigrams.has(key)
        return { key, surface: shown, idf: i, weight, pair, seen, salience: weight * i }
      })
      .sort((a, b) => b.salience - a.salience || (a.key < b.key ? -1 : 1))
      .slice(0, p.maxQueryTerms)
  const terms = [...pick(tf, false), ...(p.bigramWeight > 0 ? pick(pairTf, true) : [])]
  // the most a paper could earn: every term saturated, read against what arXiv text can say (a term no
  // abstract uses counts unseenInMax of its part), never less than minReach of every term's part
  const most = (t: QueryTerm) => t.idf * t.weight * (t.pair ? p.bigramWeight : 1) * (p.k1 + 1)
  const whole = terms.reduce((s, t) => s + most(t), 0)
  const reachable = terms.reduce((s, t) => s + most(t) * (t.seen ? 1 : p.unseenInMax), 0)
  const maxScore = Math.max(reachable, p.minReach * whole)
  const vector = vectors !== undefined && p.semanticWeight > 0 ? textVector([title, body], vectors) : undefined
  const central = centralConcept(concept.title, table, p, vectors)
  return { terms, vocabulary: new Set(tf.keys()), maxScore, reach: whole > 0 ? maxScore / whole : 1, vector, central }
}

/**
 * What a paper's score needs of the paper alone, whatever the concept: its tokens, term counts, length, title
 * terms, SIF text vector (with term vectors in use) and salient stems. A digest prepares each of its
 * papers once for every note the paper is a candidate of (`scorePrepared`); `scorePaper` is the two in one.
 * The word families (concept.ts `familyKey`) only a concept with family units reads are counted on first use.
 */
export interface PreparedPaper {
  readonly text: PaperInput
  readonly title: ReadonlyArray<Token | null>
  readonly abstract: ReadonlyArray<Token | null>
  /** stem and stem-pair counts, a title occurrence counting `titleWeight` */
  readonly tf: ReadonlyMap<string, number>
  readonly length: number
  /** the title's stems and stem pairs */
  readonly titleKeys: ReadonlySet<string>
  /** the abstract's stem and stem-pair counts */
  readonly abstractCounts: ReadonlyMap<string, number>
  readonly vector: Float32Array | undefined
  /** the word most often written for a stem, for the few stems a rationale shows (`surfacesOf`), once asked for */
  surfaces?: Map<string, string> | undefined
  /** the paper's most salient stems the reference corpus knows, most salient first (novelty) */
  readonly salient: ReadonlyArray<{ readonly k: string; readonly w: number }>
  /** the title terms and abstract counts with the word families added, once a concept asked for them */
  families?: { readonly title: ReadonlySet<string>; readonly abstract: ReadonlyMap<string, number> } | undefined
  /** the stem pairs one word apart (concept.ts `ConceptEvidence.apart`), once a concept asked for them */
  apart?: { readonly title: ReadonlySet<string>; readonly abstract: ReadonlyMap<string, number> } | undefined
}

/** Prepare a paper for scoring against any number of concepts (see {@link PreparedPaper}). */
export const preparePaper = (paper: PaperInput, table: DfTable, p: ScoringParams, vectors?: TermVectors): PreparedPaper => {
  const title = tokenize(paper.title)
  const abstract = tokenize(paper.abstract)
  // one pass over each text: stems and adjacent stem pairs (as `bigrams` gives them), each count added in the
  // order of the texts, title first, so that every sum is the same number whatever the title's weight
  const tf = new Map<string, number>()
  const titleKeys = new Set<string>()
  const abstractCounts = new Map<string, number>()
  // the paper's distinct stems, in the order first met (`tf` holds stem pairs too)
  const distinct: Array<string> = []
  const add = (key: string, by: number) => {
    const n = tf.get(key)
    if (n === undefined) {
      tf.set(key, by)
      return true
    }
    tf.set(key, n + by)
    return false
  }
  let length = 0
  let prev: Token | null = null
  for (const t of title) {
    if (t === null) {
      prev = null
      continue
    }
    length++
    if (add(t.stem, p.titleWeight)) distinct.push(t.stem)
    titleKeys.add(t.stem)
    if (prev !== null && prev.stem !== t.stem) {
      const pair = `${prev.stem} ${t.stem}`
      add(pair, p.titleWeight)
      titleKeys.add(pair)
    }
    prev = t
  }
  prev = null
  for (const t of abstract) {
    if (t === null) {
      prev = null
      continue
    }
    length++
    if (add(t.stem, 1)) distinct.push(t.stem)
    count(abstractCounts, t.stem, 1)
    if (prev !== null && prev.stem !== t.stem) {
      const pair = `${prev.stem} ${t.stem}`
      add(pair, 1)
      count(abstractCounts, pair, 1)
    }
    prev = t
  }
  const vector = vectors !== undefined && p.semanticWeight > 0 ? textVector([title, abstract], vectors) : undefined
  const salient = salientStems(distinct, tf, table, p.noveltyTerms)
  return { text: paper, title, abstract, tf, length, titleKeys, abstractCounts, vector, salient }
}

/**
 * The `n` most salient stems of a paper's counts: log count × IDF over stems the reference corpus knows (a one-off
 * word is not what a paper is about), most salient first, ties by stem; kept in order as they are found, so only
 * the best are ever held.
 */
const salientStems = (
  stems: ReadonlyArray<string>,
  tf: ReadonlyMap<string, number>,
  table: DfTable,
  n: number
): ReadonlyArray<{ readonly k: string; readonly w: number }> => {
  const best: Array<{ readonly k: string; readonly w: number }> = []
  if (n <= 0) return best
  for (const k of stems) {
    const df = table.unigrams.get(k)
    if (df === undefined) continue
    const w = (1 + Math.log(tf.get(k)!)) * idfOf(df, table.documents)
    if (best.length === n && !before(w, k, best[n - 1]!)) continue
    let at = best.length === n ? n - 1 : best.length
    while (at > 0 && before(w, k, best[at - 1]!)) {
      best[at] = best[at - 1]!
      at--
    }
    best[at] = { k, w }
  }
  return best
}

/** Whether (w, k) comes before b in the order of `(a, b) => b.w - a.w || (a.k < b.k ? -1 : 1)`. */
const before = (w: number, k: string, b: { readonly k: string; readonly w: number }): boolean => {
  const d = b.w - w
  return d < 0 || (!(d > 0) && k < b.k)
}

const withFamilies = (paper: PreparedPaper): NonNullable<PreparedPaper["families"]> => {
  if (paper.families !== undefined) return paper.families
  const title = new Set<string>(paper.titleKeys)
  const abstract = new Map(paper.abstractCounts)
  for (const t of paper.title) {
    const k = t === null ? undefined : familyKey(t)
    if (k !== undefined) title.add(k)
  }
  for (const t of paper.abstract) {
    const k = t === null ? undefined : familyKey(t)
    if (k !== undefined) count(abstract, k, 1)
  }
  return (paper.families = { title, abstract })
}

/**
 * The word the paper most often writes for each stem (ties: alphabetical), as `surfaceForms` would give it: a
 * rationale shows at most a few of a paper's stems, so they are found on demand rather than for every token of
 * every paper, the stems not yet known in one reading of the paper's tokens.
 */
const surfacesOf = (paper: PreparedPaper, stems: ReadonlyArray<string>): Array<string> => {
  const known = (paper.surfaces ??= new Map())
  let words: Map<string, Map<string, number>> | undefined
  for (const s of stems) if (!known.has(s)) (words ??= new Map()).set(s, new Map())
  if (words !== undefined) {
    for (const tokens of [paper.title, paper.abstract]) {
      for (const t of tokens) {
        const forms = t === null ? undefined : words.get(t.stem)
        if (forms !== undefined) count(forms, t!.word, 1)
      }
    }
    for (const [stem, forms] of words) {
      let best: string = stem
      let most = 0
      for (const [w, n] of forms) if (n > most || (n === most && w < best)) best = w, most = n
      known.set(stem, best)
    }
  }
  return stems.map((s) => known.get(s)!)
}

const withPairsApart = (paper: PreparedPaper): NonNullable<PreparedPaper["apart"]> => {
  if (paper.apart !== undefined) return paper.apart
  const abstract = new Map<string, number>()
  for (const b of skipBigrams(paper.abstract)) count(abstract, b, 1)
  return (paper.apart = { title: new Set(skipBigrams(paper.title)), abstract })
}

/**
 * Score one paper against a prepared concept. Depends on nothing but the two and the table (and the model).
 * With a learned model (./ranker.ts) the relevance is its probability that the paper is worth a student's reading,
 * and `score` is midpoint + log-odds ÷ slope (so the fixed logistic map of the score still gives the relevance);
 * without one (null or absent), or for a title that names no concept (concept strength 0), the fixed logistic map
 * of coverage + similarity + concept; in between, the two scores weighted by the concept strength.
 */
export const scorePaper = (
  concept: PreparedConcept,
  paper: PaperInput,
  table: DfTable,
  p: ScoringParams,
  vectors?: TermVectors,
  ranker?: Ranker | null
): PaperScore => scorePrepared(concept, preparePaper(paper, table, p, vectors), table, p, vectors, ranker)

/** {@link scorePaper} of a paper prepared once ({@link preparePaper}, with the same table, knobs and vectors). */
export const scorePrepared = (
  concept: PreparedConcept,
  paper: PreparedPaper,
  table: DfTable,
  p: ScoringParams,
  vectors?: TermVectors,
  ranker?: Ranker | null
): PaperScore => {
  const { length, tf, titleKeys } = paper
  const norm = 1 - p.b + p.b * (length / table.averageLength)
  let bm25 = 0
  let inTitle = 0
  const matches: Array<Match> = []
  for (const t of concept.terms) {
    const f = tf.get(t.key)
    if (f === undefined) continue
    if (titleKeys.has(t.key)) inTitle += t.idf * t.weight * (t.pair ? p.bigramWeight : 1) * (p.k1 + 1)
    const tfn = f / norm
    const c = t.idf * t.weight * (t.pair ? p.bigramWeight : 1) * ((tfn * (p.k1 + 1)) / (tfn + p.k1))
    bm25 += c
    matches.push({ term: t.surface, contribution: c })
  }
  matches.sort((a, b) => b.contribution - a.contribution || (a.term < b.term ? -1 : 1))
  const coverage = concept.maxScore > 0 ? Math.min(bm25 / concept.maxScore, 1) : 0
  let similarity: number | undefined
  if (concept.vector !== undefined && vectors !== undefined) {
    similarity = cosine(concept.vector, paper.vector ?? textVector([paper.title, paper.abstract], vectors))
  }
  const families = concept.central.families ? withFamilies(paper) : undefined
  const parts = conceptMatchParts(
    concept.central,
    {
      title: families?.title ?? titleKeys,
      abstract: families?.abstract ?? paper.abstractCounts,
      text: paper.text,
      apart: p.conceptPairsApart === true ? withPairsApart(paper) : undefined
    },
    p
  )
  const about = parts.match
  const strength = concept.central.strength

  // novelty: the paper's own salient stems (tf·idf), and how much of that weight the note never uses
  const salient = paper.salient
  const total = salient.reduce((s, x) => s + x.w, 0)
  const outside = salient.filter((x) => !concept.vocabulary.has(x.k))
  const novelty = total > 0 ? outside.reduce((s, x) => s + x.w, 0) / total : 0
  const fixed = (similarity === undefined ? coverage : coverage + p.semanticWeight * similarity) +
    p.conceptWeight * strength * (about - p.conceptCentre) -
    (p.noveltyWeight ?? 0) * strength * (clamp01(novelty) - (p.noveltyCentre ?? 0.5))
  const features: PaperFeatures = {
    fixed: p.slope * (fixed - p.midpoint),
    coverage,
    similarity: similarity ?? 0,
    concept: strength * (about - p.conceptCentre),
    conceptTitle: strength * parts.title,
    conceptHead: strength * (parts.head - p.conceptCentre),
    conceptModifier: parts.modifier === undefined ? 0 : strength * (parts.modifier - 0.5),
    strength,
    titleCoverage: concept.maxScore > 0 ? Math.min(inTitle / concept.maxScore, 1) : 0,
    matchedShare: concept.terms.length > 0 ? matches.length / concept.terms.length : 0,
    novelty: clamp01(novelty),
    length: Math.log(Math.max(length, 1) / table.averageLength)
  }
  // the model was fitted on notes whose title names a concept; a title as long as a paper's (strength 0, a CSFCube
  // query) keeps the fixed map chosen for it, and one in between gets the two in proportion
  const score = ranker == null || strength === 0
    ? fixed
    : (1 - strength) * fixed + strength * (p.midpoint + rankerScore(ranker, features) / p.slope)
  const mapped = 1 / (1 + Math.exp(-p.slope * (score - p.midpoint)))
  const gated = p.conceptGate !== undefined && strength > 0 && about < p.conceptGate &&
    !(p.gateSpareRelevance !== undefined && mapped >= p.gateSpareRelevance)
  const relevance = gated ? gateRelevance(mapped) : mapped
  const gate: ConceptGateSignal | undefined = gated
    ? { match: about, gate: p.conceptGate!, before: clamp01(mapped), ...(p.gateSpareCites === undefined ? {} : { spareCites: p.gateSpareCites }) }
    : undefined
  return {
    bm25,
    coverage,
    similarity,
    concept: about,
    score: gated && relevance !== mapped ? p.midpoint + Math.log(relevance / (1 - relevance)) / p.slope : score,
    relevance: clamp01(relevance),
    novelty: clamp01(novelty),
    matches,
    additions: surfacesOf(paper, outside.map((x) => x.k)),
    features,
    ...(gate === undefined ? {} : { gate })
  }
}

/** Where the concept gate starts to compress a relevance, and the most it leaves (just under the 0.5 bar). */
const GATE_KNEE = 0.45
const GATE_CEILING = 0.49

/**
 * The relevance of a paper the concept gate holds back: unchanged up to 0.45, above it compressed into 0.45–0.49,
 * so it stays under the 0.5 bar and keeps its order among the papers held back.
 */
export const gateRelevance = (r: number): number =>
  r <= GATE_KNEE ? r : GATE_KNEE + (Math.min(r, 1) - GATE_KNEE) * ((GATE_CEILING - GATE_KNEE) / (1 - GATE_KNEE))

/**
 * SIF text vector (Arora et al. 2017): the SIF-weighted sum of the word vectors
 * of every token, without its component along the corpus's common direction
 * (what every abstract shares). Only its direction matters.
 */
const textVector = (parts: ReadonlyArray<ReadonlyArray<Token | null>>, vectors: TermVectors): Float32Array => {
  const n = vectors.dims
  const v = new Float32Array(n)
  const known = knownStems(vectors)
  for (const tokens of parts) {
    for (const t of tokens) {
      if (t === null) continue
      let k = known.get(t.stem)
      if (k === undefined) {
        const w = vectors.get(t.stem)
        k = w === undefined ? null : { w, a: vectors.weight(t.stem) }
        known.set(t.stem, k)
      }
      if (k === null) continue
      const { a, w } = k
      // four dimensions a step (each added on its own, as one at a time would): fewer steps for the interpreter
      // that runs this before the optimising compiler has it
      let i = 0
      for (; i + 3 < n; i += 4) {
        v[i]! += a * w[i]!
        v[i + 1]! += a * w[i + 1]!
        v[i + 2]! += a * w[i + 2]!
        v[i + 3]! += a * w[i + 3]!
      }
      for (; i < n; i++) v[i]! += a * w[i]!
    }
  }
  let along = 0
  for (let i = 0; i < v.length; i++) along += v[i]! * vectors.common[i]!
  for (let i = 0; i < v.length; i++) v[i]! -= along * vectors.common[i]!
  return v
}

/** Each stem's vector and SIF weight as the model gives them (null: a stem it does not know), looked up once. */
const knownStems = (vectors: TermVectors): Map<string, { readonly w: Float32Array; readonly a: number } | null> => {
  let known = stemVectors.get(vectors)
  if (known === undefined || known.size >= 200_000) stemVectors.set(vectors, known = new Map())
  return known
}
const stemVectors = new WeakMap<TermVectors, Map<string, { readonly w: Float32Array; readonly a: number } | null>>()

const cosine = (a: Float32Array, b: Float32Array): number => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0)
