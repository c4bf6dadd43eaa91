/**
 * The local judge on the retrieval notes, without the rest of the run: records,
 * once per note, the concept the workflow hands the judge and the pool it
 * judges (offline, default flags), then rescoring those pools with any judge
 * setting takes a second. Used to diagnose why landmarks among the candidates
 * are judged below the relevance bar and to choose judge settings on `tune`.
 *
 *   node --import tsx eval/judge-pools.ts record [--split tune|heldout|all]   # → eval/.cache/judge-pools-<split>.json
 *   node --import tsx eval/judge-pools.ts diagnose [--split tune]             # every landmark candidate: score parts, terms hit and missed
 *   PARAMS='{"titleWeight":3}' node --import tsx eval/judge-pools.ts score [--split tune] [--rows] [--csfcube]
 *   BASE='{"unseenInMax":1,"midpoint":0.1355,"slope":30.4}' node --import tsx eval/judge-pools.ts sample [--split tune]
 *   [RANKER=learned] node --import tsx eval/judge-pools.ts grades|landmarks --split tuning [--graded tune3,tune4]  # RANKER: data/judge/ranker.json
 *   PLACES=1 node --import tsx eval/judge-pools.ts grades|landmarks --split tuning   # relevant papers without a count compete for the places
 *     (ORDERNOVELTY=w: `grades` orders the places by relevance − w · (novelty − ½), as a judge naming orderNovelty w does;
 *     `landmarks`, `failures` and `oracle` order by relevance alone, and `cv`'s `{}` is relevance alone)
 *   GRID='[{},{"noveltyWeight":0.05}]' node --import tsx eval/judge-pools.ts cv --split tuning [--rows]   # settings chosen in cross-validation by split
 *     (a GRID entry may name keep-rule knobs too: placeBar, placeDelta (prec8: the place bar min(placeBar, best − placeDelta)),
 *     orderNovelty; gateSpareRelevance, gateSpareCites (prec11: the gate spares a paper at that relevance or citations a year) are
 *     the judge's knobs since prec13, the citation spare applied as the keep rule applies it; prec13's option is
 *     {"conceptCompounds":true,"conceptPairsInTitle":0.6,"conceptTitleNeighbourCosine":0.8,"conceptGate":0.3,"gateSpareRelevance":0.95,"gateSpareCites":20};
 *     LMSLACK=s lets a setting lose floor(s × landmarks) landmarks from the places when it is picked)
 *   PLACEBAR=a PLACEDELTA=d PLACES=1 node --import tsx eval/judge-pools.ts grades --split tuning   # one place bar, simulated
 *   GRID='[{},{"noveltyWeight":0.05}]' node --import tsx eval/judge-pools.ts dev [--rows]   # CSFCube fold1_dev only
 *   node --import tsx eval/judge-pools.ts oracle|language --split tuning   # diagnostics (eval/precision/README.md, prec6)
 *
 * `sample` lists, per note, a seeded sample (SAMPLE, default 6) of the papers relevant under PARAMS but not under
 * BASE, for reading whether what newly clears the bar is on the note's topic. REFIT=1 (with --csfcube) refits the
 * relevance map on CSFCube's fold1_dev before scoring.
 *
 * `score` prints the landmarks judged relevant (of those among the candidates),
 * and, the guard against a judge that calls everything relevant, the share of
 * each pool judged relevant (median over notes) and the relevant papers per note.
 */
import { Effect, Layer } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import * as LocalJudge from "../src/adapters/judge/LocalJudge.js"
import { arxivRanker } from "../src/adapters/judge/ranker.js"
import { defaultParams, gateRelevance, idf, type PaperScore, prepareConcept, preparePaper, scorePaper, scorePrepared, type ScoringParams } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import { setTokenCacheLimit, tokenize } from "../src/adapters/judge/tokenize.js"
import { assessImpact, NEAR_EQUAL_RELEVANCE } from "../src/core/rules.js"
import { type Concept, Layers, LlmJudgePort, OpenAlexPort, Workflow } from "../src/index.js"
import { benchmarkRoot, foldKeys, loadBenchmark, summarize } from "./csfcube-data.js"
import { readLandmarks, readNote, repoRoot, seededRandom, type Split, SPLIT_SETS } from "./retrieval-data.js"
import { bandCleared, type Pool, relevantOf } from "./pools-data.js"
import { fitRelevanceMap, metrics, precisionAtBar, scoreUnits } from "./run-scorer.js"

const argv = process.argv.slice(2)
const mode = argv[0] ?? "score"
const splitAt = argv.indexOf("--split")
const split = (splitAt >= 0 ? argv[splitAt + 1] : "tune") as keyof typeof SPLIT_SETS
const cacheFile = join(repoRoot, "eval", ".cache", `judge-pools-${split}.json`)
const gradedAt = argv.indexOf("--graded")
/**
 * `grades` reads the grade files of these splits only: every tuning split by default (tune, tune2, tune3, tune4: the
 * notes that have a grade file), `--graded tune3,tune4` for the first 40 graded notes. A held-out note's grades are
 * never read.
 */
const gradedSplits: ReadonlyArray<string> = (gradedAt >= 0 ? argv[gradedAt + 1] ?? "" : SPLIT_SETS.tuning.join(","))
  .split(",")
  .filter((s) => s !== "")
for (const s of gradedSplits) {
  if (!(SPLIT_SETS.tuning as ReadonlyArray<string>).includes(s)) throw new Error(`--graded takes tuning splits only (${SPLIT_SETS.tuning.join(", ")}), not "${s}"`)
}

const record = async () => {
  const notes = readLandmarks().filter((n) => SPLIT_SETS[split].includes(n.split))
  const vault = mkdtempSync(join(tmpdir(), "judge-pools-"))
  const pools: Array<Pool> = []
  try {
    for (const n of notes) writeFileSync(join(vault, `${n.title}.md`), readNote(n))
    const local = Effect.runSync(LocalJudge.make)
    for (const n of notes) {
      let seen: { concept: Concept; papers: Pool["papers"] } | undefined
      const recorder = {
        ...local,
        judge: (concept: Concept, papers: Pool["papers"]) => {
          seen = { concept, papers: papers.map((p) => ({ arxivId: p.arxivId, title: p.title, abstract: p.abstract })) }
          return local.judge(concept, papers)
        }
      }
      const report = await Effect.runPromise(
        Workflow.runCompanion(`Find papers related to my '${n.title}' note`).pipe(
          Effect.provide(Layer.succeed(LlmJudgePort, recorder)),
          Effect.provide(Layers.OfflineLayer({ vault, offline: true })),
          Effect.either
        )
      )
      if (seen === undefined) continue
      const cited = new Set(
        report._tag === "Right"
          ? report.right.candidates.filter((c) => c.foundBy?.includes("most-cited")).map((c) => c.paper.arxivId)
          : []
      )
      const published = new Map(report._tag === "Right" ? report.right.candidates.map((c) => [c.paper.arxivId, c.paper.published]) : [])
      const lookup = await Effect.runPromise(
        Effect.flatMap(OpenAlexPort, (o) => o.worksByArxivIds(seen!.papers.map((p) => p.arxivId))).pipe(
          Effect.provide(Layers.OfflineLayer({ vault, offline: true }))
        )
      )
      const byId = new Map(lookup.impacts.map((i) => [i.arxivId.replace(/v\d+$/, ""), i]))
      const impact: Record<string, { pass: boolean; perYear: number | undefined; cited: boolean }> = {}
      for (const p of seen.papers) {
        const a = assessImpact(published.get(p.arxivId), byId.get(p.arxivId), lookup.asOf ?? "2017-06-25", {
          citationsPerYearThreshold: 5,
          exemptYears: 1
        })
        impact[p.arxivId] = { pass: a.pass, perYear: a.citationsPerYear, cited: cited.has(p.arxivId) }
      }
      pools.push({ note: n.note, split: n.split, landmarks: n.landmarks.map((l) => ({ id: l.id, title: l.title })), ...seen, impact })
    }
  } finally {
    rmSync(vault, { recursive: true, force: true })
  }
  mkdirSync(join(repoRoot, "eval", ".cache"), { recursive: true })
  writeFileSync(cacheFile, JSON.stringify(pools))
  console.log(`${pools.length} pools → ${cacheFile}`)
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const pools = (): ReadonlyArray<Pool> => JSON.parse(readFileSync(cacheFile, "utf8")) as ReadonlyArray<Pool>

/** RANKER=learned: relevance from the learned model of data/judge/ranker.json (eval/fit-ranker.ts), in `grades` and `landmarks`. */
const ranker = process.env.RANKER === "learned" ? arxivRanker() : null

const given = (): ScoringParams => ({ ...defaultParams, ...(JSON.parse(process.env.PARAMS ?? "{}") as Partial<ScoringParams>) })

/**
 * The relevance the keep rule reads of a scored paper of a recorded pool: a paper the concept gate holds back
 * (`gate`) is spared when the pool recorded it at `gateSpareCites` citations a year or more (src/core/rules.ts
 * `heldBackByConcept`), and then has its relevance before the gate; else the judge's (gated) relevance.
 */
const keptRelevance = (pool: Pool, id: string, s: PaperScore): number =>
  s.gate?.spareCites !== undefined && (pool.impact?.[id]?.perYear ?? -1) >= s.gate.spareCites ? s.gate.before : s.relevance

/** CSFCube: nDCG@10 (fold1_dev, all 50) and precision at the bar; REFIT=1 refits the relevance map on fold1_dev first. */
const csfcube = (p: ScoringParams): ScoringParams => {
  const bench = loadBenchmark(benchmarkRoot())
  const dev = foldKeys(bench, "fold1_dev")
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  const devUnits = bench.units.filter((u) => dev.has(u.key))
  const fitted = process.env.REFIT === "1" ? { ...p, ...fitRelevanceMap(scoreUnits(devUnits, table, p, vectors)) } : p
  const pooled = Number(process.env.POOL ?? 0)
  const all = scoreUnits(bench.units, table, fitted, vectors).map((u) => {
    if (!(pooled > 0)) return u
    const top5 = [...u.rankScore].sort((a, b) => b - a).slice(0, 5)
    const bar = pooled * (top5.reduce((a, b) => a + b, 0) / Math.max(1, top5.length))
    return { ...u, relevance: u.relevance.map((x, i) => (u.rankScore[i]! >= bar ? Math.max(x, 0.5) : x)) }
  })
  const m = metrics(all)
  const prec = (xs: typeof all) => {
    const r = precisionAtBar(xs)
    return `${(100 * r.grade2).toFixed(1)} % grade>=2 (${(100 * r.grade1).toFixed(1)} % >=1) of ${r.called}`
  }
  console.log(
    `CSFCube nDCG@10 dev ${summarize(m.filter((r) => dev.has(r.key))).ndcg10.toFixed(4)} all ${summarize(m).ndcg10.toFixed(4)}; ` +
      `precision at the bar: dev ${prec(all.filter((s) => dev.has(s.unit.key)))}; all ${prec(all)}` +
      (fitted === p ? "" : `; refit midpoint ${fitted.midpoint} slope ${fitted.slope}`)
  )
  return fitted
}

let cached: ScoringParams | undefined
const params = (): ScoringParams => (cached ??= argv.includes("--csfcube") ? csfcube(given()) : given())

const score = () => {
  setTokenCacheLimit(50_000)
  const p = params()
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  let found = 0
  let relevant = 0
  const shares: Array<number> = []
  const perNote: Array<number> = []
  const rows: Array<string> = []
  for (const pool of pools()) {
    const c = prepareConcept(pool.concept, table, p, vectors)
    const scored = pool.papers.map((paper) => ({ id: paper.arxivId, s: scorePaper(c, paper, table, p, vectors) }))
    // POOL=r: also relevant when the score reaches r × the mean of the pool's 5 best (a pool-relative bar, tried)
    const r = Number(process.env.POOL ?? 0)
    const top5 = scored.map((x) => x.s.score).sort((a, b) => b - a).slice(0, 5)
    const bar = r > 0 ? r * (top5.reduce((a, b) => a + b, 0) / Math.max(1, top5.length)) : Infinity
    const rel = scored.filter((x) => x.s.relevance >= 0.5 || x.s.score >= bar)
    shares.push(rel.length / Math.max(1, scored.length))
    perNote.push(rel.length)
    const lm = pool.landmarks.filter((l) => scored.some((x) => x.id === l.id))
    const lmRel = lm.filter((l) => rel.some((x) => x.id === l.id))
    found += lm.length
    relevant += lmRel.length
    rows.push(`${pool.note.padEnd(28)} ${lmRel.length}/${lm.length}  relevant ${String(rel.length).padStart(3)} of ${scored.length}`)
  }
  if (argv.includes("--rows")) console.log(rows.join("\n"))
  console.log(
    `landmark candidates judged relevant ${relevant} of ${found}; pool judged relevant: median ${(100 * median(shares)).toFixed(1)} % per note, ` +
      `relevant papers per note median ${median(perNote)} (max ${Math.max(...perNote)})`
  )
}

const diagnose = () => {
  setTokenCacheLimit(50_000)
  const p = params()
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  for (const pool of pools()) {
    const c = prepareConcept(pool.concept, table, p, vectors)
    const scored = pool.papers.map((paper) => ({ paper, s: scorePaper(c, paper, table, p, vectors) }))
      .sort((a, b) => b.s.relevance - a.s.relevance)
    const top = c.terms.slice().sort((a, b) => b.idf * b.weight - a.idf * a.weight)
    console.log(`\n## ${pool.note}: ${scored.filter((x) => x.s.relevance >= 0.5).length} of ${scored.length} relevant; best score ${scored[0]?.s.score.toFixed(3)}`)
    console.log(`  note's heaviest terms: ${top.slice(0, 16).map((t) => `${t.surface} ${(t.idf * t.weight).toFixed(2)}`).join(", ")}`)
    for (const l of pool.landmarks) {
      const at = scored.findIndex((x) => x.paper.arxivId === l.id)
      if (at < 0) continue
      const { paper, s } = scored[at]!
      const paperStems = new Set(tokenize(`${paper.title} ${paper.abstract}`).flatMap((t) => (t === null ? [] : [t.stem])))
      const missed = top.filter((t) => !t.pair && !paperStems.has(t.key)).slice(0, 10).map((t) => t.surface)
      const words = paper.abstract.split(/\s+/).length
      console.log(
        `  ${s.relevance >= 0.5 ? "REL " : "low "} rank ${at + 1} ${l.id} rel ${s.relevance.toFixed(2)} cov ${s.coverage.toFixed(3)} sim ${s.similarity?.toFixed(2)} ` +
          `(${words} words) ${paper.title.slice(0, 60)}`
      )
      if (s.relevance < 0.5 || argv.includes("--all")) {
        console.log(`       matched: ${s.matches.slice(0, 12).map((m) => `${m.term} ${m.contribution.toFixed(2)}`).join(", ")}`)
        console.log(`       missed heavy note terms: ${missed.join(", ")}`)
        const idfTitle = tokenize(paper.title).flatMap((t) => (t === null ? [] : [`${t.word}(${c.vocabulary.has(t.stem) ? "in note" : "not in note"}, idf ${idf(table, t.stem, false).toFixed(1)})`]))
        console.log(`       title words: ${idfTitle.join(" ")}`)
      }
    }
  }
}

const sample = () => {
  const base: ScoringParams = { ...defaultParams, ...(JSON.parse(process.env.BASE ?? "{}") as Partial<ScoringParams>) }
  const p = params()
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  const random = seededRandom(7)
  let total = 0
  let shown = 0
  for (const pool of pools()) {
    const before = prepareConcept(pool.concept, table, base, vectors)
    const after = prepareConcept(pool.concept, table, p, vectors)
    const fresh = pool.papers.filter((x) =>
      scorePaper(before, x, table, base, vectors).relevance < 0.5 && scorePaper(after, x, table, p, vectors).relevance >= 0.5
    )
    const picked = fresh.map((x) => ({ x, r: random() })).sort((a, b) => a.r - b.r).slice(0, Number(process.env.SAMPLE ?? 6))
    total += fresh.length
    shown += picked.length
    console.log(`## ${pool.note}: ${fresh.length} newly relevant`)
    for (const { x } of picked) {
      console.log(`   ${x.arxivId} ${pool.landmarks.some((l) => l.id === x.arxivId) ? "[landmark] " : ""}${x.title}`)
    }
  }
  console.log(`${total} newly relevant; ${shown} shown`)
}

type Rule = "merit" | "relevance" | "band" | "lift"

/**
 * PLACES=1 (rule band): the ten places are the first of the papers that cleared both bars and the relevant papers
 * without a recorded count, in keep order (a counted paper wins a near tie): "a relevant paper without a count takes
 * its place". Without it, the places are the kept papers (only papers that cleared both bars).
 */
const PLACES = process.env.PLACES === "1"

/**
 * The relevant papers without a recorded count that are not in the places but whose relevance alone places them
 * among the first `n` of those that cleared both bars: listed right after the kept (keepBest's rank).
 */
const listedAfter = (pool: Pool, relevance: ReadonlyMap<string, number>, places: ReadonlyArray<string>, n = 10): ReadonlyArray<string> => {
  const { survivors, unrecorded } = relevantOf(pool, relevance)
  return unrecorded.filter((id) =>
    !places.includes(id) && 1 + survivors.filter((c) => relevance.get(c)! > relevance.get(id)!).length <= n
  )
}

/** BAND=w: the near-equal band tried instead of NEAR_EQUAL_RELEVANCE; BANDSPACE=score: measured on the score (logit ÷ slope). */
const BAND = Number(process.env.BAND ?? NEAR_EQUAL_RELEVANCE)
const logit = (r: number) => Math.log(Math.min(r, 1 - 1e-9) / Math.max(1 - r, 1e-9))
const near = (top: number, x: number): boolean =>
  process.env.BANDSPACE === "score" ? (logit(top) - logit(x)) / defaultParams.slope < BAND : top - x < BAND

/** The papers of a recorded pool that clear both bars, in keep order under `rule`. */
const clearedOf = (pool: Pool, relevance: ReadonlyMap<string, number>, rule: Rule): ReadonlyArray<string> => {
  const impact = pool.impact ?? {}
  const { survivors } = relevantOf(pool, relevance)
  if (rule === "band") return bandCleared(pool, relevance, near, PLACES)
  if (rule === "lift") {
    // LIFT=w: impact lifts a paper by less than w (on relevance, or with BANDSPACE=score on the score), full at 10^LIFTDECADES c/y
    const w = Number(process.env.LIFT ?? 0.05)
    const decades = Number(process.env.LIFTDECADES ?? 3)
    const base = (id: string) => process.env.BANDSPACE === "score" ? logit(relevance.get(id)!) / defaultParams.slope : relevance.get(id)!
    const key = (id: string) => base(id) + w * Math.min(1, Math.log10(1 + (impact[id]?.perYear ?? 0)) / decades)
    return survivors.slice().sort((a, b) => key(b) - key(a) || relevance.get(b)! - relevance.get(a)! || a.localeCompare(b))
  }
  const merit = (id: string) =>
    relevance.get(id)! + (rule === "merit" ? 0.1 * Math.log10(1 + (impact[id]?.perYear ?? 0)) : 0)
  return survivors.slice().sort((a, b) => merit(b) - merit(a) || a.localeCompare(b))
}

/**
 * The ten places of an eligible list in keep order; with `bar` (PLACEBAR, or a GRID entry's `placeBar`), a paper
 * takes a place only when its relevance is at least the bar, the first in keep order always (prec7). With `delta`
 * too (PLACEDELTA, or a GRID entry's `placeDelta`; prec8) the bar is min(bar, best − delta), best the highest
 * relevance among the eligible papers: a bar relative to the note's best, relaxed for a note whose best is weak.
 */
const placesOf = (
  eligible: ReadonlyArray<string>,
  relevance: ReadonlyMap<string, number>,
  bar: number | undefined = process.env.PLACEBAR === undefined ? undefined : Number(process.env.PLACEBAR),
  n = 10,
  delta: number | undefined = process.env.PLACEDELTA === undefined ? undefined : Number(process.env.PLACEDELTA)
): ReadonlyArray<string> => {
  const best = Math.max(...eligible.map((id) => relevance.get(id)!))
  const at = Math.min(bar ?? Infinity, delta === undefined ? Infinity : best - delta)
  return (at === Infinity ? eligible : eligible.filter((id, i) => i === 0 || relevance.get(id)! >= at)).slice(0, n)
}

/**
 * The eligible papers in keep order on another key (prec7, `orderNovelty`): by the key, citations per year inside a
 * run of near-equal keys (a missing count last), then the key, then the id, as keepOrder does on relevance.
 */
const reorder = (pool: Pool, ids: ReadonlyArray<string>, key: (id: string) => number): ReadonlyArray<string> => {
  const perYear = (id: string) => pool.impact?.[id]?.perYear ?? -1
  const byKey = ids.slice().sort((a, b) => key(b) - key(a) || a.localeCompare(b))
  const ordered: Array<string> = []
  for (let start = 0; start < byKey.length;) {
    const top = key(byKey[start]!)
    let end = start + 1
    while (end < byKey.length && near(top, key(byKey[end]!))) end++
    ordered.push(...byKey.slice(start, end).sort((a, b) => perYear(b) - perYear(a) || key(b) - key(a) || a.localeCompare(b)))
    start = end
  }
  return ordered
}

/** The keep rule, simulated over a recorded pool: "merit" (relevance + 0.1 · log10(1 + citations/year), the old rule), "relevance" or "band" (keepOrder). */
const keptOf = (pool: Pool, relevance: ReadonlyMap<string, number>, rule: Rule, n = 10): ReadonlyArray<string> =>
  placesOf(clearedOf(pool, relevance, rule), relevance, undefined, n)

const gradesDir = join(repoRoot, "eval", "precision", "grades")

/** Probability that a random paper of `hi` scores above one of `lo` (ties count half). */
const auc = (hi: ReadonlyArray<number>, lo: ReadonlyArray<number>): number | undefined => {
  if (hi.length === 0 || lo.length === 0) return undefined
  let wins = 0
  for (const h of hi) for (const l of lo) wins += h > l ? 1 : h === l ? 0.5 : 0
  return wins / (hi.length * lo.length)
}

/**
 * `grades`: the judge against the graded precision set (the tuning notes of `--graded` that have a grade file: a
 * held-out note's grades are never read). Per note and pooled: the simulated kept papers (strict precision, off-topic, ungraded, landmarks kept),
 * and over every graded paper of the pool, independent of the keep rule: the share of 2s, 1s and 0s at or above
 * the bar, and how well relevance separates 2s from 0s and from 1s (AUC).
 */
const grades = () => {
  setTokenCacheLimit(50_000)
  const p = params()
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  const rule = (process.env.RULE ?? "band") as Rule
  const t = { kept: 0, graded: 0, twos: 0, zeros: 0, ungraded: 0, lm: 0, lmKept: 0, lmShown: 0, unrecordedIn: 0, zeroKept: 0, above: [0, 0, 0], count: [0, 0, 0] }
  const perNoteCounts: Array<{ graded: number; twos: number; zeros: number; lm: number; lmKept: number; lmShown: number }> = []
  const aucs: Array<[number | undefined, number | undefined]> = []
  const rows: Array<string> = []
  const ungraded: Array<string> = []
  const started = performance.now()
  let judgedPapers = 0
  let notes = 0
  for (const pool of pools()) {
    if (!gradedSplits.includes(pool.split)) continue
    const file = join(gradesDir, `${pool.note}.json`)
    if (!existsSync(file)) continue
    const graded = (JSON.parse(readFileSync(file, "utf8")) as { papers: Record<string, { grade: 0 | 1 | 2 }> }).papers
    const c = prepareConcept(pool.concept, table, p, vectors)
    const scoredAll = new Map(pool.papers.map((paper) => [paper.arxivId, scorePaper(c, paper, table, p, vectors, ranker)]))
    const rel = new Map([...scoredAll].map(([id, x]) => [id, keptRelevance(pool, id, x)]))
    judgedPapers += pool.papers.length
    notes++
    // ORDERNOVELTY=w (with PLACES=1 and the band rule): the places ordered by relevance − w · (novelty − ½), as a run
    // with a judge naming orderNovelty w does; default 0, relevance alone (the shipped order)
    const w = Number(process.env.ORDERNOVELTY ?? 0)
    const kept = PLACES && rule === "band" && w !== 0
      ? placesOf(reorder(pool, bandCleared(pool, rel, near, true), (id) => rel.get(id)! - w * (scoredAll.get(id)!.novelty - 0.5)), rel)
      : keptOf(pool, rel, rule)
    const g = (id: string) => graded[id]?.grade
    const twos = kept.filter((id) => g(id) === 2).length
    const zeros = kept.filter((id) => g(id) === 0).length
    const gradedKept = kept.filter((id) => g(id) !== undefined).length
    t.kept += kept.length
    const listed = listedAfter(pool, rel, kept)
    const lmShown = pool.landmarks.filter((l) => kept.includes(l.id) || listed.includes(l.id)).length
    const unrecordedIn = relevantOf(pool, rel).unrecorded.filter((id) => kept.includes(id)).length
    t.lmShown += lmShown
    t.unrecordedIn += unrecordedIn
    if (kept.length === 0) t.zeroKept++
    perNoteCounts.push({ graded: gradedKept, twos, zeros, lm: pool.landmarks.length, lmKept: pool.landmarks.filter((l) => kept.includes(l.id)).length, lmShown })
    t.graded += gradedKept
    t.twos += twos
    t.zeros += zeros
    t.ungraded += kept.length - gradedKept
    t.lm += pool.landmarks.length
    const lmKept = pool.landmarks.filter((l) => kept.includes(l.id)).length
    t.lmKept += lmKept
    const byGrade: [Array<number>, Array<number>, Array<number>] = [[], [], []]
    for (const [id, { grade }] of Object.entries(graded)) {
      const r = rel.get(id)
      if (r === undefined) continue
      byGrade[grade].push(r)
      t.count[grade]!++
      if (r >= 0.5) t.above[grade]!++
    }
    aucs.push([auc(byGrade[2], byGrade[0]), auc(byGrade[2], byGrade[1])])
    for (const id of kept) {
      if (g(id) === undefined) ungraded.push(`${pool.note}: ${id} ${pool.papers.find((x) => x.arxivId === id)?.title} (${rel.get(id)!.toFixed(2)})`)
    }
    const above = (k: 0 | 1 | 2) => `${byGrade[k].filter((x) => x >= 0.5).length}/${byGrade[k].length}`
    rows.push(
      `${pool.note.padEnd(32)} kept ${String(kept.length).padStart(2)} (unrecorded ${unrecordedIn}) 2s ${String(twos).padStart(2)} 0s ${zeros} ungraded ${kept.length - gradedKept}` +
        ` lm ${lmKept}/${pool.landmarks.length}  ≥0.5: 2s ${above(2)} 1s ${above(1)} 0s ${above(0)}`
    )
  }
  const ms = performance.now() - started
  if (argv.includes("--rows")) console.log(rows.join("\n"))
  if (argv.includes("--ungraded")) console.log(ungraded.map((u) => `  ungraded kept: ${u}`).join("\n"))
  const mean = (xs: ReadonlyArray<number | undefined>) => {
    const d = xs.filter((x): x is number => x !== undefined)
    return d.reduce((a, b) => a + b, 0) / Math.max(1, d.length)
  }
  // a pooled share with its 95 % bootstrap interval over notes (2,000 resamples, seed 22, as eval/precision.ts)
  const interval = (num: (r: (typeof perNoteCounts)[number]) => number, den: (r: (typeof perNoteCounts)[number]) => number) => {
    const share = (rs: typeof perNoteCounts) => rs.reduce((k, r) => k + num(r), 0) / Math.max(1, rs.reduce((k, r) => k + den(r), 0))
    const random = seededRandom(22)
    const samples: Array<number> = []
    for (let b = 0; b < 2000 && perNoteCounts.length > 0; b++) {
      samples.push(share(perNoteCounts.map(() => perNoteCounts[Math.floor(random() * perNoteCounts.length)]!)))
    }
    samples.sort((a, b) => a - b)
    const at = (q: number) => samples[Math.min(samples.length - 1, Math.max(0, Math.round(q * (samples.length - 1))))] ?? 0
    return ` (${(100 * at(0.025)).toFixed(1)}–${(100 * at(0.975)).toFixed(1)})`
  }
  const pc = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)} %`
  console.log(
    `${notes} graded notes (${gradedSplits.join(", ")}), rule ${rule}${PLACES ? " + unrecorded in the places" : ""}: ` +
      `${PLACES ? "places" : "kept"} ${t.kept} (${t.unrecordedIn} without a count, ${t.zeroKept} notes with 0), strict ${pc(t.twos, t.graded)}${interval((r) => r.twos, (r) => r.graded)}, ` +
      `off-topic ${pc(t.zeros, t.graded)}${interval((r) => r.zeros, (r) => r.graded)}, ungraded ${t.ungraded}, ` +
      `landmarks kept ${t.lmKept}/${t.lm} ${pc(t.lmKept, t.lm)}${interval((r) => r.lmKept, (r) => r.lm)}, ` +
      `kept or listed right after ${t.lmShown}/${t.lm} ${pc(t.lmShown, t.lm)}${interval((r) => r.lmShown, (r) => r.lm)}; graded ≥ 0.5: 2s ${pc(t.above[2]!, t.count[2]!)} 1s ${pc(t.above[1]!, t.count[1]!)} ` +
      `0s ${pc(t.above[0]!, t.count[0]!)}; AUC 2v0 ${mean(aucs.map((a) => a[0])).toFixed(3)} 2v1 ${mean(aucs.map((a) => a[1])).toFixed(3)}; ` +
      `${(ms / judgedPapers).toFixed(3)} ms a paper`
  )
}

/**
 * `landmarks`: why each landmark of the recorded pools is kept or not under the judge settings (PARAMS) and the
 * keep rule (RULE, default band): absent from the pool, below the bar, impact not recorded, too few citations,
 * impact not looked up, cut by the cap, or kept; with its relevance, its relevance rank in the pool and its place
 * among the papers that clear both bars, and the relevance of the last kept paper.
 */
const landmarks = () => {
  setTokenCacheLimit(50_000)
  const p = params()
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  const rule = (process.env.RULE ?? "band") as Rule
  const tally = new Map<string, number>()
  for (const pool of pools()) {
    const c = prepareConcept(pool.concept, table, p, vectors)
    const rel = new Map(pool.papers.map((paper) => [paper.arxivId, keptRelevance(pool, paper.arxivId, scorePaper(c, paper, table, p, vectors, ranker))]))
    const byRel = [...rel].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([id]) => id)
    const cleared = clearedOf(pool, rel, rule)
    const kept = cleared.slice(0, 10)
    const last = kept.length > 0 ? rel.get(kept[kept.length - 1]!)! : undefined
    const impact = pool.impact ?? {}
    const relevant = byRel.filter((id) => rel.get(id)! >= 0.5)
    const looked = new Set(relevant.filter((id) => !impact[id]?.cited).slice(0, 50))
    console.log(`\n## ${pool.note} (${pool.split}): ${relevant.length} relevant, ${cleared.length} cleared, last kept ${last?.toFixed(3) ?? "-"}`)
    for (const l of pool.landmarks) {
      const r = rel.get(l.id)
      const i = impact[l.id]
      const stage = r === undefined ? "absent"
        : r < 0.5 ? "below-bar"
        : !(i?.cited || looked.has(l.id)) ? "not-looked-up"
        : i?.pass !== true ? (i?.perYear === undefined ? (kept.includes(l.id) ? "placed-unrecorded" : "impact-not-recorded") : "too-few-citations")
        : kept.includes(l.id) ? "kept"
        : "cut-by-cap"
      tally.set(stage, (tally.get(stage) ?? 0) + 1)
      const place = cleared.indexOf(l.id)
      console.log(
        `  ${stage.padEnd(20)} rel ${r?.toFixed(3) ?? "  -  "} rank ${r === undefined ? "-" : byRel.indexOf(l.id) + 1}` +
          `${place >= 0 ? ` cleared #${place + 1}` : ""} c/y ${i?.perYear?.toFixed(0) ?? "-"}  ${l.id} ${l.title.slice(0, 70)}`
      )
    }
  }
  console.log(`\n${[...tally].map(([k, n]) => `${k} ${n}`).join(", ")}`)
}

/**
 * `cv`: settings of the fixed map (GRID, a JSON array of partial ScoringParams; the first is the reference) chosen in
 * cross-validation by split over the graded tuning notes, on the places (PLACES=1 is implied). On each three splits
 * the setting with the highest strict precision (an ungraded paper in the places counted as neither 2 nor 0) among
 * those whose off-topic share is at most, and landmarks in the places at least, the reference's on the same notes
 * (the reference if none) is picked and measured on the fourth; then the pick on every note. Prints each setting on
 * every note too.
 */

const cv = () => {
  setTokenCacheLimit(50_000)
  const grid = JSON.parse(process.env.GRID ?? "[{}]") as ReadonlyArray<Partial<ScoringParams>>
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  type R = { note: string; split: string; lmInIds: ReadonlyArray<string>; rel: ReadonlyMap<string, number>; places: number; twos: number; zeros: number; counted: number; ungraded: number; lm: number; lmIn: number; lmShown: number }
  const graded = pools().filter((pool) => gradedSplits.includes(pool.split) && existsSync(join(gradesDir, `${pool.note}.json`)))
  // the concept gate (prec9) only maps a relevance the rest of the setting gives: settings that differ only in
  // conceptGate and its spares share one scoring, the gate applied after (as scorePrepared applies it, and the keep
  // rule its citation spare); an entry that names none of the three has the judge's defaults (no gate; `conceptGate: 0`
  // is no gate too)
  type Scored = { readonly relevance: number; readonly novelty: number; readonly concept: number; readonly strength: number }
  const scorings = new Map<string, ReadonlyMap<string, ReadonlyMap<string, Scored>>>()
  const results: Array<ReadonlyArray<R>> = grid.map((entry) => {
    const {
      conceptGate = defaultParams.conceptGate,
      gateSpareCites = defaultParams.gateSpareCites,
      gateSpareRelevance = defaultParams.gateSpareRelevance,
      orderNovelty,
      placeBar,
      placeDelta,
      ...g
    } = entry as Partial<ScoringParams> & {
      placeBar?: number
      placeDelta?: number
      orderNovelty?: number
    }
    const p: ScoringParams = { ...defaultParams, ...g, conceptGate: undefined }
    const key = JSON.stringify(g)
    if (!scorings.has(key)) {
      scorings.set(key, new Map(graded.map((pool) => {
        const c = prepareConcept(pool.concept, table, p, vectors)
        return [pool.note, new Map(pool.papers.map((paper) => {
          const x = scorePaper(c, paper, table, p, vectors, ranker)
          return [paper.arxivId, { relevance: x.relevance, novelty: x.novelty, concept: x.concept, strength: x.features.strength }]
        }))]
      })))
    }
    const byNote = scorings.get(key)!
    return graded.map((pool) => {
      const grades = (JSON.parse(readFileSync(join(gradesDir, `${pool.note}.json`), "utf8")) as { papers: Record<string, { grade: 0 | 1 | 2 }> }).papers
      const scored = new Map([...byNote.get(pool.note)!].map(([id, x]) => [
        id,
        conceptGate !== undefined && x.strength > 0 && x.concept < conceptGate &&
          !(gateSpareRelevance !== undefined && x.relevance >= gateSpareRelevance) &&
          !(gateSpareCites !== undefined && (pool.impact?.[id]?.perYear ?? -1) >= gateSpareCites)
          ? { ...x, relevance: gateRelevance(x.relevance) }
          : x
      ]))
      const rel = new Map([...scored].map(([id, x]) => [id, x.relevance]))
      const eligible = bandCleared(pool, rel, near, true)
      const ordered = orderNovelty === undefined ? eligible : reorder(pool, eligible, (id) => rel.get(id)! - orderNovelty * (scored.get(id)!.novelty - 0.5))
      const places = placesOf(ordered, rel, placeBar, 10, placeDelta)
      const listed = listedAfter(pool, rel, places)
      const gr = (id: string) => grades[id]?.grade
      return {
        note: pool.note,
        split: pool.split,
        places: places.length,
        twos: places.filter((id) => gr(id) === 2).length,
        zeros: places.filter((id) => gr(id) === 0).length,
        // for choosing, an ungraded paper counts in the denominator as neither 2 nor 0
        counted: places.length,
        ungraded: places.filter((id) => gr(id) === undefined).length,
        lm: pool.landmarks.length,
        lmIn: pool.landmarks.filter((l) => places.includes(l.id)).length,
        lmInIds: pool.landmarks.filter((l) => places.includes(l.id)).map((l) => `${l.id} ${l.title}`),
        rel,
        lmShown: pool.landmarks.filter((l) => places.includes(l.id) || listed.includes(l.id)).length
      }
    })
  })
  const sum = (rs: ReadonlyArray<R>, f: (r: R) => number) => rs.reduce((k, r) => k + f(r), 0)
  const figures = (rs: ReadonlyArray<R>) => ({
    strict: sum(rs, (r) => r.twos) / Math.max(1, sum(rs, (r) => r.counted)),
    off: sum(rs, (r) => r.zeros) / Math.max(1, sum(rs, (r) => r.counted)),
    lm: sum(rs, (r) => r.lmIn)
  })
  const pick = (notes: ReadonlySet<string>): number => {
    const of = (i: number) => figures(results[i]!.filter((r) => notes.has(r.note)))
    const ref = of(0)
    // LMSLACK=s (prec8): a setting may lose floor(s × the notes' landmarks) landmarks from the places; default 0 (prec9's
    // figures read it as floor(s × the reference's landmarks in the places): 6 rather than 9 at 0.02 on the 136 notes)
    const slack = Math.floor(Number(process.env.LMSLACK ?? 0) * sum(results[0]!.filter((r) => notes.has(r.note)), (r) => r.lm))
    let best = 0
    for (let i = 1; i < grid.length; i++) {
      const f = of(i)
      if (f.off <= ref.off && f.lm >= ref.lm - slack && f.strict > of(best).strict) best = i
    }
    return best
  }
  const splits = [...new Set(graded.map((x) => x.split))]
  const held: Array<R> = []
  const refHeld: Array<R> = []
  for (const s of splits) {
    const train = new Set(graded.filter((x) => x.split !== s).map((x) => x.note))
    const i = pick(train)
    const test = (rs: ReadonlyArray<R>) => rs.filter((r) => r.split === s)
    held.push(...test(results[i]!))
    refHeld.push(...test(results[0]!))
    console.log(`fold ${s}: picked ${JSON.stringify(grid[i])} on the other splits`)
  }
  const line = (label: string, rs: ReadonlyArray<R>) => {
    const by = rs.map((r) => ({ graded: r.places - r.ungraded, twos: r.twos, zeros: r.zeros, lm: r.lm, lmKept: r.lmIn, lmShown: 0 }))
    const boot = (num: (r: (typeof by)[number]) => number, den: (r: (typeof by)[number]) => number) => {
      const random = seededRandom(22)
      const share = (xs: typeof by) => xs.reduce((k, r) => k + num(r), 0) / Math.max(1, xs.reduce((k, r) => k + den(r), 0))
      const samples: Array<number> = []
      for (let b = 0; b < 2000; b++) samples.push(share(by.map(() => by[Math.floor(random() * by.length)]!)))
      samples.sort((a, b) => a - b)
      return `${(100 * share(by)).toFixed(1)} % (${(100 * samples[50]!).toFixed(1)}–${(100 * samples[1949]!).toFixed(1)})`
    }
    console.log(
      `${label.padEnd(40)} places ${sum(rs, (r) => r.places)}, strict ${boot((r) => r.twos, (r) => r.graded)}, off-topic ${boot((r) => r.zeros, (r) => r.graded)}, ` +
        `ungraded ${sum(rs, (r) => r.ungraded)}, landmarks in the places ${sum(rs, (r) => r.lmIn)}/${sum(rs, (r) => r.lm)} ` +
        `(kept or listed right after ${sum(rs, (r) => r.lmShown)}), notes with fewer than 10 places ${rs.filter((r) => r.places < 10).length}`
    )
  }
  line("reference (first setting), all notes", results[0]!)
  line("cross-validated picks (held folds)", held)
  line("reference on the same held folds", refHeld)
  for (const s of splits) {
    line(`  held ${s}: the pick`, held.filter((r) => r.split === s))
    line(`  held ${s}: the reference`, refHeld.filter((r) => r.split === s))
  }
  // the held picks against the reference, note by note: landmarks in the places (a paired 95 % bootstrap interval)
  {
    const diff = held.map((r) => r.lmIn - refHeld.find((x) => x.note === r.note)!.lmIn)
    const random = seededRandom(22)
    const samples: Array<number> = []
    for (let b = 0; b < 2000; b++) samples.push(diff.reduce((k) => k + diff[Math.floor(random() * diff.length)]!, 0))
    samples.sort((a, b) => a - b)
    console.log(`held picks − reference, landmarks in the places: ${diff.reduce((a, b) => a + b, 0)} (${samples[50]}–${samples[1949]})`)
  }
  const all = pick(new Set(graded.map((x) => x.note)))
  console.log(`picked on all ${graded.length} notes: ${JSON.stringify(grid[all])}`)
  if (argv.includes("--rows")) grid.forEach((g, i) => line(JSON.stringify(g), results[i]!))
  // --lost (prec11): the landmarks the pick on all notes takes out of the reference's places, and those it brings in
  if (argv.includes("--lost")) {
    results[all]!.forEach((r, k) => {
      const ref = results[0]![k]!
      const rel = (x: string) => ref.rel.get(x.split(" ")[0]!)?.toFixed(2)
      for (const x of ref.lmInIds.filter((x) => !r.lmInIds.includes(x))) console.log(`  out ${r.split.padEnd(8)} ${r.note.padEnd(34)} rel ${rel(x)} ${x}`)
      for (const x of r.lmInIds.filter((x) => !ref.lmInIds.includes(x))) console.log(`  in  ${r.split.padEnd(8)} ${r.note.padEnd(34)} rel ${rel(x)} ${x}`)
    })
  }
}

/**
 * `dev`: CSFCube nDCG@10 on fold1_dev alone (the fold the fixed map was fitted on) for each setting of GRID, so a
 * setting can be checked against the fixed map without printing the other fold; `--rows`: the units that move
 * between the first two settings.
 */
const dev = () => {
  const bench = loadBenchmark(benchmarkRoot())
  const keys = foldKeys(bench, "fold1_dev")
  const units = bench.units.filter((u) => keys.has(u.key))
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  const grid = JSON.parse(process.env.GRID ?? "[{}]") as ReadonlyArray<Partial<ScoringParams>>
  const per = grid.map((g) => metrics(scoreUnits(units, table, { ...defaultParams, ...g }, vectors, ranker)))
  grid.forEach((g, i) => console.log(`${JSON.stringify(g)}: CSFCube fold1_dev (${units.length}) nDCG@10 ${summarize(per[i]!).ndcg10.toFixed(4)}`))
  if (argv.includes("--rows") && per.length > 1) {
    per[0]!.forEach((a, i) => {
      const b = per[1]![i]!
      if (Math.abs(a.ndcg10 - b.ndcg10) > 1e-9) console.log(`  ${a.key.padEnd(24)} ${a.ndcg10.toFixed(3)} → ${b.ndcg10.toFixed(3)}  ${units[i]!.query.title}`)
    })
  }
}

/** Mean over notes of the AUC of `hi` over `lo` (notes where either is empty left out). */
const meanAuc = (xs: ReadonlyArray<number | undefined>): string => {
  const d = xs.filter((x): x is number => x !== undefined)
  return (d.reduce((a, b) => a + b, 0) / Math.max(1, d.length)).toFixed(3)
}

/** The graded tuning pools with their grades (only a tuning note's grade file is read). */
const gradedPools = () =>
  pools().filter((pool) => gradedSplits.includes(pool.split) && existsSync(join(gradesDir, `${pool.note}.json`))).map((pool) => ({
    pool,
    grades: (JSON.parse(readFileSync(join(gradesDir, `${pool.note}.json`), "utf8")) as { papers: Record<string, { grade: 0 | 1 | 2 }> }).papers
  }))

/**
 * `oracle`: the headroom of the order. Over the places' eligible papers (cleared both bars, or relevant without a
 * count) of the shipped judge: strict precision if the 2s among them came first; and how well relevance, citations a
 * year and each signal of the rule (score.ts PaperFeatures) order the 2s above the rest of them (mean AUC per note).
 */
const oracle = () => {
  setTokenCacheLimit(50_000)
  const p = params()
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  let places = 0
  let twos = 0
  let best = 0
  const aucs = new Map<string, Array<number | undefined>>()
  const add = (k: string, v: number | undefined) => aucs.set(k, [...(aucs.get(k) ?? []), v])
  for (const { pool, grades } of gradedPools()) {
    const c = prepareConcept(pool.concept, table, p, vectors)
    const scored = new Map(pool.papers.map((paper) => [paper.arxivId, scorePaper(c, paper, table, p, vectors, ranker)]))
    const rel = new Map([...scored].map(([id, s]) => [id, keptRelevance(pool, id, s)]))
    const eligible = bandCleared(pool, rel, near, true)
    const placed = placesOf(eligible, rel)
    places += placed.length
    twos += placed.filter((id) => grades[id]?.grade === 2).length
    best += Math.min(placed.length, eligible.filter((id) => grades[id]?.grade === 2).length)
    const two = eligible.filter((id) => grades[id]?.grade === 2)
    const rest = eligible.filter((id) => grades[id] !== undefined && grades[id]!.grade < 2)
    add("relevance", auc(two.map((id) => rel.get(id)!), rest.map((id) => rel.get(id)!)))
    const counted = (ids: ReadonlyArray<string>) => ids.filter((id) => pool.impact?.[id]?.perYear !== undefined)
    const perYear = (id: string) => pool.impact![id]!.perYear!
    add("citations a year (counted papers)", auc(counted(two).map(perYear), counted(rest).map(perYear)))
    for (const k of Object.keys(scored.values().next().value!.features) as Array<keyof ReturnType<typeof scorePaper>["features"]>) {
      add(k, auc(two.map((id) => scored.get(id)!.features[k]), rest.map((id) => scored.get(id)!.features[k])))
    }
  }
  console.log(`places ${places}: strict ${((100 * twos) / places).toFixed(1)} %; the eligible 2s first: ${((100 * best) / places).toFixed(1)} %`)
  console.log("AUC of the eligible 2s over their 1s and 0s, mean per note:")
  for (const [k, xs] of aucs) console.log(`  ${k.padEnd(36)} ${meanAuc(xs)}`)
}

/**
 * `language`: the concept's own language (eval/precision/README.md, prec6), diagnostic only. The papers of a pool
 * whose title earns ≥ TAU (0.75) of the concept (pairs one apart read) are its title-named papers; with at least 5 of
 * them, (L) the share of the weight of the K (50) stems they use far more than arXiv abstracts do (p·log(p / df), the
 * concept's own stems left out) that a paper's abstract uses, and (V) the cosine of a paper's SIF vector to their
 * centroid, each over its mean on the title-named papers. Prints the per-note mean AUC of each alone and added to
 * the score (w · strength · min(f, 1.5)), and among papers whose concept match is below 0.3.
 */
const language = () => {
  setTokenCacheLimit(60_000)
  const p = params()
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  const TAU = Number(process.env.TAU ?? 0.75)
  const K = Number(process.env.K ?? 50)
  type Row = { score: number; strength: number; concept: number; L: number; V: number; grade: number | undefined }
  const notes: Array<ReadonlyArray<Row>> = []
  const sizes: Array<number> = []
  for (const { pool, grades } of gradedPools()) {
    const c = prepareConcept(pool.concept, table, p, vectors)
    const apart = { ...p, conceptPairsApart: true }
    const ca = prepareConcept(pool.concept, table, apart, vectors)
    const own = new Set<string>()
    for (const u of c.central.units) for (const f of u.forms.keys()) for (const w of f.split(" ")) own.add(w)
    const prepared = pool.papers.map((x) => preparePaper(x, table, p, vectors))
    const scored = prepared.map((x) => scorePrepared(c, x, table, p, vectors))
    const named = prepared.map((x) => {
      const f = scorePrepared(ca, x, table, apart, vectors).features
      return f.strength > 0 && f.conceptTitle / f.strength >= TAU
    })
    const titled = prepared.filter((_, i) => named[i])
    sizes.push(titled.length)
    const uses = new Map<string, number>()
    for (const x of titled) for (const k of x.abstractCounts.keys()) if (!k.includes(" ")) uses.set(k, (uses.get(k) ?? 0) + 1)
    const lexicon = [...uses]
      .filter(([k, n]) => n >= 2 && table.unigrams.has(k) && !own.has(k))
      .map(([k, n]) => {
        const pt = n / titled.length
        const pb = table.unigrams.get(k)! / table.documents
        return { k, w: Math.log(pt / pb), kl: pt * Math.log(pt / pb) }
      })
      .filter((x) => x.w > 0)
      .sort((a, b) => b.kl - a.kl || (a.k < b.k ? -1 : 1))
      .slice(0, K)
    const total = lexicon.reduce((s, x) => s + x.w, 0)
    const L = prepared.map((x) => (total > 0 ? lexicon.reduce((s, y) => s + (x.abstractCounts.has(y.k) ? y.w : 0), 0) / total : 0))
    const centre = new Float32Array(vectors.dims)
    for (const x of titled) {
      const v = x.vector!
      const n = Math.sqrt(v.reduce((s, a) => s + a * a, 0)) || 1
      for (let i = 0; i < v.length; i++) centre[i]! += v[i]! / n
    }
    const cos = (v: Float32Array) => {
      let d = 0
      let a = 0
      let b = 0
      for (let i = 0; i < v.length; i++) d += v[i]! * centre[i]!, a += v[i]! * v[i]!, b += centre[i]! * centre[i]!
      return a > 0 && b > 0 ? d / Math.sqrt(a * b) : 0
    }
    const V = prepared.map((x) => cos(x.vector!))
    const onTitled = (xs: ReadonlyArray<number>) => xs.filter((_, i) => named[i]).reduce((s, x) => s + x, 0) / Math.max(1, titled.length)
    const enough = titled.length >= 5
    const mL = onTitled(L)
    const mV = onTitled(V)
    notes.push(pool.papers.map((x, i) => ({
      score: scored[i]!.score,
      strength: scored[i]!.features.strength,
      concept: scored[i]!.concept,
      L: enough && mL > 0 ? L[i]! / mL : Number.NaN,
      V: enough && mV > 0 ? V[i]! / mV : Number.NaN,
      grade: grades[x.arxivId]?.grade
    })))
  }
  console.log(`title-named papers per pool: ${sizes.sort((a, b) => a - b).join(" ")}`)
  const per = (value: (r: Row) => number, keep: (r: Row) => boolean = () => true) => {
    const a20: Array<number | undefined> = []
    const a21: Array<number | undefined> = []
    for (const rows of notes) {
      const by = (g: number) => rows.filter((r) => r.grade === g && keep(r)).map(value).filter((x) => !Number.isNaN(x))
      a20.push(auc(by(2), by(0)))
      a21.push(auc(by(2), by(1)))
    }
    return `AUC 2v0 ${meanAuc(a20)} 2v1 ${meanAuc(a21)}`
  }
  console.log(`score ${per((r) => r.score)}; L ${per((r) => r.L)}; V ${per((r) => r.V)}`)
  for (const key of ["L", "V"] as const) {
    for (const w of [0.01, 0.02, 0.04, 0.08]) {
      console.log(`score + ${w} · ${key}: ${per((r) => r.score + (Number.isNaN(r[key]) ? 0 : w * r.strength * Math.min(r[key], 1.5)))}`)
    }
  }
  // pooled over notes: among the graded papers whose concept match is below 0.3
  const low = notes.flat().filter((r) => r.grade !== undefined && r.concept < 0.3 && !Number.isNaN(r.L))
  const pooledAuc = (k: "L" | "V" | "score", lo: ReadonlyArray<number>) =>
    auc(low.filter((r) => r.grade === 2).map((r) => r[k]), low.filter((r) => lo.includes(r.grade!)).map((r) => r[k]))?.toFixed(3)
  console.log(
    `concept match < 0.3 (${low.length} graded papers, pooled): ` +
      (["L", "V", "score"] as const).map((k) => `${k} 2v0 ${pooledAuc(k, [0])} 2v01 ${pooledAuc(k, [0, 1])}`).join("; ")
  )
}

/**
 * `failures`: what takes the places on the graded tuning notes (prec7's diagnosis). Per split: the places graded
 * 0, 1 and 2; the eligible 2s left out of the places; and for each place graded 0 or 1 above such a 2, the signals
 * that carried it (concept match, its title part, coverage, similarity, novelty, the most-cited channel, a missing
 * count) beside the displaced 2's. `--rows` prints every such place with its matched terms.
 */
const failures = () => {
  setTokenCacheLimit(50_000)
  const p = params()
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  type Row = { split: string; note: string; id: string; title: string; grade: number | undefined; s: ReturnType<typeof scorePaper>; cited: boolean; unrecorded: boolean; place: number }
  const placed: Array<Row> = []
  const displaced: Array<Row> = []
  const lines: Array<string> = []
  const dump: Array<unknown> = []
  for (const { pool, grades } of gradedPools()) {
    const c = prepareConcept(pool.concept, table, p, vectors)
    const scored = new Map(pool.papers.map((paper) => [paper.arxivId, scorePaper(c, paper, table, p, vectors, ranker)]))
    const rel = new Map([...scored].map(([id, s]) => [id, keptRelevance(pool, id, s)]))
    const eligible = bandCleared(pool, rel, near, true)
    const places = placesOf(eligible, rel)
    const unrec = new Set(relevantOf(pool, rel).unrecorded)
    const row = (id: string, place: number): Row => ({
      split: pool.split, note: pool.note, id, title: pool.papers.find((x) => x.arxivId === id)!.title,
      grade: grades[id]?.grade, s: scored.get(id)!, cited: pool.impact?.[id]?.cited === true, unrecorded: unrec.has(id), place
    })
    places.forEach((id, i) => placed.push(row(id, i + 1)))
    eligible.forEach((id, i) => dump.push({ ...row(id, i + 1), s: undefined, rel: scored.get(id)!.relevance, features: scored.get(id)!.features, concept: scored.get(id)!.concept, perYear: pool.impact?.[id]?.perYear }))
    // the 2s of the pool not in the places: eligible ones (the order's loss) and relevant-or-not others
    const out2 = pool.papers.filter((x) => grades[x.arxivId]?.grade === 2 && !places.includes(x.arxivId)).map((x) => row(x.arxivId, eligible.indexOf(x.arxivId) + 1))
    displaced.push(...out2)
    const show = (r: Row) =>
      `${r.grade ?? "?"} #${String(r.place).padStart(2)} rel ${r.s.relevance.toFixed(2)} con ${r.s.concept.toFixed(2)} ct ${(r.s.features.strength > 0 ? r.s.features.conceptTitle / r.s.features.strength : 0).toFixed(2)} ` +
      `cov ${r.s.coverage.toFixed(2)} sim ${(r.s.similarity ?? 0).toFixed(2)} nov ${r.s.novelty.toFixed(2)}${r.cited ? " cited" : ""}${r.unrecorded ? " no-count" : ""}  ${r.id} ${r.title.slice(0, 80)}` +
      `  [${r.s.matches.slice(0, 5).map((m) => m.term).join(", ")}]`
    const bad = places.map((id, i) => row(id, i + 1)).filter((r) => r.grade !== undefined && r.grade < 2)
    if (bad.length > 0) {
      lines.push(`\n## ${pool.note} (${pool.split}) "${pool.concept.title}" strength ${c.central.strength.toFixed(2)}; eligible ${eligible.length}`)
      for (const r of bad) lines.push(`  place ${show(r)}`)
      for (const r of out2.filter((r) => r.place > 0).slice(0, 6)) lines.push(`  out2  ${show(r)}`)
    }
  }
  if (argv.includes("--rows")) console.log(lines.join("\n"))
  if (process.env.DUMP !== undefined) writeFileSync(process.env.DUMP, JSON.stringify(dump))
  const splits = [...new Set(placed.map((r) => r.split))]
  const mean = (rs: ReadonlyArray<Row>, f: (r: Row) => number) => (rs.length === 0 ? "-" : (rs.reduce((a, r) => a + f(r), 0) / rs.length).toFixed(2))
  const describe = (label: string, rs: ReadonlyArray<Row>) =>
    console.log(
      `  ${label.padEnd(26)} ${String(rs.length).padStart(4)}  rel ${mean(rs, (r) => r.s.relevance)} concept ${mean(rs, (r) => r.s.concept)} ` +
        `title-named ${mean(rs, (r) => (r.s.features.strength > 0 ? r.s.features.conceptTitle / r.s.features.strength : 0))} ` +
        `cov ${mean(rs, (r) => r.s.coverage)} sim ${mean(rs, (r) => r.s.similarity ?? 0)} nov ${mean(rs, (r) => r.s.novelty)} ` +
        `cited ${rs.filter((r) => r.cited).length} no-count ${rs.filter((r) => r.unrecorded).length} concept<0.5 ${rs.filter((r) => r.s.concept < 0.5).length}`
    )
  for (const s of [...splits, "all"]) {
    const of = (rs: ReadonlyArray<Row>) => rs.filter((r) => s === "all" || r.split === s)
    console.log(`${s}: places ${of(placed).length}`)
    describe("places graded 2", of(placed).filter((r) => r.grade === 2))
    describe("places graded 1", of(placed).filter((r) => r.grade === 1))
    describe("places graded 0", of(placed).filter((r) => r.grade === 0))
    describe("places ungraded", of(placed).filter((r) => r.grade === undefined))
    describe("2s eligible, not placed", of(displaced).filter((r) => r.place > 0))
    describe("2s not eligible", of(displaced).filter((r) => r.place === 0))
  }
}

if (mode === "record") await record()
else if (mode === "failures") failures()
else if (mode === "oracle") oracle()
else if (mode === "language") language()
else if (mode === "cv") cv()
else if (mode === "dev") dev()
else if (mode === "grades") grades()
else if (mode === "sample") sample()
else if (mode === "diagnose") diagnose()
else if (mode === "landmarks") landmarks()
else score()
