/**
 * The labelled abstracts of test/fixtures/summaries-labelled.jsonl and how the
 * extractive summary is scored on them: shared by `npm run eval:summaries`
 * (eval/summaries.ts) and test/core/summary.test.ts, so the figures the eval
 * prints and the floors the test holds are computed the same way.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { extractiveSummary, splitSentences } from "../src/core/summary.js"
import { bootstrapMean, repoRoot } from "./retrieval-data.js"

/** One labelled abstract. */
export interface Labelled {
  readonly id: string
  readonly set: "tuning" | "held-out" | "kept"
  readonly title: string
  readonly abstract: string
  /** The note's keywords, for the kept set (the summary is chosen for them, as in the note). */
  readonly keywords?: ReadonlyArray<string>
  /** The retrieval eval note the paper was kept for. */
  readonly note?: string
  readonly method: ReadonlyArray<string> | null
  readonly result: ReadonlyArray<string> | null
  readonly resultKind: "figure" | "claim" | null
}

export const labelledFile = join(repoRoot, "test", "fixtures", "summaries-labelled.jsonl")

export const readLabelled = (): ReadonlyArray<Labelled> =>
  readFileSync(labelledFile, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Labelled)

// ---------------------------------------------------------------- measuring

const flat = (s: string) => s.replace(/\s+/g, " ").trim()

/** Whether every chosen sentence is a whole sentence of the abstract (checked on the abstract, not with the splitter). */
const wholeSentences = (abstract: string, sentences: ReadonlyArray<string>): boolean => {
  const text = flat(abstract)
  return sentences.length > 0 && sentences.every((x) => {
    const at = text.indexOf(x)
    const starts = at === 0 || (at > 0 && /[.!?]["')\]]* $/.test(text.slice(0, at)))
    const ends = /[.!?]["')\]]*$/.test(x) || at + x.length === text.length
    return at >= 0 && starts && ends
  })
}

const mentions = (text: string, phrases: ReadonlyArray<string>) => phrases.some((p) => text.toLowerCase().includes(p.toLowerCase()))

interface Scored {
  readonly id: string
  readonly whole: number
  readonly method: number | undefined
  readonly result: number | undefined
  readonly figure: number | undefined
  readonly lead2Result: number | undefined
}

const scoreRow = (row: Labelled): Scored => {
  const s = extractiveSummary(row, row.keywords ?? [])
  const lead2 = splitSentences(row.abstract).slice(0, 2).join(" ")
  return {
    id: row.id,
    whole: wholeSentences(row.abstract, s.sentences) ? 1 : 0,
    method: row.method === null ? undefined : mentions(s.text, row.method) ? 1 : 0,
    result: row.result === null ? undefined : mentions(s.text, row.result) ? 1 : 0,
    figure: row.result === null || row.resultKind !== "figure" ? undefined : mentions(s.text, row.result) ? 1 : 0,
    lead2Result: row.result === null ? undefined : mentions(lead2, row.result) ? 1 : 0
  }
}

/** The bootstrap's seed and draws (fixed: the intervals are reproducible). */
export const BOOTSTRAP = { seed: 11, draws: 5000 } as const

/** 95% bootstrap interval of a share. */
const bootstrap = (xs: ReadonlyArray<number>): readonly [number, number] => bootstrapMean(xs, BOOTSTRAP.seed, BOOTSTRAP.draws)

export interface Share {
  readonly hits: number
  readonly n: number
  readonly share: number
  readonly interval: readonly [number, number]
}

const share = (xs: ReadonlyArray<number | undefined>): Share => {
  const known = xs.filter((x): x is number => x !== undefined)
  const hits = known.reduce((a, b) => a + b, 0)
  return { hits, n: known.length, share: known.length === 0 ? Number.NaN : hits / known.length, interval: bootstrap(known) }
}

/** The figures of one set. */
export const measureSet = (rows: ReadonlyArray<Labelled>) => {
  const scored = rows.map(scoreRow)
  return {
    abstracts: rows.length,
    whole: share(scored.map((s) => s.whole)),
    method: share(scored.map((s) => s.method)),
    result: share(scored.map((s) => s.result)),
    figure: share(scored.map((s) => s.figure)),
    lead2Result: share(scored.map((s) => s.lead2Result)),
    misses: {
      method: scored.filter((s) => s.method === 0).map((s) => s.id),
      result: scored.filter((s) => s.result === 0).map((s) => s.id)
    }
  }
}
