/**
 * ask_arxiv: a research question answered with the most relevant arXiv
 * papers — the one use case behind the library's `askArxiv`, the CLI's
 * `ask` and the MCP tool.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { type AskAnswer, askArxiv, AskOptions } from "../core/ask.js"
import { absUrl } from "../core/arxiv.js"
import { categoriesArg, dateArg, intArg } from "./arguments.js"

/** Arguments of {@link askArxivTool} (snake_case, as MCP hosts send them). */
export interface AskInput {
  /** The research question, e.g. "what are the main ways to stabilise GAN training?" */
  readonly question: string
  /** Papers kept after re-ranking, 1..20 (default 3). */
  readonly top?: number | undefined
  /** arXiv results re-ranked, 1..50 (default 50). */
  readonly max_results?: number | undefined
  /** Only these categories (default: all of arXiv). */
  readonly categories?: ReadonlyArray<string> | undefined
  /** Only papers first submitted on or after YYYY-MM-DD. */
  readonly since_date?: string | undefined
}

/** One paper of an answer. */
export const AskedPaper = Schema.Struct({
  arxiv_id: Schema.String,
  title: Schema.String,
  authors: Schema.Array(Schema.String),
  published_date: Schema.String,
  relevance: Schema.Number,
  rationale: Schema.String,
  abs_url: Schema.String,
  pdf_url: Schema.String
})

/** The answer to a question: the query sent and how it was written, and the top papers. */
export const AskResult = Schema.Struct({
  question: Schema.String,
  /** The search_query arXiv received. */
  query: Schema.String,
  /** "rules" or the model that wrote the query; attempts, fallback and what happened. */
  query_builder: Schema.Struct({
    name: Schema.String,
    attempts: Schema.NonNegativeInt,
    fell_back: Schema.Boolean,
    notes: Schema.Array(Schema.String)
  }),
  total: Schema.NonNegativeInt,
  candidates: Schema.NonNegativeInt,
  judge: Schema.String,
  papers: Schema.Array(AskedPaper),
  message: Schema.optional(Schema.String)
})
export type AskResult = typeof AskResult.Type

const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim()

/** The answer as tool data. */
export const toAskResult = (answer: AskAnswer): AskResult => ({
  question: answer.question,
  query: answer.query.sent,
  query_builder: {
    name: answer.query.builder,
    attempts: answer.query.attempts,
    fell_back: answer.query.fellBack,
    notes: answer.query.notes
  },
  total: answer.total,
  candidates: answer.candidates,
  judge: answer.judge,
  papers: answer.papers.map(({ paper, rationale, relevance }) => ({
    arxiv_id: paper.arxivId,
    title: oneLine(paper.title),
    authors: paper.authors,
    published_date: paper.published,
    relevance: Math.round(relevance * 1000) / 1000,
    rationale,
    abs_url: absUrl(paper.arxivId),
    pdf_url: `https://arxiv.org/pdf/${paper.arxivId}`
  })),
  ...(answer.message === undefined ? {} : { message: answer.message })
})

/** Options of a question from tool arguments (checked; unset ones take the defaults). */
export const askOptions = Effect.fn("Tools.askOptions")(function*(input: Omit<AskInput, "question">) {
  const top = yield* intArg("top", input.top, 1, 20, 3)
  const maxResults = yield* intArg("max_results", input.max_results, 1, 50, 50)
  const categories = input.categories === undefined ? [] : yield* categoriesArg(input.categories)
  const since = yield* dateArg("since_date", input.since_date)
  return new AskOptions({ top, maxResults, categories, ...(since === undefined ? {} : { since }) })
})

/** Answer a research question with the most relevant arXiv papers. */
export const askArxivTool = Effect.fn("Tools.askArxiv")(function*(input: AskInput) {
  const options = yield* askOptions(input)
  const answer = yield* askArxiv(input.question, options)
  return toAskResult(answer)
})
