/**
 * Precision of what the student reads (issue 22, "Measure"): the companion runs
 * offline with default flags on every graded note (eval/precision/grades/), and
 * each paper in the places is looked up in that note's grades — 2 about the
 * concept, 1 related background, 0 off-topic (eval/precision/README.md). The
 * places are the `maxResults` papers the student reads first: the kept papers
 * and the relevant papers without a recorded citation count that take a place
 * (`unrecordedInPlaces`, listed right after the kept, marked "impact not recorded").
 *
 * Prints per note and in total: strict precision (share of the places graded
 * 2) and the off-topic share (graded 0), each with a 95 % bootstrap interval
 * over notes, the landmarks in the places (and in the places or listed right
 * after them) beside them, and every paper in the places that has no grade yet
 * (the figure is then marked incomplete: grade those first, with
 * `npm run eval:precision:sheets`).
 *
 * Usage: npm run eval:precision -- [--split tune3|tune4|tuning|heldout|all] [--json] [--ranker fixed|learned]
 *          [companion options as --kebab-name value, checked by CompanionOptions]
 *
 * `--arxiv corpus|mirror:DIR|…` picks the arXiv backend as the CLI's flag does (default: the recorded corpus);
 * `mirror:DIR` with a mirror built from the recorded corpus (`npm run mirror:corpus -- --dir DIR`) runs the same
 * records through the mirror's engine; the recorded citations stay.
 *
 * `--ranker learned` runs the local judge with the learned relevance of data/judge/ranker.json (eval/fit-ranker.ts)
 * instead of its default fixed map. `--judge-params JSON` overrides knobs of the local judge's scoring (score.ts
 * ScoringParams, e.g. '{"noveltyWeight":0.05}'), as `LocalJudge.makeWith({ params })` does.
 */
import { Effect, Either, Layer, Schema } from "effect"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as LocalJudge from "../src/adapters/judge/LocalJudge.js"
import { arxivRanker } from "../src/adapters/judge/ranker.js"
import { CompanionOptions, type CompanionReport, Layers, Workflow } from "../src/index.js"
import { readLandmarks, readNote, repoRoot, seededRandom, type Split, SPLIT_SETS } from "./retrieval-data.js"

/** Issue 22's goals on held-out notes. */
const GOALS = { strict: 0.75, offTopic: 0.02 } as const
const BOOTSTRAP_SEED = 22
const BOOTSTRAP_RESAMPLES = 2000
const gradesDir = join(repoRoot, "eval", "precision", "grades")

type Grade = 0 | 1 | 2
interface GradeFile {
  readonly note: string
  readonly grader: string
  readonly papers: Readonly<Record<string, { readonly grade: Grade; readonly why?: string }>>
}

const fail = (message: string): never => {
  console.error(`eval:precision: ${message}`)
  process.exit(2)
}

const camel = (kebab: string) =>
  kebab === "citations-per-year" ? "citationsPerYearThreshold" : kebab.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

const parseArgs = (argv: ReadonlyArray<string>) => {
  let split: keyof typeof SPLIT_SETS = "all"
  let json = false
  let ranker: "fixed" | "learned" = "fixed"
  let judgeParams: Record<string, unknown> | undefined
  let arxiv: Layers.ArxivBackend | undefined
  const options: Record<string, unknown> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--json") {
      json = true
      continue
    }
    if (!arg.startsWith("--")) fail(`unexpected argument "${arg}" (flags are --name value)`)
    const name = arg.slice(2)
    const raw = argv[++i]
    if (raw === undefined) fail(`--${name} needs a value`)
    if (name === "ranker") {
      if (raw !== "fixed" && raw !== "learned") fail(`--ranker must be fixed or learned, not "${raw}"`)
      ranker = raw as "fixed" | "learned"
      continue
    }
    if (name === "judge-params") {
      try {
        judgeParams = JSON.parse(raw!) as Record<string, unknown>
      } catch {
        fail(`--judge-params must be a JSON object of the local judge's knobs, not "${raw}"`)
      }
      continue
    }
    if (name === "arxiv") {
      if (Either.isLeft(Schema.decodeUnknownEither(Layers.ArxivBackend)(raw))) {
        fail(`--arxiv must be live, corpus, mirror, mirror:DIR or postgres://…, not "${raw}"`)
      }
      arxiv = raw as Layers.ArxivBackend
      continue
    }
    if (name === "split") {
      if (!(raw! in SPLIT_SETS)) fail(`--split must be one of ${Object.keys(SPLIT_SETS).join(", ")}, not "${raw}"`)
      split = raw as keyof typeof SPLIT_SETS
    } else {
      options[camel(name)] = /^-?\d+(\.\d+)?$/.test(raw!) ? Number(raw) : raw
    }
  }
  return { split, json, ranker, judgeParams, arxiv, options }
}

interface NoteRow {
  readonly note: string
  readonly split: Split
  /** Papers in the places: kept + unrecorded. */
  readonly kept: number
  /** Of them, relevant papers without a recorded count. */
  readonly unrecorded: number
  readonly graded: number
  readonly twos: number
  readonly zeros: number
  readonly landmarks: number
  readonly landmarksKept: number
  /** Landmarks in the places or listed right after the kept (unrecordedAmongKept). */
  readonly landmarksShown: number
  readonly ungraded: ReadonlyArray<string>
  readonly offTopic: ReadonlyArray<string>
  readonly error: string | undefined
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))] ?? 0

/** A pooled share (numerator / denominator summed over notes) and its bootstrap interval over notes. */
const pooledShare = (
  rows: ReadonlyArray<NoteRow>,
  num: (r: NoteRow) => number,
  den: (r: NoteRow) => number
): { readonly share: number; readonly low: number; readonly high: number } => {
  const share = (rs: ReadonlyArray<NoteRow>) => {
    const d = rs.reduce((k, r) => k + den(r), 0)
    return d === 0 ? 0 : rs.reduce((k, r) => k + num(r), 0) / d
  }
  const random = seededRandom(BOOTSTRAP_SEED)
  const samples: Array<number> = []
  for (let b = 0; b < BOOTSTRAP_RESAMPLES && rows.length > 0; b++) {
    samples.push(share(rows.map(() => rows[Math.floor(random() * rows.length)]!)))
  }
  samples.sort((a, b) => a - b)
  return { share: share(rows), low: percentile(samples, 0.025), high: percentile(samples, 0.975) }
}

const args = parseArgs(process.argv.slice(2))
const decoded = Schema.decodeUnknownEither(CompanionOptions)(args.options, { onExcessProperty: "error" })
if (Either.isLeft(decoded)) fail(`invalid companion option: ${decoded.left.message}`)
const options = Either.getOrThrow(decoded)

const splits = SPLIT_SETS[args.split]
const selected = readLandmarks().filter((n) => splits.includes(n.split) && existsSync(join(gradesDir, `${n.note}.json`)))
if (selected.length === 0) fail(`no graded note in --split ${args.split} (grades live in eval/precision/grades/)`)

const vault = mkdtempSync(join(tmpdir(), "eval-precision-"))
let outcomes: ReadonlyArray<Either.Either<CompanionReport, unknown>>
const started = performance.now()
try {
  for (const note of selected) writeFileSync(join(vault, `${note.title}.md`), readNote(note))
  outcomes = await Effect.runPromise(
    Effect.forEach(
      selected,
      (note) => Effect.either(Workflow.runCompanion(`Find papers related to my '${note.title}' note`, options)),
      { concurrency: 1 }
    ).pipe(
      Effect.provide(
        args.ranker === "learned" || args.judgeParams !== undefined
          ? LocalJudge.layerWith({ ranker: args.ranker === "learned" ? arxivRanker() : null, params: args.judgeParams })
          : Layer.empty
      ),
      Effect.provide(Layers.OfflineLayer({ vault, offline: true, ...(args.arxiv === undefined ? {} : { arxiv: args.arxiv }) }))
    )
  )
} finally {
  rmSync(vault, { recursive: true, force: true })
}
const seconds = (performance.now() - started) / 1000

const rows: ReadonlyArray<NoteRow> = selected.map((note, i) => {
  const grades = (JSON.parse(readFileSync(join(gradesDir, `${note.note}.json`), "utf8")) as GradeFile).papers
  const outcome = outcomes[i]!
  const base = { note: note.note, split: note.split, landmarks: note.landmarks.length }
  if (Either.isLeft(outcome)) {
    const e = outcome.left as { _tag?: string; message?: string }
    return { ...base, kept: 0, unrecorded: 0, graded: 0, twos: 0, zeros: 0, landmarksKept: 0, landmarksShown: 0, ungraded: [], offTopic: [], error: `${e._tag}: ${e.message}` }
  }
  const report = outcome.right
  // the places: the kept papers and the relevant papers without a count that take a place
  const inPlaces = report.unrecordedInPlaces ?? []
  const kept = [...report.survivors, ...inPlaces]
  const shown = new Set([...kept, ...(report.unrecordedAmongKept ?? [])])
  const title = (id: string) => report.candidates.find((c) => c.paper.arxivId === id)?.paper.title ?? id
  const gradeOf = (id: string) => grades[id]?.grade
  return {
    ...base,
    kept: kept.length,
    unrecorded: inPlaces.length,
    graded: kept.filter((id) => gradeOf(id) !== undefined).length,
    twos: kept.filter((id) => gradeOf(id) === 2).length,
    zeros: kept.filter((id) => gradeOf(id) === 0).length,
    landmarksKept: note.landmarks.filter((l) => kept.includes(l.id)).length,
    landmarksShown: note.landmarks.filter((l) => shown.has(l.id)).length,
    ungraded: kept.filter((id) => gradeOf(id) === undefined).map((id) => `${id} ${title(id)}`),
    offTopic: kept.filter((id) => gradeOf(id) === 0).map((id) => `${id} ${title(id)}`),
    error: undefined
  }
})

const groups: ReadonlyArray<readonly [string, ReadonlyArray<NoteRow>]> = [
  ...splits.map((s) => [s, rows.filter((r) => r.split === s)] as const).filter(([, rs]) => rs.length > 0),
  ...(splits.length > 1 ? [[args.split, rows] as const] : [])
]
const totals = groups.map(([name, rs]) => ({
  name,
  notes: rs.length,
  kept: rs.reduce((k, r) => k + r.kept, 0),
  unrecorded: rs.reduce((k, r) => k + r.unrecorded, 0),
  ungraded: rs.reduce((k, r) => k + r.ungraded.length, 0),
  zeroKept: rs.filter((r) => r.kept === 0).length,
  // shares over the graded kept papers; an ungraded paper makes the figure incomplete, never a guess
  strict: pooledShare(rs, (r) => r.twos, (r) => r.graded),
  offTopic: pooledShare(rs, (r) => r.zeros, (r) => r.graded),
  landmarksKept: pooledShare(rs, (r) => r.landmarksKept, (r) => r.landmarks),
  landmarks: rs.reduce((k, r) => k + r.landmarks, 0),
  landmarkHits: rs.reduce((k, r) => k + r.landmarksKept, 0),
  landmarksShown: pooledShare(rs, (r) => r.landmarksShown, (r) => r.landmarks),
  landmarkShownHits: rs.reduce((k, r) => k + r.landmarksShown, 0)
}))

const pct = (x: number) => `${(100 * x).toFixed(0)} %`
const ci = (s: { share: number; low: number; high: number }) => `${pct(s.share)} (${pct(s.low)}–${pct(s.high)})`

if (args.json) {
  console.log(JSON.stringify({ split: args.split, options: args.options, goals: GOALS, seconds, notes: rows, totals }, null, 2))
} else {
  const w = Math.max(...rows.map((r) => r.note.length), 4)
  console.log(`Precision of the places (the kept papers and the relevant papers without a recorded count that take a place), offline${args.arxiv === undefined ? "" : ` (arXiv: ${args.arxiv})`}, ${Object.keys(args.options).length === 0 ? "default flags" : JSON.stringify(args.options)}`)
  console.log(`${"note".padEnd(w)}  split    places (no count)  2s  0s  ungraded  landmarks in the places`)
  for (const r of rows) {
    console.log(
      `${r.note.padEnd(w)}  ${r.split.padEnd(7)}  ${String(r.kept).padStart(6)} (${String(r.unrecorded).padStart(2)})       ${String(r.twos).padStart(2)}  ` +
        `${String(r.zeros).padStart(2)}  ${String(r.ungraded.length).padStart(8)}  ${r.landmarksKept}/${r.landmarks}` +
        (r.error === undefined ? "" : `  ${r.error}`)
    )
    for (const p of r.offTopic) console.log(`${" ".repeat(w)}    off-topic: ${p}`)
  }
  console.log("")
  console.log("set       notes  places (no count)  strict precision (95 % CI)  off-topic (95 % CI)  landmarks in the places (95 % CI)  in them or listed right after (95 % CI)  0-place notes")
  for (const t of totals) {
    console.log(
      `${t.name.padEnd(8)}  ${String(t.notes).padStart(5)}  ${`${t.kept} (${t.unrecorded})`.padStart(17)}  ${ci(t.strict).padEnd(26)}  ` +
        `${ci(t.offTopic).padEnd(19)}  ${`${t.landmarkHits}/${t.landmarks} ${ci(t.landmarksKept)}`.padEnd(33)}  ` +
        `${`${t.landmarkShownHits}/${t.landmarks} ${ci(t.landmarksShown)}`.padEnd(39)}  ${t.zeroKept}` +
        (t.ungraded > 0 ? `  INCOMPLETE: ${t.ungraded} papers in the places ungraded` : "")
    )
  }
  const ungraded = rows.flatMap((r) => r.ungraded.map((p) => `${r.note}: ${p}`))
  if (ungraded.length > 0) {
    console.log("")
    console.log(`Papers in the places with no grade (grade them before reporting a figure; npm run eval:precision:sheets):`)
    for (const u of ungraded) console.log(`  ${u}`)
  }
  console.log("")
  console.log(`Goals on held-out notes: strict precision ≥ ${pct(GOALS.strict)}, off-topic ≤ ${pct(GOALS.offTopic)}. Tune on the tuning splits only (${SPLIT_SETS.tuning.join(", ")}).`)
  console.log(`${selected.length} runs in ${seconds.toFixed(1)} s`)
}
