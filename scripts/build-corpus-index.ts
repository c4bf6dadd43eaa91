/**
 * Builds the offline corpus's search index, `fixtures/offline/arxiv-corpus/arxiv.sqlite`:
 * the recorded corpus (`fixtures/offline/arxiv-corpus.tsv.gz`) written into a
 * mirror's index (SQLite FTS5) by the mirror's own code and sealed
 * (src/adapters/arxiv/mirror/corpusMirror.ts). Run by `npm run build` (and so
 * by `prepack`): the package ships the index, not the TSV. Skips the work when
 * the index is already built from this TSV (the sha1 manifest.json lists).
 *
 *   node --import tsx scripts/build-corpus-index.ts [--data DIR] [--force]
 */
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"
import { builtFrom, buildCorpusIndexIn, CORPUS_FILE, CORPUS_INDEX_DIR, corpusSha1 } from "../src/adapters/arxiv/mirror/corpusMirror.js"
import { INDEX_FILE } from "../src/adapters/arxiv/mirror/MirrorIndex.js"

const args = process.argv.slice(2)
const at = args.indexOf("--data")
const dir = resolve(at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : join(import.meta.dirname, "..", "fixtures", "offline"))
const force = args.includes("--force")
const quiet = args.includes("--quiet")
const log = (line: string) => process.stderr.write(`build-corpus-index: ${line}\n`)

const source = join(dir, CORPUS_FILE)
const target = join(dir, CORPUS_INDEX_DIR, INDEX_FILE)
if (!existsSync(source)) {
  log(`${source} is not here (an installed package ships only the index): nothing to build`)
  process.exit(0)
}
const sha1 = corpusSha1(dir)
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Record<string, { sha1?: string } | undefined>
if (manifest[CORPUS_FILE]?.sha1 !== sha1) {
  log(`manifest.json does not list ${CORPUS_FILE} with sha1 ${sha1}: rebuild the offline data (scripts/build-offline-data.mjs)`)
  process.exit(1)
}
// the index of the engine before this one (a clone built earlier): no longer read
rmSync(join(dir, "arxiv-corpus.idx"), { force: true })
if (!force && builtFrom(join(dir, CORPUS_INDEX_DIR)) === sha1) {
  if (!quiet) log(`${target} is up to date`)
  process.exit(0)
}
const started = performance.now()
const cpu = process.cpuUsage()
const records = buildCorpusIndexIn(dir)
const used = process.cpuUsage(cpu)
const { size } = await import("node:fs").then((fs) => fs.statSync(target))
log(
  `wrote ${target} (${records.toLocaleString("en-US")} records, ${(size / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s ` +
    `(CPU ${((used.user + used.system) / 1e6).toFixed(1)} s)`
)
