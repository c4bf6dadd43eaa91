/**
 * Grading sheets for the precision evaluation (issue 22, "Measure"): for each
 * concept note of the chosen splits, the papers in the places (the kept and the
 * relevant papers without a recorded count that take a place) and the most
 * relevant candidates not in them, written for a reader to grade
 * 0 / 1 / 2 without seeing any score, rank or reason (eval/precision/README.md).
 *
 * A paper already graded for a note (eval/precision/grades/<note>.json) is
 * left out of its new sheet, so after a change only the papers it newly
 * brings are graded.
 *
 * Usage: npm run eval:precision:sheets -- [--split tune3,tune4,heldout] [--not-kept 30] [--out DIR] [--ranker fixed|learned]
 *
 * `--ranker learned`: the papers the local judge keeps with the learned relevance of data/judge/ranker.json.
 * `--judge-params JSON`: the papers it keeps with other knobs of its scoring (e.g. '{"noveltyWeight":0.05}').
 */
import { Effect, Either, Layer } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as LocalJudge from "../src/adapters/judge/LocalJudge.js"
import { arxivRanker } from "../src/adapters/judge/ranker.js"
import { type CompanionReport, Layers, Workflow } from "../src/index.js"
import { readLandmarks, readNote, repoRoot, type Split } from "./retrieval-data.js"
import { clipAbstract, writeSheet } from "./sheets-data.js"

const arg = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : process.argv[at + 1] ?? fallback
}

export const precisionDir = join(repoRoot, "eval", "precision")
const splits = arg("split", "tune3,tune4,heldout").split(",") as ReadonlyArray<Split>
const notKept = Number(arg("not-kept", "30"))
const out = arg("out", join(precisionDir, "sheets"))
const ranker = arg("ranker", "fixed")
if (ranker !== "fixed" && ranker !== "learned") throw new Error(`--ranker must be fixed or learned, not "${ranker}"`)
/** `--judge-params JSON`: knobs of the local judge's scoring (score.ts ScoringParams), as eval:precision takes them */
const judgeParams = arg("judge-params", "") === "" ? undefined : (JSON.parse(arg("judge-params", "")) as Record<string, unknown>)

/** The abstract's first ~700 characters, cut at a word: enough to tell what a paper is about. */

const graded = (note: string): Set<string> => {
  const file = join(precisionDir, "grades", `${note}.json`)
  if (!existsSync(file)) return new Set()
  const grades = JSON.parse(readFileSync(file, "utf8")) as { papers: Record<string, unknown> }
  return new Set(Object.keys(grades.papers))
}

const selected = readLandmarks().filter((n) => splits.includes(n.split))
const vault = mkdtempSync(join(tmpdir(), "eval-precision-"))
mkdirSync(out, { recursive: true })
try {
  for (const note of selected) writeFileSync(join(vault, `${note.title}.md`), readNote(note))
  const reports = await Effect.runPromise(
    Effect.forEach(
      selected,
      (note) => Effect.either(Workflow.runCompanion(`Find papers related to my '${note.title}' note`)),
      { concurrency: 1 }
    ).pipe(
      Effect.provide(
        ranker === "learned" || judgeParams !== undefined
          ? LocalJudge.layerWith({ ranker: ranker === "learned" ? arxivRanker() : null, params: judgeParams })
          : Layer.empty
      ),
      Effect.provide(Layers.OfflineLayer({ vault, offline: true }))
    )
  )
  let total = 0
  selected.forEach((note, i) => {
    const outcome = reports[i]!
    if (Either.isLeft(outcome)) {
      console.error(`${note.note}: ${String((outcome.left as { message?: string }).message ?? outcome.left)}`)
      return
    }
    const report: CompanionReport = outcome.right
    // the places: the kept papers and the relevant papers without a count that take a place
    const kept = new Set([...report.survivors, ...report.unrecordedInPlaces])
    const byRelevance = report.candidates.slice().sort((a, b) =>
      b.judgement.relevance - a.judgement.relevance || a.paper.arxivId.localeCompare(b.paper.arxivId)
    )
    const shown = [
      ...byRelevance.filter((c) => kept.has(c.paper.arxivId)),
      ...byRelevance.filter((c) => !kept.has(c.paper.arxivId)).slice(0, notKept)
    ]
    const done = graded(note.note)
    const papers = shown
      .filter((c) => !done.has(c.paper.arxivId))
      .map((c) => ({
        arxivId: c.paper.arxivId,
        title: c.paper.title.replace(/\s+/g, " ").trim(),
        published: c.paper.published,
        abstract: clipAbstract(c.paper.abstract.replace(/\s+/g, " ").trim())
      }))
      // by id: the reader sees no rank
      .sort((a, b) => a.arxivId.localeCompare(b.arxivId))
    total += papers.length
    writeSheet(out, { note: note.note, title: note.title, split: note.split, text: readNote(note), papers })
  })
  console.log(`${selected.length} notes, ${total} papers to grade, in ${out}`)
} finally {
  rmSync(vault, { recursive: true, force: true })
}
