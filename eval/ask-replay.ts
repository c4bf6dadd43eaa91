/**
 * `node --import tsx eval/ask-replay.ts` — the ask eval's diagnosis and replay, on the TUNING questions only
 * (eval/ask/questions.jsonl; the held-out set is never read here).
 *
 * 1. Runs `askArxivTraced` once per question (rules, offline corpus, local judge, top 10) and keeps every
 *    candidate's features: the judge's relevance, its fit to the question, the channels that found it, and
 *    its recorded citation count whether or not the pipeline looked it up.
 * 2. Prints, for every expected paper not in the top 10, why: not a candidate, or its place, the judge's
 *    relevance, the question's relevance, its count (and whether it was looked up), the keep rule's decision.
 * 3. Replays the ranking (the same `decideAll` and keep rule as ask.ts) under the settings given by
 *    `--grid` (and `--unrecorded band,after,rank`, `--intro-kind named,contrib,terms` with `introduce=` in the grid)
 *    and prints top 3 / top 10 for each, and the same counting the papers ask lists right after its top (relevant,
 *    impact not recorded), so a setting can be chosen on tuning questions alone. `--show-unrecorded` prints the
 *    top 3 of each question where placing those papers at their relevance's rank would change it.
 *
 * 4. `--rejudge "…"` re-judges every recorded candidate under the judge's question knobs (ninth round); `--prf
 *    "source=rel,answer;k=3,5,10;n=3,6;r=1,2"` under pseudo-relevance feedback, the judge's words widened with the
 *    stems the first k papers' titles share (tenth round; `--show-feedback` prints each question's stems for each source at the first k and n); with `--lock 3` and the axes
 *    `m=2,3;c=0.05,0.02;combine=fb,max`, main's top 3 kept and the feedback ordering only the places after them
 *    (eleventh round). `--agree "combine=mean,min,place;lock=0,1"`: the first three places chosen by both judgings
 *    together (the question's own words' and the shipped field words' re-judging), the rest the shipped answer's order,
 *    against the shipped answer as main (twelfth round; `python3 eval/ask-cv.py FILE current --by top3`). `--out
 *    FILE` writes every setting's per-question figures; eval/ask-cv.py cross-validates them leaving one file out.
 * 5. `--features FILE` writes every candidate's relevance under both judgings, its count and its places (the twelfth
 *    round's diagnosis).
 * 6. `--band "scope=whole,top3;band=0.05,0.03,0.02,0.01;unrecorded=after,rank,median"` (thirteenth round): ask's
 *    order with another band of near-ties and another place for a paper without a count inside its band, on the whole
 *    answer or its first three places, against the shipped answer as main (`--check-band` first checks that band 0.05,
 *    after, gives the shipped answer in both scopes; `--out` rows then carry each question's top 3 ids too).
 *
 * `--cache FILE` keeps the features between runs (JSON). `--pool N` dumps with a pool of N papers instead of ask's
 * default (then `--grid "pool=…"` replays smaller pools from that dump).
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as CorpusArxiv from "../src/adapters/arxiv/CorpusArxiv.js"
import * as ArxivTermStats from "../src/adapters/judge/ArxivTermStats.js"
import * as LocalJudge from "../src/adapters/judge/LocalJudge.js"
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams, type PreparedPaper, preparePaper, prepareConcept, type ScoringParams, scorePrepared } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import * as RecordedOpenAlex from "../src/adapters/openalex/RecordedOpenAlex.js"
import * as RuleQueryBuilder from "../src/adapters/query/RuleQueryBuilder.js"
import { answerRanking, askArxivTraced, AskOptions } from "../src/core/ask.js"
import type { Channel, MergedCandidates } from "../src/core/channels.js"
import { CompanionOptions, Impact, ImpactSource, Judgement, Paper } from "../src/core/models.js"
import { OpenAlexPort } from "../src/core/ports/OpenAlexPort.js"
import { QueryBuilderPort } from "../src/core/ports/QueryBuilderPort.js"
import { type QuestionConcept, type QuestionFit, questionFit } from "../src/core/question.js"
import { keepBest, keepOrder, NEAR_EQUAL_RELEVANCE } from "../src/core/rules.js"
import type { ScoredPaper } from "../src/core/models.js"
import * as Stages from "../src/core/stages.js"
import { bootstrapMean, repoRoot } from "./retrieval-data.js"

interface Question {
  readonly question: string
  readonly expected: ReadonlyArray<string>
}

interface Candidate {
  readonly id: string
  readonly title: string
  /** The abstract (for replaying features read from it). */
  readonly abstract: string
  readonly published: string
  readonly judge: number
  readonly fit: QuestionFit
  readonly foundBy: ReadonlyArray<Channel>
  /** 1-based rank in the pool's arXiv results (absent: another channel alone found it). */
  readonly poolRank?: number | undefined
  readonly count?: { readonly citations: number; readonly source: { name: string; recordedOn?: string | undefined; detail?: string | undefined } } | undefined
}

interface Dumped {
  /** The question file it came from (`tuning`, `heldout2`, …). */
  readonly set?: string | undefined
  readonly question: string
  readonly expected: ReadonlyArray<string>
  readonly top10: ReadonlyArray<string>
  /** The question's concept (its key terms), for features replayed from the candidates' text. */
  readonly concept: QuestionConcept
  readonly candidates: ReadonlyArray<Candidate>
  readonly lookupSource: { name: string; recordedOn?: string | undefined; detail?: string | undefined } | undefined
  readonly asOf: string | undefined
  /** The words the judge read beside the question (ask.ts `judgeWords`), for re-judging (`--rejudge`). */
  readonly judgeWords?: ReadonlyArray<string> | undefined
}

const argument = (name: string): string | undefined => {
  const i = process.argv.indexOf(name)
  return i < 0 ? undefined : process.argv[i + 1]
}

/** A grid's axes as an option writes them, `"k=5,10;m=2,3"`: each axis's values, as written. */
const axesOf = (spec: string): Record<string, Array<string>> =>
  Object.fromEntries(spec.split(";").map((a) => {
    const [k, v] = a.split("=")
    return [k!, v!.split(",")]
  }))

/** The same, each value a number. */
const numericAxesOf = (spec: string): Record<string, Array<number>> =>
  Object.fromEntries(Object.entries(axesOf(spec)).map(([k, v]) => [k, v.map(Number)]))

/**
 * `--set tuning,heldout2,heldout3`: the tuning question files to read (`tuning` is questions.jsonl, another name
 * questions-<name>.jsonl); each question carries its file's name. Held-out sets are refused: never tuned on.
 */
const sets = (argument("--set") ?? "tuning").split(",")
if (sets.some((name) => name === "heldout" || name === "heldout5")) {
  console.error("the replay tunes: it never reads a held-out set")
  process.exit(2)
}
const questions: ReadonlyArray<Question & { readonly set: string }> = sets.flatMap((name) =>
  readFileSync(join(repoRoot, "eval", "ask", name === "tuning" ? "questions.jsonl" : `questions-${name}.jsonl`), "utf8")
    .split("\n").filter((l) => l.trim() !== "").map((l) => ({ ...(JSON.parse(l) as Question), set: name })))

const dump = Effect.gen(function*() {
  const openalex = yield* OpenAlexPort
  const builder = yield* QueryBuilderPort
  const out: Array<Dumped> = []
  for (const q of questions) {
    const built = yield* builder.build(q.question)
    // the question's own words' pipeline (without the eleventh round's field words, which `--prf "source=cited;k=10;
    // n=3" --lock 3` replays): every candidate's judge is then the first judging's
    const trace = yield* askArxivTraced(q.question, new AskOptions({ top: 10, fieldWords: false, ...(argument("--pool") === undefined ? {} : { maxResults: Number(argument("--pool")) }) }))
    const fitOf = questionFit(trace.concept)
    const ids = trace.order.map((s) => s.paper.arxivId)
    const lookup = yield* openalex.worksByArxivIds(ids)
    const counts = new Map(lookup.impacts.map((i) => [i.arxivId, i] as const))
    out.push({
      set: q.set,
      question: q.question,
      expected: q.expected,
      top10: trace.answer.papers.map((p) => p.paper.arxivId),
      concept: trace.concept,
      candidates: trace.order.map((s) => {
        const c = counts.get(s.paper.arxivId)
        return {
          id: s.paper.arxivId,
          title: s.paper.title.replace(/\s+/g, " "),
          abstract: s.paper.abstract,
          published: s.paper.published,
          judge: trace.judgeRelevance.get(s.paper.arxivId)!,
          fit: fitOf(s.paper),
          foundBy: s.foundBy ?? ["arxiv-search"],
          poolRank: trace.poolRank.get(s.paper.arxivId),
          ...(c === undefined ? {} : { count: { citations: c.citationCount, source: { ...c.source } } })
        }
      }),
      lookupSource: lookup.source === undefined ? undefined : { ...lookup.source },
      asOf: lookup.asOf,
      judgeWords: [...built.keywords, ...(built.concept.related ?? [])]
    })
    process.stderr.write(".")
  }
  process.stderr.write("\n")
  return out
}).pipe(
  Effect.provide(
    Layer.mergeAll(RuleQueryBuilder.layer, LocalJudge.layer, ArxivTermStats.layer, CorpusArxiv.layer(), RecordedOpenAlex.layer()).pipe(
      Layer.provideMerge(NodeContext.layer)
    )
  )
)

/** A ranking setting to replay. */
interface Setting {
  /** The judge's relevance of each candidate re-judged under other knobs (`--rejudge`), by question; absent: the dump's. */
  readonly judged?: ReadonlyMap<string, ReadonlyMap<string, number>> | undefined
  /** The question's relevance of a candidate from the judge's and its fit. */
  readonly relevance: (judge: number, fit: QuestionFit) => number
  /**
   * The fit read with the key terms' weights raised to this power (1: as ask.ts; higher: the question's most
   * informative term, its central concept, weighs more against its generic words), over its first `terms` terms.
   */
  readonly power?: number | undefined
  readonly terms?: number | undefined
  /** How many relevant candidates get their impact looked up. */
  readonly lookups: number
  /** The pool's size: pool papers past it are left out unless another channel found them too (default: all). */
  readonly pool?: number | undefined
  /**
   * Where a relevant paper without a recorded count goes in the answer: in its "band" like a new paper, losing only
   * near-ties to counted papers (ask.ts since the fourth round, the default), "after" the kept ones (before it), or
   * at the "rank" its relevance alone gives it among those that cleared both bars.
   */
  readonly unrecorded?: "after" | "rank" | "band" | undefined
  /** How much a paper that introduces no named method of its own loses (0: nothing). */
  readonly introduce?: number | undefined
  readonly introduceKind?: string | undefined
  /** Past the first `tier` places (keep order, band 0.05), the rest in keep order with a band of `wide`. */
  readonly tier?: number | undefined
  readonly wide?: number | undefined
  /**
   * Impact weighed on relevance in the answer order ({@link blendRanking}) with this weight; -1 (the default): ask.ts
   * `answerRanking`, the keep rule's order (band 0.05). With `tier`, only past the first `tier` places (0: `wide`
   * instead).
   */
  readonly blend?: number | undefined
  /** The most impact adds with `blend` (default 0.05, the band; Infinity: unbounded, the fifth round's order). */
  readonly bound?: number | undefined
  /**
   * The first `lock` places are main's (the question's own words, the dump's judge); the setting orders only the
   * places after them, main's first `lock` papers left out (the eleventh round's protected top 3).
   */
  readonly lock?: number | undefined
  /**
   * The twelfth round: the first three places chosen by both judgings together (the question's own words' and the
   * field words' re-judging `fed`), "mean" / "min" of the two relevances in keep order, or "place", the mean of the
   * two keep orders' places; the first `lock` places main's; the places after the three the shipped answer's order.
   */
  readonly agree?: { readonly combine: "mean" | "min" | "place"; readonly lock: number; readonly fed: ReadonlyMap<string, ReadonlyMap<string, number>> } | undefined
  /**
   * The thirteenth round: ask's order with another band of near-ties (`width`) and another place for a paper without
   * a count in its band (`unrecorded`: "after" the counted ones as main, "rank" its relevance's place among the band's
   * papers, "median" as if it had the band's counted papers' median citations a year); `scope` "whole": both
   * judgings' orders (the first three and places 4–10); "top3": the first three only, the rest the shipped order.
   */
  readonly band?: { readonly width: number; readonly unrecorded: "after" | "rank" | "median"; readonly scope: "whole" | "top3"; readonly fed: ReadonlyMap<string, ReadonlyMap<string, number>> } | undefined
}

const CONTRIB = /\b(?:we|this paper|this work|here we|in this paper,? we)\s+(?:also\s+|first\s+|further\s+)?(?:propose|introduce|present|develop|describe)(?:s|d)?\b/i
/** Whether a paper introduces a named method (prototype of the feature). */
const introducesNamed = (title: string, abstract: string): boolean => {
  const flat = abstract.replace(/\s+/g, " ")
  if (/^[^\s:]+(?:\s[^\s:]+)?:\s/.test(title.trim())) return true
  if (/\b(?:called|named|dubbed|termed|coined)\s+(?:the\s+|a\s+)?["“']?[A-Z]/.test(flat)) return true
  for (const sentence of flat.split(/(?<=[.!?])\s+(?=[A-Z])/)) {
    if (!CONTRIB.test(sentence)) continue
    if (/\((?:[A-Z][\w-]*\s?){1,3}\)/.test(sentence)) return true
    if (/\bwe\s+(?:introduce|propose|present)\s+(?:the\s+)?["“]?[A-Z][\w-]*\b/.test(sentence.replace(/^We\b/, "we"))) return true
  }
  return false
}
/** The share of the question's key-term weight the abstract's contribution sentences ("we propose …") name. */
const introducesTerms = (concept: QuestionConcept, c: { title: string; abstract: string }): number => {
  const said = c.abstract.replace(/\s+/g, " ").split(/(?<=[.!?])\s+(?=[A-Z])/).filter((x) => CONTRIB.test(x)).join(" ")
  return said === "" ? 0 : questionFit(concept)({ title: said, abstract: "" }).title
}
const introducesKind = (kind: string, c: { title: string; abstract: string }, concept?: QuestionConcept): number =>
  kind === "terms" ? introducesTerms(concept!, c)
  : kind === "named" ? (introducesNamed(c.title, c.abstract) ? 1 : 0)
  : kind === "contrib" ? (c.abstract.replace(/\s+/g, " ").split(/(?<=[.!?])\s+(?=[A-Z])/).some((x) => CONTRIB.test(x)) ? 1 : 0)
  : 0

const thresholds = new CompanionOptions({})

/** The pipeline's answer order (ask.ts) under a setting: the top `top` ids. */
const replay = (all: Dumped, s: Setting, top: number, listed = false): ReadonlyArray<string> => {
  const d: Dumped = s.pool === undefined ? all : {
    ...all,
    candidates: all.candidates.filter((c) => c.poolRank === undefined || c.poolRank <= s.pool! || c.foundBy.some((ch) => ch !== "arxiv-search"))
  }
  const papers = d.candidates.map((c) => new Paper({ arxivId: c.id, title: c.title, abstract: "", authors: [], published: c.published, categories: [] }, true))
  const refit = s.power === undefined && s.terms === undefined ? undefined : questionFit({
    terms: d.concept.terms.slice(0, s.terms ?? d.concept.terms.length).map((t) => ({ ...t, weight: Math.pow(t.weight, s.power ?? 1) }))
  })
  const fitOf = (c: Candidate) => refit === undefined ? c.fit : refit({ title: c.title, abstract: c.abstract })
  const judgeOf = (c: Candidate) => s.judged?.get(d.question)?.get(c.id) ?? c.judge
  const judgements = new Map(d.candidates.map((c) => [c.id, new Judgement({ arxivId: c.id, relevance: s.relevance(judgeOf(c), fitOf(c)) * (1 - (s.introduce ?? 0) * (1 - introducesKind(s.introduceKind ?? "named", c, d.concept))), novelty: 0, rationale: "" }, true)] as const))
  const impactOf = (c: Candidate) =>
    c.count === undefined ? undefined : new Impact({ arxivId: c.id, citationCount: c.count.citations, source: new ImpactSource(c.count.source, true) }, true)
  const cited = new Map<string, Impact>()
  for (const c of d.candidates) {
    const i = impactOf(c)
    if (c.foundBy.includes("most-cited") && i !== undefined) cited.set(c.id, i)
  }
  const looked = d.candidates
    .filter((c) => judgements.get(c.id)!.relevance >= thresholds.relevanceThreshold)
    .sort((a, b) => judgements.get(b.id)!.relevance - judgements.get(a.id)!.relevance || a.id.localeCompare(b.id))
    .map((c) => c.id).filter((id) => !cited.has(id)).slice(0, s.lookups)
  const impacts = new Map(cited)
  const byId = new Map(d.candidates.map((c) => [c.id, c] as const))
  for (const id of looked) {
    const i = impactOf(byId.get(id)!)
    if (i !== undefined) impacts.set(id, i)
  }
  const found: Stages.Impacts = {
    impacts,
    looked,
    source: d.lookupSource === undefined ? undefined : new ImpactSource(d.lookupSource, true),
    asOf: d.asOf
  }
  const judged: Stages.Judged = { judge: "replay", candidates: papers, judgements }
  const merged: MergedCandidates = { papers, impacts: cited, channels: new Map(d.candidates.map((c) => [c.id, c.foundBy] as const)) }
  const scored = Stages.decideAll(judged, merged, found, "2026-12-01", thresholds)
  if (listed) {
    // the relevant papers without a recorded count that the answer lists right after its top (ask.ts), at most `top`
    const shown = new Set(answerOrder(scored, top, thresholds.relevanceThreshold, s.unrecorded ?? "band", s).slice(0, top).map((x) => x.paper.arxivId))
    return keepBest(scored, { maxResults: top, relevanceThreshold: thresholds.relevanceThreshold }).unrecordedAmongKept
      .filter((x) => !shown.has(x.paper.arxivId)).slice(0, top).map((x) => x.paper.arxivId)
  }
  return answerOrder(scored, top, thresholds.relevanceThreshold, s.unrecorded ?? "band", s).slice(0, top).map((x) => x.paper.arxivId)
}

/** rules.ts keepOrder with another band width (the replay's "wide" setting). */
const keepOrderWithin = (papers: ReadonlyArray<ScoredPaper>, band: number): ReadonlyArray<ScoredPaper> => {
  const byRelevance = papers.slice().sort((a, b) => b.judgement.relevance - a.judgement.relevance || a.paper.arxivId.localeCompare(b.paper.arxivId))
  const ordered: Array<ScoredPaper> = []
  for (let start = 0; start < byRelevance.length;) {
    const top = byRelevance[start]!.judgement.relevance
    let end = start + 1
    while (end < byRelevance.length && top - byRelevance[end]!.judgement.relevance < band) end++
    ordered.push(...byRelevance.slice(start, end).sort((a, b) =>
      (b.impact.citationsPerYear ?? -1) - (a.impact.citationsPerYear ?? -1) || b.judgement.relevance - a.judgement.relevance || a.paper.arxivId.localeCompare(b.paper.arxivId)))
    start = end
  }
  return ordered
}

/**
 * Impact weighed on relevance (the fifth and sixth rounds' alternative to the keep rule's order): by relevance +
 * min(bound, weight · log10(1 + citations a year)) (a paper without a count: relevance alone), then relevance, then
 * arXiv id; a relevant paper without a recorded count goes right before the first counted paper 0.05 or more below it.
 */
const blendRanking = (papers: ReadonlyArray<ScoredPaper>, weight: number, bound: number): ReadonlyArray<ScoredPaper> => {
  const score = (x: ScoredPaper) =>
    x.judgement.relevance + Math.min(bound, weight * Math.log10(1 + Math.max(0, x.impact.citationsPerYear ?? 0)))
  const byRelevance = (a: ScoredPaper, b: ScoredPaper) =>
    b.judgement.relevance - a.judgement.relevance || a.paper.arxivId.localeCompare(b.paper.arxivId)
  const order = papers.filter((x) => x.decision.kind !== "impact-not-recorded")
    .sort((a, b) => score(b) - score(a) || byRelevance(a, b))
  for (const u of papers.filter((x) => x.decision.kind === "impact-not-recorded").sort(byRelevance)) {
    const at = order.findIndex((x) => x.decision.kind !== "impact-not-recorded" && u.judgement.relevance - x.judgement.relevance >= NEAR_EQUAL_RELEVANCE)
    order.splice(at < 0 ? order.length : at, 0, u)
  }
  return order
}

/**
 * rules.ts keepOrder (no novelty weight) with a band of `width` and a place for a paper without a count inside its
 * band (the thirteenth round): "after" the counted ones (keepOrder's), "rank" the place its relevance gives it among
 * the band's papers (the counted ones fill the other places by citations a year), "median" ordered as if it had the
 * median citations a year of the band's counted papers (a tie to the more relevant).
 */
const bandOrder = (papers: ReadonlyArray<ScoredPaper>, width: number, unrecorded: "after" | "rank" | "median"): ReadonlyArray<ScoredPaper> => {
  const byRelevance = (a: ScoredPaper, b: ScoredPaper) => b.judgement.relevance - a.judgement.relevance || a.paper.arxivId.localeCompare(b.paper.arxivId)
  const sorted = papers.slice().sort(byRelevance)
  const ordered: Array<ScoredPaper> = []
  for (let start = 0; start < sorted.length;) {
    const top = sorted[start]!.judgement.relevance
    let end = start + 1
    while (end < sorted.length && top - sorted[end]!.judgement.relevance < width) end++
    const run = sorted.slice(start, end)
    const byImpact = (key: (x: ScoredPaper) => number) => (a: ScoredPaper, b: ScoredPaper) => key(b) - key(a) || byRelevance(a, b)
    if (unrecorded === "after") ordered.push(...run.sort(byImpact((x) => x.impact.citationsPerYear ?? -1)))
    else if (unrecorded === "rank") {
      const counted = run.filter((x) => x.impact.citationsPerYear !== undefined).sort(byImpact((x) => x.impact.citationsPerYear!))
      ordered.push(...run.map((x) => x.impact.citationsPerYear === undefined ? x : counted.shift()!))
    } else {
      const values = run.flatMap((x) => x.impact.citationsPerYear === undefined ? [] : [x.impact.citationsPerYear]).sort((a, b) => a - b)
      const m = values.length === 0 ? 0 : values.length % 2 === 1 ? values[(values.length - 1) / 2]! : (values[values.length / 2 - 1]! + values[values.length / 2]!) / 2
      ordered.push(...run.sort(byImpact((x) => x.impact.citationsPerYear ?? m)))
    }
    start = end
  }
  return ordered
}

/** The answer order of ask.ts under each rule for relevant papers without a recorded count. */
const answerOrder = (scored: ReadonlyArray<ScoredPaper>, top: number, relevanceThreshold: number, mode: "after" | "rank" | "band", s?: Setting): ReadonlyArray<ScoredPaper> => {
  if (mode === "band") {
    const leading = scored.filter((x) => x.decision.kind === "kept" || x.decision.kind === "cut-by-cap" || x.decision.kind === "impact-not-recorded")
    let lead = s?.band !== undefined ? bandOrder(leading, s.band.width, s.band.unrecorded)
      : (s?.blend ?? -1) < 0 || s?.tier !== undefined ? answerRanking(leading) : blendRanking(leading, s!.blend!, s?.bound ?? NEAR_EQUAL_RELEVANCE)
    if (s?.tier !== undefined && s.wide !== undefined) {
      const first = lead.slice(0, s.tier)
      const firstIds = new Set(first.map((x) => x.paper.arxivId))
      const rest = leading.filter((x) => !firstIds.has(x.paper.arxivId))
      const blended = (x: ScoredPaper) => x.judgement.relevance + (s.blend ?? 0) * Math.log10(1 + (x.impact.citationsPerYear ?? 0))
      lead = [...first, ...((s.blend ?? 0) > 0 ? rest.slice().sort((a, b) => blended(b) - blended(a) || a.paper.arxivId.localeCompare(b.paper.arxivId)) : keepOrderWithin(rest, s.wide))]
    }
    const shown = new Set(lead.map((x) => x.paper.arxivId))
    const rest = scored.filter((x) => !shown.has(x.paper.arxivId))
    return [...lead, ...(s?.band !== undefined ? bandOrder(rest, s.band.width, s.band.unrecorded) : keepOrder(rest))]
  }
  const outcome = keepBest(scored, { maxResults: top, relevanceThreshold })
  let first: Array<ScoredPaper>
  if (mode === "rank") {
    first = [...outcome.kept]
    for (const u of outcome.unrecordedAmongKept) first.splice(Math.min(first.length, u.decision.rank! - 1 + first.filter((x) => x.decision.kind === "impact-not-recorded").length), 0, u)
  } else first = [...outcome.kept, ...outcome.unrecordedAmongKept]
  const shown = new Set(first.map((x) => x.paper.arxivId))
  return [...first, ...keepOrder(outcome.candidates.filter((x) => !shown.has(x.paper.arxivId)))]
}

const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
const pct = (x: number) => `${(100 * x).toFixed(0)}%`
const withInterval = (xs: ReadonlyArray<number>) => {
  const [lo, hi] = bootstrapMean(xs, 12)
  return `${pct(mean(xs))} [${pct(lo)}, ${pct(hi)}]`
}

/** The replay's top `top` under a setting, main's first `s.lock` places kept (the eleventh round). */
const ranked = (d: Dumped, s: Setting, top: number): ReadonlyArray<string> => {
  if (s.agree !== undefined) return agreed(d, s.agree, top)
  if (s.band !== undefined) {
    const own = replay(d, { relevance: current(), lookups: Stages.IMPACT_LOOKUPS, band: s.band }, 3)
    const rest = s.band.scope === "top3"
      ? ranked(d, { judged: s.band.fed, relevance: current(), lookups: Stages.IMPACT_LOOKUPS, lock: 3 }, EVERY)
      : replay(d, { judged: s.band.fed, relevance: current(), lookups: Stages.IMPACT_LOOKUPS, band: s.band }, EVERY)
    return [...own, ...rest.filter((id) => !own.includes(id))].slice(0, top)
  }
  if (s.lock === undefined || s.lock <= 0) return replay(d, s, top)
  const locked = replay(d, { relevance: current(), lookups: Stages.IMPACT_LOOKUPS }, s.lock)
  return [...locked, ...replay(d, s, top + locked.length).filter((id) => !locked.includes(id))].slice(0, top)
}

/** Every candidate, in a setting's order. */
const EVERY = 1_000_000
/** The twelfth round's answer: the first three by both judgings' agreement, then the shipped answer's order. */
const agreed = (d: Dumped, a: NonNullable<Setting["agree"]>, top: number): ReadonlyArray<string> => {
  const mainSetting: Setting = { relevance: current(), lookups: Stages.IMPACT_LOOKUPS }
  const fedSetting: Setting = { judged: a.fed, relevance: current(), lookups: Stages.IMPACT_LOOKUPS }
  const shipped = ranked(d, { ...fedSetting, lock: 3 }, EVERY)
  const own = replay(d, mainSetting, EVERY)
  const fedOf = a.fed.get(d.question)!
  let head: ReadonlyArray<string>
  if (a.combine === "place") {
    const other = replay(d, fedSetting, EVERY)
    const at = new Map(other.map((id, i) => [id, i] as const))
    const score = (id: string, i: number) => (i + (at.get(id) ?? other.length)) / 2
    head = own.map((id, i) => ({ id, i, score: score(id, i) })).sort((x, y) => x.score - y.score || x.i - y.i).map((x) => x.id)
  } else {
    const both = new Map(d.candidates.map((c) => {
      const f = fedOf.get(c.id)!
      return [c.id, a.combine === "mean" ? (c.judge + f) / 2 : Math.min(c.judge, f)] as const
    }))
    head = replay(d, { judged: new Map([[d.question, both]]), relevance: current(), lookups: Stages.IMPACT_LOOKUPS }, EVERY)
  }
  const locked = own.slice(0, a.lock)
  const first = [...locked, ...head.filter((id) => !locked.includes(id))].slice(0, 3)
  return [...first, ...shipped.filter((id) => !first.includes(id))].slice(0, top)
}

const recall = (data: ReadonlyArray<Dumped>, s: Setting) => {
  const at3: Array<number> = []
  const at10: Array<number> = []
  const top3: Array<ReadonlyArray<string>> = []
  const listed3: Array<number> = []
  const listed10: Array<number> = []
  for (const d of data) {
    const ids = ranked(d, s, 10)
    top3.push(ids.slice(0, 3))
    at3.push(d.expected.filter((e) => ids.slice(0, 3).includes(e)).length / d.expected.length)
    at10.push(d.expected.filter((e) => ids.includes(e)).length / d.expected.length)
    const with3 = [...ids.slice(0, 3), ...replay(d, s, 3, true)]
    const with10 = [...ids, ...replay(d, s, 10, true)]
    listed3.push(d.expected.filter((e) => with3.includes(e)).length / d.expected.length)
    listed10.push(d.expected.filter((e) => with10.includes(e)).length / d.expected.length)
  }
  return { at3, at10, listed3, listed10, top3 }
}

const COVERAGE = 0.05
const SPREAD = 0.05
/** ask.ts's relevance today (question.ts relevanceOfFit), with its knobs open. */
const current = (coverage = COVERAGE, spread = SPREAD, compress = 1) => (judge: number, fit: QuestionFit) => {
  const j = 1 - compress * (1 - judge)
  return j * (1 - coverage * (1 - fit.covered)) * (0.99 - spread * (1 - fit.centrality) + 0.01 * fit.density)
}

/**
 * Every dumped candidate re-judged by the local judge as ask.ts judges it (the question as the concept's title, its
 * judge words as text and keywords), under the concept-match knobs given (none: the judge ask uses); by question, then id.
 */
const rejudge = (
  data: ReadonlyArray<Dumped>,
  knobs: Partial<ScoringParams>,
  extra: (d: Dumped) => ReadonlyArray<string> = () => []
): ReadonlyMap<string, ReadonlyMap<string, number>> => {
  const table = arxivDfTable()
  const vectors = arxivTermVectors()
  const p: ScoringParams = { ...defaultParams, ...knobs }
  const out = new Map<string, ReadonlyMap<string, number>>()
  for (const d of data) {
    const words = [...(d.judgeWords ?? []), ...extra(d)]
    const concept = prepareConcept({ title: d.question, text: words.join("\n"), keywords: words }, table, p, vectors)
    // ask reads the relevance before the concept gate (src/core/ask.ts)
    out.set(d.question, new Map(d.candidates.map((c) => {
      const s = scorePrepared(concept, preparedOf(c), table, p, vectors)
      return [c.id, s.gate?.before ?? s.relevance] as const
    })))
  }
  return out
}
/**
 * Pseudo-relevance feedback (the tenth round): the stems the titles of a question's first k papers share (at least 2
 * of them), which the question and its judge words lack and fewer than 5 % of the df table's abstracts use, ranked by
 * titles × IDF, the first n, each as its first surface word, repeated r times. Source "rel": the k most relevant by
 * the question's relevance (judge × fit); "answer": the answer's first k.
 */
const feedbackWords = (d: Dumped, source: "rel" | "answer" | "cited", k: number, n: number, r: number, shared = 2, dfCap = 0.05): ReadonlyArray<string> => {
  const table = arxivDfTable()
  const relevance = (c: Candidate) => current()(c.judge, c.fit)
  const byRelevance = d.candidates.slice().sort((a, b) => relevance(b) - relevance(a) || a.id.localeCompare(b.id))
  // "cited" (tried after the rule): the relevant candidates whose count ask looks up (the most-cited channel's, or
  // among the 50 most relevant), the most cited a year first
  const looked = new Set(byRelevance.filter((c) => relevance(c) >= thresholds.relevanceThreshold).slice(0, Stages.IMPACT_LOOKUPS).map((c) => c.id))
  const perYear = (c: Candidate) => (c.count?.citations ?? 0) / Math.max(1, 2026.9 - Number(c.published.slice(0, 4)))
  const first = source === "answer"
    ? d.top10.slice(0, k).map((id) => d.candidates.find((c) => c.id === id)!)
    : source === "cited"
    ? d.candidates.filter((c) => c.count !== undefined && relevance(c) >= thresholds.relevanceThreshold && (looked.has(c.id) || c.foundBy.includes("most-cited")))
      .sort((a, b) => perYear(b) - perYear(a) || a.id.localeCompare(b.id)).slice(0, k)
    : d.candidates.slice().sort((a, b) => current()(b.judge, b.fit) - current()(a.judge, a.fit) || a.id.localeCompare(b.id)).slice(0, k)
  // the shipped selection (ArxivTermStats.sharedWords, what `ask` reads), each word r times
  return ArxivTermStats.sharedWords(table, first.map((c) => c.title), [d.question, ...(d.judgeWords ?? [])], { least: shared, share: dfCap, count: n })
    .flatMap((word) => Array.from({ length: r }, () => word))
}

/** The field's words `ask` ships (the eleventh round): source cited, k 10, n 3, once, shared by 2 titles, df under 5 %. */
const shippedFieldWords = (d: Dumped): ReadonlyArray<string> => feedbackWords(d, "cited", 10, 3, 1, 2, 0.05)

const prepared = new Map<Candidate, PreparedPaper>()
const preparedOf = (c: Candidate): PreparedPaper => {
  let x = prepared.get(c)
  if (x === undefined) prepared.set(c, x = preparePaper({ title: c.title, abstract: c.abstract }, arxivDfTable(), defaultParams, arxivTermVectors()))
  return x
}

const main = async () => {
  const cache = argument("--cache")
  const data: ReadonlyArray<Dumped> = cache !== undefined && existsSync(cache)
    ? JSON.parse(readFileSync(cache, "utf8"))
    : await Effect.runPromise(dump)
  if (cache !== undefined && !existsSync(cache)) writeFileSync(cache, JSON.stringify(data))

  // the replay must reproduce the pipeline before any setting is compared
  const same = data.filter((d) => replay(d, { relevance: current(), lookups: Stages.IMPACT_LOOKUPS }, 10).join() === d.top10.join()).length
  console.log(`replay reproduces the pipeline's top 10 on ${same} of ${data.length} questions`)

  if (process.argv.includes("--diagnose")) {
    console.log("\n| question | expected paper | candidate? | channels | place | judge | question's relevance | band top | count (citations) | looked up |")
    console.log("|---|---|---|---|---|---|---|---|---|---|")
    for (const d of data) {
      const base = replay(d, { relevance: current(), lookups: Stages.IMPACT_LOOKUPS }, 1000)
      for (const e of d.expected) {
        if (d.top10.includes(e)) continue
        const c = d.candidates.find((x) => x.id === e)
        if (c === undefined) {
          console.log(`| ${d.question} | ${e} | no | | | | | | | |`)
          continue
        }
        const rel = current()(c.judge, c.fit)
        const topRel = Math.max(...d.candidates.map((x) => current()(x.judge, x.fit)))
        const relevant = d.candidates.filter((x) => current()(x.judge, x.fit) >= thresholds.relevanceThreshold)
          .sort((a, b) => current()(b.judge, b.fit) - current()(a.judge, a.fit) || a.id.localeCompare(b.id))
        const relRank = relevant.findIndex((x) => x.id === e) + 1
        const lookedUp = c.foundBy.includes("most-cited") || (relRank > 0 && relRank <= Stages.IMPACT_LOOKUPS)
        console.log(
          `| ${d.question} | ${e} ${c.title.slice(0, 40)} | yes | ${c.foundBy.join("+")} | ${base.indexOf(e) + 1} | ${c.judge.toFixed(3)} | ${rel.toFixed(3)} (#${relRank} by relevance) | ${topRel.toFixed(3)} | ${c.count === undefined ? "none recorded" : c.count.citations} | ${lookedUp ? "yes" : "no"} |`
        )
      }
    }
  }

  // `--features FILE` (twelfth round): every candidate's features under main and under the shipped field words
  // (source cited, k 10, m 2, c 0.05, n 3, r 1), with its place in each order and in the shipped (locked) answer
  const featuresOut = argument("--features")
  if (featuresOut !== undefined) {
    const fed = rejudge(data, {}, shippedFieldWords)
    const rows = data.map((d) => {
      const mainOrder = replay(d, { relevance: current(), lookups: Stages.IMPACT_LOOKUPS }, 1000)
      const fedSetting: Setting = { judged: fed, relevance: current(), lookups: Stages.IMPACT_LOOKUPS }
      const fedOrder = replay(d, fedSetting, 1000)
      const shipped = ranked(d, { ...fedSetting, lock: 3 }, 10)
      return {
        set: d.set ?? "tuning",
        question: d.question,
        expected: d.expected,
        fieldWords: shippedFieldWords(d),
        terms: d.concept.terms.map((t) => ({ ...t })),
        shipped,
        candidates: d.candidates.map((c) => ({
          id: c.id,
          title: c.title,
          published: c.published,
          judge: c.judge,
          rel: current()(c.judge, c.fit),
          judgeFb: fed.get(d.question)!.get(c.id)!,
          relFb: current()(fed.get(d.question)!.get(c.id)!, c.fit),
          fit: c.fit,
          citations: c.count?.citations,
          foundBy: c.foundBy,
          mainPlace: mainOrder.indexOf(c.id) + 1,
          fbPlace: fedOrder.indexOf(c.id) + 1
        }))
      }
    })
    writeFileSync(featuresOut, JSON.stringify(rows))
    console.log(`features of ${rows.length} questions written to ${featuresOut}`)
  }

  if (process.argv.includes("--show-unrecorded")) {
    // the top 3 of each question with relevant papers without a count after the kept ones, and at their rank
    for (const d of data) {
      const after = replay(d, { relevance: current(), lookups: Stages.IMPACT_LOOKUPS, unrecorded: "after" }, 10).slice(0, 3)
      const rank = replay(d, { relevance: current(), lookups: Stages.IMPACT_LOOKUPS, unrecorded: "rank" }, 10).slice(0, 3)
      if (after.join() === rank.join()) continue
      const label = (id: string) => {
        const c = d.candidates.find((x) => x.id === id)!
        return `${d.expected.includes(id) ? "*" : ""}${id} ${c.title.slice(0, 36)} (${current()(c.judge, c.fit).toFixed(3)}, ${c.count === undefined ? "no count" : c.count.citations})`
      }
      console.log(`${d.question}\n  after: ${after.map(label).join(" | ")}\n  rank:  ${rank.map(label).join(" | ")}`)
    }
  }

  const grid: Array<readonly [string, Setting]> = [["current", { relevance: current(), lookups: Stages.IMPACT_LOOKUPS }]]
  const spec = argument("--grid")
  if (spec !== undefined) {
    // "compress=0.5,0.25;lookups=50,1000;coverage=0.05;spread=0.05"
    const axes = numericAxesOf(spec)
    for (const introKind of (argument("--intro-kind") ?? "named").split(",")) {
    for (const introduce of axes.introduce ?? [0]) {
    for (const mode of (argument("--unrecorded") ?? "band").split(",") as Array<"after" | "rank" | "band">) {
    for (const pool of axes.pool ?? [1000]) {
    for (const compress of axes.compress ?? [1]) {
      for (const lookups of axes.lookups ?? [Stages.IMPACT_LOOKUPS]) {
        for (const coverage of axes.coverage ?? [COVERAGE]) {
          for (const spread of axes.spread ?? [SPREAD]) {
            for (const tier of axes.tier ?? [-1]) {
              for (const wide of axes.wide ?? [-1]) {
               for (const blend of axes.blend ?? [-1]) {
               for (const bound of axes.bound ?? [NEAR_EQUAL_RELEVANCE]) {
               for (const power of axes.power ?? [1]) {
               for (const terms of axes.terms ?? [0]) {
                const tiering = tier < 0 || wide < 0 ? { blend, bound } : { tier, wide, blend, bound }
                const reweigh = { ...(power === 1 ? {} : { power }), ...(terms > 0 ? { terms } : {}) }
                grid.push([`pool ${pool} lookups ${lookups} coverage ${coverage} spread ${spread}${tier < 0 ? "" : ` tier ${tier} wide ${wide}`} impact weight ${blend}${blend < 0 ? "" : ` bound ${bound}`}${power === 1 ? "" : ` power ${power}`}${terms > 0 ? ` terms ${terms}` : ""}`, { relevance: current(coverage, spread, compress), lookups, pool, unrecorded: mode, introduce, introduceKind: introKind, ...tiering, ...reweigh }])
               }
               }
               }
               }
              }
            }
          }
        }
      }
    }
    }
    }
    }
    }
  }
  // `--rejudge "neighbours=0,4,8;credit=0.5,1;weight=0.05,0.15;long=7,12"`: the judge's question knobs (ninth round)
  const rj = argument("--rejudge")
  if (rj !== undefined) {
    const axes = numericAxesOf(rj)
    const atMain = rejudge(data, {})
    const off = data.flatMap((d) => d.candidates.filter((c) => Math.abs(atMain.get(d.question)!.get(c.id)! - c.judge) > 1e-9).map((c) => `${d.question} ${c.id}`))
    console.log(`re-judged as the pipeline judged: ${data.reduce((n, d) => n + d.candidates.length, 0) - off.length} candidates of ${data.reduce((n, d) => n + d.candidates.length, 0)}${off.length > 0 ? ` (first differing: ${off[0]})` : ""}`)
    grid.push(["rejudged at main", { judged: atMain, relevance: current(), lookups: Stages.IMPACT_LOOKUPS }])
    for (const neighbours of axes.neighbours ?? [0]) {
      for (const credit of neighbours === 0 ? [0] : axes.credit ?? [0.5]) {
        for (const weight of axes.weight ?? [defaultParams.conceptWeight]) {
          for (const long of axes.long ?? [defaultParams.conceptLongTitle]) {
            if (neighbours === 0 && weight === defaultParams.conceptWeight && long === defaultParams.conceptLongTitle) continue
            const knobs: Partial<ScoringParams> = {
              ...(neighbours === 0 ? {} : { conceptTextNeighbours: neighbours, conceptTextCredit: credit, conceptTextCosine: axes.cosine?.[0] ?? 0.45 }),
              ...(weight === defaultParams.conceptWeight ? {} : { conceptWeight: weight }),
              ...(long === defaultParams.conceptLongTitle ? {} : { conceptLongTitle: long })
            }
            grid.push([`judge ${JSON.stringify(knobs)}`, { judged: rejudge(data, knobs), relevance: current(), lookups: Stages.IMPACT_LOOKUPS }])
            process.stderr.write("+")
          }
        }
      }
    }
    process.stderr.write("\n")
  }
  // `--prf "source=rel,answer;k=3,5,10;n=3,6;r=1,2"` (source rel, answer, or cited): pseudo-relevance feedback (tenth round)
  const prf = argument("--prf")
  if (prf !== undefined) {
    const axes = axesOf(prf)
    const atMain = rejudge(data, {})
    const total = data.reduce((n, d) => n + d.candidates.length, 0)
    const off = data.reduce((n, d) => n + d.candidates.filter((c) => Math.abs(atMain.get(d.question)!.get(c.id)! - c.judge) > 1e-9).length, 0)
    console.log(`re-judged as the pipeline judged: ${total - off} candidates of ${total}`)
    if (process.argv.includes("--show-feedback")) {
      // the first setting of the grid's axes
      const [k, n] = [Number(axes.k?.[0] ?? 5), Number(axes.n?.[0] ?? 3)]
      const sources = (axes.source ?? ["rel"]) as Array<"rel" | "answer" | "cited">
      for (const d of data) console.log(`${d.set} | ${d.question} | ${sources.map((x) => feedbackWords(d, x, k, n, 1).join(", ")).join(" | ")}`)
    }
    // `--lock 3` (eleventh round): main's first 3 places kept, the feedback orders the rest; the axes m (the titles a
    // stem must be shared by), c (the df table's share a stem must stay under) and combine (fb: the feedback judge's
    // relevance; max: the larger of main's judge and the feedback judge's, credit only)
    const lock = argument("--lock") === undefined ? undefined : Number(argument("--lock"))
    for (const source of axes.source ?? ["rel"]) {
      for (const k of axes.k ?? ["5"]) {
        for (const m of axes.m ?? ["2"]) {
          for (const c of axes.c ?? ["0.05"]) {
            for (const n of axes.n ?? ["3"]) {
              for (const r of axes.r ?? ["1"]) {
                const words = (d: Dumped) => feedbackWords(d, source as "rel" | "answer" | "cited", Number(k), Number(n), Number(r), Number(m), Number(c))
                const fed = rejudge(data, {}, words)
                for (const combine of axes.combine ?? ["fb"]) {
                  const judged = combine === "max"
                    ? new Map(data.map((d) => [d.question, new Map(d.candidates.map((x) => [x.id, Math.max(x.judge, fed.get(d.question)!.get(x.id)!)] as const))] as const))
                    : fed
                  const label = `prf source ${source} k ${k}${axes.m === undefined ? "" : ` m ${m}`}${axes.c === undefined ? "" : ` c ${c}`} n ${n} r ${r}${axes.combine === undefined ? "" : ` ${combine}`}${lock === undefined ? "" : ` lock ${lock}`}`
                  grid.push([label, { judged, relevance: current(), lookups: Stages.IMPACT_LOOKUPS, ...(lock === undefined ? {} : { lock }) }])
                }
                process.stderr.write("+")
              }
            }
          }
        }
      }
    }
    process.stderr.write("\n")
  }
  // `--agree "combine=mean,min,place;lock=0,1"` (twelfth round): the first three places by both judgings' agreement,
  // the field words the shipped ones (source cited, k 10, m 2, c 0.05, n 3, r 1); main then is the shipped answer
  const agree = argument("--agree")
  if (agree !== undefined) {
    const axes = axesOf(agree)
    const fed = rejudge(data, {}, shippedFieldWords)
    grid.splice(0, grid.length, ["current", { judged: fed, relevance: current(), lookups: Stages.IMPACT_LOOKUPS, lock: 3 }])
    for (const combine of axes.combine ?? ["mean"]) {
      for (const lock of axes.lock ?? ["0"]) {
        grid.push([`agree ${combine} lock ${lock}`, { relevance: current(), lookups: Stages.IMPACT_LOOKUPS, agree: { combine: combine as "mean" | "min" | "place", lock: Number(lock), fed } }])
      }
    }
  }
  // `--band "scope=whole,top3;band=0.05,0.03,0.02,0.01;unrecorded=after,rank,median"` (thirteenth round): ask's
  // order with another band of near-ties and another place for a paper without a count; main the shipped answer
  const bandSpec = argument("--band")
  if (bandSpec !== undefined) {
    const axes = axesOf(bandSpec)
    const fed = rejudge(data, {}, shippedFieldWords)
    grid.splice(0, grid.length, ["current", { judged: fed, relevance: current(), lookups: Stages.IMPACT_LOOKUPS, lock: 3 }])
    for (const scope of axes.scope ?? ["whole"]) {
      for (const width of axes.band ?? ["0.05"]) {
        for (const unrecorded of axes.unrecorded ?? ["after"]) {
          if (Number(width) === NEAR_EQUAL_RELEVANCE && unrecorded === "after") continue
          grid.push([`band ${width} ${unrecorded} ${scope}`, { relevance: current(), lookups: Stages.IMPACT_LOOKUPS, band: { width: Number(width), unrecorded: unrecorded as "after" | "rank" | "median", scope: scope as "whole" | "top3", fed } }])
        }
      }
    }
    if (process.argv.includes("--check-band")) {
      // at main's band and placement, both scopes must give the shipped answer
      for (const scope of ["whole", "top3"] as const) {
        const s: Setting = { relevance: current(), lookups: Stages.IMPACT_LOOKUPS, band: { width: NEAR_EQUAL_RELEVANCE, unrecorded: "after", scope, fed } }
        const same = data.filter((d) => ranked(d, s, 10).join() === ranked(d, grid[0]![1], 10).join()).length
        console.log(`band ${NEAR_EQUAL_RELEVANCE} after ${scope} gives the shipped top 10 on ${same} of ${data.length} questions`)
      }
    }
  }
  console.log("\n| setting | top 3 | top 10 | top 3 and the papers listed after it | top 10 and those listed after it |\n|---|---|---|---|---|")
  // `--out FILE`: each setting's per-question figures with the question's set, for cross-validation across the sets
  const perQuestion: Array<{ setting: string; sets: ReadonlyArray<string>; at3: ReadonlyArray<number>; at10: ReadonlyArray<number>; top3: ReadonlyArray<ReadonlyArray<string>> }> = []
  for (const [name, s] of grid) {
    const r = recall(data, s)
    perQuestion.push({ setting: name, sets: data.map((d) => d.set ?? "tuning"), at3: r.at3, at10: r.at10, top3: r.top3 })
    console.log(`| ${name} | ${withInterval(r.at3)} | ${withInterval(r.at10)} | ${withInterval(r.listed3)} | ${withInterval(r.listed10)} |`)
  }
  const out = argument("--out")
  if (out !== undefined) writeFileSync(out, JSON.stringify(perQuestion))
}

await main()
