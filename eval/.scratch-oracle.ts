import { readFileSync, existsSync } from "node:fs"
import { join } from "node:path"
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams, prepareConcept, scorePaper } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import { bandCleared, type Pool } from "./pools-data.js"
const pools = JSON.parse(readFileSync("eval/.cache/judge-pools-tuning.json", "utf8")) as Pool[]
const table = arxivDfTable(); const vectors = arxivTermVectors(); const p = defaultParams
let places = 0, twos = 0, o2 = 0, eligible2 = 0, poolTwos = 0
for (const pool of pools) {
  const f = join("eval/precision/grades", `${pool.note}.json`); if (!existsSync(f)) continue
  const g = JSON.parse(readFileSync(f, "utf8")).papers as Record<string, { grade: number }>
  const c = prepareConcept(pool.concept, table, p, vectors)
  const rel = new Map(pool.papers.map((x) => [x.arxivId, scorePaper(c, x, table, p, vectors).relevance]))
  const el = bandCleared(pool, rel, undefined, true)
  const pl = el.slice(0, 10)
  places += pl.length; twos += pl.filter((id) => g[id]?.grade === 2).length
  const e2 = el.filter((id) => g[id]?.grade === 2).length
  eligible2 += e2; o2 += Math.min(pl.length, e2)
  poolTwos += Object.values(g).filter((x) => x.grade === 2).length
}
console.log({ places, twos, strict: twos / places, oracleStrict: o2 / places, eligible2, poolTwosGraded: poolTwos })
{
  const auc = (hi: number[], lo: number[]) => { if (!hi.length || !lo.length) return undefined; let w = 0; for (const h of hi) for (const l of lo) w += h > l ? 1 : h === l ? 0.5 : 0; return w / hi.length / lo.length }
  const a21: number[] = [], r21: number[] = []
  for (const pool of pools) {
    const f = join("eval/precision/grades", `${pool.note}.json`); if (!existsSync(f)) continue
    const g = JSON.parse(readFileSync(f, "utf8")).papers as Record<string, { grade: number }>
    const c = prepareConcept(pool.concept, table, p, vectors)
    const rel = new Map(pool.papers.map((x) => [x.arxivId, scorePaper(c, x, table, p, vectors).relevance]))
    const el = bandCleared(pool, rel, undefined, true).filter((id) => pool.impact?.[id]?.perYear !== undefined)
    const cy = (id: string) => pool.impact![id]!.perYear!
    const two = el.filter((id) => g[id]?.grade === 2), lo = el.filter((id) => g[id] !== undefined && g[id]!.grade < 2)
    const x = auc(two.map(cy), lo.map(cy)); if (x !== undefined) a21.push(x)
    const y = auc(two.map((id) => rel.get(id)!), lo.map((id) => rel.get(id)!)); if (y !== undefined) r21.push(y)
  }
  const m = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  console.log("among counted eligible papers, AUC 2 vs 0/1: citations/year", m(a21).toFixed(3), "relevance", m(r21).toFixed(3), a21.length, "notes")
}
{
  const auc = (hi: number[], lo: number[]) => { if (!hi.length || !lo.length) return undefined; let w = 0; for (const h of hi) for (const l of lo) w += h > l ? 1 : h === l ? 0.5 : 0; return w / hi.length / lo.length }
  const keys = ["fixed", "coverage", "similarity", "concept", "conceptTitle", "conceptHead", "conceptModifier", "titleCoverage", "matchedShare", "novelty", "length"] as const
  const acc = new Map<string, number[]>()
  for (const pool of pools) {
    const f = join("eval/precision/grades", `${pool.note}.json`); if (!existsSync(f)) continue
    const g = JSON.parse(readFileSync(f, "utf8")).papers as Record<string, { grade: number }>
    const c = prepareConcept(pool.concept, table, p, vectors)
    const sc = new Map(pool.papers.map((x) => [x.arxivId, scorePaper(c, x, table, p, vectors)]))
    const rel = new Map([...sc].map(([k, v]) => [k, v.relevance]))
    const el = bandCleared(pool, rel, undefined, true)
    const two = el.filter((id) => g[id]?.grade === 2), lo = el.filter((id) => g[id] !== undefined && g[id]!.grade < 2)
    for (const k of keys) { const x = auc(two.map((id) => (sc.get(id)!.features as any)[k]), lo.map((id) => (sc.get(id)!.features as any)[k])); if (x !== undefined) acc.set(k, [...(acc.get(k) ?? []), x]) }
  }
  for (const [k, xs] of acc) console.log(k.padEnd(16), (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3))
}
