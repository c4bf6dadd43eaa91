/**
 * The companion's view of citation data: impact of arXiv papers and the works they cite.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { OpenAlexError } from "../errors.js"
import type { Impact, ImpactSource, Paper, Work } from "../models.js"

/** Impact records for the arXiv ids that have one, and the ids that have none. */
export interface ImpactLookup {
  readonly impacts: ReadonlyArray<Impact>
  readonly missing: ReadonlyArray<string>
  /**
   * The source of this lookup's counts. Each impact names its own source; with
   * recorded data that can differ per paper (one source per paper, never mixed).
   */
  readonly source: ImpactSource
  /**
   * The date as of which a paper WITHOUT a count is aged (`YYYY-MM-DD`): with
   * recorded data, the date the data was recorded; absent for live answers
   * (then "today"). Papers with a count are aged as of their count's date.
   */
  readonly asOf?: string
}

/** Works resolved from OpenAlex ids, and the ids that did not resolve. */
export interface WorkLookup {
  readonly works: ReadonlyArray<Work>
  readonly missing: ReadonlyArray<string>
}

/** A search for the most cited arXiv papers on a note's key phrases. */
export interface CitedSearch {
  /** Key phrases, most important first; a work matches when its title or abstract holds any of them. */
  readonly phrases: ReadonlyArray<string>
  /** How many papers to return at most, 1..100. */
  readonly limit: number
}

/** An arXiv paper found by its citation count, with the impact it was ranked by. */
export interface CitedPaper {
  readonly paper: Paper
  readonly impact: Impact
}

/** The most cited papers for a `CitedSearch`, most cited first. */
export interface CitedLookup {
  readonly papers: ReadonlyArray<CitedPaper>
  /** The search as the service ran it, for the report. */
  readonly query: string
}

/** The citation service as the core needs it. Every method is one batched request (live) at most. */
export interface OpenAlexService {
  readonly worksByArxivIds: (arxivIds: ReadonlyArray<string>) => Effect.Effect<ImpactLookup, OpenAlexError>
  readonly worksByIds: (openalexIds: ReadonlyArray<string>) => Effect.Effect<WorkLookup, OpenAlexError>
  /**
   * The most cited works with an arXiv location whose title or abstract holds
   * any of the phrases, most cited first, each with the paper's metadata (for
   * the judge) and its impact. Live: one OpenAlex works search sorted by
   * `cited_by_count`; offline: the recorded corpus and counts. No phrase gives
   * no papers.
   */
  readonly mostCitedArxivWorks: (search: CitedSearch) => Effect.Effect<CitedLookup, OpenAlexError>
}

/** @since 0.1.0 */
export class OpenAlexPort extends Context.Tag("arxiv-companion/OpenAlexPort")<OpenAlexPort, OpenAlexService>() {}
