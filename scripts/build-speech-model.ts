/**
 * Builds the offline recogniser's model of the field (src/adapters/speech/fieldModel.ts):
 *
 * - `--dictionary` (needs Debian's pocketsphinx-en-us and espeak-ng): picks the vocabulary — the
 *   most frequent words of the offline corpus's titles and abstracts, and the words of the question
 *   frames — and writes `data/speech/field.dic`, the CMU dictionary's pronunciations of those words
 *   and espeak-ng's (mapped to CMU phones) for the words the CMU dictionary lacks. Committed.
 * - default (run by `npm run build`): the bigram language model over that vocabulary from the same
 *   text, `data/speech/field.lm` (ARPA). Pure JavaScript; skipped when up to date.
 *
 * Deterministic: the same corpus and dictionary give the same bytes.
 *
 *   node --import tsx scripts/build-speech-model.ts [--dictionary] [--words N] [--force]
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { arpaBigrams, ipaToCmu, lmSentences, QUESTION_FRAMES, wordCounts } from "../src/adapters/speech/fieldModel.js"

const BUILDER_VERSION = "1"
const args = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}
const root = join(import.meta.dirname, "..")
const corpus = join(root, "fixtures", "offline", "arxiv-corpus.tsv.gz")
const outDir = join(root, "data", "speech")
const dicFile = join(outDir, "field.dic")
const lmFile = join(outDir, "field.lm")
const log = (line: string) => process.stderr.write(`build-speech-model: ${line}\n`)
/** Tuned on the tuning questions' espeak-ng readings (eval/voice/README.md). */
const WORDS = Number(flag("--words") ?? 6000)
const MIN_BIGRAM = Number(flag("--min-bigram") ?? 2)

if (!existsSync(corpus)) {
  log(`${corpus} is not here (an installed package ships the built model): nothing to build`)
  process.exit(0)
}
const gz = readFileSync(corpus)

function* sentences(): Generator<ReadonlyArray<string>> {
  const text = gunzipSync(gz).toString("utf8")
  const lines = text.split("\n")
  const header = lines[0]!.split("\t")
  const title = header.indexOf("title")
  const abstract = header.indexOf("abstract")
  for (const line of lines.slice(1)) {
    const cells = line.split("\t")
    if (cells.length <= abstract) continue
    yield* lmSentences(cells[title]!)
    yield* lmSentences(cells[abstract]!)
  }
  // the frames weigh as much as a few hundred abstracts' openings: questions begin this way
  for (let i = 0; i < 200; i++) for (const f of QUESTION_FRAMES) yield* lmSentences(f)
}

if (args.includes("--dictionary")) {
  const cmuPath = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"
  const cmu = new Map<string, Array<string>>()
  for (const line of readFileSync(cmuPath, "utf8").split("\n")) {
    const m = /^(\S+?)(?:\(\d+\))?\s+(.+)$/.exec(line)
    if (m === null) continue
    const list = cmu.get(m[1]!) ?? []
    list.push(m[2]!.trim())
    cmu.set(m[1]!, list)
  }
  const counts = wordCounts(sentences())
  const chosen = new Set<string>(QUESTION_FRAMES.flatMap((f) => lmSentences(f).flat()))
  for (const [w] of counts) {
    if (chosen.size >= WORDS) break
    chosen.add(w)
  }
  const missing = [...chosen].filter((w) => !cmu.has(w)).sort()
  const ipa = missing.length === 0
    ? []
    : execFileSync("espeak-ng", ["-q", "--ipa", "--sep=_", "-v", "en-us"], { input: missing.join("\n") + "\n", encoding: "utf8" })
      .split("\n").map((l) => l.trim()).filter((l) => l !== "")
  if (ipa.length !== missing.length) throw new Error(`espeak-ng gave ${ipa.length} pronunciations for ${missing.length} words`)
  const lines: Array<string> = []
  let generated = 0
  let dropped = 0
  for (const w of [...chosen].sort()) {
    const known = cmu.get(w)
    if (known !== undefined) {
      known.forEach((p, i) => lines.push(`${i === 0 ? w : `${w}(${i + 1})`} ${p}`))
      continue
    }
    const phones = ipaToCmu(ipa[missing.indexOf(w)]!)
    if (phones === undefined) {
      dropped++
      continue
    }
    generated++
    lines.push(`${w} ${phones.join(" ")}`)
  }
  mkdirSync(outDir, { recursive: true })
  writeFileSync(dicFile, lines.join("\n") + "\n")
  log(`wrote ${dicFile}: ${chosen.size - dropped} words (${generated} pronounced by espeak-ng, ${dropped} without a CMU phone dropped)`)
  process.exit(0)
}

if (!existsSync(dicFile)) {
  log(`${dicFile} is missing: run with --dictionary (needs pocketsphinx-en-us and espeak-ng)`)
  process.exit(1)
}
const dic = readFileSync(dicFile, "utf8")
const stamp = createHash("sha1").update(gz).update(dic).update(`${BUILDER_VERSION} ${MIN_BIGRAM}`).digest("hex")
const stampLine = `# field language model ${stamp}`
if (!args.includes("--force") && existsSync(lmFile) && readFileSync(lmFile, "utf8").startsWith(stampLine)) {
  // quiet: the test setup runs this every time
  if (!args.includes("--quiet")) log(`${lmFile} is up to date`)
  process.exit(0)
}
const started = Date.now()
const vocabulary = new Set(dic.split("\n").map((l) => l.split(" ")[0]!).filter((w) => w !== "" && !w.endsWith(")")))
const arpa = arpaBigrams(sentences(), vocabulary, { minBigramCount: MIN_BIGRAM })
writeFileSync(`${lmFile}.tmp`, `${stampLine}\n${arpa}`)
renameSync(`${lmFile}.tmp`, lmFile)
log(`wrote ${lmFile} (${(arpa.length / 1e6).toFixed(1)} MB, ${vocabulary.size} words) in ${((Date.now() - started) / 1000).toFixed(1)} s`)
