/**
 * Builds the recorded corpus (fixtures/offline, 36,421 records) into a
 * mirror's index in a folder of your choice (`arxiv.sqlite`, SQLite FTS5, the
 * mirror's own code: src/adapters/arxiv/mirror/corpusMirror.ts, sealed) — the
 * same index `npm run build` writes into fixtures/offline/arxiv-corpus/ for
 * the offline mode, which `--arxiv mirror:DIR` then reads like any mirror. An
 * index already in DIR is refused unless `--force` (it is then built anew).
 *
 *   npm run mirror:corpus -- --dir DIR [--data DIR] [--force]
 */
import { existsSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"
import { buildCorpusMirror, CORPUS_FILE } from "../src/adapters/arxiv/mirror/corpusMirror.js"
import { INDEX_FILE } from "../src/adapters/arxiv/mirror/MirrorIndex.js"

const args = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}
const fail = (line: string): never => {
  process.stderr.write(`mirror:corpus: ${line}\n`)
  process.exit(2)
}
const dirArg = flag("--dir") ?? fail("--dir DIR is required: the folder to build the mirror's index in")
const dir = resolve(dirArg)
const data = resolve(flag("--data") ?? join(import.meta.dirname, "..", "fixtures", "offline"))
const file = join(dir, INDEX_FILE)
if (existsSync(file)) {
  if (!args.includes("--force")) fail(`${file} exists; pass --force to build it anew`)
  rmSync(file, { force: true })
  rmSync(`${file}-journal`, { force: true })
}
if (!existsSync(join(data, CORPUS_FILE))) fail(`${data} holds no ${CORPUS_FILE}`)
const started = performance.now()
const records = buildCorpusMirror(data, dir)
process.stderr.write(
  `mirror:corpus: ${records.toLocaleString("en-US")} records of the corpus in ${data} in ${file} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`
)
