import { readFileSync, existsSync } from "node:fs"
import { join } from "node:path"
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams, prepareConcept, scorePaper } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import type { Pool } from "./pools-data.js"
const pools = JSON.parse(readFileSync("eval/.cache/judge-pools-tuning.json", "utf8")) as Pool[]
const table = arxivDfTable(); const vectors = arxivTermVectors(); const p = defaultParams
const bins = [0.01, 0.02, 0.05, 0.08, 0.1, 0.15, 0.3, 1]
const space = process.env.SPACE ?? "rel"
const tally = new Map<string, [number, number]>()
for (const pool of pools) {
  const f = join("eval/precision/grades", `${pool.note}.json`); if (!existsSync(f)) continue
  const g = JSON.parse(readFileSync(f, "utf8")).papers as Record<string, { grade: number }>
  const c = prepareConcept(pool.concept, table, p, vectors)
  const xs = pool.papers.filter((x) => g[x.arxivId] !== undefined).map((x) => { const s = scorePaper(c, x, table, p, vectors); return { r: s.relevance, s: s.score, gr: g[x.arxivId]!.grade } })
  for (const a of xs) for (const b of xs) {
    if (a.gr <= b.gr || a.r < 0.5 || b.r < 0.5) continue
    const top = Math.max(a.r, b.r)
    const region = top >= 0.95 ? "top>=.95" : top >= 0.85 ? ".85-.95" : "<.85"
    const d = space === "rel" ? Math.abs(a.r - b.r) : Math.abs(a.s - b.s)
    const bin = bins.find((x) => d < x)!
    const k = `${region} <${bin}`
    const t = tally.get(k) ?? [0, 0]; t[0] += a.r > b.r ? 1 : a.r === b.r ? 0.5 : 0; t[1]++; tally.set(k, t)
  }
}
for (const k of [...tally.keys()].sort()) { const [w, n] = tally.get(k)!; console.log(k.padEnd(20), (100 * w / n).toFixed(0) + "%", n) }
