/**
 * The companion's view of citation data: impact of arXiv papers and the works they cite.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { OpenAlexError } from "../errors.js"
import type { Impact, ImpactSource, Work } from "../models.js"

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

/** The citation service as the core needs it. Both methods batch internally. */
export interface OpenAlexService {
  readonly worksByArxivIds: (arxivIds: ReadonlyArray<string>) => Effect.Effect<ImpactLookup, OpenAlexError>
  readonly worksByIds: (openalexIds: ReadonlyArray<string>) => Effect.Effect<WorkLookup, OpenAlexError>
}

/** @since 0.1.0 */
export class OpenAlexPort extends Context.Tag("arxiv-companion/OpenAlexPort")<OpenAlexPort, OpenAlexService>() {}
