/**
 * Untrusted text (titles, abstracts, model output) as inline Obsidian
 * Markdown that reads as the same words and cannot do anything else.
 *
 * @since 0.2.0
 */

const LINE_BREAKS = /[\r\n\v\f\u0085\u2028\u2029]+/g

/**
 * One line of plain text for Obsidian: line breaks become spaces, and every
 * character Markdown or Obsidian would read as syntax is escaped with a
 * backslash — emphasis and code (`* _ \``), links and embeds (`[ ] !`
 * before `[`), HTML (`< >`), tables (`|`), tags and headings (`#`), math
 * (`$`), highlights and strikes (`= ~`), block references (`^`) — and no two `%`
 * stay side by side (`%%` opens an Obsidian comment, which could hide the rest of the note).
 */
export const mdInline = (text: string): string =>
  text
    .replace(LINE_BREAKS, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\\`*_[\]<>|#$=~^]/g, (c) => `\\${c}`)
    .replace(/%(?=%)/g, "%\\")
