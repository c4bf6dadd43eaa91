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
  ["word2vec", "word embeddings", "word vectors"]
]

/** Words that ask rather than say what about: never a key term. */
const QUESTION_WORDS: ReadonlySet<string> = new Set(
  (
    "what which how why who whom whose when where does do did is are was were can could should would will " +
    "paper papers article articles work works research literature publication publications find show give list tell " +
    "me explain recent latest newest best good main important key major seminal landmark classic foundational " +
    "way ways approach approaches method methods technique techniques idea ideas kind kinds type types " +
    "state art current currently existing known common popular different various related regarding " +
    "use used using help helps improve improves better make makes work working works doing done"
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

/** Key terms the query combines: the most informative, at most this many. */
export const MAX_QUERY_TERMS = 4

/** The rule-based query and what it was built from. */
export interface RuleQuery {
  /** arXiv search_query syntax, e.g. `(gan OR "generative adversarial") AND (stabilise OR stabilize)`. */
  readonly query: string
  readonly terms: ReadonlyArray<KeyTerm>
  readonly analysis: QuestionAnalysis
}

const yyyymmdd = (d: string): string => d.replace(/-/g, "")

/**
 * The rule-based arXiv query of a question, or a reason it cannot be built
 * (a `Left` string for NotEnoughInformation: what to add).
 *
 * Required: quoted phrases, authors, categories and dates. Topic terms: the
 * most informative (at most 4). With required parts, any topic term (OR);
 * without, one or two terms must all match, and from three on, any two of
 * them (a soft AND, so one odd word cannot empty the results while papers on
 * the whole question still rank first).
 */
export const ruleQuery = (
  analysis: QuestionAnalysis,
  stats: TermStatistics
): { readonly _tag: "Right"; readonly right: RuleQuery } | { readonly _tag: "Left"; readonly left: string } => {
  const terms = keyTerms(analysis, stats).slice(0, MAX_QUERY_TERMS)
  const required: Array<string> = [
    ...analysis.phrases.map((p) => `"${p.replace(/"/g, "")}"`),
    ...analysis.authors.map((a) => `au:${a.includes(" ") ? `"${a}"` : a}`)
  ]
  if (terms.length === 0 && required.length === 0) {
    return {
      _tag: "Left",
      left: "the question names no topic, method or author to search for. Say what the papers should be about, " +
        "e.g. \"what are the main ways to stabilise GAN training?\" or \"papers by Hinton on capsules\"."
    }
  }
  const parts = [...required]
  const topic = terms.map(termQuery)
  if (topic.length > 0) {
    if (required.length > 0) parts.push(topic.length === 1 ? topic[0]! : `(${topic.join(" OR ")})`)
    else if (topic.length <= 2) parts.push(...topic)
    else {
      const pairs: Array<string> = []
      for (let i = 0; i < topic.length; i++) for (let j = i + 1; j < topic.length; j++) pairs.push(`(${topic[i]} AND ${topic[j]})`)
      parts.push(`(${pairs.join(" OR ")})`)
    }
  }
  if (analysis.categories.length > 0) {
    parts.push(analysis.categories.length === 1 ? `cat:${analysis.categories[0]}` : `(${analysis.categories.map((c) => `cat:${c}`).join(" OR ")})`)
  }
  if (analysis.from !== undefined || analysis.until !== undefined) {
    const from = analysis.from === undefined ? "000001010000" : `${yyyymmdd(analysis.from)}0000`
    const to = analysis.until === undefined ? "999912312359" : `${yyyymmdd(analysis.until)}2359`
    parts.push(`submittedDate:[${from} TO ${to}]`)
  }
  return { _tag: "Right", right: { query: parts.join(" AND "), terms, analysis } }
}
