/**
 * `npm run eval:summaries` — how good the note's extractive summaries are, on
 * the hand-labelled abstracts of test/fixtures/summaries-labelled.jsonl (see
 * test/fixtures/README.md for how each set was picked and labelled):
 *
 * - `tuning` (45): labelled, measured, then used to adjust the summariser;
 * - `held-out` (34): labelled before the summariser ran on them, never tuned on;
 * - `kept` (30): kept papers of the companion's offline runs on the retrieval
 *   eval notes (eval/retrieval/notes), picked by rule (`--pick-kept`),
 *   labelled before their summaries were looked at, never tuned on. Their
 *   summaries use the note's keywords, as in the note.
 *
 * For each set: the share of summaries that are whole sentences of the
 * abstract, that name the method (one of the labelled names), that carry the
 * key result when the abstract states one (one of the labelled phrases), and
 * the same for a stated figure; with 95% bootstrap intervals over abstracts
 * (5,000 draws, fixed seed). A baseline, the abstract's first two sentences,
 * is measured on the same rows. `--json` prints the figures as JSON.
 *
 * `--pick-kept` runs the companion offline (library API, default options) on
 * every retrieval eval note and prints, as JSON lines with empty labels, the
 * papers of the `kept` set: each note's kept papers in the order the note
 * lists them, taken round-robin over the notes (in landmarks.json order), one
 * paper once, until 30; skipping the papers already labelled and those the
 * summariser may have been written against (the 39 development abstracts
 * were taken from the top of the same Semantic Scholar ranking as the labelled
 * sets, and are not listed: every corpus paper ranked at or above the lowest
 * labelled one is skipped).
 */
import { Effect, Either, Schema } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CompanionOptions, type CompanionReport, Layers, Workflow } from "../src/index.js"
import { readLandmarks, readNote, repoRoot } from "./retrieval-data.js"
import { BOOTSTRAP, type Labelled, measureSet, readLabelled, type Share } from "./summaries-data.js"

const KEPT_SET_SIZE = 30
const flat = (s: string) => s.replace(/\s+/g, " ").trim()

const pct = (x: number) => (Number.isNaN(x) ? "—" : `${(100 * x).toFixed(0)}%`)
const cell = (s: Share) => (s.n === 0 ? "—" : `${pct(s.share)} (${s.hits}/${s.n}) [${pct(s.interval[0])}, ${pct(s.interval[1])}]`)


// ---------------------------------------------------------------- picking the kept set

/** The labelled papers and every paper ranked above the lowest-ranked of them by Semantic Scholar count. */
const seenBySummariser = (): ReadonlySet<string> => {
  const labelled = readLabelled().map((l) => l.id)
  const file = join(repoRoot, "fixtures", "offline", "citations-semantic-scholar.json")
  const counts = (JSON.parse(readFileSync(file, "utf8")) as { counts: Record<string, { citations: number }> }).counts
  const ranked = Object.entries(counts).sort((a, b) => b[1].citations - a[1].citations).map(([id]) => id)
  const lowest = Math.max(...labelled.map((id) => ranked.indexOf(id)))
  return new Set([...labelled, ...ranked.slice(0, lowest + 1)])
}

const pickKept = async (): Promise<void> => {
  const labelled = seenBySummariser()
  const notes = readLandmarks()
  const vault = mkdtempSync(join(tmpdir(), "eval-summaries-"))
  let reports: ReadonlyArray<Either.Either<CompanionReport, unknown>>
  try {
    for (const note of notes) writeFileSync(join(vault, `${note.title}.md`), readNote(note))
    reports = await Effect.runPromise(
      Effect.forEach(
        notes,
        (note) => Effect.either(Workflow.runCompanion(`Find papers related to my '${note.title}' note`, Schema.decodeUnknownSync(CompanionOptions)({}))),
        { concurrency: 1 }
      ).pipe(Effect.provide(Layers.OfflineLayer({ vault, offline: true })))
    )
  } finally {
    rmSync(vault, { recursive: true, force: true })
  }
  const queues = notes.map((note, i) => {
    const report = reports[i]!
    if (Either.isLeft(report)) return { note: note.note, keywords: [] as ReadonlyArray<string>, papers: [] as Array<{ id: string; title: string; abstract: string }> }
    const r = report.right
    const byId = new Map(r.candidates.map((c) => [c.paper.arxivId, c.paper]))
    return {
      note: note.note,
      keywords: r.keywords,
      papers: r.survivors.map((id) => byId.get(id)!).map((p) => ({ id: p.arxivId, title: p.title, abstract: flat(p.abstract) }))
    }
  })
  const taken = new Set<string>()
  const out: Array<Labelled> = []
  for (let round = 0; out.length < KEPT_SET_SIZE && queues.some((q) => q.papers.length > round); round++) {
    for (const q of queues) {
      const p = q.papers[round]
      if (p === undefined || taken.has(p.id) || labelled.has(p.id) || out.length >= KEPT_SET_SIZE) continue
      taken.add(p.id)
      out.push({ id: p.id, set: "kept", note: q.note, keywords: q.keywords, title: p.title, method: null, result: null, resultKind: null, abstract: p.abstract })
    }
  }
  for (const row of out) console.log(JSON.stringify(row))
}

// ---------------------------------------------------------------- main

const main = async () => {
  if (process.argv.includes("--pick-kept")) return pickKept()
  const labelled = readLabelled()
  const sets = (["tuning", "held-out", "kept"] as const).map((set) => [set, measureSet(labelled.filter((l) => l.set === set))] as const)
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify({ bootstrap: BOOTSTRAP, sets: Object.fromEntries(sets) }, null, 2))
    return
  }
  console.log("Extractive summaries on hand-labelled abstracts: share (hits/n) [95% bootstrap interval]\n")
  console.log("| set | whole sentences | names the method | carries the key result | … a stated figure | first two sentences carry it |")
  console.log("|---|---|---|---|---|---|")
  for (const [set, m] of sets) {
    console.log(`| ${set} (${m.abstracts}) | ${cell(m.whole)} | ${cell(m.method)} | ${cell(m.result)} | ${cell(m.figure)} | ${cell(m.lead2Result)} |`)
  }
  for (const [set, m] of sets) {
    if (m.misses.method.length + m.misses.result.length === 0) continue
    console.log(`\n${set}: method missed ${m.misses.method.join(", ") || "—"}; result missed ${m.misses.result.join(", ") || "—"}`)
  }
}

await main()
