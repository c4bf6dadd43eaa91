/**
 * What the offline reading of a note in another language knows: the glossary
 * (data/language/glossary.tsv, written for this package), the stop words of
 * each language (the `stopwords-iso` package, MIT, plus a few of our own where
 * its list is short), arXiv's English word forms (data/language/arxiv-words.tsv,
 * from the recorded CC0 corpus) and a light stemming of each language's
 * inflections, so "сети", "сеть" and "сетей" meet one glossary entry.
 *
 * Loaded once per process, on first use.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { GLOSSARY_LANGUAGES, type GlossaryLanguage } from "../../core/language.js"
import { stripMarks } from "../../core/text.js"
import { modulePath, packageRoot } from "../corpus/packageData.js"

/** A word of a note: letters (any script), inner hyphens and apostrophes, digits. */
export const WORD = /[\p{L}\p{N}]+(?:[-'’][\p{L}\p{N}]+)*/gu

/** Lower-case, without diacritics except the ones that tell Cyrillic letters apart (й, ё, ї are kept). */
export const fold = (word: string): string => {
  const lower = word.toLowerCase().replace(/’/g, "'")
  return /[\u0400-\u04ff]/.test(lower)
    ? lower.replace(/ё/g, "е").replace(/ґ/g, "г")
    : stripMarks(lower).replace(/œ/g, "oe").replace(/æ/g, "ae").replace(/ß/g, "ss")
}

/** Whether a word is written in Cyrillic letters. */
export const isCyrillic = (word: string): boolean => /[\u0400-\u04ff]/.test(word)

/** Inflection endings each light stemmer removes (the longest that leaves a stem of 3 letters or more). */
const ENDINGS: Readonly<Record<GlossaryLanguage, ReadonlyArray<string>>> = {
  ru: (
    "иями ями ами ого его ому ему ыми ими иях ях ах ией ией ый ий ой ая яя ое ее ые ие ых их ую юю ою ею ей ом ем " +
    "ам ям ов ев ия ие ии ью ья ье а я о е ы и у ю ь й"
  ).split(" "),
  uk: (
    "ями ами ого ього ому ьому ими іми ях ах ій ий ої ої ою ею єю ів їв ам ям ом ем им ім их іх ую юю ія ії ію ть " +
    "а я о е є и і ї у ю ь й"
  ).split(" "),
  fr: "aux ees es ee s x e".split(" "),
  es: "es s".split(" "),
  de: "ern en er es em e n s".split(" ")
}

/** The light stem of a folded word of `language` (a glossary entry and a note's word are matched by it). */
export const lightStem = (language: GlossaryLanguage, folded: string): string => {
  let w = folded.replace(/'/g, "")
  if (language === "fr" && w.endsWith("aux") && w.length > 5) return `${w.slice(0, -3)}al`
  for (const e of ENDINGS[language]) {
    if (w.endsWith(e) && w.length - e.length >= 3) {
      w = w.slice(0, -e.length)
      break
    }
  }
  // Romance adjectives agree in gender: "profonde"/"profundo"/"profunda" meet "profond"/"profund"
  if (language === "es" && /[oa]$/.test(w) && w.length > 4) w = w.slice(0, -1)
  return w
}

/** One glossary entry: the English term, and the stems of the language's words for it. */
export interface GlossaryEntry {
  readonly english: string
  /** Light stems of the words, in order. */
  readonly stems: ReadonlyArray<string>
  /** The term as the glossary writes it. */
  readonly written: string
}

/** Everything the offline reading of one language knows. */
export interface Lexicon {
  /** Glossary entries by the stem of their first word, longest first. */
  readonly glossary: ReadonlyMap<string, ReadonlyArray<GlossaryEntry>>
  /** Stems of the glossary's words of this language (a word the glossary knows is never taken for English). */
  readonly known: ReadonlySet<string>
  /** Folded stop words of the language. */
  readonly stopWords: ReadonlySet<string>
}

/** arXiv's English word forms with the records that use them. */
export interface Vocabulary {
  readonly records: (word: string) => number
}

const dataFile = (...path: ReadonlyArray<string>): string => {
  const root = packageRoot()
  if (root === undefined) throw new Error(`arxiv-companion: its package directory was not found above ${modulePath()}; reinstall the package`)
  return join(root, "data", ...path)
}

/**
 * Stop words our own, beside stopwords-iso's: its Ukrainian list has 73 words (no forms of "which", "this",
 * "can"), and notes use a few words about themselves ("нотатка", "заметки", "notes") in every language.
 */
const EXTRA_STOP_WORDS: Readonly<Record<string, string>> = {
  uk: "який яка яке які якого якої яким якій якому якою яких цей ця це ці цього цієї цим цих ті той та те того тієї " +
    "тим тих можна може можуть треба потрібно дуже також тобто тому отже адже якщо коли де куди чому як так ні " +
    "бути є був була було були буде будуть має мають мати свій своя своє свої його її їх наш наша наше наші ваш " +
    "мій моя моє мої все всі весь вся кожен кожна кожне інший інша інше інші один одна одне два дві три перший " +
    "другий між під над через після перед без для про при від до на за із зі з у в і й та а але чи або ж же лише " +
    "тільки ще вже більш більше менше найбільш дуже багато мало нотатка нотатки замітка примітка приклад приклади " +
    "ідея ідеї питання відповідь див дивись тут там щось хтось ніщо ніхто саме самий сама само навіть майже",
  ru: "который которая которое которые которого которой которым котором которых это этот эта эти этого этой этим " +
    "можно может могут нужно надо очень также тоже то есть поэтому если когда где почему как так нет быть есть был " +
    "была было были будет будут свой своя свое свои его ее их наш ваш мой все всё весь вся каждый другой один одна " +
    "два три первый второй между под над через после перед без для про при от до на за из у в и а но или же лишь " +
    "только еще уже более менее много мало заметка заметки пример примеры идея идеи вопрос вопросы ответ см тут там " +
    "что-то кто-то сам сама само даже почти",
  fr: "note notes idee idees exemple exemples question questions voir aussi ici",
  de: "notiz notizen idee ideen beispiel beispiele frage fragen siehe auch hier",
  es: "nota notas idea ideas ejemplo ejemplos pregunta preguntas ver tambien aqui"
}

const load = createRequire(import.meta.url)

let stopWordLists: Readonly<Record<string, ReadonlyArray<string>>> | undefined

/** The folded stop words of a language (ISO 639-1); empty when none are known. */
export const stopWords = (language: string): ReadonlySet<string> => {
  stopWordLists ??= load("stopwords-iso") as Readonly<Record<string, ReadonlyArray<string>>>
  const listed = stopWordLists[language] ?? []
  const extra = EXTRA_STOP_WORDS[language]?.split(/\s+/) ?? []
  return new Set([...listed, ...extra].map(fold))
}

/** Whether stop words of `language` are known (stopwords-iso or ours). */
export const hasStopWords = (language: string): boolean => stopWords(language).size > 0

let glossaryRows: ReadonlyArray<ReadonlyArray<string>> | undefined

const glossaryTable = (): ReadonlyArray<ReadonlyArray<string>> =>
  glossaryRows ??= readFileSync(dataFile("language", "glossary.tsv"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) => line.split("\t"))

const lexicons = new Map<GlossaryLanguage, Lexicon>()

/** The words of a glossary cell or a note, folded. */
export const foldedWords = (text: string): ReadonlyArray<string> => [...text.matchAll(WORD)].map((m) => fold(m[0]))

/** The lexicon of a language with a glossary. */
export const lexicon = (language: GlossaryLanguage): Lexicon => {
  const hit = lexicons.get(language)
  if (hit !== undefined) return hit
  const [header, ...rows] = glossaryTable()
  const column = header!.indexOf(language)
  if (column < 0) throw new Error(`arxiv-companion: data/language/glossary.tsv has no column for ${language}; reinstall the package`)
  const glossary = new Map<string, Array<GlossaryEntry>>()
  const known = new Set<string>()
  for (const row of rows) {
    const english = row[0]!.trim()
    for (const written of (row[column] ?? "").split("|").map((s) => s.trim()).filter((s) => s !== "")) {
      // an apostrophe joins an elided article to its word ("d'apprentissage"): both sides are words
      const stems = foldedWords(written.replace(/'/g, " ")).map((w) => lightStem(language, w))
      if (stems.length === 0) continue
      for (const s of stems) known.add(s)
      const list = glossary.get(stems[0]!) ?? []
      list.push({ english, stems, written })
      glossary.set(stems[0]!, list)
    }
  }
  for (const list of glossary.values()) list.sort((a, b) => b.stems.length - a.stems.length)
  const built: Lexicon = { glossary, known, stopWords: stopWords(language) }
  lexicons.set(language, built)
  return built
}

let vocabulary: Vocabulary | undefined

/** arXiv's English word forms (data/language/arxiv-words.tsv). */
export const arxivVocabulary = (): Vocabulary => {
  if (vocabulary !== undefined) return vocabulary
  const table = new Map<string, number>()
  for (const line of readFileSync(dataFile("language", "arxiv-words.tsv"), "utf8").split("\n")) {
    if (line.startsWith("#")) continue
    const tab = line.indexOf("\t")
    if (tab > 0) table.set(line.slice(0, tab), Number(line.slice(tab + 1)))
  }
  return vocabulary = { records: (word) => table.get(word) ?? 0 }
}

/** The languages with a glossary, for messages. */
export const glossaryLanguages = (): ReadonlyArray<GlossaryLanguage> => GLOSSARY_LANGUAGES
