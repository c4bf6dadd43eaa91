/**
 * The language a note is written in, and its English reading: what the
 * companion searches arXiv with when a student writes in Ukrainian, Russian,
 * French, German or Spanish (often with English terms mixed in).
 *
 * Pure: the detection and the readings are made by a `NoteLanguagePort`
 * adapter (src/adapters/language/); this module holds their shapes and the
 * words that describe them.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The languages the offline reading has a glossary and stop words for (besides English). */
export const GLOSSARY_LANGUAGES = ["uk", "ru", "fr", "de", "es"] as const

/** A language the offline reading translates from. */
export type GlossaryLanguage = (typeof GLOSSARY_LANGUAGES)[number]

/** Whether the offline reading has a glossary for `code` (ISO 639-1). */
export const hasGlossary = (code: string): code is GlossaryLanguage => (GLOSSARY_LANGUAGES as ReadonlyArray<string>).includes(code)

/** English names of the languages the detector tells apart, by ISO 639-1 code. */
export const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  en: "English",
  uk: "Ukrainian",
  ru: "Russian",
  fr: "French",
  de: "German",
  es: "Spanish",
  it: "Italian",
  pt: "Portuguese",
  pl: "Polish",
  nl: "Dutch",
  cs: "Czech",
  sv: "Swedish",
  tr: "Turkish",
  el: "Greek",
  ar: "Arabic",
  he: "Hebrew",
  hi: "Hindi",
  ja: "Japanese",
  ko: "Korean",
  zh: "Chinese"
}

/** A language's English name ("uk" → "Ukrainian"), or its code when the table has none. */
export const languageName = (code: string): string => LANGUAGE_NAMES[code] ?? code

/** The share of a note's words in one language. */
export class LanguageShare extends Schema.Class<LanguageShare>("LanguageShare")({
  /** ISO 639-1 code. */
  language: Schema.String,
  /** Words of the note's lines read as this language. */
  words: Schema.Number,
  /** `words` over all the words of the note's lines that were read (0..1). */
  share: Schema.Number
}) {}

/** What the detector said of a note: its main language and, for mixed text, each language's share. */
export class DetectedLanguage extends Schema.Class<DetectedLanguage>("DetectedLanguage")({
  /** ISO 639-1 code of the main language: the language of most of the note's prose that is not English terms. */
  language: Schema.String,
  /** Its English name. */
  name: Schema.String,
  /** False when the text was too short or too mixed for the detector to be sure. */
  reliable: Schema.Boolean,
  /** Languages of the note's lines, most words first. */
  shares: Schema.Array(LanguageShare),
  /** True when a second language holds at least a sixth of the words, or English terms are mixed into another language's lines. */
  mixed: Schema.Boolean,
  /** The detector, for reports ("eld 2.1 (small)"). */
  detector: Schema.String
}) {}

/** How an English term of the reading was found. */
export const TermOrigin = Schema.Literal("english", "glossary", "cognate", "transliteration", "model")
export type TermOrigin = typeof TermOrigin.Type

/** One English term of the reading and the note's words it came from. */
export class ReadTerm extends Schema.Class<ReadTerm>("ReadTerm")({
  /** The English term. */
  english: Schema.String,
  /** The note's words, as written. */
  source: Schema.String,
  via: TermOrigin
}) {}

/** The note as the companion reads it: its language and its English terms, with where each came from. */
export class NoteReading extends Schema.Class<NoteReading>("NoteReading")({
  detected: DetectedLanguage,
  /** Who read it: "offline" (glossary, cognates, transliteration) or the model's name. */
  reader: Schema.String,
  /**
   * Whether the offline reading had a glossary and stop words for the language ("glossary"), had none and kept
   * only the note's English ("english-only"), or the note is English ("none").
   */
  dictionary: Schema.Literal("glossary", "english-only", "none"),
  /** The English terms taken from the note's other-language words (empty for an English note). */
  terms: Schema.Array(ReadTerm),
  /** The note's words that have no English reading (shown so the student can add the English term). */
  unread: Schema.Array(Schema.String),
  /** What happened on the way, in words (a model's retry or fallback, a language without a glossary). */
  notes: Schema.Array(Schema.String)
}) {}

/** The English text the search and the judge read in place of the note, with the reading that made it. */
export interface EnglishNote {
  /** The note in English terms, Markdown kept (headings and emphasis weigh as in the note). */
  readonly text: string
  /** The note's title in English terms (the title itself when it is English). */
  readonly title: string
  readonly reading: NoteReading
}

/** Whether a reading changed anything: an English note is searched as it is. */
export const isTranslated = (reading: NoteReading): boolean => reading.detected.language !== "en" && reading.dictionary !== "none"

/**
 * A question's English reading as one line: its terms in order, a comma where the question had words with no
 * reading (so no phrase is made across them), Markdown left out.
 */
export const englishQuestionOf = (text: string): string =>
  text
    .replace(/^\s*#+\s*/gm, "")
    .replace(/^\s*[-*]\s+/gm, "")
    .replace(/[*_`]+/g, "")
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .join(", ")
    .replace(/\s*,[\s,]*/g, ", ")
    .replace(/^[,\s]+|[,\s]+$/g, "")
    .replace(/\s+/g, " ")

/** One line for reports and the generated note: "Russian (mixed with English: 22 % of its words); read offline with the glossary". */
export const describeReading = (reading: NoteReading): string => {
  const d = reading.detected
  const other = d.shares.filter((s) => s.language !== d.language && s.share >= 0.05)
  const mixed = other.length === 0
    ? ""
    : ` (mixed with ${other.map((s) => `${languageName(s.language)}: ${Math.round(s.share * 100)} % of its words`).join(", ")})`
  const how = d.language === "en"
    ? ""
    : reading.dictionary === "glossary"
    ? reading.reader === "offline"
      ? `; read offline with the ${d.name} glossary, cognates and transliteration (${reading.terms.length} English term${reading.terms.length === 1 ? "" : "s"})`
      : `; read by ${reading.reader} (${reading.terms.length} English term${reading.terms.length === 1 ? "" : "s"})`
    : reading.reader === "offline"
    ? `; no ${d.name} glossary offline: searched on the note's English words only`
    : `; read by ${reading.reader} (${reading.terms.length} English term${reading.terms.length === 1 ? "" : "s"})`
  return `${d.name}${d.reliable ? "" : " (uncertain)"}${mixed}${how}`
}
