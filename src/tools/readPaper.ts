/**
 * read_paper: bounded views of a paper's full text.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { InvalidArgument } from "../core/errors.js"
import { documentText, findSection, outline, sectionText, textWindow } from "../core/fulltext.js"
import { FullTextPort } from "../core/ports/FullTextPort.js"
import { arxivIdArg, intArg } from "./arguments.js"
import type { ReadPaperResult } from "./schemas.js"

/** Arguments of {@link readPaper}. */
export interface ReadPaperInput {
  readonly arxiv_id: string
  /** A section number ("3", "3.2") or heading ("Related Work"); default the whole text. */
  readonly section?: string | undefined
  /** 500..20000, default 6000. */
  readonly max_chars?: number | undefined
  /** Where to start (from a previous `next_offset`), default 0. */
  readonly offset?: number | undefined
}

/**
 * A slice of a paper's text (arXiv HTML, else its PDF): the whole text or one
 * section with its subsections, at most `max_chars` from `offset`, with the
 * offset to continue from. The first slice (offset 0) carries the outline.
 */
export const readPaper = Effect.fn("Tools.readPaper")(function*(input: ReadPaperInput) {
  const fullText = yield* FullTextPort
  const id = yield* arxivIdArg(input.arxiv_id)
  const maxChars = yield* intArg("max_chars", input.max_chars, 500, 20_000, 6000)
  const offset = yield* intArg("offset", input.offset, 0, 10_000_000, 0)
  const doc = yield* fullText.fullText(id)
  let text: string
  let section: string | undefined
  if (input.section !== undefined && input.section.trim() !== "") {
    const index = findSection(doc, input.section)
    if (index === undefined) {
      const headings = doc.sections.map((s) => s.heading)
      return yield* new InvalidArgument({
        argument: "section",
        reason: `${id} has no section "${input.section}"; use a number or heading from: ${headings.slice(0, 40).join("; ")}` +
          (headings.length > 40 ? "; ..." : "")
      })
    }
    section = doc.sections[index]!.heading
    text = sectionText(doc, index)
  } else {
    text = documentText(doc)
  }
  if (offset > 0 && offset >= text.length) {
    return yield* new InvalidArgument({
      argument: "offset",
      reason: `${offset} is past the end of the text (${text.length} characters); start again from 0`
    })
  }
  const window = textWindow(text, offset, maxChars)
  return {
    arxiv_id: id,
    source: doc.source,
    url: doc.url,
    title: doc.title,
    ...(offset === 0 ? { outline: outline(doc).map((o) => ({ level: o.level, heading: o.heading, chars: o.chars })) } : {}),
    ...(section === undefined ? {} : { section }),
    text: window.text,
    offset: window.offset,
    next_offset: window.nextOffset ?? null,
    total_chars: window.totalChars
  } satisfies ReadPaperResult
})
