/**
 * A paper's full text as sections, and bounded views of it: an outline, a
 * named section, fixed chunks. (Reading arXiv's HTML and PDF text into
 * sections is the full-text adapter's job: src/adapters/fulltext/fullTextParsers.ts.)
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** One section of a paper: its heading, depth (1 = top) and own text (not its subsections'). */
export class Section extends Schema.Class<Section>("Section")({
  heading: Schema.String,
  level: Schema.Int.pipe(Schema.between(1, 6)),
  text: Schema.String
}) {}

/** Where a full text came from. */
export const FullTextSource = Schema.Literal("arxiv-html", "pdf", "abstract-only")
export type FullTextSource = typeof FullTextSource.Type

/** A paper's text, split into sections in reading order. */
export class FullText extends Schema.Class<FullText>("FullText")({
  arxivId: Schema.String,
  source: FullTextSource,
  url: Schema.String,
  title: Schema.String,
  sections: Schema.Array(Section)
}) {}

// ---------------------------------------------------------------------------
// HTML

/** One line of an outline: a section's index, depth, heading and size with its subsections. */
export interface OutlineEntry {
  readonly index: number
  readonly level: number
  readonly heading: string
  readonly chars: number
}

const sectionEnd = (sections: ReadonlyArray<Section>, index: number): number => {
  const level = sections[index]!.level
  let end = index + 1
  while (end < sections.length && sections[end]!.level > level) end++
  return end
}

const renderSections = (sections: ReadonlyArray<Section>): string =>
  sections.map((s) => `${"#".repeat(Math.min(6, s.level + 1))} ${s.heading}\n\n${s.text}`.trim()).join("\n\n")

/** The text of section `index` with its subsections, as Markdown. */
export const sectionText = (doc: FullText, index: number): string =>
  renderSections(doc.sections.slice(index, sectionEnd(doc.sections, index)))

/** The whole document as Markdown, headings included. */
export const documentText = (doc: FullText): string => renderSections(doc.sections)

/** The headings of a document with their sizes (subsections included). */
export const outline = (doc: FullText): ReadonlyArray<OutlineEntry> =>
  doc.sections.map((s, index) => ({ index, level: s.level, heading: s.heading, chars: sectionText(doc, index).length }))

const normalizeHeading = (s: string): string =>
  s.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[^a-z0-9.]+/g, " ").trim()

/**
 * The section a user names: by number ("3", "3.2", "A"), by heading
 * ("Related Work", case-insensitive, with or without its number), or by a
 * heading's beginning. Undefined when nothing matches.
 */
export const findSection = (doc: FullText, name: string): number | undefined => {
  const q = normalizeHeading(name).replace(/\.$/, "")
  if (q === "") return undefined
  const heads = doc.sections.map((s) => {
    const h = normalizeHeading(s.heading)
    const m = /^((?:\d+|[a-h])(?:\.\d+)*)\.?\s+(.*)$/.exec(h)
    return { full: h, number: m?.[1], title: m?.[2] ?? h }
  })
  const tests: Array<(h: (typeof heads)[number]) => boolean> = [
    (h) => h.number === q,
    (h) => h.full === q || h.title === q,
    (h) => h.title.startsWith(q) || h.full.startsWith(q),
    (h) => q.length >= 4 && h.title.includes(q)
  ]
  for (const test of tests) {
    const i = heads.findIndex(test)
    if (i >= 0) return i
  }
  return undefined
}

/** A bounded slice of a longer text and where to continue. */
export interface TextWindow {
  readonly text: string
  readonly offset: number
  /** Where the next slice starts; undefined when this slice reaches the end. */
  readonly nextOffset: number | undefined
  readonly totalChars: number
}

/**
 * At most `maxChars` characters of `text` from `offset`, cut at a paragraph
 * or word boundary when one lies in the last fifth of the slice.
 */
export const textWindow = (text: string, offset: number, maxChars: number): TextWindow => {
  const start = Math.max(0, Math.min(offset, text.length))
  let end = Math.min(text.length, start + Math.max(1, maxChars))
  if (end < text.length) {
    const slice = text.slice(start, end)
    const floor = Math.floor(slice.length * 0.8)
    const para = slice.lastIndexOf("\n\n")
    const space = slice.search(/\s\S*$/)
    if (para >= floor) end = start + para + 2
    else if (space >= floor) end = start + space + 1
  }
  return { text: text.slice(start, end), offset: start, nextOffset: end < text.length ? end : undefined, totalChars: text.length }
}
