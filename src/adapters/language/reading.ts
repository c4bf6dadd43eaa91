/**
 * The offline English reading of a note in another language: line by line,
 * each word of a line in Ukrainian, Russian, French, German or Spanish becomes
 * English through, in this order,
 * 1. the glossary (data/language/glossary.tsv), longest phrase first
 *    ("descente de gradient" → gradient descent, "сверточная сеть" →
 *    convolutional neural network), inflections folded by a light stemming;
 * 2. nothing, when it is a stop word of the language: it never becomes a
 *    query term, it only ends the phrase it stands in;
 * 3. itself, when it is an English term mixed in (Latin letters in a
 *    Cyrillic line; an acronym, a word with digits, or a word arXiv's English
 *    records use at least 20 times in a French, German or Spanish line);
 * 4. its cognate or transliteration in arXiv's vocabulary (cognates.ts).
 * A word none of these read ends the phrase it stands in and is listed as
 * unread. Lines in English are kept as they are; the Markdown around the words
 * (headings, emphasis, lists) is kept, so the keyword weights work as for an
 * English note. In French and Spanish, two or three words read one by one are
 * put in the order arXiv uses them ("échantillonnage négatif" → negative
 * sampling).
 *
 * A language with no glossary keeps only its English terms, by the same rule 3
 * (and its stop words, when stopwords-iso has them, are never kept).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import {
  type DetectedLanguage,
  type EnglishNote,
  type GlossaryLanguage,
  hasGlossary,
  languageName as languageNameOf,
  NoteReading,
  ReadTerm,
  type TermOrigin
} from "../../core/language.js"
import { termStat } from "../judge/ArxivTermStats.js"
import { arxivDfTable } from "../judge/dfTable.js"
import type { DfTable } from "../judge/score.js"
import { FUNCTION_WORDS } from "../../core/text.js"
import { cognate, MIN_SAME_SPELLING } from "./cognates.js"
import { detectLines, detectShort, englishWithoutDetector, type LanguageDetector, languageDetector, MIXED_NOTE_SHARE } from "./detect.js"
import { arxivVocabulary, fold, isCyrillic, type Lexicon, lexicon, lightStem, stopWords, type Vocabulary, WORD } from "./lexicon.js"

/** What a line's reading needs. */
interface Context {
  readonly language: string
  readonly lexicon: Lexicon | undefined
  readonly stop: ReadonlySet<string>
  readonly vocabulary: Vocabulary
  readonly table: () => DfTable
  readonly terms: Map<string, ReadTerm>
  readonly unread: Set<string>
}

/** A word of a line, with the text before it. */
interface Token {
  readonly before: string
  readonly word: string
  readonly folded: string
}

const tokensOf = (line: string, language: string, vocabulary: Vocabulary): { readonly tokens: ReadonlyArray<Token>; readonly rest: string } => {
  // an elided article is a word of its own ("d'apprentissage", "l'attention"): Ukrainian's apostrophe is inside words
  const elided = language === "fr" || language === "es" || language === "de"
    ? line.replace(/\b([A-Za-zÀ-ÿ]{1,2})['’](?=\p{L})/gu, "$1' ")
    : line
  // German joins an English term to its own words with hyphens ("LSTM-Varianten", "Sparse-Coding-Pipeline"): the
  // parts are words of their own, unless arXiv writes the compound so ("end-to-end")
  const text = language === "de"
    ? elided.replace(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+/gu, (w) => (vocabulary.records(fold(w)) >= 3 ? w : w.replace(/-/g, " ")))
    : elided
  const tokens: Array<Token> = []
  let last = 0
  for (const m of text.matchAll(WORD)) {
    tokens.push({ before: text.slice(last, m.index), word: m[0], folded: fold(m[0]) })
    last = m.index + m[0].length
  }
  return { tokens, rest: text.slice(last) }
}

/** An acronym or a name with digits or inner capitals ("DCGAN", "GloVe", "word2vec", "seq2seq"): English as written. */
const looksLikeTerm = (word: string): boolean =>
  /^[A-Z]{2,}[a-z]?s?$/.test(word) || /\p{L}\d|\d\p{L}/u.test(word) || /^[A-Za-z][a-z]+[A-Z]/.test(word) || /^[A-Z][a-z]*[A-Z]/.test(word)

/** Whether a Latin-script word of a line in another language is an English term mixed in. */
const isEnglishTerm = (token: Token, context: Context): boolean => {
  if (isCyrillic(token.word) || !/^[a-z0-9'-]+$/i.test(stripForCheck(token.folded))) return false
  if (context.stop.has(token.folded)) return false
  if (looksLikeTerm(token.word)) return true
  const known = context.lexicon?.known
  const parts = token.folded.split("-")
  // a word the glossary holds in this language is the language's word, whatever arXiv's records say
  if (known !== undefined && hasGlossary(context.language) && known.has(lightStem(context.language, token.folded))) return false
  return parts.every((p) => p.length >= 2 && !context.stop.has(p) && context.vocabulary.records(p) >= MIN_SAME_SPELLING) ||
    context.vocabulary.records(token.folded) >= MIN_SAME_SPELLING
}

const stripForCheck = (w: string) => w.replace(/'/g, "")

/** One read word or phrase of a line: its English, the tokens it took, and how. */
interface Read {
  readonly english: string
  readonly from: number
  readonly to: number
  readonly via: TermOrigin
  /** True for one word read alone (glossary word, cognate): its place in a phrase may change. */
  readonly single: boolean
}

/** Whether tokens `i` to `j` stand in one phrase: only spaces (or hyphens) between them. */
const joined = (tokens: ReadonlyArray<Token>, i: number, j: number): boolean => {
  for (let k = i + 1; k <= j; k++) if (!/^[\s'’-]*$/u.test(tokens[k]!.before)) return false
  return true
}

/** The reading of a line's words in a language with a glossary. */
const readTokens = (tokens: ReadonlyArray<Token>, language: GlossaryLanguage, context: Context): ReadonlyArray<Read | undefined> => {
  const lex = context.lexicon!
  const stems = tokens.map((t) => lightStem(language, t.folded))
  const out: Array<Read | undefined> = new Array(tokens.length).fill(undefined)
  for (let i = 0; i < tokens.length;) {
    const entries = lex.glossary.get(stems[i]!) ?? []
    const entry = entries.find((e) =>
      i + e.stems.length <= tokens.length && joined(tokens, i, i + e.stems.length - 1) &&
      e.stems.every((s, k) => stems[i + k] === s)
    )
    if (entry !== undefined) {
      out[i] = { english: entry.english, from: i, to: i + entry.stems.length, via: "glossary", single: entry.stems.length === 1 && !entry.english.includes(" ") }
      i += entry.stems.length
      continue
    }
    const token = tokens[i]!
    if (context.stop.has(token.folded) || /^\d+$/.test(token.folded)) {
      i++
      continue
    }
    if (isEnglishTerm(token, context)) {
      out[i] = { english: token.word, from: i, to: i + 1, via: "english", single: false }
      i++
      continue
    }
    const found = isCyrillic(token.word) === (language === "ru" || language === "uk") ? cognate(language, token.folded, context.vocabulary) : undefined
    if (found !== undefined) out[i] = { english: found.english, from: i, to: i + 1, via: found.via, single: true }
    else if ([...token.folded].length >= 4) context.unread.add(token.word.toLowerCase())
    i++
  }
  return out
}

/** The reading of a line's words in a language without a glossary: its English terms only. */
/**
 * With no glossary, nothing tells a plain word of the language from an English one spelled the same ("produce",
 * "distanza"): only what is surely English is kept, an acronym or a name ("DCGAN", "GloVe"), a hyphenated term,
 * or two English words side by side ("mode collapse").
 */
const readEnglishOnly = (tokens: ReadonlyArray<Token>, context: Context): ReadonlyArray<Read | undefined> => {
  const english = tokens.map((t) => isEnglishTerm(t, context))
  const sure = (i: number) =>
    looksLikeTerm(tokens[i]!.word) || tokens[i]!.folded.includes("-") ||
    (english[i - 1] === true && joined(tokens, i - 1, i)) || (english[i + 1] === true && joined(tokens, i, i + 1))
  return tokens.map((token, i) => {
    if (english[i] === true && sure(i)) return { english: token.word, from: i, to: i + 1, via: "english", single: false }
    if (!context.stop.has(token.folded) && [...token.folded].length >= 4) context.unread.add(token.word.toLowerCase())
    return undefined
  })
}

/** How often arXiv puts words side by side in this order (0 when it does not count them exactly). */
const adjacency = (table: DfTable, words: ReadonlyArray<string>): number => {
  const stat = termStat(table, words.join(" "))
  return stat.count === "exact" && !stat.ignored ? stat.documentFrequency : 0
}

const permutations = <A>(xs: ReadonlyArray<A>): ReadonlyArray<ReadonlyArray<A>> =>
  xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]))

/**
 * French and Spanish put the adjective after the noun: a run of two or three readings (a word read alone, or a
 * glossary phrase kept whole: "modèles de langage récurrents" → recurrent language model), of four words at most,
 * in the order arXiv uses them.
 */
const reorder = (reads: ReadonlyArray<Read>, context: Context): ReadonlyArray<Read> => {
  if (reads.length < 2 || reads.length > 3 || reads.some((r) => r.via === "english")) return reads
  if (reads.flatMap((r) => r.english.split(" ")).length > 4 || reads.filter((r) => !r.single).length > 1) return reads
  const table = context.table()
  const asWritten = adjacency(table, reads.map((r) => r.english))
  // a phrase the glossary knows followed by a word read alone, with nothing counted either way: the word is the
  // adjective French and Spanish put after the noun ("modèles de langage récurrents")
  const evidence = permutations(reads).some((p) => adjacency(table, p.map((r) => r.english)) > 0)
  if (!evidence) return reads.length === 2 && !reads[0]!.single && reads[1]!.single ? [reads[1]!, reads[0]!] : reads
  let best = reads
  let bestCount = asWritten
  for (const p of permutations(reads)) {
    const n = adjacency(table, p.map((r) => r.english))
    if (n > bestCount) {
      best = p
      bestCount = n
    }
  }
  return best
}

/** A line of another language in English words, its Markdown kept; unread words break the phrase they stand in. */
const readLine = (raw: string, context: Context): string => {
  const { tokens, rest } = tokensOf(raw, context.language, context.vocabulary)
  const reads = hasGlossary(context.language) && context.lexicon !== undefined
    ? readTokens(tokens, context.language, context)
    : readEnglishOnly(tokens, context)
  for (const r of reads) {
    if (r === undefined || r.via === "english") continue
    const source = tokens.slice(r.from, r.to).map((t) => t.word).join(" ")
    const key = `${r.english}\u0000${source.toLowerCase()}`
    if (!context.terms.has(key)) context.terms.set(key, new ReadTerm({ english: r.english, source, via: r.via }))
  }
  // runs of reads with nothing but spaces between them are phrases
  let out = ""
  let i = 0
  const romance = context.language === "fr" || context.language === "es"
  while (i < tokens.length) {
    const r = reads[i]
    if (r === undefined) {
      // an unread word or a stop word: its separators stay (Markdown), the word is a break
      out += `${tokens[i]!.before.replace(/[^\s#*_>|[\]()`~=-]/gu, "")} ,`
      i++
      continue
    }
    const run: Array<Read> = [r]
    let j = r.to
    while (j < tokens.length && reads[j] !== undefined && /^\s+$/u.test(tokens[j]!.before)) {
      run.push(reads[j]!)
      j = reads[j]!.to
    }
    const ordered = romance ? reorder(run, context) : run
    out += `${tokens[i]!.before}${ordered.map((x) => x.english).join(" ")}`
    i = j
  }
  return out + rest
}

/**
 * An English line of a note in another language, its words that are stop words of the note's language (and no
 * English word) made breaks: the detector may call a line of English terms joined by Spanish words English, and
 * "demasiado" or "sobre" must not be searched for all that.
 */
const withoutStopWordsOf = (raw: string, context: Context): string => {
  if (context.stop.size === 0) return raw
  const { tokens, rest } = tokensOf(raw, "en", context.vocabulary)
  return tokens.map((t) => {
    const foreign = context.stop.has(t.folded) && !FUNCTION_WORDS.has(t.folded) && context.vocabulary.records(t.folded) < MIN_SAME_SPELLING
    return `${t.before}${foreign ? "," : t.word}`
  }).join("") + rest
}

/** A title in English words (its own language's when the note's is not clear from it). */
const readTitle = (
  title: string,
  language: string,
  context: Omit<Context, "language" | "lexicon" | "stop">,
  detector: LanguageDetector
): string => {
  const own = title.trim() === "" ? language : detectShort(title, detector)
  // a title of English words reads as English even in a note of another language ("Transformers")
  const titleLanguage = own === "en" || language === "en" ? own : language
  if (titleLanguage === "en") return title
  return readLine(title, contextFor(titleLanguage, context)).replace(/\s*,\s*/g, " ").replace(/\s+/g, " ").trim()
}

const contextFor = (language: string, shared: Omit<Context, "language" | "lexicon" | "stop">): Context => ({
  ...shared,
  language,
  lexicon: hasGlossary(language) ? lexicon(language) : undefined,
  stop: stopWords(language)
})

/**
 * The note's reading: its language, its English text and title, the terms read and the words left unread. A note
 * that is surely English (detect.ts, `englishWithoutDetector`) is searched as it is without loading the detector;
 * any other loads it, once per process.
 */
export const readNote = (
  note: { readonly title: string; readonly text: string },
  reader = "offline",
  vocabulary?: Vocabulary,
  table: () => DfTable = arxivDfTable
): Effect.Effect<EnglishNote> => {
  const english = englishWithoutDetector(note.text)
  if (english !== undefined) return Effect.succeed(asItIs(note, english.detected, reader))
  return Effect.map(languageDetector, (detector) => readNoteWith(detector, note, reader, vocabulary, table))
}

const asItIs = (note: { readonly title: string; readonly text: string }, detected: DetectedLanguage, reader: string): EnglishNote => ({
  text: note.text,
  title: note.title,
  reading: new NoteReading({ detected, reader, dictionary: "none", terms: [], unread: [], notes: [] })
})

/** `readNote` with the detector given: every note goes through it (the English check aside). */
export const readNoteWith = (
  detector: LanguageDetector,
  note: { readonly title: string; readonly text: string },
  reader = "offline",
  vocabulary: Vocabulary = arxivVocabulary(),
  table: () => DfTable = arxivDfTable
): EnglishNote => {
  const { lines, detected } = detectLines(note.text, detector)
  // an English note is searched as it is, unless another language holds a real part of it (a mixed note): a few
  // lines of names and terms the detector calls Dutch or French (29 of the 96 English evaluation notes have some,
  // at most 10 % of their words) must not change what an English note is searched on
  const foreignShare = detected.shares.filter((s) => s.language !== "en").reduce((a, s) => a + s.share, 0)
  if (detected.language === "en" && foreignShare < MIXED_NOTE_SHARE) return asItIs(note, detected, reader)
  const shared = { vocabulary, table, terms: new Map<string, ReadTerm>(), unread: new Set<string>() }
  const contexts = new Map<string, Context>()
  const context = (language: string) => {
    const hit = contexts.get(language)
    if (hit !== undefined) return hit
    const built = contextFor(language, shared)
    contexts.set(language, built)
    return built
  }
  // the frontmatter stays as it is (the keywords never read it); code blocks too
  const frontmatter = /^\uFEFF?---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(note.text)?.[0] ?? ""
  let inCode = false
  const out: Array<string> = []
  for (const line of lines) {
    if (/^\s*```/.test(line.raw)) inCode = !inCode
    if (inCode || /^\s*```/.test(line.raw) || line.words === 0) {
      out.push(line.raw)
      continue
    }
    if (line.language === "en" && line.latinInOtherScript === 0) {
      out.push(withoutStopWordsOf(line.raw, context(detected.language)))
      continue
    }
    out.push(readLine(line.raw, context(line.language)))
  }
  const notes: Array<string> = []
  const languagesRead = [...new Set(lines.filter((l) => l.words > 0 && l.language !== "en").map((l) => l.language))]
  for (const l of languagesRead.filter((l) => !hasGlossary(l))) {
    notes.push(
      `No ${languageNameOf(l)} glossary offline: its lines were searched on their English terms only` +
        " (configure an LLM to read them, or write the concept's English terms into the note)."
    )
  }
  const dictionary = hasGlossary(detected.language) ? "glossary" : detected.language === "en" ? "glossary" : "english-only"
  return {
    text: frontmatter + out.join("\n"),
    title: readTitle(note.title, detected.language, shared, detector),
    reading: reading(detected, reader, dictionary, shared, notes)
  }
}

const reading = (
  detected: DetectedLanguage,
  reader: string,
  dictionary: NoteReading["dictionary"],
  shared: { readonly terms: Map<string, ReadTerm>; readonly unread: Set<string> },
  notes: ReadonlyArray<string>
): NoteReading =>
  new NoteReading({
    detected,
    reader,
    dictionary,
    terms: [...shared.terms.values()],
    unread: [...shared.unread].slice(0, 30),
    notes
  })
