/**
 * The companion's view of arXiv: search and id lookups.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { ArxivQuery } from "../arxivQuery.js"
import type { ArxivError } from "../errors.js"
import type { Paper } from "../models.js"

/**
 * A search request. `query` is the structured query (src/core/arxivQuery.ts:
 * terms and phrases in arXiv's fields, date ranges, the boolean tree): the
 * live adapter renders it in arXiv's syntax, a local index evaluates it.
 * Absent, the search is the categories and the date alone.
 */
export interface ArxivSearch {
  readonly query?: ArxivQuery | undefined
  /** Restrict to any of these categories (ORed); empty means all. */
  readonly categories: ReadonlyArray<string>
  /** Only papers first submitted on or after this date (YYYY-MM-DD). */
  readonly since?: string | undefined
  /** 1..50 */
  readonly maxResults: number
  readonly start?: number | undefined
  readonly sortBy?: "relevance" | "submittedDate" | "lastUpdatedDate" | undefined
  readonly sortOrder?: "ascending" | "descending" | undefined
}

/** One page of search results; `total` is how many papers match in all. */
export interface ArxivSearchResult {
  readonly papers: ReadonlyArray<Paper>
  readonly total: number
  readonly start: number
}

/** Papers found by id, and the (normalised) ids that do not exist. */
export interface ArxivLookup {
  readonly papers: ReadonlyArray<Paper>
  readonly missing: ReadonlyArray<string>
}

/** The arXiv service as the core needs it. */
export interface ArxivService {
  readonly search: (request: ArxivSearch) => Effect.Effect<ArxivSearchResult, ArxivError>
  readonly getPapers: (ids: ReadonlyArray<string>) => Effect.Effect<ArxivLookup, ArxivError>
}

/** @since 0.1.0 */
export class ArxivPort extends Context.Tag("arxiv-companion/ArxivPort")<ArxivPort, ArxivService>() {}
