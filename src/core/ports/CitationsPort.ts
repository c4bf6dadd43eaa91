/**
 * Incoming citations: the works that cite an arXiv paper (`get_citations`).
 * An optional port beside OpenAlexPort (which only knows outgoing references),
 * so existing OpenAlexPort adapters need not change.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { DataNotRecorded, InvalidArgument, PaperNotFound, UpstreamUnavailable } from "../errors.js"
import type { Work } from "../models.js"

/** Errors a CitationsPort may fail with. */
export type CitationsError = PaperNotFound | DataNotRecorded | InvalidArgument | UpstreamUnavailable

/** The works citing one paper, most cited first. */
export interface CitingWorks {
  readonly arxivId: string
  /** The OpenAlex id of the cited paper. */
  readonly openalexId: string
  /** How many works cite it in all (may exceed `works.length`). */
  readonly total: number
  readonly works: ReadonlyArray<Work>
}

/** The citations service. */
export interface CitationsService {
  /**
   * Up to `limit` works citing the paper, most cited first. PaperNotFound when
   * the citation index has no record of the paper; DataNotRecorded when it has
   * the paper but no list of citing works (offline recordings).
   */
  readonly citingWorks: (arxivId: string, limit: number) => Effect.Effect<CitingWorks, CitationsError>
}

/** @since 0.1.0 */
export class CitationsPort extends Context.Tag("arxiv-companion/CitationsPort")<CitationsPort, CitationsService>() {}
