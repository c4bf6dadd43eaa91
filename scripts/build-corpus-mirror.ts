/**
 * Builds the recorded corpus (fixtures/offline, 36,421 records) into a
 * mirror's index (`arxiv.sqlite`, SQLite FTS5, the mirror's own code), so the
 * offline corpus can be searched through the mirror's engine:
 * `--arxiv mirror:DIR` on every command and on `eval:retrieval` /
 * `eval:precision`. The records are the corpus adapter's own (read from its
 * prebuilt index, the abstracts it stores blank left blank), committed in
 * pages of 2,500 as the harvester commits an OAI-PMH page. Deterministic:
 * records in the corpus's order; the datestamp is the latest version's date.
 * An index already in DIR is refused unless `--force` (it is then rebuilt).
 *
 *   npm run mirror:corpus -- --dir DIR [--data DIR] [--force]
 */
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"
import { INDEX_FILE as CORPUS_INDEX } from "../src/adapters/arxiv/CorpusArxiv.js"
import { INDEX_FILE, MirrorIndex } from "../src/adapters/arxiv/mirror/MirrorIndex.js"
import type { MirrorRecord, OaiEntry } from "../src/adapters/arxiv/mirror/OaiPage.js"
import { Corpus } from "../src/adapters/corpus/corpusSearch.js"

const PAGE = 2_500

const args = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}
const fail = (line: string): never => {
  process.stderr.write(`mirror:corpus: ${line}\n`)
  process.exit(2)
}
const dirArg = flag("--dir")
if (dirArg === undefined) fail("--dir DIR is required: the folder to build the mirror's index in")
const dir = resolve(dirArg!)
const data = resolve(flag("--data") ?? join(import.meta.dirname, "..", "fixtures", "offline"))
const file = join(dir, INDEX_FILE)
if (existsSync(file)) {
  if (!args.includes("--force")) fail(`${file} exists; pass --force to build it anew`)
  rmSync(file, { force: true })
  rmSync(`${file}-journal`, { force: true })
}
const source = join(data, CORPUS_INDEX)
if (!existsSync(source)) fail(`${source} is missing; run \`npm run build\` first`)
const corpus = Corpus.fromIndex(readFileSync(source)) ?? fail(`${source} is not a corpus index; run \`npm run build\``)

/** A corpus record as the harvester hands it to the index. */
const recordOf = (d: number): MirrorRecord => {
  const p = corpus.paper(d)
  return {
    id: p.arxivId,
    title: p.title,
    abstract: p.abstract,
    authors: p.authors,
    published: p.published,
    updated: p.updated,
    categories: p.categories,
    doi: p.doi,
    journalRef: p.journalRef,
    comments: p.comment,
    datestamp: p.updated ?? p.published
  }
}

const started = performance.now()
const index = MirrorIndex.open(dir, { create: true })
try {
  let n = 0
  for (let at = 0, page = 1; at < corpus.size; at += PAGE, page++) {
    const entries: Array<OaiEntry> = []
    for (let d = at; d < Math.min(corpus.size, at + PAGE); d++) entries.push({ _tag: "Record", record: recordOf(d) })
    n += entries.length
    index.commitPage(entries, () => true, { key: "corpus|", set: "corpus", categories: [], pages: page, records: n })
  }
  const status = index.status()
  process.stderr.write(
    `mirror:corpus: ${status.records.toLocaleString("en-US")} records of ${source} in ${file} ` +
      `in ${((performance.now() - started) / 1000).toFixed(1)} s\n`
  )
} finally {
  index.close()
}
