import { readFileSync, existsSync } from "node:fs"
import { join } from "node:path"
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams, prepareConcept, scorePaper } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import { bandCleared, type Pool } from "./pools-data.js"
const pools = JSON.parse(readFileSync("eval/.cache/judge-pools-tuning.json", "utf8")) as Pool[]
const table = arxivDfTable(); const vectors = arxivTermVectors(); const p = defaultParams
for (const pool of pools) {
  const f = join("eval/precision/grades", `${pool.note}.json`); if (!existsSync(f)) continue
  const g = JSON.parse(readFileSync(f, "utf8")).papers as Record<string, { grade: number; why: string }>
  const c = prepareConcept(pool.concept, table, p, vectors)
  const sc = new Map(pool.papers.map((x) => [x.arxivId, scorePaper(c, x, table, p, vectors)]))
  const rel = new Map([...sc].map(([k, v]) => [k, v.relevance]))
  const places = bandCleared(pool, rel, undefined, true).slice(0, 10)
  const bad = places.filter((id) => (g[id]?.grade ?? 9) < 2)
  console.log(`\n## ${pool.note} [${pool.concept.title}] places ${places.length} bad ${bad.length}`)
  for (const id of bad) { const s = sc.get(id)!; const t = pool.papers.find((x) => x.arxivId === id)!.title
    console.log(`  ${g[id]!.grade} r${s.relevance.toFixed(2)} c${s.concept.toFixed(2)} ${t.slice(0, 80)} -- ${g[id]!.why}`) }
  const miss = Object.entries(g).filter(([id, x]) => x.grade === 2 && !places.includes(id) && rel.has(id)).sort((a, b) => rel.get(b[0])! - rel.get(a[0])!)
  for (const [id] of miss.slice(0, 4)) { const s = sc.get(id)!; const t = pool.papers.find((x) => x.arxivId === id)!.title
    console.log(`  miss2 r${s.relevance.toFixed(2)} c${s.concept.toFixed(2)} ${t.slice(0, 80)}`) }
}
