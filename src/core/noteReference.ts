/**
 * Finding the note a prompt names, from the prompt text alone, and matching it
 * against the vault's titles.
 *
 * @since 0.1.0
 */
import type { NoteRef } from "./models.js"
import { levenshtein, normalizeTitle, words } from "./text.js"

/** The exact message for a prompt that names no note. */
export const NO_NOTE_NAMED = "no Obsidian note or page was named in the prompt."

/** A note reference found in a prompt: the titles to try, most specific first. */
export interface NoteReference {
  readonly raw: string
  readonly candidates: ReadonlyArray<string>
}

const clean = (s: string): string => s.replace(/\s+/g, " ").trim()

const PATTERNS: ReadonlyArray<RegExp> = [
  // [[Title]] or [[Title|alias]] or [[Title#heading]]
  /\[\[([^\]|#^]+)(?:[#^][^\]|]*)?(?:\|[^\]]*)?\]\]/u,
  // "Title", “Title”, «Title»
  /["“«]([^"”»\n]{2,200})["”»]/u,
  // 'Title' or ‘Title’ — only when the quote opens a word and closes before a non-letter
  /(?<![\p{L}\p{N}])['‘]([^'’\n]{2,200})['’](?![\p{L}\p{N}])/u,
  // note/page called|titled|named X
  /\b(?:note|page)\s+(?:called|titled|named)\s+([^,.;:!?\n]{2,200})/iu,
  // my X note / my X page
  /\bmy\s+([^,.;:!?"\n]{1,200}?)\s+(note|page)\b/iu
]

/**
 * Find the note a prompt names ("quoted title", [[wikilink]], "my X note",
 * "note called X"), without looking at any vault. None when nothing is named.
 */
export const parseNoteReference = (prompt: string): NoteReference | undefined => {
  for (const [index, pattern] of PATTERNS.entries()) {
    const match = pattern.exec(prompt)
    if (match === null) continue
    const raw = clean(match[1]!.replace(/\.md$/i, ""))
    if (raw.length === 0) continue
    if (index === PATTERNS.length - 1) {
      // "my Transformers note" may mean the note "Transformers" or "Transformers Note"
      const kind = match[2]!
      return { raw, candidates: [raw, `${raw} ${kind}`] }
    }
    return { raw, candidates: [raw] }
  }
  return undefined
}

/** Title similarity in [0, 1]: token overlap blended with edit distance. */
const similarity = (a: string, b: string): number => {
  const na = normalizeTitle(a)
  const nb = normalizeTitle(b)
  const ta = new Set(words(na))
  const tb = new Set(words(nb))
  const inter = [...ta].filter((t) => tb.has(t)).length
  const union = new Set([...ta, ...tb]).size
  const jaccard = union === 0 ? 0 : inter / union
  const edit = 1 - levenshtein(na, nb) / Math.max(na.length, nb.length, 1)
  return 0.6 * jaccard + 0.4 * edit
}

/** The outcome of matching a reference against the vault. */
export type NoteMatch =
  | { readonly _tag: "Found"; readonly note: NoteRef }
  | { readonly _tag: "NotFound"; readonly closest: ReadonlyArray<string> }

/**
 * Match a reference against the vault's notes (case- and diacritic-insensitive).
 * Several notes with the same title: the shallowest path wins, then the
 * alphabetically first, so the choice is stable.
 */
export const matchNote = (ref: NoteReference, notes: ReadonlyArray<NoteRef>, suggestions = 3): NoteMatch => {
  const byDepth = notes
    .slice()
    .sort((a, b) => a.path.split("/").length - b.path.split("/").length || a.path.localeCompare(b.path))
  for (const candidate of ref.candidates) {
    const wanted = normalizeTitle(candidate)
    // [[Folder/Title]] is how Obsidian links a title that several folders share
    const hit = byDepth.find((n) =>
      normalizeTitle(n.title) === wanted || normalizeTitle(n.path.replace(/\.md$/i, "")) === wanted
    )
    if (hit !== undefined) return { _tag: "Found", note: hit }
  }
  const closest = [...new Set(notes.map((n) => n.title))]
    .map((title) => ({ title, score: Math.max(...ref.candidates.map((c) => similarity(c, title))) }))
    .sort((a, b) => b.score - a.score || a.title.localeCompare(b.title))
    .slice(0, suggestions)
    .map((s) => s.title)
  return { _tag: "NotFound", closest }
}
