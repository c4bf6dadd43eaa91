/**
 * The digest's announcement rule re-chosen on every graded tuning note (136 notes in 7 splits; never the held-out
 * sets `heldout` and `heldout5`), by leave-one-split-out cross-validation (eval/digest/README.md, "the announcement
 * rule re-chosen on the 136 tuning notes"). bars.ts's harness: a vault of the tuning notes, digested dry and offline
 * since 2016-06-01 by the real digest once per setting, the judge's answers cached per note and paper and the corpus
 * search per query. A setting is a local judge variant (J0 the defaults; J1 the concept gate 0.3 with the 0.95
 * relevance spare; J2 the same with prec10's match knobs) × a bar (the judge's `digestRelevance`) × a title gate ×
 * a cap per note.
 *
 * Prints: each fold's pick (on six splits) and its figures on the seventh; the pooled held folds beside the shipped
 * rule's figures; the decision of the rule written before; the pick on all notes; each computed with ungraded papers
 * counted as off-topic (W, the worst case) and as neither (N), the two the rule reads, and, as a bound deciding nothing,
 * as graded and not off-topic (B, the best case: every setting's upper bound at its lowest). Announced papers without a grade for their note are
 * listed and written as blind sheets (the precision set's format) to `--sheets DIR`.
 *
 * Usage: node --import tsx eval/digest/rechoose.ts [--sheets DIR] [--json FILE] [--from FILE]
 *   --from FILE: read the settings' announced papers from an earlier --json instead of simulating (the grades are
 *   read afresh: the re-run after blind grading)
 */
import { Effect } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import type { ScoringParams } from "../../src/adapters/judge/score.js"
import { ArxivPort, Digest, Layers } from "../../src/index.js"
import { readLandmarks, readNote, repoRoot, SPLIT_SETS } from "../retrieval-data.js"
import { dryDigest, keptJudgements, keptSearches, readAbstracts } from "./dry-digest.js"
import { pooledInterval, pooledShare } from "./pooled.js"
import { sheetPapers, writeSheet } from "../sheets-data.js"

const arg = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? undefined : process.argv[at + 1]
}
const sheetsDir = arg("sheets")
const jsonOut = arg("json")
const from = arg("from")
const SINCE = "2016-06-01"
const BARS = [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9] as const
const GATES = ["none", "any", "half"] as const
const CAPS = [10, 5] as const
const JUDGES = {
  J0: {},
  J1: { conceptGate: 0.3, gateSpareRelevance: 0.95 },
  J2: { conceptGate: 0.3, gateSpareRelevance: 0.95, conceptCompounds: true, conceptPairsInTitle: 0.6, conceptTitleNeighbourCosine: 0.8 }
} as const satisfies Record<string, Partial<ScoringParams>>
type JudgeName = keyof typeof JUDGES
const JUDGE_NAMES = Object.keys(JUDGES) as Array<JudgeName>
const GOAL = 0.02
const SHIPPED = { judge: "J0", bar: LocalJudge.fixedDigestRelevance, gate: Digest.DIGEST_ANNOUNCE.gate, cap: Digest.DIGEST_ANNOUNCE.cap ?? 10 }
const gradesDir = join(repoRoot, "eval", "precision", "grades")

type Grade = 0 | 1 | 2
const gradesOf = (note: string): Readonly<Record<string, { readonly grade: Grade }>> =>
  (JSON.parse(readFileSync(join(gradesDir, `${note}.json`), "utf8")) as { papers: Record<string, { grade: Grade }> }).papers

// the tuning notes only: the held-out sets are never read here
const tuning = SPLIT_SETS.tuning
const notes = readLandmarks().filter((l) => tuning.includes(l.split) && existsSync(join(gradesDir, `${l.note}.json`)))
const grades = new Map(notes.map((l) => [l.note, gradesOf(l.note)]))
const splitOf = new Map(notes.map((l) => [l.note, l.split]))
const splitNames = [...new Set(notes.map((l) => l.split))].sort()

interface Setting {
  readonly judge: JudgeName
  readonly bar: number
  readonly gate: (typeof GATES)[number]
  readonly cap: number
  /** announced ids per note, in the notes' order */
  readonly announced: ReadonlyArray<ReadonlyArray<string>>
}
const settingName = (s: Omit<Setting, "announced">) =>
  `${s.judge} ${s.bar.toFixed(2)}${s.gate === "none" ? "" : ` ${s.gate}`}${s.cap === 10 ? "" : ` cap ${s.cap}`}`

const settings: Array<Setting> = []
const abstracts = new Map<string, { title: string; published: string; abstract: string }>()
const started = performance.now()
if (from !== undefined) {
  const old = JSON.parse(readFileSync(from, "utf8")) as { notes: Array<string>; settings: Array<Setting>; abstracts: Record<string, { title: string; published: string; abstract: string }> }
  if (JSON.stringify(old.notes) !== JSON.stringify(notes.map((l) => l.note))) throw new Error("--from: other notes")
  settings.push(...old.settings)
  for (const [k, v] of Object.entries(old.abstracts)) abstracts.set(k, v)
} else {
  const vault = mkdtempSync(join(tmpdir(), "digest-rechoose-"))
  for (const l of notes) writeFileSync(join(vault, `${l.title}.md`), readNote(l))
  try {
    await Effect.runPromise(
      Effect.gen(function*() {
        const arxiv = yield* ArxivPort
        const cachedArxiv = keptSearches(arxiv)
        for (const judgeName of JUDGE_NAMES) {
          const base = LocalJudge.makeWith({ params: JUDGES[judgeName] })
          const judge = keptJudgements(base)
          for (const bar of BARS) {
            for (const gate of GATES) {
              for (const cap of CAPS) {
                const report = yield* dryDigest(SINCE, base, judge, bar, { gate, cap }, cachedArxiv)
                const announced = notes.map((l) => (report.notes.find((n) => n.path === `${l.title}.md`)?.papers ?? []).map((p) => p.arxivId))
                settings.push({ judge: judgeName, bar, gate, cap, announced })
                console.error(`${settingName(settings.at(-1)!)}: ${announced.reduce((s, a) => s + a.length, 0)} announced (${((performance.now() - started) / 1000).toFixed(0)} s)`)
              }
            }
          }
        }
        const ungraded = [...new Set(settings.flatMap((s) => s.announced.flatMap((ids, i) => ids.filter((id) => grades.get(notes[i]!.note)![id] === undefined))))]
        yield* readAbstracts(arxiv, ungraded, abstracts)
      }).pipe(Effect.provide(Layers.digestLayer({ vault, offline: true })))
    )
  } finally {
    rmSync(vault, { recursive: true, force: true })
  }
}
if (jsonOut !== undefined) {
  writeFileSync(jsonOut, `${JSON.stringify({ since: SINCE, notes: notes.map((l) => l.note), settings, abstracts: Object.fromEntries(abstracts) })}\n`)
}

// ---- figures
interface Row {
  readonly note: string
  readonly announced: number
  readonly graded: number
  readonly offTopic: number
  readonly onTopic: number
  readonly ungraded: number
}
/** W: ungraded counted as off-topic (the worst case); N: left out; B: counted as graded, not off-topic (the best case, a bound only) */
type Treatment = "W" | "N" | "B"
const rowsOf = (s: Setting, t: Treatment): ReadonlyArray<Row> =>
  s.announced.map((ids, i) => {
    const note = notes[i]!.note
    const g = grades.get(note)!
    const known = ids.filter((id) => g[id] !== undefined)
    const ungraded = ids.length - known.length
    const off = known.filter((id) => g[id]!.grade === 0).length
    return {
      note,
      announced: ids.length,
      graded: t === "N" ? known.length : ids.length,
      offTopic: t === "W" ? off + ungraded : off,
      onTopic: known.filter((id) => g[id]!.grade === 2).length,
      ungraded
    }
  })
interface Figures {
  readonly s: Setting
  readonly n: number
  readonly announced: number
  readonly off: readonly [number, number, number]
  readonly on: readonly [number, number, number]
  readonly none: number
  readonly ungraded: number
}
const figuresOf = (s: Setting, rows: ReadonlyArray<Row>, full = true): Figures => ({
  s,
  n: rows.length,
  announced: rows.reduce((a, r) => a + r.announced, 0),
  off: pooledInterval(rows, (r) => r.offTopic),
  // the on-topic interval only for what is printed (the pick reads its point)
  on: full ? pooledInterval(rows, (r) => r.onTopic) : [pooledShare(rows, (r) => r.onTopic), NaN, NaN],
  none: rows.filter((r) => r.announced === 0).length,
  ungraded: rows.reduce((a, r) => a + r.ungraded, 0)
})
const mostWithNone = (n: number) => Math.floor((3 * n) / 76)
const simplicity = (s: Setting) => JUDGE_NAMES.indexOf(s.judge) * 6 + GATES.indexOf(s.gate) * 2 + (s.cap === 10 ? 0 : 1)
const byPreference = (a: Figures, b: Figures) => b.announced - a.announced || b.on[0] - a.on[0] || simplicity(a.s) - simplicity(b.s) || a.s.bar - b.s.bar
/** The pick on a set of notes (the rule written before): the admissible setting announcing the most; none: the lowest upper bound. */
const pickOn = (keep: (note: string) => boolean, t: Treatment) => {
  const all = settings.map((s) => figuresOf(s, rowsOf(s, t).filter((r) => keep(r.note)), false))
  // W: an ungraded paper counts as graded 0; N: it is left out (the "every paper graded" condition waived)
  const eligible = all.filter((f) => f.none <= mostWithNone(f.n))
  const admissible = eligible.filter((f) => f.off[2] <= GOAL).sort(byPreference)
  const fallback = [...eligible].sort((a, b) => a.off[2] - b.off[2] || byPreference(a, b))
  const pick = admissible[0] ?? fallback[0]!
  return { pick: figuresOf(pick.s, rowsOf(pick.s, t).filter((r) => keep(r.note))), admissible: admissible.length, all }
}
const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const iv = (x: readonly [number, number, number]) => `${pct(x[0])} (${pct(x[1])}–${pct(x[2])})`
const line = (f: Figures) =>
  `${f.announced} announced, ${(f.announced / f.n).toFixed(2)} a note, off-topic ${iv(f.off)}, on-topic ${iv(f.on)}, ${f.none} of ${f.n} with none${f.ungraded > 0 ? `, ${f.ungraded} ungraded` : ""}`

console.log(`${notes.length} graded tuning notes (${splitNames.map((s) => `${s} ${notes.filter((l) => l.split === s).length}`).join(", ")}), offline, --since ${SINCE}, dry; ${settings.length} settings; ${((performance.now() - started) / 1000).toFixed(0)} s\n`)
const shippedSetting = settings.find((s) => s.judge === SHIPPED.judge && s.bar === SHIPPED.bar && s.gate === SHIPPED.gate && s.cap === SHIPPED.cap)!
const out: Record<string, unknown> = {}
for (const t of ["W", "N", "B"] as const) {
  console.log(`## ungraded counted as ${t === "W" ? "off-topic (W, the worst case)" : t === "N" ? "neither (N)" : "graded and not off-topic (B, the best case: a bound, deciding nothing)"}\n`)
  const held: Array<Row> = []
  const folds: Array<unknown> = []
  for (const split of splitNames) {
    const { admissible, pick } = pickOn((note) => splitOf.get(note) !== split, t)
    const rows = rowsOf(pick.s, t).filter((r) => splitOf.get(r.note) === split)
    held.push(...rows)
    const f = figuresOf(pick.s, rows)
    console.log(`fold ${split}: pick on the other six ${settingName(pick.s)} (${admissible} admissible; there: ${line(pick)})`)
    console.log(`  held ${split}: ${line(f)}`)
    folds.push({ split, pick: settingName(pick.s), admissible, held: { announced: f.announced, off: f.off, none: f.none } })
  }
  // the pooled held folds: each note once, under its fold's pick
  const pooled: Figures = {
    s: shippedSetting,
    n: held.length,
    announced: held.reduce((a, r) => a + r.announced, 0),
    off: pooledInterval(held, (r) => r.offTopic),
    on: pooledInterval(held, (r) => r.onTopic),
    none: held.filter((r) => r.announced === 0).length,
    ungraded: held.reduce((a, r) => a + r.ungraded, 0)
  }
  const shipped = figuresOf(shippedSetting, rowsOf(shippedSetting, t))
  console.log(`\npooled held folds (CV): ${line(pooled)}`)
  console.log(`shipped rule (${settingName(shippedSetting)}) on the ${notes.length}: ${line(shipped)}`)
  const c1 = pooled.off[0] < shipped.off[0]
  const c2 = pooled.off[2] <= GOAL
  const c3 = pooled.announced / pooled.n >= 0.75 * (shipped.announced / shipped.n)
  const adopt = c1 && c2 && c3
  const onAll = pickOn(() => true, t)
  console.log(`criteria: (1) off-topic below the shipped's ${c1}, (2) upper bound ≤ 2 % ${c2}, (3) per note ≥ 75 % of the shipped's ${c3} → ${adopt ? "ADOPT" : "keep the default"}`)
  console.log(`the pick on all ${notes.length}: ${settingName(onAll.pick.s)} (${onAll.admissible} admissible): ${line(onAll.pick)}\n`)
  console.log(`admissible on all ${notes.length}, by papers:`)
  for (const f of onAll.all.filter((f) => f.none <= mostWithNone(f.n) && f.off[2] <= GOAL).sort(byPreference).slice(0, 12)) console.log(`  ${settingName(f.s)}: ${line(figuresOf(f.s, rowsOf(f.s, t)))}`)
  console.log(`\nthe settings whose upper bound on all ${notes.length} is ≤ 2 % whatever their notes with none (deciding nothing):`)
  for (const f of onAll.all.filter((f) => f.off[2] <= GOAL).sort(byPreference).slice(0, 10)) console.log(`  ${settingName(f.s)}: ${line(figuresOf(f.s, rowsOf(f.s, t)))}`)
  console.log(`\nby judge, the best rows on all ${notes.length} (lowest upper bound with ≤ ${mostWithNone(notes.length)} notes with none):`)
  for (const j of JUDGE_NAMES) {
    const best = onAll.all.filter((f) => f.s.judge === j && f.none <= mostWithNone(f.n)).sort((a, b) => a.off[2] - b.off[2] || byPreference(a, b)).slice(0, 3)
    for (const f of best) console.log(`  ${settingName(f.s)}: ${line(figuresOf(f.s, rowsOf(f.s, t)))}`)
    const same = onAll.all.find((f) => f.s.judge === j && f.s.bar === SHIPPED.bar && f.s.gate === SHIPPED.gate && f.s.cap === SHIPPED.cap)!
    console.log(`  ${settingName(same.s)} (the shipped rule's row): ${line(figuresOf(same.s, rowsOf(same.s, t)))}`)
  }
  console.log("")
  out[t] = { folds, pooled: { announced: pooled.announced, n: pooled.n, off: pooled.off, on: pooled.on, none: pooled.none }, shipped: { announced: shipped.announced, off: shipped.off, none: shipped.none }, adopt, pickOnAll: settingName(onAll.pick.s) }
}

// announced papers without a grade for their note: which settings, and blind sheets
const missing = new Map<string, Map<string, Array<string>>>()
for (const s of settings) {
  s.announced.forEach((ids, i) => {
    const note = notes[i]!.note
    for (const id of ids) {
      if (grades.get(note)![id] !== undefined) continue
      const m = missing.get(note) ?? new Map<string, Array<string>>()
      m.set(id, [...(m.get(id) ?? []), settingName(s)])
      missing.set(note, m)
    }
  })
}
const count = [...missing.values()].reduce((a, m) => a + m.size, 0)
console.log(`announced without a grade for their note: ${count} (on ${missing.size} notes)`)
for (const [note, ids] of missing) for (const [id, where] of ids) console.log(`  ${note} ${id}: ${where.length} settings (${where.slice(0, 4).join("; ")}${where.length > 4 ? "; …" : ""})`)
if (sheetsDir !== undefined && count > 0) {
  mkdirSync(sheetsDir, { recursive: true })
  for (const [note, ids] of missing) {
    const l = notes.find((n) => n.note === note)!
    writeSheet(sheetsDir, { note, title: l.title, split: l.split, text: readNote(l), papers: sheetPapers([...ids.keys()].sort(), abstracts) })
  }
  console.log(`sheets: ${missing.size} in ${sheetsDir}`)
}
if (jsonOut !== undefined) {
  const old = JSON.parse(readFileSync(jsonOut, "utf8")) as Record<string, unknown>
  writeFileSync(jsonOut, `${JSON.stringify({ ...old, decision: out })}\n`)
}
