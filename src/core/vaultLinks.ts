/**
 * Obsidian-native links and tags for the generated note: where the vault
 * already holds a note whose title matches a paper, a keyword or a
 * foundation, the note links it (`[[Title]]` or `[[Title|as written]]`);
 * keywords become tags in the properties.
 *
 * Titles match case-, diacritic- and plural-insensitively ("word embedding"
 * finds "Word Embeddings"). A vault title that could not be linked safely
 * (it holds `[ ] | # ^` or a line break) is never linked.
 *
 * @since 0.2.0
 */
import { singular } from "./keywords.js"
import type { NoteRef } from "./models.js"
import { firstChars, normalizeTitle, words } from "./text.js"

/** The vault's note titles, by matching key. */
export interface VaultIndex {
  readonly byKey: ReadonlyMap<string, string>
}

const UNLINKABLE = /[[\]|#^\r\n\u0000-\u001f\u2028\u2029]|%%/

/**
 * Whether `[[title]]` links that note and nothing else: no `[ ] | # ^`
 * (which end or redirect a link), no line break or control character, and
 * no `%%` (which would open an Obsidian comment).
 */
export const isLinkable = (title: string): boolean => title.trim() !== "" && !UNLINKABLE.test(title)

/** `[[title]]` for a note the companion knows by title, or the title as plain text when it cannot be linked safely. */
export const noteLink = (title: string, plain: (text: string) => string): string => (isLinkable(title) ? `[[${title}]]` : plain(title))

/** The matching key of a title: normalised words, each singular. */
export const titleKey = (title: string): string => words(normalizeTitle(title)).map(singular).join(" ")

/**
 * An index of the vault's titles. `exclude` are titles never linked (the
 * generated note itself). When two titles share a key, the first in
 * code-point order wins, so the index does not depend on listing order.
 */
export const vaultIndex = (notes: ReadonlyArray<Pick<NoteRef, "title">>, exclude: ReadonlyArray<string> = []): VaultIndex => {
  const excluded = new Set(exclude.map(titleKey))
  const byKey = new Map<string, string>()
  const titles = [...new Set(notes.map((n) => n.title))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  for (const title of titles) {
    if (!isLinkable(title)) continue
    const key = titleKey(title)
    if (key === "" || excluded.has(key) || byKey.has(key)) continue
    byKey.set(key, title)
  }
  return { byKey }
}

/** The vault title matching `text`, if any. */
export const matchingNote = (index: VaultIndex, text: string): string | undefined => {
  const key = titleKey(text)
  return key === "" ? undefined : index.byKey.get(key)
}

/**
 * `[[Title]]` when the vault holds a note matching `text` (with `text` as
 * the alias when written differently), else undefined. `display` is the
 * alias text already made safe for Markdown; it must not contain `]]` or `|`.
 */
export const wikiLink = (index: VaultIndex, text: string, display: string = text): string | undefined => {
  const title = matchingNote(index, text)
  if (title === undefined) return undefined
  const alias = display.replace(/[[\]|]/g, " ").replace(/\s+/g, " ").trim()
  return alias === title || alias === "" ? `[[${title}]]` : `[[${title}|${alias}]]`
}

/**
 * A keyword as an Obsidian tag: lower case, words joined by hyphens, only
 * letters, digits, `_` and `-` (no nesting `/`), at least one non-digit.
 * Undefined when nothing valid remains.
 */
export const keywordTag = (keyword: string): string | undefined => {
  const tag = keyword
    .normalize("NFC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_-]+/gu, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "")
  // cut at 60 characters, not 60 UTF-16 units: a letter outside the BMP is never split into a lone surrogate
  const cut = firstChars(tag, 60).replace(/[-_]+$/g, "")
  return cut === "" || /^[\p{N}_-]+$/u.test(cut) ? undefined : cut
}
