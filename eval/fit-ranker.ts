/**
 * A relevance learned from the graded precision set: a logistic model over the local judge's signals
 * (src/adapters/judge/score.ts `PaperFeatures`) that predicts "graded 2" (a student of the note should read it),
 * so relevance 0.5 is the line between "related" and "worth reading".
 *
 * Tuning notes only (the graded notes of the splits tune, tune2, tune3 and tune4; a held-out note, its grades and
 * its figures are never read). The pools are those `eval/judge-pools.ts record --split tuning` recorded (the concept
 * and every candidate the workflow judges, with the impact each has offline).
 *
 *   node --import tsx eval/fit-ranker.ts cv  [--features a,b,a*b] [--lambda 1] [--free fixed] [--pairwise 1|2|0] [--shift 1] [--folds]
 *                                            [--splits tune,tune2,tune3,tune4] [--cv split|K] [--seed 22]
 *   node --import tsx eval/fit-ranker.ts grid --grid settings.json [--cv …]   # many settings cross-validated, one line each
 *   node --import tsx eval/fit-ranker.ts csfcube [same flags] [--rows]   # CSFCube nDCG@10 (all 50) of the model fitted on every note
 *   node --import tsx eval/fit-ranker.ts fit [same flags]                # fit on every note → data/judge/ranker.json
 *
 * `--splits` names the tuning splits whose graded notes are used (default all four: 76 notes once graded;
 * `--splits tune3,tune4` is the first 40, as the model of 0.3 was fitted). `--cv split` (default) holds back one split
 * at a time; `--cv K` holds back one of K folds of whole notes drawn with `--seed`. `--free a,b` leaves those
 * features unpenalised by lambda (so a large lambda shrinks the model towards them, e.g. towards the fixed map).
 *
 * Defaults are the settings `CHOSEN` below, picked by `cv` alone. `--pairwise 1` fits the weights on pairs of one
 * note's papers with different grades (2 over 1 or 0, 1 over 0; `2`: only pairs with a 2), then one slope and
 * intercept on the pooled papers; `0` fits a plain logistic regression. `--shift` adds to the log-odds (moves the
 * line, so more or fewer papers clear it).
 *
 * `cv` prints, per fold and pooled over the held-back folds (each note judged by a model that never saw its
 * grades), what the keep rule keeps (src/core/rules.ts `keepOrder` over the recorded pools, as `judge-pools.ts
 * grades`): strict precision and off-topic share with 95 % bootstrap intervals over notes, ungraded kept papers,
 * landmarks kept, and how relevance orders the graded papers (AUC of 2s against 0s and 1s), beside the shipped
 * judge's figures on the same notes. A feature may be a product ("coverage*concept").
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { type Ranker, rankerFeatureNames, rankerScore } from "../src/adapters/judge/ranker.js"
import { defaultParams, type PaperFeatures, prepareConcept, scorePaper, type ScoringParams } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import { setTokenCacheLimit } from "../src/adapters/judge/tokenize.js"
import { benchmarkRoot, foldKeys, loadBenchmark, summarize } from "./csfcube-data.js"
import { bandCleared, type Pool } from "./pools-data.js"
import { conceptOf, metrics, scoreUnits } from "./run-scorer.js"
import { readLandmarks, repoRoot, seededRandom, SPLIT_SETS } from "./retrieval-data.js"

const argv = process.argv.slice(2)
const mode = argv[0] ?? "cv"
const flag = (name: string, fallback: string): string => {
  const at = argv.indexOf(`--${name}`)
  return at >= 0 ? argv[at + 1] ?? fallback : fallback
}

/** The features and regularisation chosen by `cv` (eval/precision/README.md, research log). */
export const CHOSEN = {
  features: [
    "fixed",
    "conceptHead",
    "conceptModifier",
    "conceptTitle",
    "strength*novelty",
    "strength*matchedShare",
    "strength*length",
    "strength*titleCoverage"
  ],
  lambda: 1,
  pairwise: "1",
  shift: 0.5,
  csfcube: 0
} as const

const gradesDir = join(repoRoot, "eval", "precision", "grades")
const SPLITS: ReadonlyArray<string> = flag("splits", SPLIT_SETS.tuning.join(",")).split(",").filter((x) => x !== "")
for (const s of SPLITS) {
  if (!(SPLIT_SETS.tuning as ReadonlyArray<string>).includes(s)) throw new Error(`--splits takes tuning splits only (${SPLIT_SETS.tuning.join(", ")}), not "${s}"`)
}
type Fold = string
/** The graded tuning notes of SPLITS (a note without a grade file is not yet graded and is left out). */
const tuningNotes = new Map(
  readLandmarks()
    .filter((n) => SPLITS.includes(n.split) && existsSync(join(gradesDir, `${n.note}.json`)))
    .map((n) => [n.note, n.split as Fold])
)
const poolsFile = join(repoRoot, "eval", ".cache", "judge-pools-tuning.json")
const cacheFile = join(repoRoot, "eval", ".cache", "ranker-features.json")

interface Row {
  readonly id: string
  readonly features: PaperFeatures
  /** the shipped judge's relevance */
  readonly relevance: number
}
interface Note {
  readonly pool: Pool
  readonly fold: Fold
  readonly rows: ReadonlyArray<Row>
  readonly grades: Readonly<Record<string, 0 | 1 | 2>>
}

/** Every tuning pool's papers with their signals under the shipped scoring knobs (cached: the scoring takes a minute). */
const loadNotes = (p: ScoringParams): ReadonlyArray<Note> => {
  if (!existsSync(poolsFile)) throw new Error(`no recorded pools: run node --import tsx eval/judge-pools.ts record --split tuning`)
  const recorded = JSON.parse(readFileSync(poolsFile, "utf8")) as ReadonlyArray<Pool>
  const pools = recorded.filter((x) => tuningNotes.has(x.note))
  // the signals of every recorded pool, so a cache serves any choice of --splits
  const stamp = `${readFileSync(poolsFile).length}:${recorded.length}:${JSON.stringify(p)}`
  let cached: Record<string, ReadonlyArray<Row>> | undefined
  if (existsSync(cacheFile)) {
    const c = JSON.parse(readFileSync(cacheFile, "utf8")) as { stamp: string; rows: Record<string, ReadonlyArray<Row>> }
    if (c.stamp === stamp) cached = c.rows
  }
  if (cached === undefined) {
    setTokenCacheLimit(50_000)
    const table = arxivDfTable()
    const vectors = arxivTermVectors()
    cached = {}
    for (const pool of recorded) {
      const c = prepareConcept(pool.concept, table, p, vectors)
      cached[pool.note] = pool.papers.map((paper) => {
        const s = scorePaper(c, paper, table, p, vectors, null)
        return { id: paper.arxivId, features: s.features, relevance: s.relevance }
      })
    }
    writeFileSync(cacheFile, JSON.stringify({ stamp, rows: cached }))
  }
  return pools.map((pool) => {
    // only a tuning note's grade file is read
    const file = join(gradesDir, `${pool.note}.json`)
    const graded = (JSON.parse(readFileSync(file, "utf8")) as { papers: Record<string, { grade: 0 | 1 | 2 }> }).papers
    const grades: Record<string, 0 | 1 | 2> = {}
    for (const [id, g] of Object.entries(graded)) grades[id] = g.grade
    return { pool, fold: tuningNotes.get(pool.note)!, rows: cached[pool.note]!, grades }
  })
}

/** The value of a feature expression ("coverage", "coverage*concept") for one paper. */
const valueOf = (f: PaperFeatures, expr: string): number =>
  expr.split("*").reduce((v, name) => {
    const x = (f as unknown as Record<string, number>)[name]
    if (x === undefined) throw new Error(`unknown feature ${name}: one of ${rankerFeatureNames.join(", ")}`)
    return v * x
  }, 1)

/**
 * L2-regularised logistic regression by Newton's method, on standardised features (lambda penalises the
 * standardised weights, not the intercept), returned on the raw features.
 */
const fitLogistic = (
  xs: ReadonlyArray<ReadonlyArray<number>>,
  ys: ReadonlyArray<number>,
  lambda: number,
  free: ReadonlyArray<boolean> = [],
  sw: ReadonlyArray<number> = []
) => {
  const d = xs[0]!.length
  const mean = new Array<number>(d).fill(0)
  const sd = new Array<number>(d).fill(0)
  for (const x of xs) for (let j = 0; j < d; j++) mean[j]! += x[j]! / xs.length
  for (const x of xs) for (let j = 0; j < d; j++) sd[j]! += (x[j]! - mean[j]!) ** 2 / xs.length
  for (let j = 0; j < d; j++) sd[j] = Math.sqrt(sd[j]!) || 1
  const zs = xs.map((x) => [1, ...x.map((v, j) => (v - mean[j]!) / sd[j]!)])
  const w = new Array<number>(d + 1).fill(0)
  for (let it = 0; it < 100; it++) {
    const g = new Array<number>(d + 1).fill(0)
    const h = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0))
    zs.forEach((z, i) => {
      const p = 1 / (1 + Math.exp(-z.reduce((s, v, j) => s + v * w[j]!, 0)))
      const c = sw[i] ?? 1
      for (let j = 0; j <= d; j++) {
        g[j]! += c * (p - ys[i]!) * z[j]!
        for (let k = 0; k <= d; k++) h[j]![k]! += c * p * (1 - p) * z[j]! * z[k]!
      }
    })
    for (let j = 1; j <= d; j++) if (free[j - 1] !== true) g[j]! += lambda * w[j]!, h[j]![j]! += lambda
    const step = solve(h, g)
    for (let j = 0; j <= d; j++) w[j]! -= step[j]!
    if (step.reduce((s, v) => s + Math.abs(v), 0) < 1e-10) break
  }
  const weights = w.slice(1).map((v, j) => v / sd[j]!)
  const bias = w[0]! - weights.reduce((s, v, j) => s + v * mean[j]!, 0)
  return { bias, weights }
}

/** Gaussian elimination with partial pivoting: h · x = g. */
const solve = (h: ReadonlyArray<ReadonlyArray<number>>, g: ReadonlyArray<number>): Array<number> => {
  const n = g.length
  const a = h.map((row, i) => [...row, g[i]!])
  for (let c = 0; c < n; c++) {
    let pivot = c
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[pivot]![c]!)) pivot = r
    ;[a[c], a[pivot]] = [a[pivot]!, a[c]!]
    for (let r = c + 1; r < n; r++) {
      const f = a[r]![c]! / a[c]![c]!
      for (let k = c; k <= n; k++) a[r]![k]! -= f * a[c]![k]!
    }
  }
  const x = new Array<number>(n).fill(0)
  for (let r = n - 1; r >= 0; r--) {
    let s = a[r]![n]!
    for (let k = r + 1; k < n; k++) s -= a[r]![k]! * x[k]!
    x[r] = s / a[r]![r]!
  }
  return x
}

/** What `cv`, `csfcube` and `fit` fit: the features, the regularisation, the fitting method and the shift. */
interface Setting {
  readonly features: ReadonlyArray<string>
  readonly lambda: number
  /** features lambda does not penalise */
  readonly free: ReadonlyArray<string>
  /** "" plain logistic, "1" pairs of any two grades, "2" pairs with a 2 */
  readonly pairwise: string
  readonly shift: number
  /**
   * how much CSFCube's fold1_dev units whose title names a concept (strength > 0) count in the pairwise fit: their
   * pairs of candidates with different grades weigh, in total, this many times the notes' pairs (0: notes only)
   */
  readonly csfcube: number
}

/**
 * The candidates of CSFCube's fold1_dev units whose title names a concept (the only units a learned relevance moves),
 * with their signals and grades (0–3), for `--csfcube W`. fold1_dev is the fold the fixed map was fitted on.
 */
let devUnits: ReadonlyArray<ReadonlyArray<{ readonly features: PaperFeatures; readonly grade: number }>> | undefined
const csfcubeDev = () => {
  if (devUnits !== undefined) return devUnits
  const bench = loadBenchmark(benchmarkRoot())
  const dev = foldKeys(bench, "fold1_dev")
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  return (devUnits = bench.units.filter((u) => dev.has(u.key)).flatMap((u) => {
    const c = prepareConcept(conceptOf(u), table, defaultParams, vectors)
    if (c.central.strength === 0) return []
    return [u.candidates.map((cand) => ({
      features: scorePaper(c, cand, table, defaultParams, vectors, null).features,
      grade: u.grades.get(cand.id) ?? 0
    }))]
  }))
}

const fitOn = (notes: ReadonlyArray<Note>, setting: Setting): Ranker => {
  const { features, lambda, free: FREE, pairwise: PAIRWISE, shift: SHIFT, csfcube: CSF } = setting
  const xs: Array<Array<number>> = []
  const ys: Array<number> = []
  const byNote: Array<Array<{ x: Array<number>; y: number }>> = []
  for (const n of notes) {
    const rows: Array<{ x: Array<number>; y: number }> = []
    for (const r of n.rows) {
      const g = n.grades[r.id]
      if (g === undefined) continue
      const x = features.map((f) => valueOf(r.features, f))
      xs.push(x)
      ys.push(g === 2 ? 1 : 0)
      rows.push({ x, y: g })
    }
    byNote.push(rows)
  }
  let { bias, weights } = fitLogistic(xs, ys, lambda, features.map((f) => FREE.includes(f)))
  if (PAIRWISE) {
    // a pairwise ranker: the weights from pairs of one note's papers with different grades (which is the better),
    // then one slope and intercept on the pooled papers so the probability is calibrated
    const px: Array<Array<number>> = []
    const py: Array<number> = []
    let flip = false
    const pairsOf = (rows: ReadonlyArray<{ x: ReadonlyArray<number>; y: number }>, top: number) => {
      for (const a of rows) {
        for (const b of rows) {
          if (a.y <= b.y || (PAIRWISE === "2" && a.y !== top)) continue
          flip = !flip
          px.push(a.x.map((v, j) => (flip ? v - b.x[j]! : b.x[j]! - v)))
          py.push(flip ? 1 : 0)
        }
      }
    }
    for (const rows of byNote) pairsOf(rows, 2)
    const notePairs = px.length
    if (CSF > 0) {
      for (const unit of csfcubeDev()) pairsOf(unit.map((r) => ({ x: features.map((f) => valueOf(r.features, f)), y: r.grade })), 3)
    }
    // the CSFCube pairs weigh CSF times the notes' pairs in total
    const each = px.length > notePairs ? (CSF * notePairs) / (px.length - notePairs) : 0
    const sw = px.map((_, i) => (i < notePairs ? 1 : each))
    const pw = fitLogistic(px, py, lambda, features.map((f) => FREE.includes(f)), sw).weights
    const one = fitLogistic(xs.map((x) => [x.reduce((s, v, j) => s + v * pw[j]!, 0)]), ys, 0)
    weights = pw.map((v) => v * one.weights[0]!)
    bias = one.bias
  }
  // SHIFT moves the line: log-odds + SHIFT (chosen by the cross-validation, like the features)
  bias += SHIFT
  const round = (v: number) => Math.round(v * 1e6) / 1e6
  return {
    target: "graded 2 (a student of the note should read it) against graded 0 or 1",
    features: features.map((f, j) => ({ name: f, weight: round(weights[j]!) })),
    bias: round(bias),
    fitted: {
      pairs: ys.length,
      twos: ys.filter((y) => y === 1).length,
      lambda,
      ...(FREE.length === 0 ? {} : { unpenalised: FREE }),
      notes: notes.length,
      splits: [...new Set(notes.map((n) => n.fold))],
      ...(SHIFT === 0 ? {} : { shift: SHIFT }),
      ...(CSF === 0 ? {} : { csfcube: { units: csfcubeDev().length, fold: "fold1_dev", weight: CSF } })
    }
  }
}

interface NoteResult {
  readonly kept: number
  readonly graded: number
  readonly twos: number
  readonly zeros: number
  readonly ungraded: number
  readonly landmarks: number
  readonly landmarksKept: number
  readonly auc20: number | undefined
  readonly auc21: number | undefined
  readonly logLoss: number
  readonly pairs: number
}

const auc = (hi: ReadonlyArray<number>, lo: ReadonlyArray<number>): number | undefined => {
  if (hi.length === 0 || lo.length === 0) return undefined
  let wins = 0
  for (const h of hi) for (const l of lo) wins += h > l ? 1 : h === l ? 0.5 : 0
  return wins / (hi.length * lo.length)
}

/** What the keep rule keeps for a note when papers have the given relevance. */
const evaluate = (n: Note, relevanceOf: (r: Row) => number): NoteResult => {
  const rel = new Map(n.rows.map((r) => [r.id, relevanceOf(r)]))
  const kept = bandCleared(n.pool, rel, undefined, PLACES).slice(0, 10)
  const g = (id: string) => n.grades[id]
  const gradedKept = kept.filter((id) => g(id) !== undefined)
  const by: [Array<number>, Array<number>, Array<number>] = [[], [], []]
  let logLoss = 0
  let pairs = 0
  for (const [id, grade] of Object.entries(n.grades)) {
    const r = rel.get(id)
    if (r === undefined) continue
    by[grade].push(r)
    const q = Math.min(1 - 1e-6, Math.max(1e-6, r))
    logLoss -= grade === 2 ? Math.log(q) : Math.log(1 - q)
    pairs++
  }
  return {
    kept: kept.length,
    graded: gradedKept.length,
    twos: gradedKept.filter((id) => g(id) === 2).length,
    zeros: gradedKept.filter((id) => g(id) === 0).length,
    ungraded: kept.length - gradedKept.length,
    landmarks: n.pool.landmarks.length,
    landmarksKept: n.pool.landmarks.filter((l) => kept.includes(l.id)).length,
    auc20: auc(by[2], by[0]),
    auc21: auc(by[2], by[1]),
    logLoss,
    pairs
  }
}

/**
 * `--combine veto`: the fixed map orders and the model only vetoes (a paper it gives less than ½ gets half the fixed
 * map's relevance, below the bar); `--combine model` (default): the model's probability is the relevance.
 */
const COMBINE = flag("combine", "model")
const combined = (fixed: number, modelLogOdds: number): number =>
  COMBINE === "veto" ? (modelLogOdds >= 0 ? fixed : fixed / 2) : 1 / (1 + Math.exp(-modelLogOdds))

/** The places of the shipped rule (relevant papers without a count compete); `--places 0`: the kept papers alone, the rule before. */
const PLACES = flag("places", "1") !== "0"

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))] ?? 0

/** A pooled share over notes and its 95 % bootstrap interval over notes (seeded as eval/precision.ts). */
const pooled = (rows: ReadonlyArray<NoteResult>, num: (r: NoteResult) => number, den: (r: NoteResult) => number) => {
  const share = (rs: ReadonlyArray<NoteResult>) => {
    const d = rs.reduce((k, r) => k + den(r), 0)
    return d === 0 ? 0 : rs.reduce((k, r) => k + num(r), 0) / d
  }
  const random = seededRandom(22)
  const samples: Array<number> = []
  for (let b = 0; b < 2000 && rows.length > 0; b++) samples.push(share(rows.map(() => rows[Math.floor(random() * rows.length)]!)))
  samples.sort((a, b) => a - b)
  const pc = (x: number) => (100 * x).toFixed(1)
  return `${pc(share(rows))} % (${pc(percentile(samples, 0.025))}–${pc(percentile(samples, 0.975))})`
}

const summary = (label: string, rows: ReadonlyArray<NoteResult>): string => {
  const sum = (f: (r: NoteResult) => number) => rows.reduce((s, r) => s + f(r), 0)
  const mean = (xs: ReadonlyArray<number | undefined>) => {
    const d = xs.filter((x): x is number => x !== undefined)
    return (d.reduce((a, b) => a + b, 0) / Math.max(1, d.length)).toFixed(3)
  }
  return `${label.padEnd(22)} kept ${sum((r) => r.kept)}, strict ${pooled(rows, (r) => r.twos, (r) => r.graded)}, ` +
    `off-topic ${pooled(rows, (r) => r.zeros, (r) => r.graded)}, ungraded ${sum((r) => r.ungraded)}, ` +
    `landmarks ${sum((r) => r.landmarksKept)}/${sum((r) => r.landmarks)} ${pooled(rows, (r) => r.landmarksKept, (r) => r.landmarks)}; AUC 2v0 ${mean(rows.map((r) => r.auc20))} ` +
    `2v1 ${mean(rows.map((r) => r.auc21))}; log-loss ${(sum((r) => r.logLoss) / Math.max(1, sum((r) => r.pairs))).toFixed(3)}`
}

const given: Setting = {
  features: flag("features", CHOSEN.features.join(",")).split(",").filter((f) => f !== ""),
  lambda: Number(flag("lambda", String(CHOSEN.lambda))),
  free: flag("free", "").split(",").filter((f) => f !== ""),
  pairwise: flag("pairwise", CHOSEN.pairwise) === "0" ? "" : flag("pairwise", CHOSEN.pairwise),
  shift: Number(flag("shift", String(CHOSEN.shift))),
  csfcube: Number(flag("csfcube", String(CHOSEN.csfcube)))
}
const describe = (s: Setting) =>
  `features ${s.features.join(",")} lambda ${s.lambda}${s.free.length > 0 ? ` free ${s.free.join(",")}` : ""} ` +
  `pairwise ${s.pairwise || "0"} shift ${s.shift}${s.csfcube > 0 ? ` csfcube ${s.csfcube}` : ""}`
const notes = loadNotes(defaultParams)

/** The cross-validation folds: one per split (`--cv split`), or K folds of whole notes drawn with `--seed`. */
const foldsOf = (ns: ReadonlyArray<Note>): ReadonlyArray<{ readonly name: string; readonly test: ReadonlySet<string> }> => {
  const how = flag("cv", "split")
  if (how === "split") {
    return [...new Set(ns.map((n) => n.fold))].map((f) => ({ name: f, test: new Set(ns.filter((n) => n.fold === f).map((n) => n.pool.note)) }))
  }
  const k = Number(how)
  if (!Number.isInteger(k) || k < 2 || k > ns.length) throw new Error(`--cv must be split or a number of folds 2..${ns.length}, not "${how}"`)
  const random = seededRandom(Number(flag("seed", "22")))
  const order = ns.map((n) => ({ note: n.pool.note, r: random() })).sort((a, b) => a.r - b.r || a.note.localeCompare(b.note))
  return Array.from({ length: k }, (_, i) => ({
    name: `fold ${i + 1}/${k}`,
    test: new Set(order.filter((_, j) => j % k === i).map((x) => x.note))
  }))
}

/** Cross-validated: every note judged by a model fitted without its fold; beside the shipped judge on the same notes. */
const crossValidate = (setting: Setting, verbose: boolean) => {
  const shipped: Array<NoteResult> = []
  const learned: Array<NoteResult> = []
  for (const { name: fold, test: held } of foldsOf(notes)) {
    const train = notes.filter((n) => !held.has(n.pool.note))
    const test = notes.filter((n) => held.has(n.pool.note))
    const model = fitOn(train, setting)
    const s = test.map((n) => evaluate(n, (r) => r.relevance))
    const l = test.map((n) => evaluate(n, (r) => combined(r.relevance, rankerScore(model, r.features))))
    shipped.push(...s)
    learned.push(...l)
    if (verbose) {
      console.log(`fit without ${fold} (${train.length} notes): ${model.features.map((f) => `${f.name} ${f.weight.toFixed(2)}`).join(", ")}, bias ${model.bias.toFixed(2)}`)
      console.log(summary(`  ${fold} shipped judge`, s))
      console.log(summary(`  ${fold} learned`, l))
    }
  }
  return { shipped, learned }
}

if (mode === "cv") {
  const { shipped, learned } = crossValidate(given, argv.includes("--folds"))
  console.log(`${notes.length} notes (${SPLITS.join(", ")}), cv ${flag("cv", "split")}; ${describe(given)}`)
  console.log(summary("shipped judge", shipped))
  console.log(summary("learned (cv)", learned))
} else if (mode === "grid") {
  // --grid FILE: a JSON array of settings ({label?, features?, lambda?, free?, pairwise?, shift?} over the flags), each cross-validated
  const grid = JSON.parse(readFileSync(flag("grid", ""), "utf8")) as ReadonlyArray<Partial<Setting> & { label?: string }>
  console.log(`${notes.length} notes (${SPLITS.join(", ")}), cv ${flag("cv", "split")}`)
  let first = true
  for (const g of grid) {
    const setting: Setting = { ...given, ...g, pairwise: g.pairwise === undefined ? given.pairwise : g.pairwise === "0" ? "" : g.pairwise }
    const { shipped, learned } = crossValidate(setting, false)
    if (first) console.log(summary("shipped judge", shipped)), first = false
    console.log(`# ${g.label ?? ""} ${describe(setting)}`)
    console.log(summary("learned (cv)", learned))
  }
} else if (mode === "csfcube") {
  // nDCG@10 on all 50 CSFCube queries, ranked by relevance: the model fitted on all tuning notes against the fixed map
  const model = fitOn(notes, given)
  const bench = loadBenchmark(benchmarkRoot())
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  const per: Array<ReadonlyArray<{ key: string; ndcg10: number }>> = []
  // --dev: fold1_dev only (the fold the fixed map and --csfcube fit on), so a setting can be chosen without the other fold
  const dev = foldKeys(bench, "fold1_dev")
  const units = argv.includes("--dev") ? bench.units.filter((u) => dev.has(u.key)) : bench.units
  for (const [label, r] of [["fixed map", null], ["learned", model]] as const) {
    const scored = COMBINE === "veto" && r !== null
      ? scoreUnits(units, table, defaultParams, vectors, null).map((u, i) => {
        // the model's log-odds from its own scoring of the same unit (strength-weighted as the judge does)
        const m = scoreUnits([units[i]!], table, defaultParams, vectors, r)[0]!
        const vetoed = m.relevance.map((x) => x < 0.5)
        const rel = u.relevance.map((x, j) => (vetoed[j] ? x / 2 : x))
        return { ...u, relevance: rel, rankScore: rel }
      })
      : scoreUnits(units, table, defaultParams, vectors, r).map((u) => ({ ...u, rankScore: u.relevance }))
    per.push(metrics(scored))
    console.log(`CSFCube nDCG@10 ${argv.includes("--dev") ? "fold1_dev" : "all"} ${units.length}, ${label}: ${summarize(metrics(scored)).ndcg10.toFixed(4)}`)
  }
  if (argv.includes("--rows")) {
    per[0]!.forEach((a, i) => {
      const b = per[1]![i]!
      if (Math.abs(a.ndcg10 - b.ndcg10) > 1e-9) console.log(`  ${a.key.padEnd(24)} ${a.ndcg10.toFixed(3)} → ${b.ndcg10.toFixed(3)}`)
    })
  }
} else if (mode === "fit") {
  const model = fitOn(notes, given)
  const file = join(repoRoot, "data", "judge", "ranker.json")
  writeFileSync(file, `${JSON.stringify(model, null, 1)}\n`)
  console.log(`${model.features.map((f) => `${f.name} ${f.weight}`).join(", ")}, bias ${model.bias} → ${file}`)
  console.log(summary("fitted on all (in-sample)", notes.map((n) => evaluate(n, (r) => 1 / (1 + Math.exp(-rankerScore(model, r.features)))))))
} else {
  throw new Error(`unknown mode ${mode}: cv, grid, csfcube or fit`)
}
