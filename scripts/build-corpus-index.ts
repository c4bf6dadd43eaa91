/**
 * Builds the offline corpus's search index, `fixtures/offline/arxiv-corpus.idx`,
 * from `fixtures/offline/arxiv-corpus.tsv.gz` (src/adapters/corpus/corpusIndex.ts
 * describes the format). Run by `npm run build` (and so by `prepack`): the
 * package ships the index, not the TSV. Deterministic: the same TSV gives the
 * same bytes. Skips the work when the index is already built from this TSV
 * by this version of the builder.
 *
 *   node --import tsx scripts/build-corpus-index.ts [--data DIR] [--force]
 */
import { createHash } from "node:crypto"
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { gunzipSync } from "node:zlib"
import { buildCorpusIndex, readIndexHeader } from "../src/adapters/corpus/corpusIndex.js"
import { CORPUS_FILE, INDEX_FILE } from "../src/adapters/arxiv/CorpusArxiv.js"

const args = process.argv.slice(2)
const at = args.indexOf("--data")
const dir = resolve(at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : join(import.meta.dirname, "..", "fixtures", "offline"))
const force = args.includes("--force")
const log = (line: string) => process.stderr.write(`build-corpus-index: ${line}\n`)

const source = join(dir, CORPUS_FILE)
const target = join(dir, INDEX_FILE)
if (!existsSync(source)) {
  log(`${source} is not here (an installed package ships only the index): nothing to build`)
  process.exit(0)
}
const gz = readFileSync(source)
const sha1 = createHash("sha1").update(gz).digest("hex")
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Record<string, { sha1?: string } | undefined>
if (manifest[CORPUS_FILE]?.sha1 !== sha1) {
  log(`manifest.json does not list ${CORPUS_FILE} with sha1 ${sha1}: rebuild the offline data (scripts/build-offline-data.mjs)`)
  process.exit(1)
}
if (!force && existsSync(target) && readIndexHeader(readFileSync(target))?.source.sha1 === sha1) {
  log(`${target} is up to date`)
  process.exit(0)
}
const started = performance.now()
const bytes = buildCorpusIndex(gunzipSync(gz).toString("utf8"), { file: CORPUS_FILE, sha1 })
const tmp = `${target}.${process.pid}.tmp`
writeFileSync(tmp, bytes)
renameSync(tmp, target)
log(`wrote ${target} (${(bytes.length / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`)
