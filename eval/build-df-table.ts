/**
 * Builds the judge's document-frequency table from the CC0 arXiv metadata in
 * ../shared/data/corpus (arXiv ML/CL/CV/NE/AI abstracts 2007–2017, deduplicated
 * by id). Writes data/judge/df-table.json (or OUT, for experiments). CSFCube is never read here.
 *
 *   node --import tsx eval/build-df-table.ts [corpusDir]
 */
import { writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { bigrams, tokenize } from "../src/adapters/judge/tokenize.js"
import { CL_FILE, corpusDir, corpusRecords, ML_FILE } from "./arxiv-corpus.js"

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..")
/** Terms seen in fewer documents than this are left out; the judge treats them as df = MIN_DF / 2. */
const MIN_UNIGRAM_DF = 3
const MIN_BIGRAM_DF = 8

let documents = 0
const df = new Map<string, number>()
const bdf = new Map<string, number>()
let totalLength = 0
for await (const rec of corpusRecords(corpusDir(process.argv[2]), [ML_FILE, CL_FILE])) {
  documents++
  const tokens = tokenize(`${rec.title ?? ""}. ${rec.abstract ?? ""}`)
  const uni = new Set<string>()
  for (const t of tokens) if (t !== null) uni.add(t.stem), totalLength++
  for (const s of uni) df.set(s, (df.get(s) ?? 0) + 1)
  for (const b of new Set(bigrams(tokens))) bdf.set(b, (bdf.get(b) ?? 0) + 1)
}
/** "stem<TAB>df" lines, sorted: compact in the data file and parsed in a few milliseconds. */
const keep = (m: Map<string, number>, min: number) =>
  [...m].filter(([, n]) => n >= min).sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, n]) => `${k}\t${n}`).join("\n")
const table = {
  source: "arXiv OAI-PMH metadata (CC0 1.0), cs.LG/stat.ML/cs.CL/cs.CV/cs.NE/cs.AI 2007-05..2017-04, via HeinrichHartmann/arxiv_meta@1d3cff6",
  documents,
  averageLength: totalLength / documents,
  minUnigramDf: MIN_UNIGRAM_DF,
  minBigramDf: MIN_BIGRAM_DF,
  unigrams: keep(df, MIN_UNIGRAM_DF),
  bigrams: keep(bdf, MIN_BIGRAM_DF)
}
const out = process.env.OUT ?? join(repo, "data", "judge", "df-table.json")
writeFileSync(out, JSON.stringify(table) + "\n")
console.log(`${documents} documents, avg length ${table.averageLength.toFixed(1)}, ${table.unigrams.split("\n").length} unigrams, ${table.bigrams.split("\n").length} bigrams -> ${out}`)
