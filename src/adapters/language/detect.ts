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
 * @since 0.1.0
 */
import { eld } from "eld/small"
import { DetectedLanguage, LanguageShare, languageName } from "../../core/language.js"
import { plainText, splitFrontmatter } from "../../core/keywords.js"
import { FUNCTION_WORDS } from "../../core/text.js"
import { fold, isCyrillic, stopWords, WORD } from "./lexicon.js"

/** The detector's name in reports. */
export const DETECTOR = "eld 2.1 (small database)"

/**
 * The languages the detector chooses among: those students of this project write in, and languages whose script
 * no other shares. A wider set mistook short Russian lines for Bulgarian.
 */
export const DETECTED = ["en", "uk", "ru", "fr", "de", "es", "it", "pt", "pl", "nl", "cs", "sv", "tr", "el", "ar", "he", "hi", "ja", "ko", "zh"]

const detector = eld.newInstance()
detector.setLanguageSubset(DETECTED)

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

const detectText = (text: string): string => {
  const r = detector.detect(text)
  return r.language === "" || r.language === undefined ? "en" : r.language
}

/** The lines of a note (frontmatter and code left out) with their languages, and the note's language. */
export const detectLines = (text: string): { readonly lines: ReadonlyArray<DetectedLine>; readonly detected: DetectedLanguage } => {
  const body = splitFrontmatter(text).body.replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ""))
  const raws = body.split(/\r?\n/)
  const prose = raws.map((raw) => plainText(raw))
  const wordsOf = (s: string) => [...s.matchAll(WORD)].map((m) => m[0]).filter((w) => /\p{L}/u.test(w))
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
export const detectShort = (text: string): string => {
  const ws = [...text.matchAll(WORD)].map((m) => m[0])
  const cyrillic = ws.filter(isCyrillic)
  return detectText(cyrillic.length * 2 >= ws.length && cyrillic.length > 0 ? cyrillic.join(" ") : text)
}
