/**
 * A paper's full text, for bounded reading (`read_paper`). An optional port:
 * the companion workflow does not need it.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { InvalidArgument, PaperNotFound, UpstreamUnavailable } from "../errors.js"
import type { FullText } from "../fulltext.js"

/** Errors a FullTextPort may fail with. */
export type FullTextError = PaperNotFound | InvalidArgument | UpstreamUnavailable

/** The full-text service. */
export interface FullTextService {
  /**
   * The text of a paper (a bare, normalised arXiv id) as sections: arXiv's
   * HTML when it exists, else the text of its PDF. PaperNotFound when arXiv
   * has neither.
   */
  readonly fullText: (arxivId: string) => Effect.Effect<FullText, FullTextError>
}

/** @since 0.1.0 */
export class FullTextPort extends Context.Tag("arxiv-companion/FullTextPort")<FullTextPort, FullTextService>() {}
