/**
 * The language of a note, per line and for the whole, with the `eld` package
 * (Efficient Language Detector, Apache-2.0; its "small" n-gram database,
 * 1.6 MB): of franc, tinyld and eld it was the one right on every one of 32
 * short mixed lines of notes (README, "Notes in other languages").
 *
 * Notes mix languages: a Ukrainian line holds English terms ("Механізм
 * self-attention …"), a French note has an English quote. So each line is
 * detected on its own (its Latin words in a Cyrillic line counted as English
 * terms), a short line takes the language of the note's lines in its script,
 * and the note's language is the one most of its words are in, English terms
 * aside.
 *
 * eld's database costs a run about 0.65 s of CPU to load and most of its
 * memory, and most notes are English: `englishWithoutDetector` first decides,
 * line by line and without eld, whether a note is surely English (every letter
 * ASCII, English function words no other language has, and no line holding
 * more of another language's stop words than English ones); eld is imported
 * (once, through `languageDetector`) only for the other notes.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { DetectedLanguage, LanguageShare, languageName } from "../../core/language.js"
import { plainText, splitFrontmatter } from "../../core/keywords.js"
import { FUNCTION_WORDS } from "../../core/text.js"
import { fold, isCyrillic, stopWords, WORD } from "./lexicon.js"

/** The detector's name in reports. */
export const DETECTOR = "eld 2.1 (small database)"

/** The name in reports of the check that found a note English without eld. */
export const ENGLISH_CHECK = "English function words (eld not needed)"

/**
 * The languages the detector chooses among: those students of this project write in, and languages whose script
 * no other shares. A wider set mistook short Russian lines for Bulgarian.
 */
export const DETECTED = ["en", "uk", "ru", "fr", "de", "es", "it", "pt", "pl", "nl", "cs", "sv", "tr", "el", "ar", "he", "hi", "ja", "ko", "zh"]

/** The detector, loaded: a text's language (ISO 639-1; "en" when it cannot tell). */
export interface LanguageDetector {
  readonly detect: (text: string) => string
}

let loading: Promise<LanguageDetector> | undefined

/** eld with its small database, imported on first use and kept for the process (the import is the cost). */
export const languageDetector: Effect.Effect<LanguageDetector> = Effect.promise(() =>
  loading ??= import("eld/small").then(({ eld }) => {
    const detector = eld.newInstance()
    detector.setLanguageSubset(DETECTED)
    return {
      detect: (text: string) => {
        const r = detector.detect(text)
        return r.language === "" || r.language === undefined ? "en" : r.language
      }
    }
  })
)

/** A line with fewer words is too short to detect on its own: it takes the language of its script's lines. */
const MIN_LINE_WORDS = 3

/** One line of a note with the language it was read in. */
export interface DetectedLine {
  /** The line as the note has it (Markdown kept). */
  readonly raw: string
  readonly language: string
  /** Its words in Latin letters inside a line of another script: English terms. */
  readonly latinInOtherScript: number
  readonly words: number
}

/** A note's lines as the detector reads them: frontmatter and code left out, each line's prose. */
const linesOf = (text: string): { readonly raws: ReadonlyArray<string>; readonly prose: ReadonlyArray<string> } => {
  const body = splitFrontmatter(text).body.replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ""))
  const raws = body.split(/\r?\n/)
  return { raws, prose: raws.map((raw) => plainText(raw)) }
}

const wordsOf = (s: string) => [...s.matchAll(WORD)].map((m) => m[0]).filter((w) => /\p{L}/u.test(w))

/** The lines of a note (frontmatter and code left out) with their languages, and the note's language. */
export const detectLines = (
  text: string,
  detector: LanguageDetector
): { readonly lines: ReadonlyArray<DetectedLine>; readonly detected: DetectedLanguage } => {
  const detectText = detector.detect
  const { raws, prose } = linesOf(text)
  // the script's language from all its lines together: the Cyrillic ones, and the Latin ones
  const cyrillicText = prose.map((p) => wordsOf(p).filter(isCyrillic).join(" ")).join(" ").trim()
  const latinText = prose.filter((p) => {
    const ws = wordsOf(p)
    return ws.length > 0 && ws.filter(isCyrillic).length * 2 < ws.length
  }).join("\n")
  const cyrillicLanguage = cyrillicText === "" ? undefined : detectText(cyrillicText)
  const latinLanguage = latinText.trim() === "" ? "en" : detectText(latinText)
  const lines: Array<DetectedLine> = []
  for (let i = 0; i < raws.length; i++) {
    const ws = wordsOf(prose[i]!)
    if (ws.length === 0) {
      lines.push({ raw: raws[i]!, language: latinLanguage, latinInOtherScript: 0, words: 0 })
      continue
    }
    const cyrillic = ws.filter(isCyrillic)
    if (cyrillic.length * 2 >= ws.length || (cyrillic.length > 0 && cyrillicLanguage !== undefined)) {
      const language = cyrillic.length >= MIN_LINE_WORDS ? detectText(cyrillic.join(" ")) : cyrillicLanguage ?? "ru"
      // a line of the note's Cyrillic language, read as the other one on its own, keeps the note's: Russian and
      // Ukrainian share most short words
      const settled = (language === "ru" || language === "uk") && cyrillicLanguage !== undefined ? cyrillicLanguage : language
      lines.push({ raw: raws[i]!, language: settled, latinInOtherScript: ws.length - cyrillic.length, words: ws.length })
      continue
    }
    const detected = ws.length >= MIN_LINE_WORDS ? detectText(prose[i]!) : latinLanguage
    lines.push({ raw: raws[i]!, language: settleLatin(detected, latinLanguage, ws), latinInOtherScript: 0, words: ws.length })
  }
  return { lines, detected: summarise(lines) }
}

/**
 * A line the detector reads as English in a note of another Latin-script language stays the note's language when
 * it holds more of that language's stop words than English function words: a line of English terms joined by
 * French or Spanish words ("VAE con prior gaussiano, ELBO demasiado débil") is not English.
 */
const settleLatin = (detected: string, noteLanguage: string, ws: ReadonlyArray<string>): string => {
  if (detected === noteLanguage) return detected
  const folded = ws.map(fold)
  const english = folded.filter((w) => FUNCTION_WORDS.has(w)).length
  const foreignIn = (language: string) => {
    const own = stopWords(language)
    return folded.filter((w) => own.has(w) && !FUNCTION_WORDS.has(w)).length
  }
  // and the other way: a line of an English note is another language's only when it holds more of that language's
  // stop words than English function words (a short line of names and terms is often detected as Dutch or Italian)
  if (noteLanguage === "en") return foreignIn(detected) > english ? detected : "en"
  if (detected !== "en") return detected
  return foreignIn(noteLanguage) > english ? noteLanguage : detected
}

/** The note's language from its lines: the language of most words, English terms in other lines aside. */
const summarise = (lines: ReadonlyArray<DetectedLine>): DetectedLanguage => {
  const counts = new Map<string, number>()
  for (const line of lines) {
    if (line.words === 0) continue
    counts.set(line.language, (counts.get(line.language) ?? 0) + line.words - line.latinInOtherScript)
    if (line.latinInOtherScript > 0) counts.set("en", (counts.get("en") ?? 0) + line.latinInOtherScript)
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0)
  const shares = [...counts]
    .map(([language, words]) => new LanguageShare({ language, words, share: total === 0 ? 0 : words / total }))
    .sort((a, b) => b.words - a.words || a.language.localeCompare(b.language))
  // English terms are what other-language notes mix in: a note is another language's when a quarter of its words are
  const foreign = shares.filter((s) => s.language !== "en")
  const main = foreign.length > 0 && foreign[0]!.share >= 0.25 ? foreign[0]! : shares.find((s) => s.language === "en") ?? shares[0]
  const language = main?.language ?? "en"
  const mixed = shares.length > 1 && shares.filter((s) => s.share >= 1 / 6).length > 1 ||
    lines.some((l) => l.latinInOtherScript > 0)
  return new DetectedLanguage({
    language,
    name: languageName(language),
    reliable: total >= 8,
    shares,
    mixed,
    detector: DETECTOR
  })
}

/** The language of a short text (a question, a title): its words detected together. */
export const detectShort = (text: string, detector: LanguageDetector): string => {
  const ws = [...text.matchAll(WORD)].map((m) => m[0])
  const cyrillic = ws.filter(isCyrillic)
  return detector.detect(cyrillic.length * 2 >= ws.length && cyrillic.length > 0 ? cyrillic.join(" ") : text)
}

/** The other languages the detector could name a line of Latin letters. */
const OTHER_LANGUAGES = DETECTED.filter((l) => l !== "en")

let englishOnly: ReadonlySet<string> | undefined
let otherStopWords: ReadonlyArray<ReadonlySet<string>> | undefined

/** The stop words of each other language (stopWords builds its set on each call). */
const otherStops = (): ReadonlyArray<ReadonlySet<string>> => otherStopWords ??= OTHER_LANGUAGES.map((l) => stopWords(l))

/** English function words that are no stop word of another detected language ("the", "which", "into"; not "a", "in"). */
const englishOnlyWords = (): ReadonlySet<string> => {
  if (englishOnly !== undefined) return englishOnly
  const others = new Set(otherStops().flatMap((own) => [...own]))
  return englishOnly = new Set([...FUNCTION_WORDS].filter((w) => !others.has(w)))
}

/**
 * The least share of a note's words that are English-only function words for it to be English without eld. The 96
 * English evaluation notes hold 6.5 % to 26 %; the 34 notes in other languages, their accents taken off, 1.4 % at most.
 */
export const ENGLISH_ONLY_SHARE = 0.05

/**
 * The most a note's lines that could be another language's may hold of its words: under this share an English note is
 * searched as it is whatever the detector says of those lines (reading.ts).
 */
export const MIXED_NOTE_SHARE = 0.15

/**
 * A letter alone that is no word of the detected languages (their lists of stop words hold every letter): a variable
 * of the note's formulas ("f(x)", "O(n^3)"). a, e, i, k, o, s, u, v, w, y, z are words in one of them ("y", "w", "k").
 */
const VARIABLE = /^[bcdfghjlmnpqrtx]$/

/**
 * Whether a line of Latin letters could be another language's: the detector names a line of an English note another
 * language only when it holds more of that language's stop words than English function words (settleLatin), so a line
 * that holds more of none is English whatever eld would say (a formula's variables aside).
 */
const couldBeForeign = (ws: ReadonlyArray<string>): boolean => {
  if (ws.length < MIN_LINE_WORDS) return false
  const folded = ws.map(fold).filter((w) => !VARIABLE.test(w))
  const english = folded.filter((w) => FUNCTION_WORDS.has(w)).length
  return otherStops().some((own) => folded.filter((w) => own.has(w) && !FUNCTION_WORDS.has(w)).length > english)
}

/**
 * Whether a word's letters are those of an English note: ASCII, and at most one Greek letter with them (a symbol: "θ",
 * "ε-greedy", "σ²", "β-VAE"). A letter with an accent, a combining mark or any other script leaves the note to eld.
 */
const englishLetters = (word: string): boolean => {
  if (!/[^\x00-\x7f]/.test(word)) return true
  const other = [...word].filter((c) => /[^\x00-\x7f]/.test(c))
  return other.every((c) => /\p{Script=Greek}/u.test(c) || /\p{N}/u.test(c)) && other.filter((c) => /\p{L}/u.test(c)).length <= 1
}

/**
 * A note's lines and language when it is surely English, decided without eld; `undefined` when the detector must read
 * it. Conservative, line by line as the detector reads: every letter ASCII but a Greek symbol (`englishLetters`: no
 * Cyrillic, no accent, no other script),
 * English-only function words at least `ENGLISH_ONLY_SHARE` of the words (a whole note of English prose, as eld reads
 * the note's Latin lines together), and the lines that could be another language's (`couldBeForeign`) under
 * `MIXED_NOTE_SHARE` of the words. Every note the check takes for English is one the detector's reading searches as it
 * is (a test runs both over every evaluation note); the lines are all reported English.
 */
export const englishWithoutDetector = (
  text: string
): { readonly lines: ReadonlyArray<DetectedLine>; readonly detected: DetectedLanguage } | undefined => {
  const { raws, prose } = linesOf(text)
  const only = englishOnlyWords()
  let total = 0
  let englishWords = 0
  let doubtful = 0
  const lines: Array<DetectedLine> = []
  for (let i = 0; i < raws.length; i++) {
    const ws = wordsOf(prose[i]!)
    if (!ws.every(englishLetters)) return undefined
    total += ws.length
    englishWords += ws.filter((w) => only.has(fold(w))).length
    if (couldBeForeign(ws)) doubtful += ws.length
    lines.push({ raw: raws[i]!, language: "en", latinInOtherScript: 0, words: ws.length })
  }
  if (total === 0 || englishWords < 3 || englishWords < ENGLISH_ONLY_SHARE * total || doubtful >= MIXED_NOTE_SHARE * total) {
    return undefined
  }
  const detected = summarise(lines)
  return { lines, detected: new DetectedLanguage({ ...detected, detector: ENGLISH_CHECK }) }
}
