/**
 * Somewhere outside the vault to publish a document as a page (Notion).
 * An optional port: only `ask --notion` uses it.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { DocBlock } from "../answerNote.js"
import type { InvalidArgument, PageNotSaved } from "../errors.js"

/** A page that was created. */
export interface PublishedPage {
  readonly id: string
  readonly url: string
}

/** The page service. */
export interface PageService {
  /** For messages, e.g. "Notion". */
  readonly name: string
  /**
   * Create a page with these blocks, whole or not at all: a failure after
   * the page was created removes (archives) it. InvalidArgument when the
   * service is not configured.
   */
  readonly createPage: (title: string, blocks: ReadonlyArray<DocBlock>) => Effect.Effect<PublishedPage, PageNotSaved | InvalidArgument>
}

/** @since 0.1.0 */
export class PagePort extends Context.Tag("arxiv-companion/PagePort")<PagePort, PageService>() {}
