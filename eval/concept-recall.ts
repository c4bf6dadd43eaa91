/**
 * The concept match's recall (prec10, eval/precision/README.md), diagnostic over the graded tuning pools: the share
 * of landmarks, graded 2s and graded 0s whose concept match reaches g (g 0.2, 0.3, 0.5), on notes whose title names
 * a concept (strength > 0); over every candidate and over the candidates the shipped judge calls relevant (≥ 0.5,
 * the papers a gate acts on). With VARIANT, the same under those concept knobs, paired with the shipped match
 * (difference with its 95 % bootstrap interval over notes). `--missed` lists the landmarks below 0.3 with the
 * title's concept units they do not name.
 *
 *   [VARIANT='{"conceptCompounds":true}'] node --import tsx eval/concept-recall.ts [--missed]
 */
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams, prepareConcept, preparePaper, scorePrepared, type ScoringParams } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import { setTokenCacheLimit } from "../src/adapters/judge/tokenize.js"
import { gradedTuningPools, type Kind, kindsOf } from "./pools-data.js"
import { bootstrapRatio } from "./retrieval-data.js"

setTokenCacheLimit(50_000)
const table = arxivDfTable()
const vectors = arxivTermVectors()
const variant: ScoringParams = { ...defaultParams, ...(JSON.parse(process.env.VARIANT ?? "{}") as Partial<ScoringParams>) }
const showMissed = process.argv.includes("--missed")
const gates = [0.2, 0.3, 0.5]

// per note, per kind, per scope (all / relevant): [count, hits at each g (shipped), hits at each g (variant)]
interface Cell { n: number; base: Array<number>; alt: Array<number> }
const rows: Array<Record<string, Cell>> = []
const missed: Array<string> = []
for (const { pool, grades } of gradedTuningPools()) {
  const c0 = prepareConcept(pool.concept, table, defaultParams, vectors)
  if (c0.central.strength === 0) continue
  const c1 = prepareConcept(pool.concept, table, variant, vectors)
  const row: Record<string, Cell> = {}
  const cell = (k: string) => (row[k] ??= { n: 0, base: gates.map(() => 0), alt: gates.map(() => 0) })
  for (const paper of pool.papers) {
    const kinds = kindsOf(pool, grades, paper.arxivId)
    if (kinds.length === 0) continue
    const pp0 = preparePaper(paper, table, defaultParams, vectors)
    const s0 = scorePrepared(c0, pp0, table, defaultParams, vectors)
    const s1 = scorePrepared(c1, preparePaper(paper, table, variant, vectors), table, variant, vectors)
    for (const k of kinds) {
      for (const scope of ["all", "relevant"] as const) {
        if (scope === "relevant" && s0.relevance < 0.5) continue
        const x = cell(`${k}/${scope}`)
        x.n++
        gates.forEach((g, i) => {
          if (s0.concept >= g) x.base[i]!++
          if (s1.concept >= g) x.alt[i]!++
        })
      }
    }
    if (showMissed && kinds.includes("lm") && s1.concept < 0.3) {
      const units = c1.central.units.map((u) => {
        const hit = [...u.forms.keys()].some((f) => pp0.titleKeys.has(f) || pp0.abstractCounts.has(f))
        return `${hit ? "+" : "-"}${u.key}(${u.weight.toFixed(1)})`
      })
      missed.push(`${pool.split}/${pool.note} "${pool.concept.title}" — ${paper.arxivId} "${paper.title.slice(0, 80)}" ` +
        `match ${s0.concept.toFixed(2)}→${s1.concept.toFixed(2)} rel ${s0.relevance.toFixed(2)}; units ${units.join(" ")}`)
    }
  }
  rows.push(row)
}

/** 95 % bootstrap interval over notes of a ratio of sums (2,000 resamples, fixed seed). */
const interval = (key: string, pick: (c: Cell) => number): readonly [number, number] =>
  bootstrapRatio(rows.map((r) => r[key]), pick, (c) => c.n, 7)
const pct = (x: number) => `${(100 * x).toFixed(1)}`
console.log(`${rows.length} notes whose title names a concept; VARIANT ${process.env.VARIANT ?? "{}"}`)
for (const scope of ["all", "relevant"]) {
  for (const k of ["lm", "2", "0"]) {
    const key = `${k}/${scope}`
    const n = rows.reduce((s, r) => s + (r[key]?.n ?? 0), 0)
    const parts = gates.map((g, i) => {
      const base = rows.reduce((s, r) => s + (r[key]?.base[i] ?? 0), 0)
      const alt = rows.reduce((s, r) => s + (r[key]?.alt[i] ?? 0), 0)
      const [lo, hi] = interval(key, (c) => c.base[i]!)
      const [dlo, dhi] = interval(key, (c) => c.alt[i]! - c.base[i]!)
      return `g ${g}: ${pct(base / n)} % (${pct(lo)}–${pct(hi)})` +
        (process.env.VARIANT === undefined ? "" : ` → ${pct(alt / n)} %, Δ ${pct((alt - base) / n)} (${pct(dlo)} to ${pct(dhi)})`)
    })
    console.log(`${scope.padEnd(8)} ${k === "lm" ? "landmarks" : `graded ${k}s`.padEnd(9)} (${n}): ${parts.join("; ")}`)
  }
}
if (showMissed) for (const m of missed) console.log(`  ${m}`)
