/**
 * Turns a research question, or a query a person typed in arXiv's syntax,
 * into the structured query the ArxivPort takes (src/core/arxivQuery.ts).
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { ArxivQuery } from "../arxivQuery.js"
import type { InvalidArgument, NotEnoughInformation } from "../errors.js"
import type { QuestionConcept } from "../question.js"

/** A query for one question, and how it was made. */
export interface BuiltQuery {
  /** The pool's query: arXiv `search_query` syntax (ti:, abs:, au:, cat:, all:, AND/OR/ANDNOT, quotes, parentheses). */
  readonly query: string
  /** Who wrote it: "rules", or the model's name. */
  readonly builder: string
  /** A rule-based query to send instead if arXiv rejects `query` (absent when `query` is rule-based). */
  readonly fallback?: string | undefined
  /** The question's key terms (for the judge), most informative first. */
  readonly keywords: ReadonlyArray<string>
  /**
   * The question read as a concept (key terms weighed against arXiv
   * statistics, authors, quoted phrases, categories, dates): what the title
   * search, the most-cited channel and the judge work from, whoever wrote `query`.
   */
  readonly concept: QuestionConcept
  /** `query`, `fallback` and the concept's required parts read into structured queries: what is searched. */
  readonly search: {
    readonly query: ArxivQuery
    readonly fallback?: ArxivQuery | undefined
    readonly required?: ArxivQuery | undefined
  }
  /** Answers asked of a model (0 for rules). */
  readonly attempts: number
  /** True when a model's answers were unusable and the rule-based query was used. */
  readonly fellBack: boolean
  /** What happened on the way, in words (a retry, a fallback and why). */
  readonly notes: ReadonlyArray<string>
}

/** The query builder. */
export interface QueryBuilderService {
  /** "rules", or the model's name. */
  readonly name: string
  /** NotEnoughInformation when the question names nothing to search for. */
  readonly build: (question: string) => Effect.Effect<BuiltQuery, NotEnoughInformation>
  /**
   * A query a person typed (free words or arXiv syntax: ti:, abs:, au:, cat:, all:, AND/OR/ANDNOT, quotes,
   * parentheses, date ranges) read as arXiv reads it; InvalidArgument (`query`) saying what is wrong and where.
   */
  readonly read: (typed: string) => Effect.Effect<ArxivQuery, InvalidArgument>
}

/** @since 0.1.0 */
export class QueryBuilderPort extends Context.Tag("arxiv-companion/QueryBuilderPort")<QueryBuilderPort, QueryBuilderService>() {}
