/**
 * Keyword extraction from a concept note.
 *
 * The note's body is the evidence: headings, [[links]] and **bold** count
 * more than plain prose; adjacent content words form key phrases. The title
 * only boosts words the body also uses, so a note with an empty body has no
 * keywords however informative its title.
 *
 * @since 0.1.0
 */
import { STOP_WORDS, words } from "./text.js"

/** A note split into its frontmatter and body. */
export interface SplitNote {
  readonly frontmatter: string | undefined
  readonly body: string
}

/** Split a note's YAML frontmatter (between leading `---` lines) from its body. */
export const splitFrontmatter = (text: string): SplitNote => {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  return match === null ? { frontmatter: undefined, body: text } : { frontmatter: match[1]!, body: text.slice(match[0].length) }
}

/** The note's prose: no frontmatter, code, comments, URLs or Markdown syntax. */
export const plainText = (text: string): string =>
  splitFrontmatter(text).body
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/%%[\s\S]*?%%/g, " ")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/`[^`]*`/g, " ")
    .replace(/!?\[\[([^\]|]+)\|([^\]]+)\]\]/g, "$2")
    .replace(/!?\[\[([^\]]+)\]\]/g, "$1")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/[#*_>~=|]+/g, " ")

const isContentWord = (w: string): boolean =>
  w.length >= 3 && !STOP_WORDS.has(w) && !/^\d+$/.test(w) && /[a-z]/.test(w)

/** Text segments of the note with the weight of where they appear. */
const weightedSegments = (text: string): ReadonlyArray<readonly [string, number]> => {
  const body = splitFrontmatter(text).body.replace(/```[\s\S]*?```/g, " ")
  const segments: Array<readonly [string, number]> = []
  for (const line of body.split(/\r?\n/)) {
    // "See also: [[...]]" lines point at other notes; they say nothing about this concept
    if (/^\s*(?:[-*]\s*)?see also\b/i.test(line)) continue
    const heading = /^#{1,6}\s+(.*)$/.exec(line)
    if (heading !== null) {
      segments.push([plainText(heading[1]!), 2])
      continue
    }
    // emphasised phrases are what the author marked as key: count them once more
    for (const m of line.matchAll(/\*\*([^*]+)\*\*|__([^_]+)__/g)) segments.push([m[1] ?? m[2]!, 2])
    segments.push([plainText(line), 1])
  }
  return segments
}

/** A keyword or key phrase with its weight. */
export interface Keyword {
  readonly term: string
  readonly weight: number
}

/** Fold a simple English plural onto its singular ("networks" → "network"). */
export const singular = (w: string): string =>
  w.length > 4 && w.endsWith("ies") ? `${w.slice(0, -3)}y`
  : w.length > 3 && w.endsWith("s") && !/(ss|us|is|ics)$/.test(w) ? w.slice(0, -1)
  : w

const MAX_PHRASE = 3

/**
 * The note's keywords, most important first.
 *
 * A term is a content word (≥ 3 letters, not a stop word) or a phrase of two
 * or three adjacent content words that recurs or that the author emphasised.
 * Words and phrases are counted by their singular form and shown in the form
 * the note uses most. A phrase absorbs the weight of its words, so "machine
 * translation" is preferred to "machine" and "translation" apart.
 */
export const extractKeywords = (noteText: string, title = "", limit = 8): ReadonlyArray<Keyword> => {
  const weight = new Map<string, number>()
  const surface = new Map<string, Map<string, number>>()
  const count = (key: string, shown: string, w: number) => {
    weight.set(key, (weight.get(key) ?? 0) + w)
    const forms = surface.get(key) ?? new Map<string, number>()
    forms.set(shown, (forms.get(shown) ?? 0) + 1)
    surface.set(key, forms)
  }
  for (const [segment, w] of weightedSegments(noteText)) {
    // split at punctuation so phrases never cross a sentence or clause
    for (const clause of segment.split(/[.,;:!?()[\]{}"\n]+/)) {
      const tokens = words(clause)
      for (let i = 0; i < tokens.length; i++) {
        for (let n = 1; n <= MAX_PHRASE && i + n <= tokens.length; n++) {
          const run = tokens.slice(i, i + n)
          if (!run.every(isContentWord)) break
          count(run.map(singular).join(" "), run.join(" "), w)
        }
      }
    }
  }
  const titleWords = new Set(words(title).map(singular))
  const scored: Array<Keyword & { readonly key: string }> = []
  for (const [key, w] of weight) {
    const parts = key.split(" ")
    const inTitle = parts.some((p) => titleWords.has(p)) ? 1 : 0
    if (parts.length === 1) {
      scored.push({ key, term: key, weight: w + inTitle })
    } else if (w >= 2) {
      scored.push({ key, term: key, weight: w * (1 + 0.25 * parts.length) + inTitle })
    }
  }
  scored.sort((a, b) => b.weight - a.weight || a.key.localeCompare(b.key))
  // greedy selection: a chosen phrase discounts its words and its sub-phrases
  const chosen: Array<Keyword> = []
  const covered = new Map<string, number>()
  for (const k of scored) {
    if (chosen.length >= limit) break
    const rest = k.weight - (covered.get(k.key) ?? 0)
    if (rest <= 0.5 * k.weight && k.key.includes(" ") === false && covered.has(k.key)) continue
    if (chosen.some((c) => ` ${c.term} `.includes(` ${k.key} `))) continue
    const forms = [...surface.get(k.key)!.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    chosen.push({ term: forms[0]![0], weight: rest })
    for (const part of k.key.split(" ")) covered.set(part, (covered.get(part) ?? 0) + k.weight)
  }
  return chosen.sort((a, b) => b.weight - a.weight || a.term.localeCompare(b.term))
}
