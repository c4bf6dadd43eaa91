/**
 * The digest measured once on a held-out set of concept notes, with the shipped announcing rule (the local judge's
 * fixed relevance, its bar `LocalJudge.fixedDigestRelevance` and the digest's `DIGEST_ANNOUNCE`), nothing chosen
 * here: a vault of the notes, each under its title, digested dry and offline since 2016-06-01 by the real digest.
 *
 * It writes blind sheets (the precision set's format, eval/precision/README.md: the note's text and, for each
 * announced paper without a grade for its note, id, title, first-version date and abstract clipped to 700
 * characters, sorted by id; no score, rank or reason) to `--sheets DIR`, and, when every announced paper is graded
 * (eval/precision/grades, and `--grades DIR` for grades not merged yet), prints the off-topic share (grade 0) and
 * the on-topic share (grade 2) with 95 % bootstrap intervals over notes (2,000 resamples, seed 27, as bars.ts).
 *
 * Usage: node --import tsx eval/digest/heldout.ts --split heldout|heldout2|heldout3|heldout4|heldout5 [--notes DIR --landmarks FILE]
 *        [--sheets DIR] [--grades DIR] [--json FILE]
 * (every split is read from eval/retrieval; `heldout2` was first measured from the folder its writer wrote it to.)
 */
import { Effect } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import { ArxivPort, Digest, Layers, Tools } from "../../src/index.js"
import { landmarksFile, notesDir, repoRoot } from "../retrieval-data.js"
import { pooledInterval, pooledShare } from "./pooled.js"
import { sheetPapers, writeSheet } from "../sheets-data.js"

const arg = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? undefined : process.argv[at + 1]
}
const split = arg("split")
if (split === undefined) throw new Error("give --split (heldout, heldout2, heldout3, heldout4 or heldout5)")
const dir = arg("notes") ?? notesDir
const landmarks = (JSON.parse(readFileSync(arg("landmarks") ?? landmarksFile, "utf8")) as ReadonlyArray<{ note: string; title: string; split: string }>)
  .filter((l) => l.split === split)
if (landmarks.length === 0) throw new Error(`no note of the split ${split}`)
const sheetsDir = arg("sheets")
const extraGrades = arg("grades")
const jsonOut = arg("json")
const SINCE = "2016-06-01"
type Grade = 0 | 1 | 2
const gradeFiles = [join(repoRoot, "eval", "precision", "grades"), ...(extraGrades === undefined ? [] : [extraGrades])]
const gradesOf = (note: string): Record<string, { readonly grade: Grade }> => {
  const out: Record<string, { grade: Grade }> = {}
  for (const d of gradeFiles) {
    const f = join(d, `${note}.json`)
    if (existsSync(f)) Object.assign(out, (JSON.parse(readFileSync(f, "utf8")) as { papers: Record<string, { grade: Grade }> }).papers)
  }
  return out
}
const textOf = (note: string) => readFileSync(join(dir, `${note}.md`), "utf8")
/** A title as a note's file name: a character a file name cannot hold (Obsidian forbids them too) becomes "-". */
const fileOf = (title: string) => `${title.replace(/[/\\:]/g, "-")}.md`

const vault = mkdtempSync(join(tmpdir(), "digest-heldout-"))
for (const l of landmarks) writeFileSync(join(vault, fileOf(l.title)), textOf(l.note))
const started = performance.now()
let report: Digest.DigestReport
const abstracts = new Map<string, { title: string; published: string; abstract: string }>()
try {
  report = await Effect.runPromise(
    Effect.gen(function*() {
      const checked = yield* Tools.digestInput({ since_date: SINCE, dry_run: true })
      const r = yield* Digest.digestVault(checked)
      const arxiv = yield* ArxivPort
      const ids = [...new Set(r.notes.flatMap((n) => n.papers.map((p) => p.arxivId)))]
      for (let i = 0; i < ids.length; i += 50) {
        const found = yield* arxiv.getPapers(ids.slice(i, i + 50))
        for (const p of found.papers) abstracts.set(p.arxivId.replace(/v\d+$/, ""), { title: p.title, published: p.published, abstract: p.abstract })
      }
      return r
    }).pipe(Effect.provide(Layers.digestLayer({ vault, offline: true })))
  )
} finally {
  rmSync(vault, { recursive: true, force: true })
}
if (report.written !== undefined || report.state !== undefined) throw new Error("a dry digest wrote into the vault")

interface Row {
  readonly note: string
  readonly announced: ReadonlyArray<string>
  readonly graded: number
  readonly offTopic: number
  readonly onTopic: number
}
const rows: Array<Row> = landmarks.map((l) => {
  const d = report.notes.find((n) => n.path === fileOf(l.title))
  const announced = (d?.papers ?? []).map((p) => p.arxivId)
  const g = gradesOf(l.note)
  const known = announced.filter((id) => g[id] !== undefined)
  return { note: l.note, announced, graded: known.length, offTopic: known.filter((id) => g[id]!.grade === 0).length, onTopic: known.filter((id) => g[id]!.grade === 2).length }
})
const share = pooledShare<Row>
const interval = pooledInterval<Row>
const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const announcedAll = rows.reduce((s, r) => s + r.announced.length, 0)
const gradedAll = rows.reduce((s, r) => s + r.graded, 0)
const bar = LocalJudge.fixedDigestRelevance
console.log(`split ${split}: ${rows.length} notes, offline, --since ${SINCE}, dry; bar ${bar.toFixed(2)}, rule ${JSON.stringify(Digest.DIGEST_ANNOUNCE)}; ${((performance.now() - started) / 1000).toFixed(0)} s`)
console.log(`announced ${announcedAll} (per note ${(announcedAll / rows.length).toFixed(1)}; notes with none ${rows.filter((r) => r.announced.length === 0).length}), graded ${gradedAll}`)
if (gradedAll === announcedAll) {
  const [off, offLo, offHi] = interval(rows, (r) => r.offTopic)
  const [on, onLo, onHi] = interval(rows, (r) => r.onTopic)
  console.log(`off-topic (0): ${rows.reduce((s, r) => s + r.offTopic, 0)} of ${gradedAll}, ${pct(off)} (95 % bootstrap over notes ${pct(offLo)}–${pct(offHi)})`)
  console.log(`on-topic (2): ${pct(on)} (${pct(onLo)}–${pct(onHi)})`)
  for (const r of rows) if (r.offTopic > 0) console.log(`  ${r.note}: ${r.offTopic} of ${r.graded} off-topic`)
} else console.log(`not measured: ${announcedAll - gradedAll} announced papers have no grade yet (sheets)`)
if (sheetsDir !== undefined) {
  mkdirSync(sheetsDir, { recursive: true })
  for (const l of landmarks) {
    const r = rows.find((x) => x.note === l.note)!
    const g = gradesOf(l.note)
    const toGrade = r.announced.filter((id) => g[id] === undefined).sort()
    if (toGrade.length === 0) continue
    writeSheet(sheetsDir, { note: l.note, title: l.title, split: l.split, text: textOf(l.note), papers: sheetPapers(toGrade, abstracts) })
  }
}
if (jsonOut !== undefined) writeFileSync(jsonOut, `${JSON.stringify({ split, since: SINCE, bar, rule: Digest.DIGEST_ANNOUNCE, rows }, null, 1)}\n`)
