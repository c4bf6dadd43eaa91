/**
 * Writes the two-view training data for eval/experiment-contrastive.py: one
 * JSON line per CC0 arXiv abstract (same corpus and tokenizer as the judge),
 * `{"t": title stems, "s": [stems of each sentence]}`. CSFCube is never read.
 *
 *   node --import tsx eval/contrastive-views.ts OUT [corpusDir]
 */
import { writeFileSync } from "node:fs"
import { stems } from "../src/adapters/judge/tokenize.js"
import { corpusDir, corpusRecords } from "./arxiv-corpus.js"

const out = process.argv[2] ?? "views.jsonl"
const lines: Array<string> = []
for await (const r of corpusRecords(corpusDir(process.argv[3]))) {
  const sentences = (r.abstract ?? "").split(/(?<=[.!?])\s+(?=[A-Z0-9])/).map(stems).filter((s) => s.length > 0)
  lines.push(JSON.stringify({ t: stems(r.title ?? ""), s: sentences }))
}
writeFileSync(out, lines.join("\n") + "\n")
console.log(`${lines.length} abstracts -> ${out}`)
