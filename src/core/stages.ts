/**
 * The stages a concept goes through to become the papers a student reads,
 * shared by a note's run (`runCompanion`) and a question (`askArxiv`):
 *
 *   plan → search (the pool, the second search, the most-cited channel) →
 *   judge → impact → decide (and keep, by the rules of rules.ts)
 *
 * Each stage is a named function over named records, so either use case
 * reads top to bottom and each stage can be traced and tested alone. Port
 * calls are counted through `Count`, so a report says what was asked.
 *
 * @since 0.3.0
 */
import { Effect, Schema } from "effect"
import { CONCEPT_QUERY_TERMS, titleQuery } from "./arxiv.js"
import { and, type ArxivQuery } from "./arxivQuery.js"
import { bareId, type MergedCandidates, mergeChannels } from "./channels.js"
import { type ArxivError, InvalidArgument, JudgeFailed, UpstreamUnavailable } from "./errors.js"
import { expansionTerms, feedbackPapers, feedbackTerms, type Keyword, type NoteTerm, type RankedKeyword } from "./keywords.js"
import type { citedAuthors } from "./citedAuthors.js"
import type { NoteReading } from "./language.js"
import {
  type Foundations,
  type Impact,
  type Judgement,
  type NoteRef,
  type Paper,
  type PaperSummary,
  type PortCalls,
  ScoredPaper,
  type Work
} from "./models.js"
import type { matchNamedPapers, NoteMentions } from "./namedPapers.js"
import type { NoteTeaching } from "./teaching.js"
import { ArxivPort, type ArxivSearchResult } from "./ports/ArxivPort.js"
import { type Concept, LlmJudgePort, type LlmJudgeService } from "./ports/LlmJudgePort.js"
import type { OpenAlexError } from "./errors.js"
import { type CitedLookup, OpenAlexPort } from "./ports/OpenAlexPort.js"
import { type TermLookup, TermStatsPort } from "./ports/TermStatsPort.js"
import { assessImpact, decide, impactNotAssessed, type ImpactThresholds, type KeepOutcome } from "./rules.js"

/** Counts one call to a port (the run's report says how many each port got). */
export type Count = (port: keyof PortCalls) => void

const uncounted: Count = () => {}

const count = (fallback: number, description: string) =>
  Schema.optionalWith(Schema.Int.pipe(Schema.positive()).annotations({ description }), { default: () => fallback })

/**
 * The tuned constants of a concept's search plan, in one place (each measured
 * on the tuning notes only, eval/README.md): how many keywords the concept
 * query uses, how the second search and the most-cited channel are sized,
 * how many impacts are looked up. Every field has its tuned default.
 */
export class SearchPolicy extends Schema.Class<SearchPolicy>("SearchPolicy")({
  conceptTerms: count(CONCEPT_QUERY_TERMS, "keywords in the concept query"),
  centralKeywords: count(2, "best keywords whose words name the central concepts (the title search's words)"),
  citedPhrases: count(4, "keywords the most-cited channel searches for"),
  namedTitles: count(4, "titles the note names that join the most-cited search (one place more each)"),
  titlePool: count(50, "papers the title search adds at most (never more than the pool)"),
  feedbackPapers: count(20, "best papers titled by the concept the expansion terms are learnt from (tune3: 15–25 alike)"),
  expansionTerms: count(3, "expansion terms that widen the title search (tune3: 3–6 alike)"),
  authorPool: count(5, "places of the author search per author the note cites (tune, tune2: 3 is the edge)"),
  citedLimit: count(20, "most cited works on the key phrases that join the candidates"),
  impactLookups: count(50, "relevant candidates whose impact is looked up: one batched request's worth")
}) {}

/** The tuned plan. */
export const SEARCH_POLICY = new SearchPolicy({})

/** How many papers the title search adds to the pool at most (never more than the pool itself). */
export const TITLE_POOL = SEARCH_POLICY.titlePool
/** How many of the first request's best papers titled by the concept the expansion terms are learnt from (tune3: 15–25 alike, eval/README.md). */
export const FEEDBACK_PAPERS = SEARCH_POLICY.feedbackPapers
/** How many expansion terms widen the title search (tune3: 3–6 alike; 4 already crowds a demo note's ten kept). */
export const EXPANSION_TERMS = SEARCH_POLICY.expansionTerms
/** How many places the author search has for each author the note cites (measured on tune and tune2: 3 is the edge). */
export const AUTHOR_POOL = SEARCH_POLICY.authorPool
/** How many of the most cited works on the key phrases join the candidates. */
export const CITED_LIMIT = SEARCH_POLICY.citedLimit
/** How many relevant candidates get their impact looked up: one batched request's worth (only they can be kept). */
export const IMPACT_LOOKUPS = SEARCH_POLICY.impactLookups

/** What to search for and where: a concept's plan. */
export interface SearchPlan {
  /** The pool's query (before the request's categories and date). */
  readonly query: ArxivQuery
  /** A query to send instead if arXiv rejects `query` itself (a model's query: the rule-based one). */
  readonly fallback?: ArxivQuery | undefined
  readonly categories: ReadonlyArray<string>
  readonly since?: string | undefined
  /** How many papers the pool asks for (one request). */
  readonly poolSize: number
  /** The most the second search asks for (default: `poolSize`). */
  readonly secondCap?: number | undefined
  /** The concept's keywords, most informative first: what the second search ANDs its title words or authors with. */
  readonly keywords: ReadonlyArray<Keyword>
  /** The words of the central concepts, for the title search (when no author is searched). */
  readonly central: ReadonlyArray<string>
  /** Authors the second search asks for (`au:`); when any, it is the author search. */
  readonly surnames: ReadonlyArray<string>
  /** What every search must match too, ANDed to the second query (a question's authors, quoted phrases, years). */
  readonly required?: ArxivQuery | undefined
  /** The phrases the most-cited channel searches for (none: the channel is not asked). */
  readonly citedPhrases: ReadonlyArray<string>
  readonly citedLimit: number
  /** Whether a most-cited work may join the candidates (the request's categories, dates and required parts). */
  readonly admitCited: (paper: Paper) => boolean
  /** The tuned constants (default: `SEARCH_POLICY`). */
  readonly policy?: SearchPolicy | undefined
  /** Terms that widen the title search beside its feedback terms (a question's related stems, `stem*`; default none). */
  readonly widen?: ReadonlyArray<string> | undefined
}

/** What the searches found, merged: each paper once, labelled by channel. */
export interface Searched {
  readonly pool: ArxivSearchResult
  /** The pool's query as sent (the fallback, when arXiv rejected the plan's). */
  readonly query: ArxivQuery
  /** Why the fallback was sent, when it was (arXiv's message). */
  readonly rejected?: string | undefined
  /** The second search's result and query, when it was sent. */
  readonly second?: { readonly result: ArxivSearchResult; readonly query: ArxivQuery } | undefined
  /** The feedback terms that widened the title search. */
  readonly relatedTerms: ReadonlyArray<string>
  readonly cited?: CitedLookup | undefined
  readonly merged: MergedCandidates
}

/**
 * The second arXiv query: the author search (papers the named authors wrote,
 * among those the concept query matches) or, when no author is named, the
 * title search on the central words widened by pseudo-relevance feedback
 * (terms the pool's best papers titled by the concept share and the concept
 * does not use, ranked against the arXiv statistics like keywords).
 */
const secondQuery = Effect.fn("Companion.secondQuery")(function*(plan: SearchPlan, first: ArxivSearchResult) {
  const termStats = yield* TermStatsPort
  const policy = plan.policy ?? SEARCH_POLICY
  const narrowed = (q: ArxivQuery | undefined) => (q === undefined || plan.required === undefined ? q : and(plan.required, q))
  if (plan.surnames.length > 0) {
    return { query: narrowed(titleQuery([], plan.keywords, policy.conceptTerms, plan.surnames)), expansion: [] as ReadonlyArray<string> }
  }
  const feedback = feedbackTerms(feedbackPapers(first.papers, plan.central, policy.feedbackPapers))
  const feedbackStats = yield* termStats.lookup(feedback.map((f) => f.term))
  const expansion = [
    ...expansionTerms(feedback, feedbackStats, plan.keywords.map((k) => k.term), policy.expansionTerms).map((e) => e.term),
    ...(plan.widen ?? [])
  ]
  return { query: narrowed(titleQuery(plan.central, plan.keywords, policy.conceptTerms, [], expansion)), expansion }
})

/** Whether arXiv refused the query itself (syntax, unknown field), as opposed to being unavailable. */
const rejectedQuery = (e: ArxivError): boolean =>
  (e instanceof InvalidArgument && e.argument === "query") || (e instanceof UpstreamUnavailable && e.status === 400)

/**
 * Search: the pool (one arXiv request, larger than what is kept), then the
 * second search when the pool did not already hold every match, side by side
 * with the most cited works with an arXiv location for the key phrases.
 * At most two arXiv requests.
 */
export const search = Effect.fn("Companion.search")(function*(plan: SearchPlan, count: Count = uncounted) {
  const arxiv = yield* ArxivPort
  const openalex = yield* OpenAlexPort
  const request = (query: ArxivQuery, maxResults: number) =>
    Effect.suspend(() => {
      count("arxiv")
      return arxiv.search({ query, categories: plan.categories, since: plan.since, maxResults, sortBy: "relevance" })
    })
  const searching = Effect.gen(function*() {
    let query = plan.query
    let rejected: string | undefined
    const pool = yield* request(query, plan.poolSize).pipe(
      Effect.catchIf(
        (e) => plan.fallback !== undefined && rejectedQuery(e),
        (e) => {
          query = plan.fallback!
          rejected = e.message
          return request(query, plan.poolSize)
        }
      )
    )
    const first = { pool, query, ...(rejected === undefined ? {} : { rejected }) }
    if (pool.total <= pool.papers.length) return { ...first, second: undefined, relatedTerms: [] as ReadonlyArray<string> }
    const next = yield* secondQuery(plan, pool)
    if (next.query === undefined) return { ...first, second: undefined, relatedTerms: [] as ReadonlyArray<string> }
    const policy = plan.policy ?? SEARCH_POLICY
    const limit = Math.min(
      plan.surnames.length > 0 ? policy.authorPool * plan.surnames.length : policy.titlePool,
      plan.secondCap ?? plan.poolSize
    )
    const result = yield* request(next.query, limit)
    return { ...first, second: { result, query: next.query }, relatedTerms: next.expansion }
  })
  const citing: Effect.Effect<CitedLookup | undefined, OpenAlexError> = plan.citedPhrases.length === 0
    ? Effect.succeed(undefined)
    : Effect.suspend(() => {
      count("openalex")
      return openalex.mostCitedArxivWorks({ phrases: plan.citedPhrases, limit: plan.citedLimit })
    })
  const [found, cited] = yield* Effect.all([searching, citing], { concurrency: 2 })
  const citedPapers = (cited?.papers ?? []).filter((c) => plan.admitCited(c.paper))
  // a paper of the second search is labelled by what it asked for: the authors, or the title words
  const second = found.second?.result.papers ?? []
  const byAuthor = plan.surnames.length > 0 ? second : []
  const byTitle = plan.surnames.length > 0 ? [] : second
  return { ...found, cited, merged: mergeChannels(found.pool.papers, citedPapers, byTitle, byAuthor) } satisfies Searched
}) as (plan: SearchPlan, count?: Count) => Effect.Effect<Searched, ArxivError | OpenAlexError, ArxivPort | OpenAlexPort | TermStatsPort>

/**
 * A search plan's most-cited admission for a request's categories and date:
 * a most-cited work whose arXiv categories are known and none of them asked
 * for is left out (OpenAlex records carry none, so those stay).
 */
export const admitFor = (categories: ReadonlyArray<string>, since: string | undefined) => {
  const asked = new Set(categories)
  return (paper: Paper): boolean =>
    (since === undefined || paper.published >= since) &&
    (asked.size === 0 || paper.categories.length === 0 || paper.categories.some((cat) => asked.has(cat)))
}

/**
 * The candidates the judge sees: the whole pool, or, for a judge with a
 * shortlist (a costly model), the best of the pool by its cheap ranking and
 * never fewer than are kept; in the pool's order.
 */
const shortlist = (
  judge: LlmJudgeService,
  concept: Concept,
  pool: ReadonlyArray<Paper>,
  kept: number
): Effect.Effect<ReadonlyArray<Paper>, JudgeFailed> => {
  const list = judge.shortlist
  if (list === undefined || pool.length <= Math.max(list.size, kept)) return Effect.succeed(pool)
  return list.rank(concept, pool).pipe(Effect.map((scores) => {
    const best = pool.map((_, i) => i)
      .sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b)
      .slice(0, Math.max(list.size, kept))
    return best.sort((a, b) => a - b).map((i) => pool[i]!)
  }))
}

/** The judged candidates: the papers judged and each one's judgement by id. */
export interface Judged {
  /** The judge's name, for reports. */
  readonly judge: string
  readonly candidates: ReadonlyArray<Paper>
  readonly judgements: ReadonlyMap<string, Judgement>
}

/**
 * Judge the pool against the concept; a judge that takes fewer papers (a
 * paid model) gets the best of it by its cheap ranking. Judgements are
 * matched by id, so a judge that reorders or skips papers cannot mismatch
 * them; a paper left unjudged is JudgeFailed.
 */
export const judge = Effect.fn("Companion.judge")(function*(
  concept: Concept,
  pool: ReadonlyArray<Paper>,
  kept: number,
  count: Count = uncounted
) {
  const judgePort = yield* LlmJudgePort
  const candidates = yield* shortlist(judgePort, concept, pool, kept)
  const judgements = candidates.length === 0 ? [] : yield* Effect.suspend(() => {
    count("judge")
    return judgePort.judge(concept, candidates)
  })
  const byId = new Map(judgements.map((j) => [j.arxivId, j]))
  const unjudged = candidates.filter((p) => !byId.has(p.arxivId)).map((p) => p.arxivId)
  if (unjudged.length > 0) return yield* new JudgeFailed({ model: judgePort.name, reason: `no judgement for ${unjudged.join(", ")}` })
  return { judge: judgePort.name, candidates, judgements: byId } satisfies Judged
}) as (concept: Concept, pool: ReadonlyArray<Paper>, kept: number, count?: Count) => Effect.Effect<Judged, JudgeFailed, LlmJudgePort>

/**
 * {@link judge} for several concepts at once (a digest's notes), with the same answers: each item's candidates
 * picked as `judge` picks them, then, for a judge whose `judge` carries `many`, one batch for all of them (the
 * local judge prepares a paper once for every concept it is a candidate of), else one `judge` per item in turn.
 * `count` is told "judge" once per item with candidates, as `judge` does.
 */
export const judgeAll = Effect.fn("Companion.judgeAll")(function*(
  items: ReadonlyArray<{ readonly concept: Concept; readonly pool: ReadonlyArray<Paper>; readonly kept: number }>,
  count: Count = uncounted
) {
  const judgePort = yield* LlmJudgePort
  const many = judgePort.judge.many
  if (many === undefined) {
    const out: Array<Judged> = []
    for (const item of items) out.push(yield* judge(item.concept, item.pool, item.kept, count))
    return out as ReadonlyArray<Judged>
  }
  const lists: Array<ReadonlyArray<Paper>> = []
  for (const item of items) lists.push(yield* shortlist(judgePort, item.concept, item.pool, item.kept))
  const asked = items.flatMap((item, i) => (lists[i]!.length === 0 ? [] : [{ i, concept: item.concept, papers: lists[i]! }]))
  for (let k = 0; k < asked.length; k++) count("judge")
  const answers = asked.length === 0 ? [] : yield* many(asked.map(({ concept, papers }) => ({ concept, papers })))
  const byItem = new Map(asked.map((a, k) => [a.i, answers[k] ?? []]))
  const out: Array<Judged> = []
  for (let i = 0; i < items.length; i++) {
    const candidates = lists[i]!
    const byId = new Map((byItem.get(i) ?? []).map((j) => [j.arxivId, j]))
    const unjudged = candidates.filter((p) => !byId.has(p.arxivId)).map((p) => p.arxivId)
    if (unjudged.length > 0) return yield* new JudgeFailed({ model: judgePort.name, reason: `no judgement for ${unjudged.join(", ")}` })
    out.push({ judge: judgePort.name, candidates, judgements: byId })
  }
  return out as ReadonlyArray<Judged>
}) as (
  items: ReadonlyArray<{ readonly concept: Concept; readonly pool: ReadonlyArray<Paper>; readonly kept: number }>,
  count?: Count
) => Effect.Effect<ReadonlyArray<Judged>, JudgeFailed, LlmJudgePort>

/** The impacts known after the lookup, and where they come from. */
export interface Impacts {
  readonly impacts: ReadonlyMap<string, Impact>
  /** The relevant candidates whose impact was looked up, most relevant first. */
  readonly looked: ReadonlyArray<string>
  readonly source?: Impact["source"] | undefined
  /** The date a paper without a count is aged at: the recording date of offline data. */
  readonly asOf?: string | undefined
}

/**
 * Impact of the relevant candidates the most-cited channel did not bring one
 * for (only they can be kept; most relevant first, at most one batch), and of
 * `extra` papers (a note's own, whose reference lists seed "builds on"), in
 * one batched call. With `previous` (a lookup of the same pool under another
 * judging), the papers it looked up are not asked again: their counts are
 * taken from it, and only the others are requested.
 */
export const impact = Effect.fn("Companion.impact")(function*(
  judged: Judged,
  merged: MergedCandidates,
  relevanceThreshold: number,
  extra: ReadonlyArray<string> = [],
  citedSource?: Impact["source"],
  count: Count = uncounted,
  previous?: Impacts
) {
  const openalex = yield* OpenAlexPort
  const impacts = new Map<string, Impact>(merged.impacts)
  const looked = judged.candidates
    .map((p) => judged.judgements.get(p.arxivId)!)
    .filter((j) => j.relevance >= relevanceThreshold)
    .sort((a, b) => b.relevance - a.relevance || a.arxivId.localeCompare(b.arxivId))
    .map((j) => j.arxivId)
    .filter((id) => !impacts.has(id))
    .slice(0, IMPACT_LOOKUPS)
  const before = new Set(previous?.looked ?? [])
  for (const id of looked) {
    const known = before.has(id) ? previous!.impacts.get(id) : undefined
    if (known !== undefined) impacts.set(id, known)
  }
  const ids = [...looked.filter((id) => !before.has(id)), ...extra]
  if (ids.length === 0) return { impacts, looked, source: previous?.source ?? citedSource, asOf: previous?.asOf } satisfies Impacts
  count("openalex")
  const lookup = yield* openalex.worksByArxivIds(ids)
  for (const i of lookup.impacts) impacts.set(bareId(i.arxivId), i)
  return { impacts, looked, source: lookup.source, asOf: lookup.asOf } satisfies Impacts
}) as (
  judged: Judged,
  merged: MergedCandidates,
  relevanceThreshold: number,
  extra?: ReadonlyArray<string>,
  citedSource?: Impact["source"],
  count?: Count,
  previous?: Impacts
) => Effect.Effect<Impacts, OpenAlexError, OpenAlexPort>

/**
 * Decide each judged candidate: its impact assessed (when it was looked up
 * or came with its channel; else "not assessed"), kept when relevant and
 * impact passes, labelled with the channels that found it. Pure.
 */
export const decideAll = (
  judged: Judged,
  merged: MergedCandidates,
  found: Impacts,
  today: string,
  thresholds: ImpactThresholds & { readonly relevanceThreshold: number }
): ReadonlyArray<ScoredPaper> => {
  const assessed = new Set([...found.looked, ...found.impacts.keys()])
  const looked = new Set(found.looked)
  const asOf = found.asOf ?? today
  return judged.candidates.map((paper) => {
    const judgement = judged.judgements.get(paper.arxivId)!
    // a paper the lookup was asked for and has no count of is told which source had none
    const assessment = assessed.has(paper.arxivId)
      ? assessImpact(
        paper.published,
        found.impacts.get(paper.arxivId),
        asOf,
        thresholds,
        looked.has(paper.arxivId) ? found.source : undefined
      )
      : impactNotAssessed(asOf)
    const foundBy = merged.channels.get(paper.arxivId)
    return new ScoredPaper({
      paper,
      judgement,
      impact: assessment,
      decision: decide(judgement, assessment, thresholds),
      ...(foundBy === undefined ? {} : { foundBy })
    }, true) // built from checked parts: validating a pool of 1000 again costs a fifth of a second
  })
}

// -----------------------------------------------------------------------------
// the records a note's run carries from stage to stage (src/core/workflow.ts):
//   note → concept → plan → search → judge → impact → keep → foundations → teach → write

/** The note the prompt names, found in the vault and read. */
export interface NoteStage {
  readonly note: NoteRef
  /** Every note of the vault (for links in the written note). */
  readonly notes: ReadonlyArray<NoteRef>
  readonly text: string
}

/** The concept the note is about: the note in English terms and its keywords, most informative first. */
export interface ConceptStage {
  readonly searchText: string
  readonly searchTitle: string
  /** How a note in another language was read (undefined: read as it is). */
  readonly reading?: NoteReading | undefined
  readonly terms: ReadonlyArray<NoteTerm>
  readonly stats: TermLookup
  readonly keywords: ReadonlyArray<RankedKeyword>
}

/** What to search for: the search plan, and what it was made from. */
export interface PlanStage {
  readonly plan: SearchPlan
  /** The pool's query (the plan's, as a record of its own for the report). */
  readonly query: ArxivQuery
  /** The authors the note cites (their surnames are the plan's). */
  readonly authors: ReturnType<typeof citedAuthors>
  /** The papers the note names (by id or title). */
  readonly mentions: NoteMentions
}

/** What the searches found, and the candidates to judge: the papers the note already names set apart. */
export interface SearchStage {
  readonly searched: Searched
  readonly named: ReturnType<typeof matchNamedPapers>
  readonly pool: ReadonlyArray<Paper>
}

/** The keep decision, made once: every candidate decided and the best kept; carried to every later stage. */
export interface KeepStage {
  readonly outcome: KeepOutcome
  readonly today: string
}

/** The foundational citations of the kept papers and of those the note names, and the kept papers' summaries. */
export interface FoundationsStage {
  readonly foundations: ReadonlyArray<Foundations>
  readonly references: ReadonlyMap<string, ReadonlyArray<string> | undefined>
  readonly works: ReadonlyMap<string, Work>
  readonly summaries: ReadonlyArray<PaperSummary>
}

/** Every stage's record of a run, up to the note it writes: what the note and the report are composed from. */
export interface RunStages {
  readonly found: NoteStage
  readonly concept: ConceptStage
  readonly planned: PlanStage
  readonly candidates: SearchStage
  readonly judged: Judged
  readonly impacts: Impacts
  readonly decided: KeepStage
  readonly founded: FoundationsStage
  readonly taught: NoteTeaching
}
