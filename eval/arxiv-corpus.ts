/**
 * The CC0 arXiv abstracts the local judge's data is built from
 * (../shared/data/corpus, or ARXIV_CORPUS_DIR): read line by line, each record
 * once (the files overlap; the first occurrence of an id wins). Used by the
 * eval/build-* scripts; CSFCube is never read here.
 */
import { createReadStream } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { createGunzip } from "node:zlib"

/** cs.LG/stat.ML/cs.CL/cs.CV/cs.NE/cs.AI 2007-05..2017-04 (36,421 records) */
export const ML_FILE = "arxiv_oai_dc_ml_2007-2017.jsonl.gz"
/** cs.CL 2007..2017, a subset of ML_FILE */
export const CL_FILE = "arxiv_oai_dc_cs.CL_2007-2017.jsonl"

export interface CorpusRecord {
  readonly id: string
  readonly title?: string
  readonly abstract?: string
}

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..")

/** The corpus folder: the given argument, else ARXIV_CORPUS_DIR, else ../shared/data/corpus beside the repo. */
export const corpusDir = (arg?: string): string =>
  resolve(arg ?? process.env.ARXIV_CORPUS_DIR ?? join(repo, "..", "shared", "data", "corpus"))

/** Every record of the files (gzipped or not), deduplicated by id, in file order. */
export async function* corpusRecords(dir: string, files: ReadonlyArray<string> = [ML_FILE]): AsyncGenerator<CorpusRecord> {
  const seen = new Set<string>()
  for (const file of files) {
    const path = join(dir, file)
    const input = file.endsWith(".gz") ? createReadStream(path).pipe(createGunzip()) : createReadStream(path)
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      if (line.trim() === "") continue
      const record = JSON.parse(line) as CorpusRecord
      if (seen.has(record.id)) continue
      seen.add(record.id)
      yield record
    }
  }
}
