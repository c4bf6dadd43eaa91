/**
 * Writes data/language/arxiv-words.tsv: the English word forms of the recorded
 * arXiv corpus (fixtures/offline/arxiv-corpus.tsv.gz, CC0 1.0 metadata), each
 * with the number of records that use it, for the offline reading of notes in
 * other languages (src/adapters/language/): a cognate or a transliteration
 * ("régularisation" → regularization, "дискриминатор" → discriminator) counts
 * only when arXiv's own vocabulary has the English form.
 *
 * Only records whose title and abstract the language detector reads as English
 * are counted, so the French, German or Spanish of the corpus's few abstracts
 * in other languages never becomes an "English" word. Forms of 3 letters or
 * more used by at least 3 records are kept. Deterministic. The committed file
 * has 11 forms fewer than this writes, removed by hand: words the repository's
 * naming conventions keep out of its files (none is a term a note needs).
 *
 * Usage: node --import tsx scripts/build-language-vocabulary.ts
 */
import { readFileSync, writeFileSync } from "node:fs"
import { gunzipSync } from "node:zlib"
import { eld } from "eld/small"

const MIN_RECORDS = 3
const lines = gunzipSync(readFileSync("fixtures/offline/arxiv-corpus.tsv.gz")).toString("utf8").split("\n")
const header = lines[0]!.split("\t")
const title = header.indexOf("title")
const abstract = header.indexOf("abstract")
const df = new Map<string, number>()
let records = 0
let skipped = 0
for (const line of lines.slice(1)) {
  if (line === "") continue
  const fields = line.split("\t")
  const text = `${fields[title] ?? ""}. ${fields[abstract] ?? ""}`
  if (eld.detect(text).language !== "en") {
    skipped++
    continue
  }
  records++
  const seen = new Set(
    (text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().match(/[a-z]+(?:-[a-z]+)*/g) ?? [])
      .filter((w) => w.length >= 3)
  )
  for (const w of seen) df.set(w, (df.get(w) ?? 0) + 1)
}
const kept = [...df].filter(([, n]) => n >= MIN_RECORDS).sort((a, b) => (a[0] < b[0] ? -1 : 1))
writeFileSync(
  "data/language/arxiv-words.tsv",
  `# English word forms of ${records} English records of the recorded arXiv corpus (CC0 1.0), each with the records that use it (>= ${MIN_RECORDS}); ${skipped} records in other languages skipped. Written by scripts/build-language-vocabulary.ts.\n` +
    kept.map(([w, n]) => `${w}\t${n}`).join("\n") + "\n"
)
console.log(`wrote ${kept.length} forms from ${records} records (${skipped} skipped)`)
