/**
 * The concept's other names from the corpus (prec12, eval/precision/README.md), a diagnostic over the graded tuning
 * pools: for each note whose title names a concept, the keys (stems, adjacent stem pairs) of the offline corpus most
 * associated with the papers that name the concept (shipped concept match ≥ 0.5; a ≥ 5, df ≥ 5, lift ≥ 2, none of
 * the concept's own unit forms, ranked by Dunning's G²), the top N counted as alternatives: a paper's alternative
 * match = min(1, (alternatives in its title + 0.5 × alternatives only in its abstract) / 3), and its match after =
 * max(shipped match, alternative match). Prints the share of landmarks, graded 2s and graded 0s at match ≥ 0.3 before
 * and after (paired 95 % bootstrap over notes) and the landmarks below 0.3 that the alternatives lift.
 *
 *   sqlite3 -json fixtures/offline/arxiv-corpus/arxiv.sqlite 'select id, title, abstract from papers' \
 *     > eval/.cache/corpus-prec12.json
 *   [N=10] [RANK=pmi] [ABSTRACT=0] node --import tsx eval/concept-alternatives.ts [--alternatives]
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { type ConceptEvidence, conceptMatchParts, familyKey } from "../src/adapters/judge/concept.js"
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams, prepareConcept, preparePaper, scorePrepared } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import { setTokenCacheLimit } from "../src/adapters/judge/tokenize.js"
import { gradedTuningPools, type Kind, kindsOf } from "./pools-data.js"
import { bootstrapRatio, repoRoot } from "./retrieval-data.js"

setTokenCacheLimit(50_000)
const N = Number(process.env.N ?? "10")
const GATE = 0.3
/** how the associated keys are ranked: Dunning's G² (the rule), or "pmi" (log lift; post hoc, a sensitivity) */
const RANK = process.env.RANK ?? "g2"
/** an alternative named only in the abstract earns this (0.5, the rule; 0: the title alone, post hoc) */
const ABSTRACT = Number(process.env.ABSTRACT ?? "0.5")
const showAlternatives = process.argv.includes("--alternatives")
const table = arxivDfTable()
const vectors = arxivTermVectors()
const p = defaultParams

// the corpus, read as the concept match reads a paper (stems and adjacent pairs, with word families)
type Paper = { readonly id: string; readonly title: string; readonly abstract: string }
interface Read { readonly ev: ConceptEvidence; readonly fam: ConceptEvidence; readonly keys: ReadonlySet<string> }
const readPaper = (paper: Paper): Read => {
  const pp = preparePaper(paper, table, p, vectors)
  const title = new Set(pp.titleKeys)
  const abstract = new Map(pp.abstractCounts)
  for (const t of pp.title) if (t !== null) { const k = familyKey(t); if (k !== undefined) title.add(k) }
  for (const t of pp.abstract) {
    if (t === null) continue
    const k = familyKey(t)
    if (k !== undefined) abstract.set(k, (abstract.get(k) ?? 0) + 1)
  }
  const keys = new Set<string>([...pp.titleKeys, ...pp.abstractCounts.keys()])
  return {
    ev: { title: pp.titleKeys, abstract: pp.abstractCounts, text: paper },
    fam: { title, abstract, text: paper },
    keys
  }
}
const corpus = (JSON.parse(readFileSync(join(repoRoot, "eval/.cache/corpus-prec12.json"), "utf8")) as Array<Paper>)
  .map(readPaper)
const total = corpus.length
const df = new Map<string, number>()
for (const r of corpus) for (const k of r.keys) df.set(k, (df.get(k) ?? 0) + 1)
console.error(`corpus: ${total} papers, ${df.size} keys`)

const xlogx = (x: number) => (x > 0 ? x * Math.log(x) : 0)
/** Dunning's G² of a 2×2 table [[a, b], [c, d]]. */
const g2 = (a: number, b: number, c: number, d: number): number => {
  const n = a + b + c + d
  return 2 * (xlogx(a) + xlogx(b) + xlogx(c) + xlogx(d) + xlogx(n) -
    xlogx(a + b) - xlogx(c + d) - xlogx(a + c) - xlogx(b + d))
}

interface Cell { n: number; base: number; alt: number }
const rows: Array<Record<string, Cell>> = []
const lifted: Array<string> = []
const stillMissed: Array<string> = []
const sizes: Array<number> = []
for (const { pool, grades } of gradedTuningPools()) {
  const c0 = prepareConcept(pool.concept, table, p, vectors)
  const central = c0.central
  if (central.strength === 0) continue
  // F: the corpus papers that name the concept
  const inF = new Map<string, number>()
  let f = 0
  for (const r of corpus) {
    if (conceptMatchParts(central, central.families ? r.fam : r.ev, p).match < 0.5) continue
    f++
    for (const k of r.keys) inF.set(k, (inF.get(k) ?? 0) + 1)
  }
  sizes.push(f)
  const own = new Set<string>()
  for (const u of central.units) {
    for (const s of [...u.forms.keys(), ...(u.titleForms?.keys() ?? [])]) for (const w of s.split(" ")) own.add(w)
  }
  const ranked: Array<{ k: string; g: number }> = []
  for (const [k, a] of inF) {
    const d = df.get(k) ?? 0
    if (a < 5 || d < 5 || a / f < 2 * (d / total)) continue
    if (k.split(" ").some((w) => own.has(w))) continue
    ranked.push({ k, g: RANK === "pmi" ? Math.log((a / f) / (d / total)) : g2(a, f - a, d - a, total - f - (d - a)) })
  }
  ranked.sort((x, y) => y.g - x.g || (x.k < y.k ? -1 : 1))
  const alternatives = ranked.slice(0, N).map((x) => x.k)
  if (showAlternatives) {
    console.log(`${pool.split}/${pool.note} "${pool.concept.title}" |F| ${f}: ${alternatives.join(", ")}`)
  }
  const altMatch = (title: ReadonlySet<string>, abstract: ReadonlyMap<string, number>) => {
    let s = 0
    for (const k of alternatives) s += title.has(k) ? 1 : abstract.has(k) ? ABSTRACT : 0
    return Math.min(1, s / 3)
  }
  const row: Record<string, Cell> = {}
  const cell = (k: string) => (row[k] ??= { n: 0, base: 0, alt: 0 })
  for (const paper of pool.papers) {
    const kinds = kindsOf(pool, grades, paper.arxivId)
    if (kinds.length === 0) continue
    const pp = preparePaper(paper, table, p, vectors)
    const s0 = scorePrepared(c0, pp, table, p, vectors)
    const alt = altMatch(pp.titleKeys, pp.abstractCounts)
    const after = Math.max(s0.concept, alt)
    for (const k of kinds) {
      for (const scope of ["all", "relevant"] as const) {
        if (scope === "relevant" && s0.relevance < 0.5) continue
        const x = cell(`${k}/${scope}`)
        x.n++
        if (s0.concept >= GATE) x.base++
        if (after >= GATE) x.alt++
      }
    }
    if (kinds.includes("lm") && s0.concept < GATE) {
      const named = alternatives.filter((k) => pp.titleKeys.has(k) || pp.abstractCounts.has(k))
      const line = `${pool.split}/${pool.note} "${pool.concept.title}" — ${paper.arxivId} "${paper.title.slice(0, 70)}" ` +
        `match ${s0.concept.toFixed(2)}→${after.toFixed(2)} rel ${s0.relevance.toFixed(2)}; names ${named.join(", ") || "none"}`
      ;(after >= GATE ? lifted : stillMissed).push(line)
    }
  }
  rows.push(row)
}

/** 95 % bootstrap interval over notes of a ratio of sums (2,000 resamples, fixed seed). */
const interval = (key: string, pick: (c: Cell) => number): readonly [number, number] =>
  bootstrapRatio(rows.map((r) => r[key]), pick, (c) => c.n, 7)
const pct = (x: number) => `${(100 * x).toFixed(1)}`
sizes.sort((a, b) => a - b)
console.log(`${rows.length} notes whose title names a concept; top ${N} alternatives by ${RANK}, abstract credit ${ABSTRACT}; |F| median ${sizes[sizes.length >> 1]}, ` +
  `min ${sizes[0]}, max ${sizes[sizes.length - 1]}, notes with |F| < 20: ${sizes.filter((s) => s < 20).length}`)
for (const scope of ["relevant", "all"]) {
  for (const k of ["lm", "2", "0"]) {
    const key = `${k}/${scope}`
    const n = rows.reduce((s, r) => s + (r[key]?.n ?? 0), 0)
    const base = rows.reduce((s, r) => s + (r[key]?.base ?? 0), 0)
    const alt = rows.reduce((s, r) => s + (r[key]?.alt ?? 0), 0)
    const [lo, hi] = interval(key, (c) => c.base)
    const [alo, ahi] = interval(key, (c) => c.alt)
    const [dlo, dhi] = interval(key, (c) => c.alt - c.base)
    console.log(`${scope.padEnd(8)} ${k === "lm" ? "landmarks" : `graded ${k}s`.padEnd(9)} (${n}) match ≥ ${GATE}: ` +
      `${pct(base / n)} % (${pct(lo)}–${pct(hi)}) → ${pct(alt / n)} % (${pct(alo)}–${pct(ahi)}), ` +
      `Δ ${pct((alt - base) / n)} (${pct(dlo)} to ${pct(dhi)})`)
  }
}
console.log(`landmarks below ${GATE} lifted to ≥ ${GATE} (${lifted.length}):`)
for (const m of lifted) console.log(`  ${m}`)
console.log(`landmarks still below ${GATE} (${stillMissed.length}):`)
for (const m of stillMissed) console.log(`  ${m}`)
