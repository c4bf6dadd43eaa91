import { readFileSync, existsSync } from "node:fs"
import { join } from "node:path"
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams, prepareConcept, preparePaper, scorePrepared } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import { setTokenCacheLimit } from "../src/adapters/judge/tokenize.js"
import { bandCleared, type Pool } from "./pools-data.js"
setTokenCacheLimit(60000)
const pools = JSON.parse(readFileSync("eval/.cache/judge-pools-tuning.json", "utf8")) as Pool[]
const table = arxivDfTable(); const vectors = arxivTermVectors(); const p = defaultParams
const TAU = Number(process.env.TAU ?? 0.75), K = Number(process.env.K ?? 50), MINT = 5
const N = table.documents
type Row = { id: string; score: number; strength: number; title: number; L: number; V: number; grade?: number }
const notes: Array<{ pool: Pool; rows: Row[]; T: number }> = []
for (const pool of pools) {
  const f = join("eval/precision/grades", `${pool.note}.json`); if (!existsSync(f)) continue
  const g = JSON.parse(readFileSync(f, "utf8")).papers as Record<string, { grade: number }>
  const c = prepareConcept(pool.concept, table, p, vectors)
  const exclude = new Set<string>(); for (const u of c.central.units) for (const s of u.forms.keys()) for (const w of s.split(" ")) exclude.add(w)
  const prep = pool.papers.map((x) => preparePaper(x, table, p, vectors))
  const sc = prep.map((x) => scorePrepared(c, x, table, p, vectors))
  const pa = { ...p, conceptPairsApart: process.env.APART !== "0" }
  const ca = prepareConcept(pool.concept, table, pa, vectors)
  const tshare = prep.map((x) => { const s = scorePrepared(ca, x, table, pa, vectors); return s.features.strength > 0 ? s.features.conceptTitle / s.features.strength : 0 })
  const T = prep.filter((_, i) => tshare[i]! >= TAU)
  // L
  const a = new Map<string, number>()
  for (const x of T) for (const k of x.abstractCounts.keys()) if (!k.includes(" ")) a.set(k, (a.get(k) ?? 0) + 1)
  const cand = [...a].filter(([k, n]) => n >= 2 && table.unigrams.has(k) && !exclude.has(k)).map(([k, n]) => {
    const pt = n / T.length, pb = table.unigrams.get(k)! / N
    return { k, w: Math.log(pt / pb), kl: pt * Math.log(pt / pb) }
  }).filter((x) => x.w > 0).sort((x, y) => y.kl - x.kl || (x.k < y.k ? -1 : 1)).slice(0, K)
  const tot = cand.reduce((s, x) => s + x.w, 0)
  const Lraw = prep.map((x) => tot > 0 ? cand.reduce((s, y) => s + (x.abstractCounts.has(y.k) ? y.w : 0), 0) / tot : 0)
  // V
  const cen = new Float32Array(vectors.dims)
  for (const x of T) { const v = x.vector!; let n = 0; for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!; n = Math.sqrt(n) || 1; for (let i = 0; i < v.length; i++) cen[i]! += v[i]! / n }
  const cos = (v: Float32Array) => { let d = 0, a1 = 0, b1 = 0; for (let i = 0; i < v.length; i++) { d += v[i]! * cen[i]!; a1 += v[i]! * v[i]!; b1 += cen[i]! * cen[i]! }; return a1 && b1 ? d / Math.sqrt(a1 * b1) : 0 }
  const Vraw = prep.map((x) => cos(x.vector!))
  const ok = T.length >= MINT
  const meanT = (xs: number[]) => { const v = xs.filter((_, i) => tshare[i]! >= TAU); return v.reduce((s, y) => s + y, 0) / Math.max(1, v.length) }
  const mL = meanT(Lraw), mV = meanT(Vraw)
  const rows = pool.papers.map((x, i) => ({ id: x.arxivId, c: sc[i]!.concept, score: sc[i]!.score, strength: sc[i]!.features.strength, title: tshare[i]!,
    L: ok && mL > 0 ? Lraw[i]! / mL : NaN, V: ok && mV > 0 ? Vraw[i]! / mV : NaN, grade: g[x.arxivId]?.grade }))
  notes.push({ pool, rows, T: T.length })
  if (process.env.SHOW === pool.note) { console.log(cand.map((x) => x.k).join(" ")); }
}
const auc = (hi: number[], lo: number[]) => { if (!hi.length || !lo.length) return undefined; let w = 0; for (const h of hi) for (const l of lo) w += h > l ? 1 : h === l ? 0.5 : 0; return w / hi.length / lo.length }
const mean = (xs: (number | undefined)[]) => { const d = xs.filter((x): x is number => x !== undefined && !isNaN(x)); return d.reduce((a, b) => a + b, 0) / Math.max(1, d.length) }
console.log(`T sizes: ${notes.map((n) => n.T).sort((a, b) => a - b).join(" ")}`)
export { notes, auc, mean }
const sig = (n: typeof notes[0], key: "L" | "V" | "score") => {
  const by = (gr: number) => n.rows.filter((r) => r.grade === gr && !isNaN(r[key])).map((r) => r[key])
  return [auc(by(2), by(0)), auc(by(2), by(1))]
}
for (const key of ["score", "L", "V"] as const) { const a = notes.map((n) => sig(n, key)); console.log(key, "AUC 2v0", mean(a.map((x) => x[0])).toFixed(3), "2v1", mean(a.map((x) => x[1])).toFixed(3)) }
if (process.env.LIST) for (const n of notes) if (n.T < 10) console.log(n.T, n.pool.concept.title)
for (const key of ["L", "V"] as const) for (const w of [0.01, 0.02, 0.04, 0.08]) {
  const a = notes.map((n) => {
    const v = (r: Row) => r.score + (isNaN(r[key]) ? 0 : w * r.strength * Math.min(r[key], 1.5))
    const by = (gr: number) => n.rows.filter((r) => r.grade === gr).map(v)
    return [auc(by(2), by(0)), auc(by(2), by(1))]
  })
  console.log(key, w, "AUC 2v0", mean(a.map((x) => x[0])).toFixed(3), "2v1", mean(a.map((x) => x[1])).toFixed(3))
}
{
  // among graded papers whose concept match is low: does L/V tell 2s from the rest?
  const lowc: Array<[number, number, number, number]> = []
  for (const n of notes) for (const r of n.rows) if (r.grade !== undefined && !isNaN(r.L) && (r as any).c < 0.3) lowc.push([r.grade, r.L, r.V, r.score])
  const a = (k: 1 | 2 | 3, lo: number[]) => auc(lowc.filter((x) => x[0] === 2).map((x) => x[k]), lowc.filter((x) => lo.includes(x[0])).map((x) => x[k]))
  console.log("low-concept graded papers", lowc.length, "2s", lowc.filter((x) => x[0] === 2).length, "L 2v0", a(1, [0]), "L 2v01", a(1, [0, 1]), "V 2v0", a(2, [0]), "V 2v01", a(2, [0, 1]), "score 2v0", a(3, [0]), "2v01", a(3, [0, 1]))
}
