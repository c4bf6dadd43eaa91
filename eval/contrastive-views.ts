/**
 * Writes the two-view training data for eval/experiment-contrastive.py: one
 * JSON line per CC0 arXiv abstract (same corpus and tokenizer as the judge),
 * `{"t": title stems, "s": [stems of each sentence]}`. CSFCube is never read.
 *
 *   node --import tsx eval/contrastive-views.ts OUT [corpusDir]
 */
import { createReadStream, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { createGunzip } from "node:zlib"
import { tokenize } from "../src/adapters/judge/tokenize.js"

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const out = process.argv[2] ?? "views.jsonl"
const corpusDir = resolve(process.argv[3] ?? process.env.ARXIV_CORPUS_DIR ?? join(repo, "..", "shared", "data", "corpus"))
const stems = (text: string) => tokenize(text).flatMap((t) => (t === null ? [] : [t.stem]))
const seen = new Set<string>()
const lines: Array<string> = []
const input = createReadStream(join(corpusDir, "arxiv_oai_dc_ml_2007-2017.jsonl.gz")).pipe(createGunzip())
for await (const line of createInterface({ input, crlfDelay: Infinity })) {
  if (line.trim() === "") continue
  const r = JSON.parse(line) as { id: string; title?: string; abstract?: string }
  if (seen.has(r.id)) continue
  seen.add(r.id)
  const sentences = (r.abstract ?? "").split(/(?<=[.!?])\s+(?=[A-Z0-9])/).map(stems).filter((s) => s.length > 0)
  lines.push(JSON.stringify({ t: stems(r.title ?? ""), s: sentences }))
}
writeFileSync(out, lines.join("\n") + "\n")
console.log(`${lines.length} abstracts -> ${out}`)
