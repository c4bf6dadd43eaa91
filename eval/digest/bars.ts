/**
 * The digest's bar for announcing, simulated on the graded tuning notes (never the held-out ones): a vault of the
 * tuning notes of eval/retrieval (splits tune, tune2, tune3, tune4 that have grades in eval/precision/grades), each
 * under its title, digested offline with `--since 2016-06-01` and dry (nothing written) by the real digest, once per
 * relevance of the local judge (the fixed map; the learned one of data/judge/ranker.json) and bar. The judge's
 * answers are cached per note and paper (the local judge scores each paper on its own, so a cached answer is the
 * answer) and the corpus search per query, so a variant differs from another only by its bar.
 *
 * For each relevance and announcing rule (a bar; for the fixed relevance also a concept gate and a cap per note,
 * src/core/digestAnnounce.ts) it prints the papers announced, how many have a grade, the off-topic share (graded 0)
 * and the on-topic share (graded 2) of the graded ones, each with a 95 % bootstrap interval over notes, the worst
 * split's off-topic share, and the rule the margin rule picks (written before the simulation, eval/digest/README.md
 * "a bar that travels": the most papers among the rules whose off-topic upper bound is at most 2 %, every paper
 * graded, at most 3 notes with nothing), beside the former rule's bar (the lowest whose share is at most 2 %). Announced papers without a
 * grade for their note are written as blind sheets (the precision set's format: eval/precision/README.md) to
 * `--sheets DIR`, and listed.
 *
 * The bars in use are the local judge's `digestRelevance`: `LocalJudge.fixedDigestRelevance` for the fixed map, and
 * `digestRelevance` in data/judge/ranker.json for the learned relevance (it belongs to those weights). After a refit
 * of ranker.json, re-run this with `--write-ranker`: it writes the rule's pick for the learned relevance into
 * ranker.json (the weights untouched), provided every announced paper is graded.
 *
 * Usage: node --import tsx eval/digest/bars.ts [--sheets DIR] [--json FILE] [--write-ranker]
 */
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import { ArxivPort, Layers } from "../../src/index.js"
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
const writeRanker = process.argv.includes("--write-ranker")
const rankerFile = join(repoRoot, "data", "judge", "ranker.json")
const rankerText = readFileSync(rankerFile, "utf8")
const rankerSha = createHash("sha256").update(rankerText).digest("hex")
const SINCE = "2016-06-01"
const BARS = [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9] as const
// the announcing rules beyond the bar (eval/digest/README.md "a bar that travels"): for the fixed relevance every
// gate and cap with every bar; the learned relevance (fitted on these notes) at its bars without gate or cap
const GATES = ["none", "any", "half"] as const
const CAPS = [10, 5] as const
const GOAL = 0.02
const gradesDir = join(repoRoot, "eval", "precision", "grades")

type Grade = 0 | 1 | 2
const gradesOf = (note: string): Readonly<Record<string, { readonly grade: Grade }>> =>
  (JSON.parse(readFileSync(join(gradesDir, `${note}.json`), "utf8")) as { papers: Record<string, { grade: Grade }> }).papers

// the tuning notes only: the held-out split is never read here
const tuning = SPLIT_SETS.tuning
const notes = readLandmarks().filter((l) => tuning.includes(l.split) && existsSync(join(gradesDir, `${l.note}.json`)))
const grades = new Map(notes.map((l) => [l.note, gradesOf(l.note)]))

interface Row {
  readonly note: string
  readonly announced: ReadonlyArray<string>
  readonly graded: number
  readonly offTopic: number
  readonly onTopic: number
}
interface Variant {
  readonly relevance: "fixed" | "learned"
  readonly bar: number
  readonly gate: (typeof GATES)[number]
  readonly cap: number
  readonly rows: ReadonlyArray<Row>
}
const ruleName = (v: Variant) => `${v.bar.toFixed(2)}${v.gate === "none" ? "" : `, gate ${v.gate}`}${v.cap === 10 ? "" : `, cap ${v.cap}`}`

const share = pooledShare<Row>
const interval = pooledInterval<Row>

const vault = mkdtempSync(join(tmpdir(), "digest-bars-"))
for (const l of notes) writeFileSync(join(vault, `${l.title}.md`), readNote(l))

const variants: Array<Variant> = []
const started = performance.now()
const abstracts = new Map<string, { title: string; published: string; abstract: string }>()
try {
  await Effect.runPromise(
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const cachedArxiv = keptSearches(arxiv)
      for (const relevance of ["fixed", "learned"] as const) {
        const base = relevance === "fixed" ? LocalJudge.makeWith() : LocalJudge.makeWith({ ranker: LocalJudge.arxivRanker() })
        const judge = keptJudgements(base)
        const rules = relevance === "fixed"
          ? BARS.flatMap((bar) => GATES.flatMap((gate) => CAPS.map((cap) => ({ bar, gate, cap }))))
          : BARS.map((bar) => ({ bar, gate: "none" as const, cap: 10 }))
        for (const { bar, cap, gate } of rules) {
          const report = yield* dryDigest(SINCE, base, judge, bar, { gate, cap }, cachedArxiv)
          const rows = notes.map((l): Row => {
            const d = report.notes.find((n) => n.path === `${l.title}.md`)
            const announced = (d?.papers ?? []).map((p) => p.arxivId)
            const g = grades.get(l.note)!
            const known = announced.filter((id) => g[id] !== undefined)
            return {
              note: l.note,
              announced,
              graded: known.length,
              offTopic: known.filter((id) => g[id]!.grade === 0).length,
              onTopic: known.filter((id) => g[id]!.grade === 2).length
            }
          })
          variants.push({ relevance, bar, gate, cap, rows })
          console.error(`${relevance} ${ruleName(variants.at(-1)!)}: ${rows.reduce((s, r) => s + r.announced.length, 0)} announced (${((performance.now() - started) / 1000).toFixed(0)} s)`)
        }
      }
      // the ungraded papers' titles and abstracts, for the sheets
      const ungraded = [...new Set(variants.flatMap((v) => v.rows.flatMap((r) => r.announced.filter((id) => grades.get(r.note)![id] === undefined))))]
      yield* readAbstracts(arxiv, ungraded, abstracts)
    }).pipe(Effect.provide(Layers.digestLayer({ vault, offline: true })))
  )
} finally {
  rmSync(vault, { recursive: true, force: true })
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const total = (rows: ReadonlyArray<Row>, f: (r: Row) => number) => rows.reduce((s, r) => s + f(r), 0)
const splits = [...new Set(notes.map((l) => l.split))].sort().join(", ")
console.log(`${notes.length} graded tuning notes (${splits}), offline, --since ${SINCE}, dry; ${((performance.now() - started) / 1000).toFixed(0)} s`)
console.log(`learned relevance: data/judge/ranker.json sha256 ${rankerSha}\n`)
const chosen: Record<string, number | undefined> = {}
const splitOf = new Map(notes.map((l) => [l.note, l.split]))
const splitNames = [...new Set(notes.map((l) => l.split))].sort()
/** The largest off-topic share of any one split (leave-one-split-out: the split left out is the fold). */
const worstSplit = (rows: ReadonlyArray<Row>): readonly [string, number] =>
  splitNames.map((split) => [split, share(rows.filter((r) => splitOf.get(r.note) === split), (r) => r.offTopic)] as const)
    .reduce((a, b) => (b[1] > a[1] ? b : a))
interface Figures {
  readonly v: Variant
  readonly announced: number
  readonly graded: number
  readonly off: readonly [number, number, number]
  readonly on: readonly [number, number, number]
  readonly none: number
}
const figures = (v: Variant): Figures => ({
  v,
  announced: total(v.rows, (r) => r.announced.length),
  graded: total(v.rows, (r) => r.graded),
  off: interval(v.rows, (r) => r.offTopic),
  on: interval(v.rows, (r) => r.onTopic),
  none: v.rows.filter((r) => r.announced.length === 0).length
})
// the rule written before the simulation (eval/digest/README.md): admissible = every announced paper graded, the
// upper bound of off-topic's interval at most 2 %, at most 3 notes with nothing; the pick announces the most papers
// (ties: the higher on-topic share, the simpler rule, the lower bar); none admissible: the lowest upper bound
const MOST_WITH_NONE = 3
const simplicity = (v: Variant) => GATES.indexOf(v.gate) * 2 + (v.cap === 10 ? 0 : 1)
const byPreference = (a: Figures, b: Figures) =>
  b.announced - a.announced || b.on[0] - a.on[0] || simplicity(a.v) - simplicity(b.v) || a.v.bar - b.v.bar
const picks: Record<string, { readonly f: Figures; readonly admissible: boolean } | undefined> = {}
for (const relevance of ["fixed", "learned"] as const) {
  console.log(`### ${relevance} relevance\n`)
  console.log("| rule | announced | graded | per note | off-topic (0) | worst split | on-topic (2) | notes with none |")
  console.log("|---|---|---|---|---|---|---|---|")
  const all = variants.filter((x) => x.relevance === relevance).map(figures)
  for (const f of all) {
    const [split, worst] = worstSplit(f.v.rows)
    console.log(
      `| ${ruleName(f.v)} | ${f.announced} | ${f.graded} | ${(f.announced / f.v.rows.length).toFixed(1)} | ${pct(f.off[0])} (${pct(f.off[1])}–${pct(f.off[2])}) | ` +
        `${pct(worst)} (${split}) | ${pct(f.on[0])} (${pct(f.on[1])}–${pct(f.on[2])}) | ${f.none} |`
    )
    if (chosen[relevance] === undefined && f.v.gate === "none" && f.v.cap === 10 && f.off[0] <= GOAL) chosen[relevance] = f.v.bar
  }
  const eligible = all.filter((f) => f.graded === f.announced && f.none <= MOST_WITH_NONE)
  const admissible = eligible.filter((f) => f.off[2] <= GOAL).sort(byPreference)
  const fallback = [...eligible].sort((a, b) => a.off[2] - b.off[2] || byPreference(a, b))
  const pick = admissible[0] ?? fallback[0]
  picks[relevance] = pick === undefined ? undefined : { f: pick, admissible: admissible.length > 0 }
  console.log(
    `\nthe margin rule: ${pick === undefined ? "no rule" : `${ruleName(pick.v)} (${admissible.length > 0 ? `${admissible.length} admissible` : "none admissible: the lowest upper bound"})`}`
  )
  // by split: the learned relevance's weights were fitted on some of these notes (data/judge/ranker.json "fitted")
  console.log("\noff-topic of the graded, by split:")
  for (const v of variants.filter((x) => x.relevance === relevance)) {
    const by = splitNames.map((split) => {
      const rows = v.rows.filter((r) => splitOf.get(r.note) === split)
      return `${split} ${total(rows, (r) => r.offTopic)}/${total(rows, (r) => r.graded)}`
    })
    console.log(`  ${ruleName(v)}: ${by.join(", ")}`)
  }
  console.log(`\nthe former rule (lowest bar, no gate or cap, with off-topic ≤ ${pct(GOAL)} on these notes): ${chosen[relevance]?.toFixed(2) ?? "none of the bars"}\n`)
}

// announced papers without a grade for their note: at which bars, and blind sheets for a reader
const missing = new Map<string, Map<string, Array<string>>>()
for (const v of variants) {
  for (const r of v.rows) {
    for (const id of r.announced) {
      if (grades.get(r.note)![id] !== undefined) continue
      const ids = missing.get(r.note) ?? new Map<string, Array<string>>()
      ids.set(id, [...(ids.get(id) ?? []), `${v.relevance} ${ruleName(v)}`])
      missing.set(r.note, ids)
    }
  }
}
const count = [...missing.values()].reduce((s, m) => s + m.size, 0)
console.log(`announced without a grade for their note: ${count}`)
for (const [note, ids] of missing) for (const [id, where] of ids) console.log(`  ${note} ${id} (${where.join(", ")})`)
if (sheetsDir !== undefined && count > 0) {
  mkdirSync(sheetsDir, { recursive: true })
  for (const [note, ids] of missing) {
    const l = notes.find((n) => n.note === note)!
    writeSheet(sheetsDir, { note, title: l.title, split: l.split, text: readNote(l), papers: sheetPapers([...ids.keys()].sort(), abstracts) })
  }
  console.log(`sheets: ${missing.size} in ${sheetsDir}`)
}
if (jsonOut !== undefined) {
  const picked = Object.fromEntries(Object.entries(picks).map(([k, p]) => [k, p === undefined ? null : { bar: p.f.v.bar, gate: p.f.v.gate, cap: p.f.v.cap, admissible: p.admissible }]))
  writeFileSync(jsonOut, `${JSON.stringify({ since: SINCE, notes: notes.map((l) => l.note), rankerSha, chosen, picked, variants }, null, 1)}\n`)
}

// the bars in use, beside the rule's picks
const shipped = { fixed: LocalJudge.fixedDigestRelevance, learned: LocalJudge.arxivRanker().digestRelevance }
for (const relevance of ["fixed", "learned"] as const) {
  const pick = chosen[relevance]
  const now = shipped[relevance]
  console.log(`${relevance}: in use ${now?.toFixed(2) ?? "none (the digest's default)"}, the rule's pick ${pick?.toFixed(2) ?? "none"}${now === pick ? "" : "  ← differs"}`)
}
if (writeRanker) {
  const learnedMissing = variants.some((v) => v.relevance === "learned" && v.rows.some((r) => r.graded < r.announced.length))
  if (learnedMissing) throw new Error("--write-ranker: some papers the learned relevance announces have no grade; have them graded first")
  if (chosen.learned === undefined) throw new Error("--write-ranker: no bar meets the rule for the learned relevance; nothing written")
  const model = JSON.parse(rankerText) as Record<string, unknown>
  const out = {
    ...model,
    digestRelevance: chosen.learned,
    digestChosen: `eval/digest/bars.ts on ${notes.length} graded tuning notes (${splits}): the lowest bar, in steps of 0.05, whose off-topic share is at most ${pct(GOAL)}`
  }
  writeFileSync(`${rankerFile}.tmp`, `${JSON.stringify(out, null, 1)}\n`)
  renameSync(`${rankerFile}.tmp`, rankerFile)
  console.log(`wrote digestRelevance ${chosen.learned.toFixed(2)} into ${rankerFile}`)
}
