/**
 * Blind grading sheets for the vault digest's papers (the precision of the digest, graded as the precision set
 * is: eval/precision/README.md). Reads the digest the bench measured (bench/results/digest.json: a vault of the
 * 96 eval notes, offline, --since 2016-06-01), takes 20 of the precision set's notes in a fixed order (their
 * FNV-1a hash of the note id: chosen before any grade is seen), and writes for each a sheet in the precision
 * set's format — the note's text and, for each paper the digest announced for it that is not graded for the note
 * yet, its id, title, first-version date and abstract, sorted by arXiv id: no relevance, rank or reason.
 *
 * It also prints the grades that already exist for the digest's papers (eval/precision/grades), as a partial
 * figure: the off-topic share (graded 0) with a 95 % bootstrap interval over notes.
 *
 * Usage: node --import tsx eval/digest/sheets.ts [--out DIR] [--notes 20]
 */
import { Effect } from "effect"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { ArxivPort, Layers } from "../../src/index.js"
import { hash32 } from "../../src/core/compose.js"
import { readLandmarks, readNote, repoRoot } from "../retrieval-data.js"
import { sheetPapers, writeSheet } from "../sheets-data.js"

const arg = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : process.argv[at + 1] ?? fallback
}
const out = arg("out", "/work/digest-sheets")
const count = Number(arg("notes", "20"))
const precisionDir = join(repoRoot, "eval", "precision")

interface BenchDigest {
  readonly since: string
  readonly result: { readonly notes: ReadonlyArray<{ readonly note: string; readonly papers: ReadonlyArray<{ readonly arxiv_id: string }> }> }
}
const bench = JSON.parse(readFileSync(join(repoRoot, "bench", "results", "digest.json"), "utf8")) as BenchDigest
const landmarks = readLandmarks()
const byTitle = new Map(landmarks.map((l) => [`${l.title}.md`, l]))
const announced = new Map(bench.result.notes.flatMap((n) => {
  const l = byTitle.get(n.note)
  return l === undefined ? [] : [[l.note, n.papers.map((p) => p.arxiv_id)] as const]
}))

const grades = (note: string): Record<string, { readonly grade: number }> => {
  const file = join(precisionDir, "grades", `${note}.json`)
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { papers: Record<string, { grade: number }> }).papers : {}
}

// the precision set's notes, in a fixed order that looks at no result
const chosen = landmarks
  .filter((l) => existsSync(join(precisionDir, "grades", `${l.note}.json`)) && (announced.get(l.note)?.length ?? 0) > 0)
  .sort((a, b) => hash32(a.note).localeCompare(hash32(b.note)))
  .slice(0, count)


const ids = [...new Set(chosen.flatMap((l) => announced.get(l.note)!))]
const papers = await Effect.runPromise(
  Effect.gen(function*() {
    const arxiv = yield* ArxivPort
    const found = new Map<string, { title: string; published: string; abstract: string }>()
    for (let i = 0; i < ids.length; i += 50) {
      const r = yield* arxiv.getPapers(ids.slice(i, i + 50))
      for (const p of r.papers) found.set(p.arxivId.replace(/v\d+$/, ""), { title: p.title, published: p.published, abstract: p.abstract })
    }
    return found
  }).pipe(Effect.provide(Layers.OfflineLayer({ vault: repoRoot, offline: true })))
)

mkdirSync(out, { recursive: true })
const perNote: Array<{ note: string; graded: number; offTopic: number; onTopic: number; toGrade: number }> = []
for (const l of chosen) {
  const list = announced.get(l.note)!
  const done = grades(l.note)
  const toGrade = list.filter((id) => done[id] === undefined).sort()
  const graded = list.filter((id) => done[id] !== undefined)
  perNote.push({
    note: l.note,
    graded: graded.length,
    offTopic: graded.filter((id) => done[id]!.grade === 0).length,
    onTopic: graded.filter((id) => done[id]!.grade === 2).length,
    toGrade: toGrade.length
  })
  writeSheet(out, { note: l.note, title: l.title, split: l.split, text: readNote(l), papers: sheetPapers(toGrade, papers) })
}
writeFileSync(join(out, "README.md"), `# Grading sheets: the vault digest's papers

Each \`<note>.json\` is \`{note, title, split, text, papers: [{arxivId, title, published, abstract}]}\`: a concept note as
its student wrote it, and papers an arXiv digest announced for it (first submitted since ${bench.since}), sorted by
arXiv id. Nothing says how the papers were chosen or ranked.

Grade each paper against the note, as in eval/precision/README.md:
- **2** — about the note's central concept: a student of this note should read it.
- **1** — related background: the same field or a neighbouring idea, useful context, but not about the concept.
- **0** — off-topic: a student would be puzzled to see it recommended for this note.

Write the grades as \`grades/<note>.json\`: \`{note, grader, papers: {"<arxivId>": {"grade": 0|1|2, "why": "a few words"}}}\`
(the format of eval/precision/grades, where they can be merged). Papers already graded for a note in
eval/precision/grades are not on its sheet.
`)

// the partial figure: the grades that exist already
const rng = (() => {
  let s = 0x2545f491
  return () => ((s = Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) ^ Math.imul(s ^ (s >>> 12), 0x297a2d39)) >>> 0) / 2 ** 32
})()
const share = (rows: ReadonlyArray<{ graded: number; offTopic: number }>, key: "offTopic") => {
  const g = rows.reduce((s, r) => s + r.graded, 0)
  return g === 0 ? Number.NaN : rows.reduce((s, r) => s + r[key], 0) / g
}
const rows = perNote.filter((r) => r.graded > 0)
const boot: Array<number> = []
for (let b = 0; b < 2000; b++) boot.push(share(rows.map(() => rows[Math.floor(rng() * rows.length)]!), "offTopic"))
boot.sort((a, b) => a - b)
const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const total = perNote.reduce((s, r) => s + r.graded + r.toGrade, 0)
console.log(`${chosen.length} notes, ${total} digest papers: ${total - perNote.reduce((s, r) => s + r.toGrade, 0)} already graded, ${perNote.reduce((s, r) => s + r.toGrade, 0)} on the sheets in ${out}`)
console.log(`already graded: off-topic (0) ${pct(share(rows, "offTopic"))} (95 % bootstrap over ${rows.length} notes: ${pct(boot[50]!)}–${pct(boot[1949]!)}); on-topic (2) ${pct(rows.reduce((s, r) => s + r.onTopic, 0) / Math.max(1, rows.reduce((s, r) => s + r.graded, 0)))}`)
for (const r of perNote) console.log(`  ${r.note}: ${r.graded} graded (${r.offTopic} off-topic, ${r.onTopic} on-topic), ${r.toGrade} to grade`)
