/**
 * Blind grading sheets (the precision set's format, eval/precision/README.md): a note's text and, for each paper to
 * grade, its id, title, first-version date and the start of its abstract, sorted by arXiv id: no score, rank or
 * reason. Written by the precision set's and the digest's evals alike.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"

/** An abstract as a sheet shows it: whole up to 720 characters, else its first 700 cut at a word, then "…". */
export const clipAbstract = (text: string): string => (text.length <= 720 ? text : `${text.slice(0, 700).replace(/\s+\S*$/, "")} …`)

/** What a sheet shows of a paper, found by its bare id. */
export interface SheetSource {
  readonly title: string
  readonly published: string
  readonly abstract: string
}

/** The papers of a sheet, in the order of `ids`, each as `found` has it (blank when it has none). */
export const sheetPapers = (ids: ReadonlyArray<string>, found: ReadonlyMap<string, SheetSource>) =>
  ids.map((id) => {
    const p = found.get(id)
    return { arxivId: id, title: p?.title ?? "", published: p?.published ?? "", abstract: clipAbstract(p?.abstract ?? "") }
  })

/** Write a note's sheet as `<dir>/<note>.json`. */
export const writeSheet = (
  dir: string,
  sheet: {
    readonly note: string
    readonly title: string
    readonly split: string
    readonly text: string
    readonly papers: ReadonlyArray<{ readonly arxivId: string; readonly title: string; readonly published: string; readonly abstract: string }>
  }
): void => writeFileSync(join(dir, `${sheet.note}.json`), `${JSON.stringify(sheet, null, 1)}\n`)
