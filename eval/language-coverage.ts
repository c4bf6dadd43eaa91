/**
 * How many of the informative words of the tuning notes in other languages a
 * bilingual dictionary has, before relying on one: FreeDict's French–,
 * German– and Spanish–English (their headwords) and English–Russian (the
 * Russian words of its translations, used in reverse), beside what the
 * shipped offline reading (glossary, cognates, transliteration) reads of the
 * same words. FreeDict's dictionaries are GPL: they are measured here, from
 * the Debian packages, never shipped (fixtures/PROVENANCE.md).
 *
 * An informative word: 4 letters or more, not a stop word of the note's
 * language, not an English term mixed in, counted once per note. Only the
 * `multilingual-tune` notes are read.
 *
 * Usage (Debian: apt-get install dict-freedict-fra-eng dict-freedict-deu-eng
 * dict-freedict-spa-eng dict-freedict-eng-rus):
 *   node --import tsx eval/language-coverage.ts
 */
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { gunzipSync } from "node:zlib"
import { fold, isCyrillic, lightStem, stopWords, WORD } from "../src/adapters/language/lexicon.js"
import { readNote as readEnglish } from "../src/adapters/language/reading.js"
import { hasGlossary } from "../src/core/language.js"
import { bootstrapMean, readMultilingual, readNote } from "./retrieval-data.js"

const DICTD = "/usr/share/dictd"

/** The folded words a FreeDict dictionary can translate from `language`, or undefined when it is not installed. */
const freedict = (language: string): ReadonlySet<string> | undefined => {
  const headwords = (file: string) =>
    new Set(readFileSync(`${DICTD}/${file}`, "utf8").split("\n").map((l) => fold(l.split("\t")[0] ?? "")).filter((w) => w !== ""))
  const file = { fr: "freedict-fra-eng.index", de: "freedict-deu-eng.index", es: "freedict-spa-eng.index" }[language]
  if (file !== undefined) return existsSync(`${DICTD}/${file}`) ? headwords(file) : undefined
  if (language === "ru" && existsSync(`${DICTD}/freedict-eng-rus.dict.dz`)) {
    const text = gunzipSync(readFileSync(`${DICTD}/freedict-eng-rus.dict.dz`)).toString("utf8")
    return new Set([...text.matchAll(WORD)].map((m) => fold(m[0])).filter(isCyrillic))
  }
  return undefined
}

interface Row {
  readonly language: string
  readonly words: number
  readonly inDictionary: number | undefined
  readonly readOffline: number
}

const rows: Array<Row> = []
const perWord: Record<string, { dict: Array<number>; offline: Array<number> }> = {}
for (const n of readMultilingual().filter((n) => n.split === "multilingual-tune")) {
  const text = readNote(n)
  const english = await Effect.runPromise(readEnglish({ title: n.title, text }))
  const language = english.reading.detected.language
  if (!hasGlossary(language)) continue
  const stop = stopWords(language)
  const unread = new Set(english.reading.unread.map(fold))
  const informative = [...new Set([...text.replace(/^---[\s\S]*?---/, "").matchAll(WORD)].map((m) => m[0]))]
    .filter((w) => isCyrillic(w) === (language === "ru" || language === "uk") && !/\d/.test(w))
    .map(fold)
    .filter((w) => [...w].length >= 4 && !stop.has(w))
  const dictionary = freedict(language)
  // a dictionary headword is a lemma: a word counts as covered when its light stem is a headword's
  const dictStems = dictionary === undefined ? undefined : new Set([...dictionary].map((w) => hasGlossary(language) ? lightStem(language, w) : w))
  const covered = dictStems === undefined ? undefined : informative.filter((w) => dictStems.has(lightStem(language, w)) || dictionary!.has(w)).length
  const read = informative.filter((w) => !unread.has(w)).length
  rows.push({ language, words: informative.length, inDictionary: covered, readOffline: read })
  const bucket = (perWord[language] ??= { dict: [], offline: [] })
  for (const w of informative) {
    if (dictStems !== undefined) bucket.dict.push(dictStems.has(lightStem(language, w)) || dictionary!.has(w) ? 1 : 0)
    bucket.offline.push(unread.has(w) ? 0 : 1)
  }
}

const pct = (x: number) => `${(100 * x).toFixed(0)} %`
const ci = (xs: ReadonlyArray<number>) => {
  const [lo, hi] = bootstrapMean(xs, 28)
  return `${pct(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length))} (${pct(lo)}–${pct(hi)})`
}
console.log("language  informative words  in FreeDict (95 % CI)        read by the offline reading (95 % CI)")
for (const [language, b] of Object.entries(perWord)) {
  const words = rows.filter((r) => r.language === language).reduce((a, r) => a + r.words, 0)
  console.log(
    `${language.padEnd(8)}  ${String(words).padStart(17)}  ${(b.dict.length === 0 ? "no FreeDict dictionary" : ci(b.dict)).padEnd(27)}  ${ci(b.offline)}`
  )
}
console.log("(word-level bootstrap intervals, seed 28; a word 'read' has an English reading: glossary, cognate or transliteration)")
