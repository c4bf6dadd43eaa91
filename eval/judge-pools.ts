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
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import * as LocalJudge from "../src/adapters/judge/LocalJudge.js"
import { defaultParams, idf, prepareConcept, scorePaper, type ScoringParams } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import { setTokenCacheLimit, tokenize } from "../src/adapters/judge/tokenize.js"
import { type Concept, Layers, LlmJudgePort, Workflow } from "../src/index.js"
import { benchmarkRoot, foldKeys, loadBenchmark, summarize } from "./csfcube-data.js"
import { readLandmarks, readNote, repoRoot, seededRandom, type Split } from "./retrieval-data.js"
import { fitRelevanceMap, metrics, precisionAtBar, scoreUnits } from "./run-scorer.js"

interface Pool {
  readonly note: string
  readonly split: Split
  readonly landmarks: ReadonlyArray<{ readonly id: string; readonly title: string }>
  readonly concept: Concept
  readonly papers: ReadonlyArray<{ readonly arxivId: string; readonly title: string; readonly abstract: string }>
}

const argv = process.argv.slice(2)
const mode = argv[0] ?? "score"
const splitAt = argv.indexOf("--split")
const split = (splitAt >= 0 ? argv[splitAt + 1] : "tune") as Split | "all"
const cacheFile = join(repoRoot, "eval", ".cache", `judge-pools-${split}.json`)

const record = async () => {
  const notes = readLandmarks().filter((n) => split === "all" || n.split === split)
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
      await Effect.runPromise(
        Workflow.runCompanion(`Find papers related to my '${n.title}' note`).pipe(
          Effect.provide(Layer.succeed(LlmJudgePort, recorder)),
          Effect.provide(Layers.OfflineLayer({ vault, offline: true })),
          Effect.either
        )
      )
      if (seen === undefined) continue
      pools.push({ note: n.note, split: n.split, landmarks: n.landmarks.map((l) => ({ id: l.id, title: l.title })), ...seen })
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

const given = (): ScoringParams => ({ ...defaultParams, ...(JSON.parse(process.env.PARAMS ?? "{}") as Partial<ScoringParams>) })

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

if (mode === "record") await record()
else if (mode === "sample") sample()
else if (mode === "diagnose") diagnose()
else score()
