/**
 * The recorded corpus (the offline mode's 36,421 records, `arxiv-corpus.tsv.gz`
 * of the offline data) as a mirror's index: the records read from the TSV
 * (the abstracts another record's paper owns left blank: foreignAbstracts.ts)
 * and committed in pages of 2,500 as the harvester commits an OAI-PMH page,
 * in the corpus's order, by the mirror's own code. The offline mode searches
 * this index (CorpusArxiv), so the recorded corpus and a mirror share one
 * engine and one ranking.
 *
 * The index is sealed once built (`MirrorIndex.seal`: its full-text index
 * merged, the file rewritten without free pages, marked so that every reader
 * opens it without locks and no writer opens it at all) and names the TSV it
 * was built from (its sha1, in the index's `meta` table), so a reader can tell
 * a stale index from a current one.
 *
 * Synchronous code, for scripts, benches and the one-time build of a data
 * directory without an index.
 *
 * @since 0.3.0
 */
import { createHash } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { foreignAbstracts } from "../../corpus/foreignAbstracts.js"
import { INDEX_FILE, MirrorIndex } from "./MirrorIndex.js"
import type { MirrorRecord, OaiEntry } from "./OaiPage.js"

/** The corpus file inside the offline data directory. */
export const CORPUS_FILE = "arxiv-corpus.tsv.gz"

/** The folder of the corpus's index inside the offline data directory (a mirror's folder: `arxiv.sqlite` in it). */
export const CORPUS_INDEX_DIR = "arxiv-corpus"

/** The `meta` keys of a corpus index: the sha1 of the TSV it was built from, and the records stored without their abstract. */
export const SOURCE_KEY = "corpus_source_sha1"
export const FOREIGN_KEY = "corpus_foreign_abstracts"

/** Records per committed page, as an OAI-PMH page of arXiv's. */
const PAGE = 2_500

/** Column order of the corpus TSV (its header line says the same). */
export const COLUMNS = ["id", "published", "updated", "categories", "doi", "journalRef", "comment", "authors", "title", "abstract"] as const

/** A record of the corpus whose recorded abstract is another record's paper's: stored without it. */
export interface ForeignRecord {
  readonly id: string
  /** The record whose paper the abstract describes. */
  readonly owner: string
}

/** The records of a corpus TSV (header line first, columns as in `COLUMNS`; records end at "\n", cells at "\t"). */
export const corpusRecords = (text: string): { readonly records: ReadonlyArray<MirrorRecord>; readonly foreign: ReadonlyArray<ForeignRecord> } => {
  const nl = text.indexOf("\n")
  const header = text.slice(0, nl < 0 ? text.length : nl).split("\t")
  if (header.join("\t") !== COLUMNS.join("\t")) throw new Error(`unexpected corpus columns: ${header.join(", ")}`)
  const rows = text.slice(nl + 1).split("\n").filter((line) => line !== "").map((line) => {
    const cells = line.split("\t")
    if (cells.length !== COLUMNS.length) throw new Error(`a corpus record has ${cells.length} cells, not ${COLUMNS.length}: ${line.slice(0, 80)}`)
    return cells
  })
  const found = foreignAbstracts(rows.map((c) => ({ id: c[0]!, title: c[8]!, abstract: c[9]! })))
  const blank = new Set(found.map((f) => f.record))
  const optional = (v: string) => (v === "" ? undefined : v)
  const records = rows.map((c, d): MirrorRecord => {
    const [id, published, updated, categories, doi, journalRef, comment, authors, title, abstract] = c as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string
    ]
    return {
      id,
      title,
      abstract: blank.has(d) ? "" : abstract,
      authors: authors === "" ? [] : authors.split("; "),
      published,
      updated: optional(updated),
      categories: categories.split(" ").filter((x) => x !== ""),
      doi: optional(doi),
      journalRef: optional(journalRef),
      comments: optional(comment),
      // the datestamp: the day the record last changed, its latest version's
      datestamp: optional(updated) ?? published
    }
  })
  return { records, foreign: found.map((f) => ({ id: f.id, owner: f.ownerId })) }
}

/** The sha1 of the corpus TSV of an offline data directory (as its manifest.json lists it). */
export const corpusSha1 = (dataDir: string): string => createHash("sha1").update(readFileSync(join(dataDir, CORPUS_FILE))).digest("hex")

/**
 * Build the corpus TSV of the offline data directory `dataDir` into a new,
 * sealed mirror index in `dir` (which must hold none); returns the records
 * written.
 */
export const buildCorpusMirror = (dataDir: string, dir: string, options: { readonly scratch?: boolean } = {}): number => {
  const gz = readFileSync(join(dataDir, CORPUS_FILE))
  const sha1 = createHash("sha1").update(gz).digest("hex")
  const { foreign, records } = corpusRecords(gunzipSync(gz).toString("utf8"))
  const index = MirrorIndex.open(dir, { create: true, scratch: options.scratch === true })
  try {
    for (let at = 0, page = 1; at < records.length; at += PAGE, page++) {
      const entries = records.slice(at, at + PAGE).map((record): OaiEntry => ({ _tag: "Record", record }))
      index.commitPage(entries, () => true, { key: "corpus|", set: "corpus", categories: [], pages: page, records: at + entries.length })
    }
    index.writeMeta({ [SOURCE_KEY]: sha1, [FOREIGN_KEY]: JSON.stringify(foreign) })
    const held = index.status().records
    index.seal()
    return held
  } finally {
    index.close()
  }
}

/**
 * Build the corpus index of `dataDir` in its place (`dataDir/arxiv-corpus/arxiv.sqlite`), replacing one
 * built from another TSV: built in a folder of its own, then moved in by one rename, so a reader never sees
 * half of it and two builders at once leave one whole index. Returns the records written.
 */
export const buildCorpusIndexIn = (dataDir: string): number => {
  const scratch = join(dataDir, `${CORPUS_INDEX_DIR}.${process.pid}.tmp`)
  rmSync(scratch, { recursive: true, force: true })
  try {
    const records = buildCorpusMirror(dataDir, scratch, { scratch: true })
    const target = join(dataDir, CORPUS_INDEX_DIR)
    mkdirSync(target, { recursive: true })
    // readable by every user of a shared clone or install, as the TSV it comes from
    chmodSync(join(scratch, INDEX_FILE), 0o644)
    renameSync(join(scratch, INDEX_FILE), join(target, INDEX_FILE))
    return records
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** The sha1 of the TSV the corpus index in `indexDir` was built from; undefined when there is none, or it is not one. */
export const builtFrom = (indexDir: string): string | undefined => {
  if (!existsSync(join(indexDir, INDEX_FILE))) return undefined
  try {
    const index = MirrorIndex.open(indexDir, { create: false })
    try {
      return index.readMeta(SOURCE_KEY)
    } finally {
      index.close()
    }
  } catch {
    return undefined
  }
}
