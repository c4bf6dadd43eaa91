/**
 * Keyword extraction from a concept note.
 *
 * The note's body is the evidence: headings, [[links]] and **bold** count
 * more than plain prose; adjacent content words form key phrases. The title
 * only boosts words the body also uses, so a note with an empty body has no
 * keywords however informative its title.
 *
 * @since 0.1.0
 */
import type { TermStat, TermLookup } from "./ports/TermStatsPort.js"
import { FUNCTION_WORDS, NOTE_BOILERPLATE, STOP_WORDS, words } from "./text.js"
import { SURNAME_PARTICLES } from "./citedAuthors.js"

/** A note split into its frontmatter and body. */
export interface SplitNote {
  readonly frontmatter: string | undefined
  readonly body: string
}

/** Split a note's YAML frontmatter (between leading `---` lines) from its body. */
export const splitFrontmatter = (text: string): SplitNote => {
  // a byte-order mark (Windows editors) may precede the frontmatter
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  return match === null ? { frontmatter: undefined, body: text } : { frontmatter: match[1]!, body: text.slice(match[0].length) }
}

/** A LaTeX command ("\\langle", "\\approx"): notation in a note's or an abstract's math, not a word. */
const TEX_COMMAND = /\\[A-Za-z]+/g

/** The note's prose: no frontmatter, code, comments, URLs or Markdown syntax. */
export const plainText = (text: string): string =>
  splitFrontmatter(text).body
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/%%[\s\S]*?%%/g, " ")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/`[^`]*`/g, " ")
    .replace(/!?\[\[([^\]|]+)\|([^\]]+)\]\]/g, "$2")
    .replace(/!?\[\[([^\]]+)\]\]/g, "$1")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/https?:\/\/\S+/g, " ")
    .replace(TEX_COMMAND, " ")
    .replace(/[#*_>~=|]+/g, " ")

/**
 * How notes talk, beyond the shared stop words (text.ts), for keywords only (a BibTeX key or a question keeps
 * its words): pronoun-like words, and what an apostrophe leaves of a contraction ("doesn't" → "doesn").
 */
const NOTE_SPEECH: ReadonlySet<string> = new Set(
  (
    "anything everything nothing something anyone everyone someone nobody anybody everybody somebody anyway " +
    "somehow somewhat whatever whenever wherever " +
    "aren couldn didn doesn don hadn hasn haven isn mightn mustn needn shan shouldn wasn weren won wouldn"
  ).split(/\s+/)
)

/** Where a note was taken: never a keyword alone, but a phrase may hold it, as note boilerplate. */
const NOTE_CONTEXT: ReadonlySet<string> = new Set(
  "lecture lectures prof professor slide slides homework exam exams seminar textbook chapter".split(/\s+/)
)

/** Words a note uses about itself or where it was taken ("todo", "link", "lecture"). */
const isSelfReference = (w: string): boolean => NOTE_BOILERPLATE.has(w) || NOTE_CONTEXT.has(w)

/** A word that can stand in a phrase: note boilerplate may ("link prediction"), a function word may not. */
const isPhraseWord = (w: string): boolean =>
  w.length >= 3 && !FUNCTION_WORDS.has(w) && !NOTE_SPEECH.has(w) && !/^\d+$/.test(w) && /[a-z]/.test(w)

/** A word that can be a keyword on its own. */
const isContentWord = (w: string): boolean => isPhraseWord(w) && !STOP_WORDS.has(w) && !NOTE_CONTEXT.has(w)

/**
 * Words a note's own section headings are made of ("Why it matters", "Open questions", "Key papers to read",
 * "My thoughts", "Variants", "Metrics"): a heading of these words only (and function words) is the note's
 * layout, not its concept, and adds no term.
 */
const SECTION_WORDS: ReadonlySet<string> = new Set(
  (
    "matter matters open question questions thought thoughts todo to-do related issue issues trick tricks use uses " +
    "variant variants misc miscellaneous gotcha gotchas takeaway takeaways background overview summary reference " +
    "references resource resources link links read reading look later intuition intuitions motivation pro pros con cons " +
    "history detail details definition definitions comparison comparisons limitation limitations caveat caveats " +
    "follow-up follow-ups next step steps status setup result results metric metrics dataset datasets model models " +
    "classic classics paper papers key idea ideas main further see note notes important point points tip tips " +
    "problem problems extension extensions application applications practice practical implementation implementations " +
    "connection connections example examples recap tldr core basic basics random stuff bit bits thing things " +
    "remember lecture lectures slide slides homework exam seminar textbook chapter reading-group open-questions"
  ).split(/\s+/)
)

/** A heading that names a part of the note ("## Why it matters", "## Open questions"), not the concept. */
const isSectionHeading = (heading: string): boolean => {
  const ws = words(plainText(heading))
  return ws.length > 0 && ws.every((w) => FUNCTION_WORDS.has(w) || NOTE_SPEECH.has(w) || SECTION_WORDS.has(w) || SECTION_WORDS.has(singular(w)))
}

/** An Obsidian tag in the text ("#vision", "#open-questions", "#TODO"). */
const INLINE_TAG = /(^|[^\w&/#])#([\p{L}\p{N}_/-]*\p{L}[\p{L}\p{N}_/-]*)/gu

/** A tag that files the note by its state or its use ("#todo", "#open-questions", "#reading-group") says nothing of the concept: it is left out; a topic tag ("#tokenization") stays a word of the note. */
const withoutSectionTags = (line: string): string =>
  line.replace(INLINE_TAG, (whole, before: string, tag: string) => {
    const lower = tag.toLowerCase()
    const parts = lower.split(/[/_-]+/).filter((p) => p !== "")
    return SECTION_WORDS.has(lower) || parts.every((p) => FUNCTION_WORDS.has(p) || SECTION_WORDS.has(p)) ? `${before} ` : whole
  })

/** Text segments of the note with the weight of where they appear. */
const weightedSegments = (text: string): ReadonlyArray<readonly [string, number]> => {
  const body = splitFrontmatter(text).body.replace(/```[\s\S]*?```/g, " ")
  const segments: Array<readonly [string, number]> = []
  for (const raw of body.split(/\r?\n/)) {
    // "See also: [[...]]" lines point at other notes; they say nothing about this concept
    if (/^\s*(?:[-*]\s*)?see also\b/i.test(raw)) continue
    const heading = /^#{1,6}\s+(.*)$/.exec(raw)
    if (heading !== null) {
      const text = withoutSectionTags(heading[1]!)
      if (!isSectionHeading(text)) segments.push([plainText(text), 2])
      continue
    }
    const line = withoutSectionTags(raw)
    // emphasised phrases are what the author marked as key: count them once more
    for (const m of line.matchAll(/\*\*([^*]+)\*\*|__([^_]+)__/g)) segments.push([m[1] ?? m[2]!, 2])
    segments.push([plainText(line), 1])
  }
  return segments
}

/** A keyword or key phrase with its weight. */
export interface Keyword {
  readonly term: string
  readonly weight: number
}

/** Fold a simple English plural onto its singular ("networks" → "network"). */
export const singular = (w: string): string =>
  w.length > 4 && w.endsWith("ies") ? `${w.slice(0, -3)}y`
  : w.length > 3 && w.endsWith("s") && !/(ss|us|is|ics)$/.test(w) ? w.slice(0, -1)
  : w

const MAX_PHRASE = 3

/**
 * The runs of one to {@link MAX_PHRASE} adjacent words of a text that can be terms, as written: split at
 * punctuation so a phrase never crosses a sentence or clause, no function word, and note boilerplate only
 * within a phrase that says something ("link prediction", never "link" alone).
 */
function* termRuns(text: string): Generator<ReadonlyArray<string>> {
  for (const clause of text.split(/[.,;:!?()[\]{}"\n]+/)) {
    const tokens = words(clause)
    for (let i = 0; i < tokens.length; i++) {
      for (let n = 1; n <= MAX_PHRASE && i + n <= tokens.length; n++) {
        const run = tokens.slice(i, i + n)
        if (!run.every(isPhraseWord)) break
        if (run.some(isContentWord)) yield run
      }
    }
  }
}

/** The written forms of each term key ("networks", "network" of `network`), counted. */
type SurfaceForms = Map<string, Map<string, number>>

/** Count one more use of `shown` as a form of `key`. */
const addForm = (surface: SurfaceForms, key: string, shown: string): void => {
  const forms = surface.get(key) ?? new Map<string, number>()
  forms.set(shown, (forms.get(shown) ?? 0) + 1)
  surface.set(key, forms)
}

/** The form of `key` used most (a tie: the first alphabetically), so a term is shown as it is written. */
const mostUsedForm = (surface: SurfaceForms, key: string): string =>
  [...surface.get(key)!.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0]

/** A word or phrase of the note with its weight there. */
export interface NoteTerm {
  /** The singular forms of its words, joined by spaces. */
  readonly key: string
  /** The form the note uses most. */
  readonly term: string
  /** Occurrences, a heading or an emphasis counting twice. */
  readonly weight: number
  /** Whether the note's title uses one of its words. */
  readonly inTitle: boolean
  /** Whether it is a whole phrase of the title ("knowledge distillation" of "Knowledge distillation"). */
  readonly namesTitle: boolean
  /** Whether its words are people or institutions the note cites ("Sukhbaatar et al.", "(Gal & Ghahramani)"). */
  readonly isName: boolean
  /** Number of words (1 for a single word). */
  readonly words: number
}

/**
 * The runs of adjacent content words of a text, as singular keys ("Object detection - R-CNN family" → object
 * detection, r-cnn family); a run may hold note boilerplate ("Reading comprehension") but not only that.
 */
const contentRuns = (text: string): ReadonlySet<string> => {
  const runs = new Set<string>()
  for (const clause of text.split(/[.,;:!?()[\]{}"\n]+|\s[-–—]\s/)) {
    let run: Array<string> = []
    for (const w of [...words(clause), ""]) {
      if (w !== "" && isPhraseWord(w)) {
        run.push(w)
        continue
      }
      if (run.some(isContentWord)) runs.add(run.map(singular).join(" "))
      run = []
    }
  }
  return runs
}

const CAPITALISED = "[A-Z][a-z\u00C0-\u024F'-]+"
const CITED_NAMES = [
  new RegExp(`(${CAPITALISED})(?:,? et al\\b)`, "g"),
  new RegExp(`(${CAPITALISED})\\s*&\\s*${SURNAME_PARTICLES}(${CAPITALISED})`, "g"),
  new RegExp(`(${CAPITALISED}(?:,\\s*${CAPITALISED}){2,})`, "g")
]

/**
 * People and institutions the note cites: "X et al", "X & Y", lists of three
 * or more capitalised names, and every capitalised word of a parenthesis that
 * holds one of those ("(Hermann et al, DeepMind)"). Lower-cased.
 */
const citedNames = (text: string): ReadonlySet<string> => {
  const names = new Set<string>()
  const collect = (s: string): boolean => {
    let found = false
    for (const re of CITED_NAMES) {
      for (const m of s.matchAll(re)) {
        found = true
        for (const g of m.slice(1)) for (const w of (g ?? "").split(/[,\s]+/)) if (w !== "") names.add(w.toLowerCase())
      }
    }
    return found
  }
  collect(text)
  for (const m of text.matchAll(/\(([^()\n]*)\)/g)) {
    if (collect(m[1]!)) for (const w of m[1]!.match(/\b[A-Z][A-Za-z]+\b/g) ?? []) names.add(w.toLowerCase())
  }
  return names
}

/**
 * Every candidate term of a note, unordered: each content word (≥ 3 letters,
 * not a stop word), and each phrase of two or three adjacent content words
 * that recurs or that the author emphasised. Words and phrases are counted
 * by their singular form and shown in the form the note uses most.
 */
export const noteTerms = (noteText: string, title = ""): ReadonlyArray<NoteTerm> => {
  const weight = new Map<string, number>()
  const surface: SurfaceForms = new Map()
  const count = (key: string, shown: string, w: number) => {
    weight.set(key, (weight.get(key) ?? 0) + w)
    addForm(surface, key, shown)
  }
  for (const [segment, w] of weightedSegments(noteText)) {
    for (const run of termRuns(segment)) count(run.map(singular).join(" "), run.join(" "), w)
  }
  const titleWords = new Set(words(title).map(singular))
  const titleRuns = contentRuns(title)
  const names = citedNames(splitFrontmatter(noteText).body)
  const out: Array<NoteTerm> = []
  for (const [key, w] of weight) {
    const parts = key.split(" ")
    if (parts.length > 1 && w < 2) continue
    const term = mostUsedForm(surface, key)
    out.push({
      key,
      term,
      weight: w,
      inTitle: parts.some((p) => titleWords.has(p)),
      namesTitle: titleRuns.has(key),
      isName: term.split(" ").every((p) => names.has(p)),
      words: parts.length
    })
  }
  return out
}

/**
 * The note's keywords by their weight in the note alone, most important
 * first: the local judge's view of a note. (The companion's search ranks the
 * same terms against arXiv statistics with {@link rankKeywords}.)
 *
 * A phrase absorbs the weight of its words, so "machine translation" is
 * preferred to "machine" and "translation" apart. The title only boosts words
 * the body also uses, so a note with an empty body has no keywords.
 */
export const extractKeywords = (noteText: string, title = "", limit = 8): ReadonlyArray<Keyword> => {
  const scored = noteTerms(noteText, title).map((t) => ({
    key: t.key,
    term: t.words === 1 ? t.key : t.term,
    shown: t.term,
    weight: (t.words === 1 ? t.weight : t.weight * (1 + 0.25 * t.words)) + (t.inTitle ? 1 : 0)
  }))
  scored.sort((a, b) => b.weight - a.weight || a.key.localeCompare(b.key))
  // greedy selection: a chosen phrase discounts its words and its sub-phrases
  const chosen: Array<Keyword> = []
  const covered = new Map<string, number>()
  for (const k of scored) {
    if (chosen.length >= limit) break
    const rest = k.weight - (covered.get(k.key) ?? 0)
    if (rest <= 0.5 * k.weight && k.key.includes(" ") === false && covered.has(k.key)) continue
    if (chosen.some((c) => ` ${c.term} `.includes(` ${k.key} `))) continue
    chosen.push({ term: k.shown, weight: rest })
    for (const part of k.key.split(" ")) covered.set(part, (covered.get(part) ?? 0) + k.weight)
  }
  return chosen.sort((a, b) => b.weight - a.weight || a.term.localeCompare(b.term))
}

/** A keyword ranked against arXiv statistics, with the evidence for it. */
export interface RankedKeyword extends Keyword {
  /** Weight in the note (occurrences; headings, emphasis and the title count more). */
  readonly noteWeight: number
  /** Documents of the statistics' corpus that use it (see `count`). */
  readonly documentFrequency: number
  readonly count: TermStat["count"]
  /** How much the term says about a document that uses it: ln(documents / documentFrequency). */
  readonly informativeness: number
  readonly phrase: boolean
  /** Why it was chosen, for the report. */
  readonly reason: string
}

/** The knobs of {@link rankKeywords}; `keywordDefaults` holds the measured values. */
export interface KeywordParams {
  /** A single word below this informativeness is too common in arXiv text to carry a concept. */
  readonly minWordInformativeness: number
  /** A phrase below this informativeness is a common collocation ("neural network"), not a concept. */
  readonly minPhraseInformativeness: number
  /** Exponent on the note weight (1 = proportional). */
  readonly weightPower: number
  /** Multiplier of a phrase's score over a word's. */
  readonly phraseBonus: number
  /** Weight added to a term that is a whole phrase of the note's title (the title usually names the concept). */
  readonly titleBonus: number
  /** Rarity beyond this informativeness adds nothing: a word rare in abstracts is not for that more central to the note. */
  readonly maxInformativeness: number
}

export const keywordDefaults: KeywordParams = {
  minWordInformativeness: 2.3,
  minPhraseInformativeness: 2.3,
  weightPower: 1,
  phraseBonus: 1.5,
  titleBonus: 4,
  maxInformativeness: 6
}

/**
 * Words that say how a note talks, not what it is about. Most are too common
 * in arXiv abstracts to pass the informativeness bar anyway; these pass it
 * because abstracts seldom use them while notes, written in plain speech, do.
 */
const GENERIC: ReadonlySet<string> = new Set(
  (
    "look end better best good bad new old big small large huge lot lots way ways kind thing stuff part parts " +
    "step steps idea trick tricks fix fixes problem problems issue issues question answer help helps work works " +
    "compare compute approach approaches data result results method methods model models network networks " +
    "first second third last next later earlier instead almost basically actually simple simply hard easy " +
    "fine much many few whole same different various important main key keys cheap expensive fast slow " +
    "famous popular default usual usually common plain standard original paper papers author authors year years " +
    "today know known think seem seems want wants try tries give gives take takes keep keeps get gets put puts " +
    "say says call called come comes go goes run runs tell tells point points number numbers case cases " +
    "two three four several single double pro pros con cons thought thoughts cheap cheaper long longer short shorter " +
    "prob init intuition intuitions follow follow-up follow-ups motivation recap tldr aside matter matters"
  ).split(/\s+/)
)

/** The last word of a phrase that speaks of the note itself, as singular keys ("open questions", "key takeaways"). */
const ABOUT_THE_NOTE: ReadonlySet<string> = new Set("question idea note thought todo takeaway matter".split(" "))

/** Quantities and judgements that make a phrase vague rather than specific ("two kinds", "different resolutions"). */
const VAGUE: ReadonlySet<string> = new Set(
  (
    "different various several two three four many new better best good bad simple whole same other main key " +
    "important big huge kind kinds way ways thing things lot lots part parts"
  ).split(/\s+/)
)

/**
 * The note's keywords ranked by how much they say about the concept: weight
 * in the note times informativeness in arXiv text (inverse document
 * frequency from `stats`, asked for every term of `terms` in order), phrases
 * before single words. Common academic words never make a keyword: a word
 * must clear an informativeness bar and not be a generic word; a phrase must
 * be counted by the statistics (not built on a boilerplate word) and clear
 * its own bar. A chosen phrase discounts its words, so "machine translation"
 * is not followed by "translation".
 */
export const rankKeywords = (
  terms: ReadonlyArray<NoteTerm>,
  stats: TermLookup,
  limit = 8,
  params: KeywordParams = keywordDefaults
): ReadonlyArray<RankedKeyword> => {
  // a term that never occurs outside a longer one ("neural machine" in "neural machine translation") adds nothing
  // (a phrase that refers to the note itself, "quick idea", and that arXiv does not use, subsumes nothing: it is dropped below)
  const selfReferring = (t: NoteTerm) => t.key.split(" ").some(isSelfReference)
  const subsumed = (t: NoteTerm) =>
    terms.some((u, j) =>
      u.words > t.words && u.weight >= t.weight && ` ${u.key} `.includes(` ${t.key} `) &&
      !(selfReferring(u) && stats.stats[j]?.count !== "exact")
    )
  const scored: Array<RankedKeyword & { readonly key: string }> = []
  terms.forEach((t, i) => {
    const stat = stats.stats[i]
    if (stat === undefined || stat.ignored || subsumed(t)) return
    const phrase = t.words > 1 || t.key.includes("-")
    // words arXiv seldom puts side by side are the note's wording, not a term of the field,
    // unless they name the note (a concept newer than the statistics) with no word notes use about themselves
    // ("Quick idea" names a note, not a concept)
    if (t.words > 1 && stat.count !== "exact" && !(t.namesTitle && !selfReferring(t))) return
    // a hyphenated word is one word here: "follow-up" is as generic as "follow"
    if (t.isName || (t.words === 1 && (GENERIC.has(t.key) || GENERIC.has(t.term)))) return
    // "different resolutions", "two kinds": a generic word at either end says nothing the rest does not
    const ends = t.term.split(" ")
    if (t.words > 1 && (VAGUE.has(ends[0]!) || VAGUE.has(ends[ends.length - 1]!))) return
    // "open questions", "quick idea", "my thoughts": a phrase about the note itself, however often arXiv says it
    const parts = t.key.split(" ")
    if (t.words > 1 && ABOUT_THE_NOTE.has(parts[parts.length - 1]!)) return
    const informativeness = Math.log(stats.documents / Math.max(1, stat.documentFrequency))
    if (informativeness < (phrase ? params.minPhraseInformativeness : params.minWordInformativeness)) return
    const noteWeight = t.weight + (t.namesTitle ? params.titleBonus : t.inTitle ? 1 : 0)
    const weight = Math.pow(noteWeight, params.weightPower) * Math.min(informativeness, params.maxInformativeness) *
      (phrase ? params.phraseBonus : 1)
    scored.push({
      key: t.key,
      term: t.term,
      weight,
      noteWeight,
      documentFrequency: stat.documentFrequency,
      count: stat.count,
      informativeness,
      phrase,
      reason: ""
    })
  })
  scored.sort((a, b) => b.weight - a.weight || b.key.length - a.key.length || a.key.localeCompare(b.key))
  // greedy selection: a chosen phrase discounts its words and the phrases inside it
  const chosen: Array<RankedKeyword> = []
  const covered = new Set<string>()
  for (const k of scored) {
    if (chosen.length >= limit) break
    if (covered.has(k.key)) continue
    if (chosen.some((c) => ` ${c.term} `.includes(` ${k.term} `))) continue
    chosen.push({ ...k, reason: explain(k, stats.documents) })
    const parts = k.key.split(" ")
    for (let n = 1; n < parts.length; n++) {
      for (let i = 0; i + n <= parts.length; i++) covered.add(parts.slice(i, i + n).join(" "))
    }
  }
  return chosen
}

const explain = (k: Omit<RankedKeyword, "reason">, documents: number): string => {
  const share = k.documentFrequency / documents
  const where = k.count === "below"
    ? `rare in arXiv abstracts (fewer than ${k.documentFrequency} of ${documents.toLocaleString("en-US")})`
    : k.count === "unknown"
    ? "not counted by the arXiv statistics (it holds a letter, number or function word they skip)"
    : `in ${share < 0.001 ? "fewer than 0.1" : (share * 100).toFixed(1)}% of arXiv abstracts (${k.documentFrequency.toLocaleString("en-US")} of ${documents.toLocaleString("en-US")})`
  return `${k.phrase ? "phrase" : "word"} with weight ${k.noteWeight} in the note; ${where}`
}

/**
 * The words the note's central concepts are named with, for a title search:
 * the words of its `central` best keywords (phrases split), singular forms
 * de-duplicated, each informative on its own in arXiv text (above the
 * keyword bar for single words, so "deep", "neural", "level" or "model" never
 * stand for a concept) and not a generic word. `terms` and `stats` are the
 * lists `rankKeywords` ranked: a word of a phrase is there as a term of its own.
 */
export const centralWords = (
  keywords: ReadonlyArray<Keyword>,
  terms: ReadonlyArray<NoteTerm>,
  stats: TermLookup,
  central = 2,
  params: KeywordParams = keywordDefaults
): ReadonlyArray<string> => {
  const byKey = new Map(terms.map((t, i) => [t.key, stats.stats[i]] as const))
  const out: Array<string> = []
  for (const k of keywords.slice(0, central)) {
    for (const w of k.term.toLowerCase().split(/\s+/)) {
      const key = singular(w)
      const stat = byKey.get(key)
      if (stat === undefined || stat.ignored || GENERIC.has(key) || GENERIC.has(w) || out.includes(w)) continue
      if (Math.log(stats.documents / Math.max(1, stat.documentFrequency)) < params.minWordInformativeness) continue
      out.push(w)
    }
  }
  return out
}

/** A word or phrase of the papers a first search ranked best, with how many of them use it. */
export interface FeedbackTerm {
  /** The singular forms of its words, joined by spaces. */
  readonly key: string
  /** The form the papers use most. */
  readonly term: string
  /** How many of the papers use it (title or abstract). */
  readonly papers: number
  /** Number of words (1 for a single word). */
  readonly words: number
}

/**
 * Every word and phrase (two or three adjacent content words) that at least
 * `minPapers` of `papers` use in their title or abstract, by the number of
 * papers that use it, most first: the candidates of pseudo-relevance
 * feedback, to be looked up in the arXiv statistics and ranked by
 * {@link expansionTerms}. Inline TeX (`$…$`) is skipped.
 */
export const feedbackTerms = (
  papers: ReadonlyArray<{ readonly title: string; readonly abstract: string }>,
  minPapers = 2
): ReadonlyArray<FeedbackTerm> => {
  const count = new Map<string, number>()
  const surface: SurfaceForms = new Map()
  for (const paper of papers) {
    const seen = new Set<string>()
    const text = `${paper.title}.\n${paper.abstract}`.replace(/\$[^$]*\$/g, " ").replace(TEX_COMMAND, " ")
    for (const run of termRuns(text)) {
      const key = run.map(singular).join(" ")
      addForm(surface, key, run.join(" "))
      if (seen.has(key)) continue
      seen.add(key)
      count.set(key, (count.get(key) ?? 0) + 1)
    }
  }
  const out: Array<FeedbackTerm> = []
  for (const [key, n] of count) {
    if (n < minPapers) continue
    out.push({ key, term: mostUsedForm(surface, key), papers: n, words: key.split(" ").length })
  }
  return out.sort((a, b) => b.papers - a.papers || a.key.localeCompare(b.key))
}

/** A feedback term chosen to widen a search, with its evidence. */
export interface ExpansionTerm {
  readonly term: string
  /** How many of the feedback papers use it. */
  readonly papers: number
  /** ln(documents / document frequency) in the arXiv statistics. */
  readonly informativeness: number
  readonly phrase: boolean
  readonly weight: number
}

/** The knobs of {@link expansionTerms}. */
export interface ExpansionParams {
  /** A single word below this informativeness is too common in arXiv text to widen a search with. */
  readonly minWordInformativeness: number
  readonly minPhraseInformativeness: number
  /** Multiplier of a phrase's score over a word's. */
  readonly phraseBonus: number
  /** Rarity beyond this informativeness adds nothing (a typo or a name used once is not a concept). */
  readonly maxInformativeness: number
}

export const expansionDefaults: ExpansionParams = {
  minWordInformativeness: 2.3,
  minPhraseInformativeness: 2.3,
  phraseBonus: 1.5,
  maxInformativeness: 6
}

/**
 * The words and phrases the papers a first search ranked best share, that
 * the search did not ask for: pseudo-relevance feedback. Each feedback term
 * (`candidates`, from {@link feedbackTerms}; `stats` are their statistics, in
 * the same order) is scored by the number of papers that use it times its
 * informativeness in arXiv text, phrases before words; a term is left out
 * when it is a generic word, too common in arXiv text, counted by the
 * statistics only as a rare collocation (a phrase), used by the papers only
 * inside a longer candidate, or already said by the query (`asked`: a
 * keyword, a word of one, or a phrase that holds one; a shorter phrase of a
 * keyword is kept, as it widens the search). A chosen phrase covers its
 * words. At most `limit`, best first.
 */
export const expansionTerms = (
  candidates: ReadonlyArray<FeedbackTerm>,
  stats: TermLookup,
  asked: ReadonlyArray<string>,
  limit = 5,
  params: ExpansionParams = expansionDefaults
): ReadonlyArray<ExpansionTerm> => {
  const askedKeys = asked.map((a) => words(a).map(singular).join(" ")).filter((k) => k !== "")
  // a keyword, a word of one, or a phrase holding one adds nothing; a shorter phrase of a keyword widens it
  // ("knowledge graph" of "knowledge graph embeddings": a review that says "knowledge graphs")
  const said = (key: string) =>
    askedKeys.some((a) => a === key || ` ${key} `.includes(` ${a} `) || (!key.includes(" ") && ` ${a} `.includes(` ${key} `)))
  // a phrase the papers use only inside a longer one ("recurrent neural" of "recurrent neural network") is cut short
  const subsumed = (c: FeedbackTerm) =>
    candidates.some((u) => u.words > c.words && u.papers >= c.papers && ` ${u.key} `.includes(` ${c.key} `))
  const scored: Array<ExpansionTerm & { readonly key: string }> = []
  candidates.forEach((c, i) => {
    const stat = stats.stats[i]
    if (stat === undefined || stat.ignored || said(c.key) || subsumed(c)) return
    const phrase = c.words > 1 || c.key.includes("-")
    // "state-of-the-art", "end-to-end": compounds of function words the statistics cannot count say nothing
    if (phrase && stat.count !== "exact") return
    if (c.key.split(" ").some((w) => GENERIC.has(w)) || GENERIC.has(c.term)) return
    const informativeness = Math.log(stats.documents / Math.max(1, stat.documentFrequency))
    if (informativeness < (phrase ? params.minPhraseInformativeness : params.minWordInformativeness)) return
    const weight = c.papers * Math.min(informativeness, params.maxInformativeness) * (phrase ? params.phraseBonus : 1)
    scored.push({ key: c.key, term: c.term, papers: c.papers, informativeness, phrase, weight })
  })
  scored.sort((a, b) => b.weight - a.weight || b.key.length - a.key.length || a.key.localeCompare(b.key))
  const chosen: Array<ExpansionTerm & { readonly key: string }> = []
  for (const s of scored) {
    if (chosen.length >= limit) break
    if (chosen.some((c) => ` ${c.key} `.includes(` ${s.key} `) || ` ${s.key} `.includes(` ${c.key} `))) continue
    chosen.push(s)
  }
  return chosen.map(({ key: _, ...rest }) => rest)
}

/**
 * The papers of a first search to learn expansion terms from: its `k` best
 * whose title holds one of the note's central words (`central`, see
 * `centralWords`; plural or singular), in its order. A paper titled by the
 * concept is about it far more often than one that only uses many of the
 * note's words (eval/README.md), so feedback drawn from those drifts less.
 */
export const feedbackPapers = <P extends { readonly title: string }>(
  papers: ReadonlyArray<P>,
  central: ReadonlyArray<string>,
  k = 20
): ReadonlyArray<P> => {
  const wanted = new Set(central.map((w) => singular(w.toLowerCase())))
  return papers.filter((p) => words(p.title).some((w) => wanted.has(singular(w)))).slice(0, k)
}
