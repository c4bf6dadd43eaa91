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
  /** The prompt it was found in, to look for vault titles the pattern cut short. */
  readonly prompt?: string | undefined
  /** Where the title was read in the prompt, [start, end) of the raw text before cleaning. */
  readonly span?: readonly [number, number] | undefined
  /** Whether the title was read between quotes or brackets, which a title may itself contain. */
  readonly delimited?: boolean | undefined
}

const clean = (s: string): string => s.replace(/\s+/g, " ").trim()

const PATTERNS: ReadonlyArray<RegExp> = [
  // [[Title]] or [[Title|alias]] or [[Title#heading]]
  /\[\[([^\]|#^]+)(?:[#^][^\]|]*)?(?:\|[^\]]*)?\]\]/du,
  // "Title", “Title”, «Title»
  /["“«]([^"”»\n]{2,200})["”»]/du,
  // 'Title' or ‘Title’ — only when the quote opens a word and closes before a non-letter; an apostrophe after a
  // letter is part of the title ("L'attention", "Réseaux d’attention", "Hinton's dropout", "Bayes' rule")
  /(?<![\p{L}\p{N}])['‘]((?:[^'’\n]|(?<=[\p{L}\p{N}])['’]){2,200})['’](?![\p{L}\p{N}])/du,
  // note/page called|titled|named X
  /\b(?:note|page)\s+(?:called|titled|named)\s+([^,.;:!?\n]{2,200})/diu,
  // my X note / my X page
  /\bmy\s+([^,.;:!?"\n]{1,200}?)\s+(note|page)\b/diu
]
const DELIMITED_PATTERNS = 3
const SINGLE_QUOTED = 2

/**
 * The titles a single-quoted text may be, longest first: the whole text, then the text before each apostrophe
 * inside it that could have closed the quote (one after a letter and before a non-letter: "Bayes' rule" is
 * "Bayes' rule" or "Bayes"). An apostrophe between two letters ("d'attention", "Hinton's") never closes it.
 */
const singleQuoted = (raw: string): ReadonlyArray<string> => {
  const shorter = [...raw.matchAll(/(?<=[\p{L}\p{N}])['’](?![\p{L}\p{N}])/gu)]
    .map((m) => clean(raw.slice(0, m.index)))
    .filter((s) => s.length > 0)
    .reverse()
  return [...new Set([raw, ...shorter])]
}

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
    const span = match.indices?.[1]
    const where = { prompt, span: span === undefined ? undefined : [span[0], span[1]] as const, delimited: index < DELIMITED_PATTERNS }
    if (index === PATTERNS.length - 1) {
      // "my Transformers note" may mean the note "Transformers" or "Transformers Note"
      const kind = match[2]!
      return { raw, candidates: [raw, `${raw} ${kind}`], ...where }
    }
    return { raw, candidates: index === SINGLE_QUOTED ? singleQuoted(raw) : [raw], ...where }
  }
  return undefined
}

const DASHES = "-‐‑‒–—―"
const GENERATED = new RegExp(`^(.*\\S)\\s+[${DASHES}]\\s+related papers(?:\\s+\\((?:\\d{4}-\\d{2}-\\d{2})?(?:\\s*\\d+)?\\))?$`, "iu")

/**
 * The concept note a generated "<title> — Related Papers" title (or one of
 * its dated or numbered siblings) was written for; undefined for any other title.
 */
export const generatedFrom = (title: string): string | undefined => GENERATED.exec(clean(title))?.[1]

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
  /** Several notes match equally well: the companion will not guess. */
  | { readonly _tag: "Ambiguous"; readonly notes: ReadonlyArray<NoteRef> }
  /** The prompt names a note the companion wrote ("X — Related Papers"), not a concept note. */
  | { readonly _tag: "Generated"; readonly title: string; readonly source: string }

const depth = (n: NoteRef): number => n.path.split("/").length
const withoutMd = (path: string): string => path.replace(/\.md$/i, "")

/**
 * The best of several notes that match equally well: the shallowest (how
 * Obsidian resolves `[[Title]]` when folders share a title); several at that
 * depth are a tie.
 */
const pick = (hits: ReadonlyArray<NoteRef>): NoteMatch => {
  const top = Math.min(...hits.map(depth))
  const best = hits.filter((n) => depth(n) === top).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return best.length === 1 ? { _tag: "Found", note: best[0]! } : { _tag: "Ambiguous", notes: best }
}

/** Exact, then case-insensitive, then normalised (case, spacing, diacritics, quotes, dashes). */
const TIERS: ReadonlyArray<(s: string) => string> = [(s) => s, (s) => s.toLowerCase(), normalizeTitle]

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The notes whose whole title the prompt holds, around the referenced text and
 * longer than it (the pattern stopped at a quote the title contains), longest
 * first: exact occurrences, then case-insensitive ones.
 */
const enclosingTitles = (ref: NoteReference, notes: ReadonlyArray<NoteRef>): ReadonlyArray<NoteRef> => {
  const { prompt, span } = ref
  if (prompt === undefined || span === undefined) return []
  const [from, to] = span
  for (const flags of ["gu", "giu"]) {
    let longest = 0
    let hits: Array<NoteRef> = []
    for (const note of notes) {
      const length = note.title.length
      if (length <= to - from || length < longest || note.title.trim() === "") continue
      for (const m of prompt.matchAll(new RegExp(escapeRegExp(note.title), flags))) {
        if (m.index > from || m.index + m[0].length < to) continue
        if (length > longest) [longest, hits] = [length, []]
        hits.push(note)
        break
      }
    }
    if (hits.length > 0) return hits
  }
  return []
}

/**
 * Match a reference against the vault's notes: the exact title first, then
 * case-insensitive, then normalised (case, spacing, diacritics); a
 * `Folder/Title` reference matches that path. A quoted reference inside a
 * longer vault title the prompt holds (`'Is it "all" you need?'`) is that
 * title; when nothing matches, the longest vault title around the reference.
 * Notes the companion generates ("— Related Papers") are never matched or
 * suggested. Several equally good notes: Ambiguous.
 */
export const matchNote = (ref: NoteReference, notes: ReadonlyArray<NoteRef>, suggestions = 3): NoteMatch => {
  const sources = notes.filter((n) => generatedFrom(n.title) === undefined)
  if (ref.delimited === true) {
    const enclosing = enclosingTitles(ref, sources)
    if (enclosing.length > 0) return pick(enclosing)
  }
  const generated = generatedFrom(ref.raw)
  if (generated !== undefined) return { _tag: "Generated", title: ref.raw, source: generated }
  for (const candidate of ref.candidates) {
    for (const key of TIERS) {
      const wanted = key(candidate)
      // [[Folder/Title]] is how Obsidian links a title that several folders share
      const hits = sources.filter((n) => key(n.title) === wanted || key(withoutMd(n.path)) === wanted)
      if (hits.length > 0) return pick(hits)
    }
  }
  const enclosing = enclosingTitles(ref, sources)
  if (enclosing.length > 0) return pick(enclosing)
  const closest = [...new Set(sources.map((n) => n.title))]
    .map((title) => ({ title, score: Math.max(...ref.candidates.map((c) => similarity(c, title))) }))
    .sort((a, b) => b.score - a.score || a.title.localeCompare(b.title))
    .slice(0, suggestions)
    .map((s) => s.title)
  return { _tag: "NotFound", closest }
}
