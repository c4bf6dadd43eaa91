/**
 * The recorded corpus (the offline mode's 36,421 records) as a mirror's index:
 * the corpus adapter's own records (read from its prebuilt index, else its TSV; the
 * abstracts it stores blank left blank) committed in pages of 2,500 as the
 * harvester commits an OAI-PMH page, in the corpus's order, so that the same
 * records can be searched through the mirror's engine (`--arxiv mirror:DIR`;
 * `npm run mirror:corpus`, bench/offline-engines.bench.ts, the evals).
 *
 * The index is sealed once built (`MirrorIndex.seal`: its full-text index
 * merged, the file rewritten without free pages, marked so that every reader
 * opens it without locks and no writer opens it at all), as an index shipped
 * inside the package would be.
 *
 * Synchronous code, for scripts and benches.
 *
 * @since 0.3.0
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { Corpus } from "../../corpus/corpusSearch.js"
import { MirrorIndex } from "./MirrorIndex.js"
import type { MirrorRecord, OaiEntry } from "./OaiPage.js"

/** Records per committed page, as an OAI-PMH page of arXiv's. */
const PAGE = 2_500

/** The corpus's record `d` as the harvester hands a record to the index (its datestamp: the latest version's date). */
export const recordOf = (corpus: Corpus, d: number): MirrorRecord => {
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

/**
 * The corpus of an offline data directory (fixtures/offline): its prebuilt index (`npm run build`), else its TSV
 * indexed in memory, as the corpus adapter reads it.
 */
export const readCorpus = (dataDir: string): Corpus => {
  const indexFile = join(dataDir, "arxiv-corpus.idx")
  if (existsSync(indexFile)) {
    const corpus = Corpus.fromIndex(readFileSync(indexFile))
    if (corpus !== undefined) return corpus
  }
  return Corpus.fromTsv(gunzipSync(readFileSync(join(dataDir, "arxiv-corpus.tsv.gz"))).toString("utf8"))
}

/** Build the corpus of the offline data directory `dataDir` into a new mirror index in `dir`; returns the records written. */
export const buildCorpusMirror = (dataDir: string, dir: string): number => {
  const corpus = readCorpus(dataDir)
  const index = MirrorIndex.open(dir, { create: true })
  try {
    let n = 0
    for (let at = 0, page = 1; at < corpus.size; at += PAGE, page++) {
      const entries: Array<OaiEntry> = []
      for (let d = at; d < Math.min(corpus.size, at + PAGE); d++) entries.push({ _tag: "Record", record: recordOf(corpus, d) })
      n += entries.length
      index.commitPage(entries, () => true, { key: "corpus|", set: "corpus", categories: [], pages: page, records: n })
    }
    const records = index.status().records
    index.seal()
    return records
  } finally {
    index.close()
  }
}
