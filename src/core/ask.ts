/**
 * Ask a research question: question → arXiv query → the first results
 * re-ranked by the judge against the question → the top papers.
 *
 * Touches the world only through the ports: QueryBuilderPort writes the
 * query, ArxivPort runs it (one request), LlmJudgePort re-ranks.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { buildSearchQuery } from "./arxiv.js"
import { type ArxivError, InvalidArgument, JudgeFailed, NotEnoughInformation, UpstreamUnavailable } from "./errors.js"
import { IsoDate, type Paper } from "./models.js"
import { ArxivPort } from "./ports/ArxivPort.js"
import { LlmJudgePort } from "./ports/LlmJudgePort.js"
import { type BuiltQuery, QueryBuilderPort } from "./ports/QueryBuilderPort.js"
import { wordCount } from "./question.js"

/** Limits of one question. */
export class AskOptions extends Schema.Class<AskOptions>("AskOptions")({
  /** Papers kept after re-ranking, 1..20 (default 3). */
  top: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 20)), { default: () => 3 }),
  /** arXiv results re-ranked, 1..50 (default 50). */
  maxResults: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 50)), { default: () => 50 }),
  /** Restrict to any of these categories; empty (default) searches all of arXiv. */
  categories: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /** Only papers first submitted on or after this date. */
  since: Schema.optional(IsoDate)
}) {}

/** One paper of an answer: rank after re-ranking, where arXiv ranked it, and the judge's view. */
export interface AskedPaper {
  readonly paper: Paper
  /** 1-based rank in arXiv's results. */
  readonly searchRank: number
  readonly relevance: number
  readonly rationale: string
}

/** How the query was made and what was sent. */
export interface QueryReport extends Omit<BuiltQuery, "fallback" | "query"> {
  /** The query the builder wrote (before categories and dates were added). */
  readonly written: string
  /** The full search_query arXiv received. */
  readonly sent: string
}

/** The answer to one question. */
export interface AskAnswer {
  readonly question: string
  readonly query: QueryReport
  /** How many papers arXiv says match the query in all. */
  readonly total: number
  /** How many were re-ranked. */
  readonly candidates: number
  readonly judge: string
  /** The top papers, most relevant first. */
  readonly papers: ReadonlyArray<AskedPaper>
  /** Said when the answer is empty: why, and what to try. */
  readonly message?: string | undefined
}

/** Errors of `askArxiv`. */
export type AskError = NotEnoughInformation | ArxivError | JudgeFailed

/** Whether arXiv refused the query itself (syntax, unknown field), as opposed to being unavailable. */
const rejectedQuery = (e: ArxivError): boolean =>
  (e instanceof InvalidArgument && e.argument === "query") || (e instanceof UpstreamUnavailable && e.status === 400)

/**
 * Answer a research question with the most relevant arXiv papers.
 *
 * NotEnoughInformation for an empty or one-word question, or one that names
 * nothing to search for. A query arXiv rejects is replaced once by the
 * rule-based query (when the builder gave one), and the report says so. No
 * results is an empty, successful answer with a `message`.
 */
export const askArxiv = Effect.fn("Ask.run")(function*(question: string, options: AskOptions = new AskOptions({})) {
  const words = wordCount(question)
  if (words < 2) {
    return yield* new NotEnoughInformation({
      detail: words === 0
        ? "the question is empty. Ask what you want to find, e.g. \"what are the main ways to stabilise GAN training?\""
        : `"${question.trim()}" is one word. Say what you want to know about it, e.g. "how is ${question.trim()} trained?" or "papers by <author> on ${question.trim()}".`
    })
  }
  const builder = yield* QueryBuilderPort
  const arxiv = yield* ArxivPort
  const judge = yield* LlmJudgePort

  const built = yield* builder.build(question)
  const notes = [...built.notes]
  let written = built.query
  let fellBack = built.fellBack
  const search = (query: string) =>
    arxiv.search({ query, categories: options.categories, since: options.since, maxResults: options.maxResults, sortBy: "relevance" })
  const found = yield* search(written).pipe(
    Effect.catchIf(
      (e) => built.fallback !== undefined && rejectedQuery(e),
      (e) => {
        notes.push(`arXiv rejected the query (${e.message}); the rule-based query was sent instead.`)
        written = built.fallback!
        fellBack = true
        return search(written)
      }
    )
  )

  const candidates = found.papers
  const judgements = candidates.length === 0 ? [] : yield* judge.judge(
    { title: question, text: [question, ...built.keywords].join("\n"), keywords: built.keywords },
    candidates
  )
  // judgements are matched by id, so a judge that reorders or skips papers cannot mismatch them
  const byId = new Map(judgements.map((j) => [j.arxivId, j]))
  const unjudged = candidates.filter((p) => !byId.has(p.arxivId)).map((p) => p.arxivId)
  if (unjudged.length > 0) return yield* new JudgeFailed({ model: judge.name, reason: `no judgement for ${unjudged.join(", ")}` })
  const ranked = candidates
    .map((paper, i) => ({ paper, searchRank: i + 1, judgement: byId.get(paper.arxivId)! }))
    .map(({ judgement, paper, searchRank }) => ({ paper, searchRank, relevance: judgement.relevance, rationale: judgement.rationale }))
    .sort((a, b) => b.relevance - a.relevance || a.searchRank - b.searchRank)
    .slice(0, options.top)

  const { fallback: _fallback, query: _query, ...how } = built
  return {
    question,
    query: { ...how, fellBack, notes, written, sent: buildSearchQuery(written, options.categories, options.since) },
    total: found.total,
    candidates: candidates.length,
    judge: judge.name,
    papers: ranked,
    ...(ranked.length === 0
      ? { message: "arXiv has no paper matching this query. Try fewer or broader terms, or drop an author or a date." }
      : {})
  } satisfies AskAnswer
}) as (
  question: string,
  options?: AskOptions
) => Effect.Effect<AskAnswer, AskError, QueryBuilderPort | ArxivPort | LlmJudgePort>
