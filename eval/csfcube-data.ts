/**
 * CSFCube loader and metrics, following ../shared/data/relevance/README.md
 * ("Recipe"): 50 (query paper, facet) units, the self-candidate dropped,
 * variant A query text (title + " " + abstract), candidates ranked by score
 * with ties broken by ascending numeric paper id, linear-gain nDCG@10 and P@5
 * at grade >= 2. The benchmark is CC BY-NC 4.0: it is read in place, never
 * copied into the repository or the package.
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

export type Facet = "background" | "method" | "result"
export const FACETS: ReadonlyArray<Facet> = ["background", "method", "result"]

export interface CsPaper {
  readonly id: string
  readonly title: string
  readonly abstract: string
}

export interface Unit {
  /** "<query pid>_<facet>", as in evaluation_splits.json */
  readonly key: string
  readonly facet: Facet
  readonly query: CsPaper
  readonly candidates: ReadonlyArray<CsPaper>
  /** grade of each candidate, by id */
  readonly grades: ReadonlyMap<string, number>
}

export interface Benchmark {
  readonly root: string
  readonly units: ReadonlyArray<Unit>
  readonly splits: Record<string, Record<string, ReadonlyArray<string>>>
}

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..")

/** ../shared/data/relevance next to the repository, or CSFCUBE_DIR. */
export const benchmarkRoot = (): string =>
  resolve(process.env.CSFCUBE_DIR ?? join(repo, "..", "shared", "data", "relevance"))

export const loadBenchmark = (root = benchmarkRoot()): Benchmark => {
  const dir = existsSync(join(root, "iesl-CSFCube")) ? join(root, "iesl-CSFCube") : root
  const papers = new Map<string, CsPaper>()
  for (const line of readFileSync(join(dir, "derived", "csfcube-papers.jsonl"), "utf8").split("\n")) {
    if (line.trim() === "") continue
    const r = JSON.parse(line) as { paper_id: string; title: string; abstract: string }
    papers.set(r.paper_id, { id: r.paper_id, title: r.title, abstract: r.abstract })
  }
  const get = (id: string): CsPaper => {
    const p = papers.get(id)
    if (p === undefined) throw new Error(`CSFCube paper ${id} has no text`)
    return p
  }
  const units: Array<Unit> = []
  for (const facet of FACETS) {
    const anns = JSON.parse(readFileSync(join(dir, `test-pid2anns-csfcube-${facet}.json`), "utf8")) as Record<
      string,
      { cands: Array<string>; relevance_adju: Array<number> }
    >
    for (const [qpid, a] of Object.entries(anns)) {
      const grades = new Map<string, number>()
      const candidates: Array<CsPaper> = []
      a.cands.forEach((c, i) => {
        if (c === qpid) return // recipe step 2: drop the self-candidate
        grades.set(c, a.relevance_adju[i]!)
        candidates.push(get(c))
      })
      units.push({ key: `${qpid}_${facet}`, facet, query: get(qpid), candidates, grades })
    }
  }
  const splits = JSON.parse(readFileSync(join(dir, "evaluation_splits.json"), "utf8"))
  return { root: dir, units, splits }
}

/** Candidate ids best first: by score descending, ties by ascending numeric id. */
export const rank = (ids: ReadonlyArray<string>, scores: ReadonlyArray<number>): Array<string> =>
  ids
    .map((id, i) => ({ id, s: scores[i]! }))
    .sort((x, y) => y.s - x.s || Number(x.id) - Number(y.id))
    .map((x) => x.id)

export const ndcgAt = (ranked: ReadonlyArray<string>, grades: ReadonlyMap<string, number>, k = 10): number => {
  let dcg = 0
  ranked.slice(0, k).forEach((id, i) => (dcg += (grades.get(id) ?? 0) / Math.log2(i + 2)))
  const ideal = [...grades.values()].sort((a, b) => b - a)
  let idcg = 0
  ideal.slice(0, k).forEach((g, i) => (idcg += g / Math.log2(i + 2)))
  return idcg === 0 ? 0 : dcg / idcg
}

export const precisionAt = (ranked: ReadonlyArray<string>, grades: ReadonlyMap<string, number>, k = 5, minGrade = 2): number =>
  ranked.slice(0, k).filter((id) => (grades.get(id) ?? 0) >= minGrade).length / k

export interface UnitResult {
  readonly key: string
  readonly facet: Facet
  readonly ndcg10: number
  readonly p5: number
}

export interface Summary {
  readonly n: number
  readonly ndcg10: number
  readonly p5: number
}

export const summarize = (rs: ReadonlyArray<UnitResult>): Summary => ({
  n: rs.length,
  ndcg10: rs.reduce((s, r) => s + r.ndcg10, 0) / Math.max(rs.length, 1),
  p5: rs.reduce((s, r) => s + r.p5, 0) / Math.max(rs.length, 1)
})

/** Unit keys of one fold: the union of the three facets' `<fold>` lists. */
export const foldKeys = (b: Benchmark, fold: string): ReadonlySet<string> =>
  new Set(FACETS.flatMap((f) => b.splits[f]?.[fold] ?? []))
