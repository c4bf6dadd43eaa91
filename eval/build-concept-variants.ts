/**
 * Builds what the local judge's concept match (src/adapters/judge/concept.ts) learns from the CC0 arXiv abstracts
 * beyond stem counts (the same corpus as eval/build-df-table.ts; CSFCube and the graded notes are never read):
 *
 * - acronyms: each acronym the abstracts define ("text-to-speech (TTS)", "natural language inference (NLI)"),
 *   with the long forms written for it — so a note titled "Neural TTS" finds the papers that spell it out;
 * - families: document frequencies of word families Porter conflates with unrelated words ("generalization",
 *   "generalize" → "gener", as "general", "generate", "generation"): the family key is the word's first
 *   (stem length + 3) letters, kept when the word is 4 or more letters longer than its stem, so the judge can
 *   weigh "generali…" for what it is instead of "gener", which weighs nothing.
 *
 * Writes data/judge/concept-variants.json (or OUT).
 *
 *   node --import tsx eval/build-concept-variants.ts [corpusDir]
 */
import { writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { familyKey } from "../src/adapters/judge/concept.js"
import { isStopWord, tokenize } from "../src/adapters/judge/tokenize.js"
import { CL_FILE, corpusDir, corpusRecords, ML_FILE } from "./arxiv-corpus.js"

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..")
/** A long form is kept when the abstracts define the acronym by it this often, and for this share of its definitions. */
const MIN_DEFINITIONS = 3
const MIN_SHARE = 0.2
const MAX_FORMS = 3
/** A family is kept when this many abstracts use it (as the df table's unigrams). */
const MIN_FAMILY_DF = 3

const ACRONYM = /\(([A-Z]{2,6})s?\)/g
/** Small words an acronym may skip or take its letter from ("text-to-speech", "bag of words"). */
const SMALL = new Set(["to", "of", "and", "for", "the", "a", "an", "in", "on", "with", "by", "from"])

/** The long form an acronym abbreviates, from the words just before it: each letter the start of a word, in order. */
const longForm = (before: string, acronym: string): string | undefined => {
  const parts = before.toLowerCase().split(/[^a-z0-9]+/).filter((p) => p !== "").slice(-(acronym.length + 4))
  const letters = acronym.toLowerCase()
  let at = letters.length - 1
  let i = parts.length - 1
  for (; i >= 0 && at >= 0; i--) {
    const p = parts[i]!
    if (p[0] === letters[at]) at--
    else if (!SMALL.has(p)) return undefined
  }
  if (at >= 0) return undefined
  const words = parts.slice(i + 1)
  // a long form is made of content words, not one word spelled out
  return words.length >= 2 && !isStopWord(words[0]!) ? words.join(" ") : undefined
}

const definitions = new Map<string, Map<string, number>>()
const familyDf = new Map<string, number>()
let documents = 0
for await (const rec of corpusRecords(corpusDir(process.argv[2]), [ML_FILE, CL_FILE])) {
  documents++
  const text = `${rec.title ?? ""}. ${rec.abstract ?? ""}`.replace(/\s+/g, " ")
  const seen = new Set<string>()
  for (const m of text.matchAll(ACRONYM)) {
    const form = longForm(text.slice(Math.max(0, m.index - 120), m.index), m[1]!)
    const key = `${m[1]!.toLowerCase()}\t${form}`
    if (form === undefined || seen.has(key)) continue
    seen.add(key)
    const forms = definitions.get(m[1]!.toLowerCase()) ?? new Map<string, number>()
    forms.set(form, (forms.get(form) ?? 0) + 1)
    definitions.set(m[1]!.toLowerCase(), forms)
  }
  const families = new Set<string>()
  for (const t of tokenize(text)) {
    const k = t === null ? undefined : familyKey(t)
    if (k !== undefined) families.add(k)
  }
  for (const k of families) familyDf.set(k, (familyDf.get(k) ?? 0) + 1)
}

const acronyms: Record<string, ReadonlyArray<string>> = {}
for (const [acronym, forms] of [...definitions].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
  const total = [...forms.values()].reduce((a, b) => a + b, 0)
  const kept = [...forms].filter(([, n]) => n >= MIN_DEFINITIONS && n / total >= MIN_SHARE)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MAX_FORMS).map(([f]) => f)
  if (kept.length > 0) acronyms[acronym] = kept
}
const families = [...familyDf].filter(([, n]) => n >= MIN_FAMILY_DF).sort((a, b) => (a[0] < b[0] ? -1 : 1))
  .map(([k, n]) => `${k}\t${n}`).join("\n")
const out = process.env.OUT ?? join(repo, "data", "judge", "concept-variants.json")
writeFileSync(
  out,
  JSON.stringify({
    source: "arXiv OAI-PMH metadata (CC0 1.0), cs.LG/stat.ML/cs.CL/cs.CV/cs.NE/cs.AI 2007-05..2017-04, via HeinrichHartmann/arxiv_meta@1d3cff6",
    documents,
    acronyms,
    families
  }) + "\n"
)
console.log(`${documents} documents, ${Object.keys(acronyms).length} acronyms, ${families.split("\n").length} families -> ${out}`)
