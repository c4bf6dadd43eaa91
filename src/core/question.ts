/**
 * A research question read for what an arXiv query can use, and the
 * rule-based query built from it (offline, deterministic).
 *
 * - quoted phrases are kept verbatim and required;
 * - authors ("papers by Hinton on capsules", "Bengio et al.", "LeCun's
 *   work") become `au:` terms and are required;
 * - category codes named in the question (cs.CL) become `cat:` terms;
 * - "since 2015", "before 2016", "in 2014" become a `submittedDate` range;
 * - the rest is cut into key terms: acronyms and their expansions from a
 *   small table (GAN ↔ "generative adversarial"), adjacent words that arXiv
 *   text uses as a phrase ("batch normalization"), single words; British
 *   spellings also search their American form. Each term is weighted by its
 *   rarity in arXiv text (a document-frequency table given by the caller);
 *   generic words ("model", "learning") are dropped.
 *
 * Pure: no I/O; term statistics come in as a function.
 *
 * @since 0.1.0
 */
import { findCategory } from "./categories.js"
import { STOP_WORDS } from "./text.js"

/** Document frequencies of words and phrases in a reference corpus of arXiv text. */
export interface TermStatistics {
  /** Documents in the reference corpus. */
  readonly documents: number
  /**
   * How many documents use this word or adjacent-word phrase (lower-case
   * surface words; stemming is the statistics' business). Undefined when the
   * table does not know it (too rare to be listed, or a phrase too long).
   */
  readonly df: (words: ReadonlyArray<string>) => number | undefined
  /** The smallest df the table lists: an unknown single word is rarer than this. */
  readonly floor: number
  /**
   * The stems the reference corpus uses nearest to a text's words taken together (its term vectors), most similar
   * first, each with its cosine; absent when the statistics have no vectors.
   */
  readonly related?: ((text: string) => ReadonlyArray<{ readonly stem: string; readonly similarity: number }>) | undefined
}

/** One searchable idea of the question: its forms (ORed) and how informative it is. */
export interface KeyTerm {
  /** The forms searched, first as the question wrote it (lower-case). */
  readonly forms: ReadonlyArray<string>
  /** ln(N / df) of the rarest form: higher is more specific. */
  readonly weight: number
  /** Where it came from. */
  readonly source: "synonyms" | "phrase" | "word"
}

/** What a question says that an arXiv query can use. */
export interface QuestionAnalysis {
  readonly question: string
  readonly phrases: ReadonlyArray<string>
  /** Author surnames (or "First Last" as written). */
  readonly authors: ReadonlyArray<string>
  readonly categories: ReadonlyArray<string>
  /** Inclusive first-version date bounds, YYYY-MM-DD. */
  readonly from?: string | undefined
  readonly until?: string | undefined
  /** The words left for key terms (lower-case, stop words included), in order; `null` marks punctuation. */
  readonly words: ReadonlyArray<string | null>
}

/**
 * Acronyms and the expansions arXiv abstracts use for them. Each row is one
 * idea; every form is searched (ORed), so a question that says "GAN" also
 * finds abstracts that only say "generative adversarial networks", and the
 * other way round. Rows are limited to ideas that (a) recur in machine-learning
 * questions and (b) arXiv text writes in both forms; a form is a phrase that
 * the arXiv query stems ("generative adversarial" covers "... networks" and
 * "... nets"). Ambiguous acronyms (GP, MT, AI) are left out.
 */
export const SYNONYMS: ReadonlyArray<ReadonlyArray<string>> = [
  ["llm", "large language model"],
  ["gan", "generative adversarial"],
  ["vae", "variational autoencoder", "variational auto-encoder"],
  ["rl", "reinforcement learning"],
  ["rlhf", "reinforcement learning from human feedback"],
  ["nmt", "neural machine translation"],
  ["cnn", "convolutional neural network", "convolutional network", "convnet"],
  ["rnn", "recurrent neural network"],
  ["lstm", "long short-term memory"],
  ["gru", "gated recurrent unit"],
  ["gnn", "graph neural network"],
  ["nlp", "natural language processing"],
  ["sgd", "stochastic gradient descent"],
  ["mcmc", "markov chain monte carlo"],
  ["mdp", "markov decision process"],
  ["dqn", "deep q-network"],
  ["ner", "named entity recognition"],
  ["vqa", "visual question answering"],
  ["svm", "support vector machine"],
  ["seq2seq", "sequence to sequence", "sequence-to-sequence"],
  ["vit", "vision transformer"],
  ["asr", "automatic speech recognition"],
  ["word2vec", "word embeddings", "word vectors", "word representations"],
  ["few-shot", "one-shot", "low-shot"]
]

/** Words that ask rather than say what about: never a key term. */
const QUESTION_WORDS: ReadonlySet<string> = new Set(
  (
    "what which how why who whom whose when where does do did is are was were can could should would will " +
    "paper papers article articles work works research literature publication publications find show give list tell " +
    "me explain recent latest newest best good main important key major seminal landmark classic foundational " +
    "way ways approach approaches method methods technique techniques idea ideas kind kinds type types " +
    "state art current currently existing known common popular different various related regarding " +
    "use used using help helps improve improves better make makes work working works doing done " +
    "versus vs compare compared comparing comparison difference differences between handful overview"
  ).split(/\s+/)
)

/** A term used by more than this share of arXiv abstracts is too common to narrow a search ("model", "neural network"). */
const GENERIC_SHARE = 0.12

/** Whether a word says nothing about the topic (a stop word, a question word, a number). */
const isFiller = (w: string): boolean => STOP_WORDS.has(w) || QUESTION_WORDS.has(w) || /^\d+$/.test(w) || w.length < 2

const NAME_PARTICLES = new Set(["de", "van", "von", "der", "den", "da", "di", "del", "la", "le", "dos", "du", "ten", "ter"])
// a capital then a lower-case letter ("Hinton", "LeCun", "O'Neil"), so acronyms ("GANs") are not names
const NAME = "\\p{Lu}(?:['’]\\p{Lu})?\\p{Ll}[\\p{L}'’-]*"
const NAME_RUN = `(?:(?:${[...NAME_PARTICLES].join("|")})\\s+)?${NAME}(?:\\s+(?:(?:${[...NAME_PARTICLES].join("|")})\\s+)?${NAME}){0,2}`

const normalize = (s: string): string =>
  s.normalize("NFKC").replace(/[‘’‛]/g, "'").replace(/[“”„‟]/g, "\"").replace(/[‐‑‒–—―]/g, "-")

/** The last word of a name, which arXiv's `au:` matches in any author list. */
const surname = (name: string): string => {
  const parts = name.trim().split(/\s+/)
  // "Yann LeCun" → LeCun; "Luc de Raedt" → "de Raedt"
  const last = parts.length - 1
  return last > 0 && NAME_PARTICLES.has(parts[last - 1]!.toLowerCase()) ? `${parts[last - 1]} ${parts[last]}` : parts[last]!
}

/**
 * Common English words that are no common word of the other languages a question may be asked in (German, French,
 * Spanish, Italian, Portuguese, Dutch, Polish, Czech, Swedish, Turkish): "a", "in", "die", "was", "so", "on",
 * "per", "do", "no", "of" and "is" (Dutch) and "to" (Polish, Czech) are left out for that reason.
 */
const ENGLISH_MARKERS: ReadonlySet<string> = new Set(
  (
    "the and are what which how why who whose with for from by that this these those does can could should " +
    "would there their when where into than"
  ).split(/\s+/)
)

/**
 * Whether a question is plainly English, so that no language detector need read it: its letters are all
 * unaccented Latin ones, and at least two different words of it, and a fifth of its words, are words only English
 * uses ("what are the main ways to stabilise GAN training?"). Anything else (another script, an accent, a
 * question of terms alone such as "GAN training") is read by the language reader as before.
 */
export const plainlyEnglish = (question: string): boolean => {
  const words = normalize(question).match(/[\p{L}\p{N}]+(?:['-][\p{L}\p{N}]+)*/gu) ?? []
  if (words.length === 0 || words.some((w) => /[^A-Za-z0-9'-]/.test(w))) return false
  const markers = words.map((w) => w.toLowerCase()).filter((w) => ENGLISH_MARKERS.has(w))
  return new Set(markers).size >= 2 && markers.length * 5 >= words.length
}

/** How many words a question has, ignoring punctuation. */
export const wordCount = (question: string): number => (normalize(question).match(/[\p{L}\p{N}]+/gu) ?? []).length

/**
 * Read a question: phrases, authors, categories and dates out, the rest as
 * content words. Never fails; `ruleQuery` decides whether enough is left.
 */
export const analyseQuestion = (question: string): QuestionAnalysis => {
  let text = normalize(question)
  /** Take what `re` matches out of the text (a phrase break stays); `take` returning false leaves it. */
  const cut = (re: RegExp, take: (m: ReadonlyArray<string>) => boolean | void) => {
    text = text.replace(re, (...args: Array<unknown>) => {
      const m = args.filter((a): a is string => typeof a === "string").slice(0, -1)
      return take(m) === false ? m[0]! : " | "
    })
  }
  const phrases: Array<string> = []
  cut(/"([^"]+)"/g, (m) => {
    const p = m[1]!.replace(/\s+/g, " ").trim()
    if (p !== "" && !phrases.includes(p)) phrases.push(p)
  })

  const categories: Array<string> = []
  cut(/\b(?:in\s+)?([a-z-]+\.[A-Za-z-]{2,})\b/g, (m) => {
    const c = findCategory(m[1]!)
    if (c === undefined) return false
    if (!categories.includes(c.code)) categories.push(c.code)
  })

  let from: string | undefined
  let until: string | undefined
  cut(/\b(since|after|from|before|until|in|of)\s+((?:19|20)\d{2})\b/gi, (m) => {
    const word = m[1]!.toLowerCase()
    const year = Number(m[2])
    if (word === "since" || word === "from") from = `${year}-01-01`
    else if (word === "after") from = `${year + 1}-01-01`
    else if (word === "before") until = `${year - 1}-12-31`
    else if (word === "until") until = `${year}-12-31`
    else {
      from = `${year}-01-01`
      until = `${year}-12-31`
    }
  })

  const authors: Array<string> = []
  const addNames = (run: string) => {
    for (const name of run.split(/\s*(?:,|\band\b|&)\s*/u)) {
      const n = name.trim()
      if (n !== "" && !authors.includes(surname(n))) authors.push(surname(n))
    }
  }
  const names = `${NAME_RUN}(?:\\s*(?:,|\\band\\b|&)\\s*${NAME_RUN})*`
  // "papers by Hinton and Bengio", "written by Yann LeCun"
  cut(new RegExp(`\\b(?:by|authored by|written by)\\s+(${names})`, "gu"), (m) => addNames(m[1]!))
  // "Bengio et al.", "LeCun's papers"
  cut(new RegExp(`(${names})(?:\\s+et al\\b\\.?|'s\\s+(?=(?:papers?|work|works|research|articles?|group)\\b))`, "gu"), (m) => addNames(m[1]!))

  const words: Array<string | null> = []
  for (const token of text.toLowerCase().match(/[\p{L}\p{N}]+(?:[-'][\p{L}\p{N}]+)*|[^\s\p{L}\p{N}]/gu) ?? []) {
    if (!/^[\p{L}\p{N}]/u.test(token)) {
      if (words.at(-1) !== null) words.push(null)
      continue
    }
    words.push(token.replace(/'s$/, ""))
  }
  return {
    question,
    phrases,
    authors,
    categories,
    ...(from === undefined ? {} : { from }),
    ...(until === undefined ? {} : { until }),
    words
  }
}

/** Stems whose "-ise" is not the British form of "-ize" (precise, advise, denoise, otherwise, promise, ...). */
const NOT_IZE = /(?:c|v|w|o|ra|ri|prom|prem|comprom|surpr|enterpr|expert|franch|merchand|parad|disgu|cru|bru|treat)$/

/** "stabilise" → "stabilize", "normalisation" → "normalization", "analyse" → "analyze"; undefined when nothing changes. */
export const americanSpelling = (word: string): string | undefined => {
  const ise = /^(.{3,})is(e|es|ed|ing|ation|ations|er|ers)$/.exec(word)
  if (ise !== null) return NOT_IZE.test(ise[1]!) ? undefined : `${ise[1]}iz${ise[2]}`
  const yse = /^(anal|paral|catal|dial)ys(e|es|ed|ing|er|ers)$/.exec(word)
  if (yse !== null) return `${yse[1]}yz${yse[2]}`
  const our = /^(behavi|neighb|col|flav|hum|lab|fav|harb|rum|vap)our(s|ed|ing|hood|al)?$/.exec(word)
  return our === null ? undefined : `${our[1]}or${our[2] ?? ""}`
}

const singular = (w: string): string =>
  w.length > 4 && w.endsWith("ies") ? `${w.slice(0, -3)}y`
  : w.length > 3 && w.endsWith("s") && !/(ss|us|is|ics)$/.test(w) ? w.slice(0, -1)
  : w

const synonymIndex: ReadonlyMap<string, number> = new Map(
  SYNONYMS.flatMap((row, i) => row.map((form) => [form.split(/[\s-]+/).map(singular).join(" "), i] as const))
)
const longestSynonym = Math.max(...SYNONYMS.flatMap((row) => row.map((f) => f.split(/[\s-]+/).length)))

const weightOf = (stats: TermStatistics, words: ReadonlyArray<string>): number => {
  const n = Math.max(1, stats.documents)
  const df = stats.df(words)
  if (df !== undefined) return Math.log(n / Math.max(1, df))
  // unknown: a single word is rarer than the table's floor; a phrase is as rare as its rarest known pair, or word
  if (words.length === 1) return Math.log(n / Math.max(1, stats.floor / 2))
  let rarest = 0
  if (words.length > 2) {
    for (let i = 0; i + 1 < words.length; i++) {
      const pair = stats.df(words.slice(i, i + 2))
      if (pair !== undefined) rarest = Math.max(rarest, Math.log(n / Math.max(1, pair)))
    }
  }
  return rarest > 0 ? rarest : Math.max(...words.map((w) => weightOf(stats, [w])))
}

/**
 * Whether two adjacent words are a phrase arXiv writes: the pair is common in
 * its own right, or explains a fair share of the rarer word's uses.
 * Hyphenated words pair by their facing parts ("long-term dependencies").
 */
const isPhrase = (stats: TermStatistics, a: string, b: string): boolean => {
  const left = a.split("-").at(-1)!
  const right = b.split("-")[0]!
  const pair = stats.df([left, right])
  if (pair === undefined || pair < 3) return false
  const rarer = Math.min(stats.df([left]) ?? stats.floor, stats.df([right]) ?? stats.floor)
  return pair >= 50 || pair / Math.max(1, rarer) >= 0.03
}

/**
 * The question's key terms, most informative first: synonym rows, phrases
 * and words, each once; generic words dropped.
 */
export const keyTerms = (analysis: QuestionAnalysis, stats: TermStatistics): ReadonlyArray<KeyTerm> => {
  const terms: Array<KeyTerm> = []
  const seen = new Set<string>()
  const add = (term: KeyTerm) => {
    const key = term.forms.map((f) => f.split(/[\s-]+/).map(singular).join(" ")).sort().join("|")
    if (!seen.has(key)) {
      seen.add(key)
      terms.push(term)
    }
  }
  const tokens = analysis.words
  // content words between synonyms, stop words and punctuation, in runs that may form phrases
  const runs: Array<Array<string>> = [[]]
  const breakRun = () => {
    if (runs.at(-1)!.length > 0) runs.push([])
  }
  let i = 0
  while (i < tokens.length) {
    let matched = 0
    for (let n = Math.min(longestSynonym, tokens.length - i); n >= 1; n--) {
      const span = tokens.slice(i, i + n)
      if (span.some((w) => w === null)) continue
      const key = (span as Array<string>).flatMap((w) => w.split("-")).map(singular).join(" ")
      const row = synonymIndex.get(key)
      if (row === undefined) continue
      const forms = SYNONYMS[row]!
      add({ forms, weight: Math.max(...forms.map((f) => weightOf(stats, f.split(/[\s-]+/)))), source: "synonyms" })
      matched = n
      break
    }
    if (matched > 0) {
      breakRun()
      i += matched
      continue
    }
    const w = tokens[i]!
    if (w === null || isFiller(w)) breakRun()
    else runs.at(-1)!.push(w)
    i++
  }
  for (const words of runs) {
    let j = 0
    while (j < words.length) {
      // grow a phrase while the next word pairs with the last as arXiv writes it
      let k = j + 1
      while (k < words.length && k - j < 3 && isPhrase(stats, words[k - 1]!, words[k]!)) k++
      const part = words.slice(j, k)
      const weight = weightOf(stats, part.flatMap((p) => p.split("-")))
      if (weight > Math.log(1 / GENERIC_SHARE)) {
        const american = part.length === 1 ? americanSpelling(part[0]!) : undefined
        const text = part.join(" ")
        add({ forms: american === undefined ? [text] : [text, american], weight, source: part.length > 1 ? "phrase" : "word" })
      }
      j = k
    }
  }
  return terms.sort((a, b) => b.weight - a.weight)
}

const quote = (form: string): string => (/^[a-z0-9]+$/.test(form) ? form : `"${form.replace(/"/g, "")}"`)

/**
 * One key term as query text: a form, or its forms ORed in parentheses. A
 * phrase found by statistics also matches its words anywhere in the record
 * ("distilling the knowledge" for "knowledge distillation"); the exact
 * phrase still ranks first, as it matches more of the query.
 */
export const termQuery = (term: KeyTerm): string => {
  if (term.source === "phrase" && term.forms.length === 1) {
    const words = term.forms[0]!.split(" ")
    return `(${quote(term.forms[0]!)} OR (${words.map(quote).join(" AND ")}))`
  }
  return term.forms.length === 1 ? quote(term.forms[0]!) : `(${term.forms.map(quote).join(" OR ")})`
}

/** Key terms a question's concept holds: the most informative, at most this many. */
export const MAX_QUERY_TERMS = 6

/** A search word or phrase of a question's concept, weighted like a note's keyword. */
export interface ConceptKeyword {
  readonly term: string
  /** The key term's weight (ln N/df), a form of a phrase's word a little less. */
  readonly weight: number
}

/**
 * A question read as a small concept note: what the companion's stages
 * search for, judge against and keep by.
 */
export interface QuestionConcept {
  /** The question's key terms, most informative first. */
  readonly terms: ReadonlyArray<KeyTerm>
  /** Every form of every key term (and a phrase's informative words), most informative first: the pool's OR. */
  readonly keywords: ReadonlyArray<ConceptKeyword>
  /** The words of the central key terms (the two most informative), for the title search. */
  readonly central: ReadonlyArray<string>
  /** Author surnames the question names: required (`au:`). */
  readonly authors: ReadonlyArray<string>
  /** Quoted phrases: required, verbatim. */
  readonly phrases: ReadonlyArray<string>
  /** Categories named in the question: required. */
  readonly categories: ReadonlyArray<string>
  /** Inclusive first-version date bounds named in the question, YYYY-MM-DD. */
  readonly from?: string | undefined
  readonly until?: string | undefined
  /**
   * Stems the corpus uses beside the question's words ({@link relatedStems}): they widen the title search (as
   * prefixes) and the words the judge reads, not the pool's query. Absent or empty when the statistics have none.
   */
  readonly related?: ReadonlyArray<string> | undefined
  /**
   * What every search of the question must match, as arXiv syntax ANDed to
   * its topic (quoted phrases, authors, categories, dates); empty when the
   * question names none.
   */
  readonly required: string
}

/** The rule-based query and what it was built from. */
export interface RuleQuery {
  /** arXiv search_query syntax: the required parts ANDed with the OR of the concept's keywords. */
  readonly query: string
  readonly terms: ReadonlyArray<KeyTerm>
  readonly analysis: QuestionAnalysis
  readonly concept: QuestionConcept
}

const yyyymmdd = (d: string): string => d.replace(/-/g, "")

/**
 * The least cosine a stem needs to the question's words taken together to be one of its related stems, and how many
 * are taken at most. Chosen on the 58 tuning questions (eval/ask/README.md, seventh round: 0.40 / 0.45 / 0.50 and
 * 2 / 4 / 6 stems; the 20 questions in a student's own words are where it matters).
 */
export const RELATED_SIMILARITY = 0.45
export const RELATED_STEMS = 4
/** A related stem fewer abstracts use than this is too rare to trust (a name, a misspelling). */
const RELATED_MIN_DF = 10

/**
 * The stems the corpus uses beside a question's words (`TermStatistics.related`, the term vectors' nearest stems to
 * the key terms taken together): those at least {@link RELATED_SIMILARITY} similar, neither the question's own (any
 * form of a key term) nor generic nor rare, at most {@link RELATED_STEMS}, most similar first. "why do neural
 * networks forget old tasks" → "catastroph"; "inputs crafted to fool them" → "impercept", "adversari".
 */
export const relatedStems = (terms: ReadonlyArray<KeyTerm>, stats: TermStatistics): ReadonlyArray<string> => {
  if (stats.related === undefined || terms.length === 0) return []
  const own = new Set(terms.flatMap((t) => t.forms.flatMap((f) => f.split(/[\s-]+/))).map(roughStem))
  const out: Array<string> = []
  for (const n of stats.related(terms.map((t) => t.forms[0]!).join(" "))) {
    if (out.length >= RELATED_STEMS || n.similarity < RELATED_SIMILARITY) break
    if (n.stem.length < 4 || own.has(n.stem) || own.has(roughStem(n.stem))) continue
    const df = stats.df([n.stem])
    if (df === undefined || df < RELATED_MIN_DF || Math.log(Math.max(1, stats.documents) / df) <= Math.log(1 / GENERIC_SHARE)) continue
    out.push(n.stem)
  }
  return out
}

/** How many key terms name the question's central concept (their words make the title search). */
const CENTRAL_TERMS = 2

/**
 * The question as a concept: its key terms (at most {@link MAX_QUERY_TERMS}),
 * each form a keyword (a phrase's informative words too, a little lighter, so
 * "detect objects" also finds "object detection"), the central words and the
 * required parts.
 */
export const questionConcept = (analysis: QuestionAnalysis, stats: TermStatistics): QuestionConcept => {
  const terms = keyTerms(analysis, stats).slice(0, MAX_QUERY_TERMS)
  const keywords: Array<ConceptKeyword> = []
  const seen = new Set<string>()
  const add = (term: string, weight: number) => {
    const key = term.split(/[\s-]+/).map(singular).join(" ")
    if (seen.has(key)) return
    seen.add(key)
    keywords.push({ term, weight })
  }
  for (const t of terms) for (const f of t.forms) add(f, t.weight)
  // a phrase's own informative words, after every key term
  for (const t of terms) {
    if (t.source !== "phrase") continue
    for (const w of t.forms[0]!.split(/\s+/)) {
      const weight = weightOf(stats, [w])
      if (!isFiller(w) && weight > Math.log(1 / GENERIC_SHARE)) add(w, Math.min(weight, t.weight) * 0.8)
    }
  }
  const central: Array<string> = []
  for (const t of terms.slice(0, CENTRAL_TERMS)) {
    for (const w of t.forms[0]!.split(/\s+/)) {
      if (isFiller(w) || central.includes(w)) continue
      if (t.forms[0]!.includes(" ") && weightOf(stats, [w]) <= Math.log(1 / GENERIC_SHARE)) continue
      central.push(w)
    }
  }
  const required: Array<string> = [
    ...analysis.phrases.map((p) => `"${p.replace(/"/g, "")}"`),
    ...analysis.authors.map((a) => `au:${a.includes(" ") ? `"${a}"` : a}`)
  ]
  if (analysis.categories.length > 0) {
    required.push(analysis.categories.length === 1 ? `cat:${analysis.categories[0]}` : `(${analysis.categories.map((c) => `cat:${c}`).join(" OR ")})`)
  }
  if (analysis.from !== undefined || analysis.until !== undefined) {
    const from = analysis.from === undefined ? "000001010000" : `${yyyymmdd(analysis.from)}0000`
    const to = analysis.until === undefined ? "999912312359" : `${yyyymmdd(analysis.until)}2359`
    required.push(`submittedDate:[${from} TO ${to}]`)
  }
  return {
    terms,
    keywords,
    central,
    authors: analysis.authors,
    phrases: analysis.phrases,
    categories: analysis.categories,
    ...(analysis.from === undefined ? {} : { from: analysis.from }),
    ...(analysis.until === undefined ? {} : { until: analysis.until }),
    related: relatedStems(terms, stats),
    required: required.join(" AND ")
  }
}

/** The concept's topic as arXiv syntax: any of its keywords, phrases quoted (`all:` is arXiv's default field). */
export const topicQuery = (keywords: ReadonlyArray<ConceptKeyword>): string =>
  keywords.map((k) => quote(k.term)).join(" OR ")

/** A topic ANDed with the question's required parts (either may be empty). */
export const withRequired = (concept: Pick<QuestionConcept, "required">, topic: string): string =>
  concept.required === "" ? topic : topic === "" ? concept.required : `${concept.required} AND (${topic})`

/**
 * The rule-based arXiv query of a question, or a reason it cannot be built
 * (a `Left` string for NotEnoughInformation: what to add).
 *
 * The question is read as a concept ({@link questionConcept}): its required
 * parts (quoted phrases, authors, categories, dates) ANDed with any of its
 * key terms' forms. A wide OR ranked by relevance puts papers about the
 * whole question first while one odd word cannot empty the pool, which the
 * companion then judges itself (as a note's run does).
 */
export const ruleQuery = (
  analysis: QuestionAnalysis,
  stats: TermStatistics
): { readonly _tag: "Right"; readonly right: RuleQuery } | { readonly _tag: "Left"; readonly left: string } => {
  const concept = questionConcept(analysis, stats)
  if (concept.terms.length === 0 && analysis.phrases.length === 0 && analysis.authors.length === 0) {
    return {
      _tag: "Left",
      left: "the question names no topic, method or author to search for. Say what the papers should be about, " +
        "e.g. \"what are the main ways to stabilise GAN training?\" or \"papers by Hinton on capsules\"."
    }
  }
  const topic = topicQuery(concept.keywords)
  return { _tag: "Right", right: { query: withRequired(concept, topic), terms: concept.terms, analysis, concept } }
}

/** A word's rough stem for matching a question's terms in a paper ("captioning" ~ "caption", "normalising" ~ "normalization"). */
const roughStemOf = (word: string): string => {
  const w = americanSpelling(word) ?? word
  const s = singular(w).replace(/(?:izations?|izing|ized|ize|ations?|ings?|ions?|ed|ers?|ors?|ally|al|ly|ive)$/, "")
  return s.length >= 4 ? s : singular(w)
}

/** Rough stems already computed: a question's pool of 1000 abstracts repeats most words many times. */
const stemCache = new Map<string, string>()
const STEM_CACHE_LIMIT = 200_000

const roughStem = (word: string): string => {
  let s = stemCache.get(word)
  if (s === undefined) {
    s = roughStemOf(word)
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear()
    stemCache.set(word, s)
  }
  return s
}

const tokenStems = (text: string): ReadonlyArray<string> => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(roughStem)

/** A key term's forms as the stems of their content words. */
const formStems = (form: string): ReadonlyArray<string> =>
  form.split(/[\s-]+/).filter((w) => w !== "" && !isFiller(w)).map(roughStem)

/** The share of one form's words a text's stems hold (every word of a phrase, in any order, is 1). */
const formShare = (stems: ReadonlyArray<string>, text: ReadonlySet<string>): number =>
  stems.length === 0 ? 0 : stems.filter((w) => text.has(w)).length / stems.length

/** How a paper fits a question: how central it is, and how densely its abstract uses the question's words. */
export interface QuestionFit {
  /** The share of the key-term weight its title (four fifths) and abstract (one fifth) name, 0..1. */
  readonly centrality: number
  /** How densely the abstract uses the key-term words, 0..1 (a continuous tie-breaker, never 1). */
  readonly density: number
  /** The share of the key-term weight the title names, 0..1. */
  readonly title: number
  /** The share of the key-term weight the title and abstract together name, 0..1: how much of the question the paper is about. */
  readonly covered: number
}

/**
 * A question's fit function: the key terms' stems are prepared once, each
 * paper's title and abstract are read once ({@link centrality}, the
 * abstract's density of the question's words).
 */
export const questionFit = (concept: Pick<QuestionConcept, "terms">) => {
  const terms = concept.terms.map((t) => ({ weight: t.weight, forms: t.forms.map(formStems) }))
  const total = terms.reduce((s, t) => s + t.weight, 0)
  const wanted = new Set(terms.flatMap((t) => t.forms.flat()))
  const share = (stems: ReadonlySet<string>) =>
    terms.reduce((s, t) => s + t.weight * Math.max(...t.forms.map((f) => formShare(f, stems))), 0) / total
  return (paper: { readonly title: string; readonly abstract: string }): QuestionFit => {
    const abstract = tokenStems(paper.abstract)
    const hits = abstract.filter((t) => wanted.has(t)).length
    const density = hits / (abstract.length + 10)
    if (total <= 0) return { centrality: 0, density, title: 0, covered: 0 }
    const titleStems = new Set(tokenStems(paper.title))
    const abstractStems = new Set(abstract)
    const title = share(titleStems)
    const covered = share(new Set([...titleStems, ...abstractStems]))
    return { centrality: 0.8 * title + 0.2 * share(abstractStems), density, title, covered }
  }
}

/** The key terms a text names whole, most informative first, each as the form it names ("convolutional network", not "cnn"). */
const namedTerms = (concept: Pick<QuestionConcept, "terms">, text: string): ReadonlyArray<string> => {
  const stems = new Set(tokenStems(text))
  return concept.terms.flatMap((t) => t.forms.find((f) => formShare(formStems(f), stems) === 1) ?? [])
}

/**
 * How central a paper is to a question, 0..1: the share of the question's
 * key-term weight its title names (four fifths) and its abstract names (one
 * fifth), a phrase counting for the share of its words named. A paper titled
 * by the question's concept is about it; one that mentions the words in
 * passing is not.
 */
export const centrality = (
  paper: { readonly title: string; readonly abstract: string },
  concept: Pick<QuestionConcept, "terms">
): number => questionFit(concept)(paper).centrality

/**
 * How much centrality weighs in a question's relevance: a paper that names
 * none of the question's terms in its title scores this share less than one
 * titled by all of them. Chosen on the 20 tuning questions with the keep rule's band of 0.05 (top 3 / top 10:
 * 0 → 50 / 63 %, 0.05 → 53 / 62 %, 0.1 → 51 / 52 %; eval/ask/README.md).
 */
export const CENTRALITY_SPREAD = 0.05

/**
 * A question's relevance of a judged paper: the judge's relevance weighed by
 * how much of the question the paper covers ({@link COVERAGE_SPREAD}) and how
 * central it is to it, so a short question, which a judge scores near 1 for
 * every paper using its few words, separates the papers about it from those
 * using its words in passing. Never 1.00: a
 * judge's saturated score keeps at most 0.99 plus a hundredth of how densely
 * the abstract uses the question's words (a continuous share, far inside the
 * keep rule's band of near-equal relevance, where impact decides), so
 * different papers do not tie at the top.
 */
export const questionRelevance = (
  relevance: number,
  paper: { readonly title: string; readonly abstract: string },
  concept: Pick<QuestionConcept, "terms">
): number => relevanceOfFit(relevance, questionFit(concept)(paper))

/**
 * How much the question's coverage weighs in its relevance: a paper whose
 * title and abstract name none of the question's key terms but the strongest
 * scores this share less than one naming all of them, so a famous paper on
 * one of the question's words ("CNN" in "convolutional networks for text
 * classification") does not share the band of those about the whole question.
 * Chosen on the 38 tuning questions (eval/ask/README.md: 0 → 49 / 69 %,
 * 0.05 → 58 / 69 %, 0.1 → 58 / 63 %).
 */
export const COVERAGE_SPREAD = 0.05

/** {@link questionRelevance} from a paper's fit, already computed. */
export const relevanceOfFit = (relevance: number, fit: QuestionFit): number =>
  relevance * (1 - COVERAGE_SPREAD * (1 - fit.covered)) * (0.99 - CENTRALITY_SPREAD * (1 - fit.centrality) + 0.01 * fit.density)

const CONTRIBUTION = /\b(?:we|this paper|this work|here we|in this paper,? we)\s+(?:also\s+|first\s+|further\s+)?(propose|introduce|present|develop|describe|show|demonstrate|study|investigate|explore|find|analy[sz]e|exploit|extend|construct|build|design)(?:s|d|ed)?\b\s*(.*)$/i
const VERB: Readonly<Record<string, string>> = {
  propose: "introduced", introduce: "introduced", present: "introduced", develop: "introduced", describe: "described",
  show: "showed", demonstrate: "showed", find: "found", study: "studied", investigate: "studied", explore: "studied",
  analyse: "analysed", analyze: "analysed", exploit: "exploited", extend: "extended", construct: "built", build: "built",
  design: "designed"
}

/** Clip a phrase at a clause break or `max` words, whichever comes first. */
const clause = (text: string, max: number): string => {
  // a comma within the first few words lists adjectives ("the inherent multi-scale, pyramidal hierarchy"): read on
  const early = /^(?:\S+\s+){0,4}\S+?,\s/.exec(text)
  const head = early === null ? "" : early[0]
  const cut = head + text.slice(head.length).split(/(?<=\S)[,;:.](?:\s|$)|\s(?:which|that|where|whereby|and show|and demonstrate)\s/)[0]!.trim()
  const ws = cut.split(/\s+/)
  return ws.length <= max ? cut : `${ws.slice(0, max).join(" ")} …`
}

/**
 * One line saying why a paper answers a question: what it contributes, from
 * its abstract's contribution sentence ("introduced a residual learning
 * framework …"), the question's terms its title names, and how cited it is
 * ("impact not recorded" when `notRecorded`: a relevant paper older than the
 * exemption with no citation count, never read as an uncited one).
 * Words of the abstract only: nothing is invented.
 */
export const whyItAnswers = (
  paper: { readonly title: string; readonly abstract: string },
  concept: Pick<QuestionConcept, "terms">,
  citationsPerYear?: number | undefined,
  notRecorded = false
): string => {
  const flat = paper.abstract.replace(/\s+/g, " ").trim()
  let what: string | undefined
  for (const sentence of flat.split(/(?<=[.!?])\s+(?=[A-Z])/)) {
    const m = CONTRIBUTION.exec(sentence)
    if (m === null || m[2]!.trim() === "") continue
    what = `${VERB[m[1]!.toLowerCase()] ?? "introduced"} ${clause(m[2]!, 14)}`
    break
  }
  const titled = namedTerms(concept, paper.title)
  const on = titled.length === 0 ? undefined : `on ${titled.slice(0, 3).join(", ")}`
  const cited = notRecorded
    ? "impact not recorded (no citation count)"
    : citationsPerYear === undefined || citationsPerYear < 1 ? undefined : `cited ${Math.round(citationsPerYear).toLocaleString("en-US")} times a year`
  const parts = [what ?? (on === undefined ? "related to the question's terms" : `about ${titled.slice(0, 3).join(", ")}`), what === undefined ? undefined : on, cited]
  return parts.filter((p): p is string => p !== undefined).join("; ")
}
