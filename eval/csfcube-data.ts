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

/** The query paper of a unit key ("<pid>_<facet>"). */
export const queryPaperOf = (key: string): string => key.slice(0, key.lastIndexOf("_"))

/**
 * Held-out units that share nothing with the tuning fold: the `heldOut` units
 * whose query paper is not the query of any `tuning` unit. CSFCube's upstream
 * folds split (paper, facet) units, so one paper's text and pool can sit in both.
 */
export const paperDisjointKeys = (b: Benchmark, tuning: string, heldOut: string): ReadonlySet<string> => {
  const tuningPapers = new Set([...foldKeys(b, tuning)].map(queryPaperOf))
  return new Set([...foldKeys(b, heldOut)].filter((k) => !tuningPapers.has(queryPaperOf(k))))
}

const BM25_STOP = new Set(
  ("a an and are as at be by for from has have in is it its of on or that the this to was were which with we our " +
    "these their can also using use used paper").split(" ")
)
const bm25Tokens = (s: string): Array<string> => (s.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => !BM25_STOP.has(t))

/**
 * Plain BM25 as the benchmark README's reference row (k1 1.2, b 0.75, lower-cased
 * `[a-z0-9]+` tokens, ~40 stop words, IDF over every CSFCube paper): a baseline
 * that can be scored on any subset of units.
 */
export const bm25Results = (b: Benchmark): Array<UnitResult> => {
  const docs = new Map<string, CsPaper>()
  for (const u of b.units) for (const p of [u.query, ...u.candidates]) docs.set(p.id, p)
  const df = new Map<string, number>()
  const lengths = new Map<string, number>()
  const tfs = new Map<string, Map<string, number>>()
  for (const p of docs.values()) {
    const toks = bm25Tokens(`${p.title} ${p.abstract}`)
    lengths.set(p.id, toks.length)
    const tf = new Map<string, number>()
    for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1)
    tfs.set(p.id, tf)
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1)
  }
  const n = docs.size
  const avg = [...lengths.values()].reduce((s, x) => s + x, 0) / n
  const idf = (t: string) => Math.log(1 + (n - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5))
  return b.units.map((u) => {
    const q = bm25Tokens(`${u.query.title} ${u.query.abstract}`)
    const ids = u.candidates.map((c) => c.id)
    const scores = ids.map((id) => {
      const tf = tfs.get(id)!
      const len = lengths.get(id)!
      let s = 0
      for (const t of q) {
        const f = tf.get(t) ?? 0
        if (f > 0) s += idf(t) * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * len / avg))
      }
      return s
    })
    const r = rank(ids, scores)
    return { key: u.key, facet: u.facet, ndcg10: ndcgAt(r, u.grades), p5: precisionAt(r, u.grades) }
  })
}

/** The upstream SPECTER run (reference-runs/), scored by the same recipe. */
export const specterResults = (b: Benchmark): Array<UnitResult> => {
  const runs = new Map<Facet, Record<string, Array<[string, number]>>>()
  for (const f of FACETS) {
    runs.set(f, JSON.parse(readFileSync(join(b.root, "reference-runs", `test-pid2pool-csfcube-specter-${f}-ranked.json`), "utf8")))
  }
  return b.units.map((u) => {
    const ranked = (runs.get(u.facet)![queryPaperOf(u.key)] ?? []).map(([id]) => id).filter((id) => u.grades.has(id))
    return { key: u.key, facet: u.facet, ndcg10: ndcgAt(ranked, u.grades), p5: precisionAt(ranked, u.grades) }
  })
}

/** Bootstrap 95% interval of the mean nDCG@10 over units (fixed seed, so the figure is reproducible). */
export const bootstrapInterval = (rs: ReadonlyArray<UnitResult>, draws = 5000): readonly [number, number] => {
  let seed = 7
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const means: Array<number> = []
  for (let k = 0; k < draws; k++) {
    let sum = 0
    for (let i = 0; i < rs.length; i++) sum += rs[Math.floor(random() * rs.length)]!.ndcg10
    means.push(sum / Math.max(rs.length, 1))
  }
  means.sort((a, b) => a - b)
  return [means[Math.floor(draws * 0.025)]!, means[Math.floor(draws * 0.975)]!]
}
