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
    const heading = /^#{1,6}\s+(.*)$/.exec(line)
    if (heading !== null) {
      segments.push([plainText(heading[1]!), 3])
      continue
    }
    for (const m of line.matchAll(/\[\[([^\]|#]+)[^\]]*\]\]/g)) segments.push([m[1]!, 1])
    for (const m of line.matchAll(/\*\*([^*]+)\*\*|__([^_]+)__/g)) segments.push([m[1] ?? m[2]!, 1])
    segments.push([plainText(line), 1])
  }
  return segments
}

/** A keyword or key phrase with its weight. */
export interface Keyword {
  readonly term: string
  readonly weight: number
}

/**
 * The note's keywords, most important first. A term is a content word
 * (≥ 3 letters, not a stop word) or a two-word phrase of content words seen at
 * least twice; a phrase absorbs the weight of its parts so "neural network"
 * is preferred to "neural" and "network" apart.
 */
export const extractKeywords = (noteText: string, title = "", limit = 8): ReadonlyArray<Keyword> => {
  const unigrams = new Map<string, number>()
  const bigrams = new Map<string, number>()
  for (const [segment, weight] of weightedSegments(noteText)) {
    // split at punctuation so phrases never cross a sentence or clause
    for (const clause of segment.split(/[.,;:!?()[\]{}"\n]+/)) {
      const tokens = words(clause)
      for (let i = 0; i < tokens.length; i++) {
        const w = tokens[i]!
        if (!isContentWord(w)) continue
        unigrams.set(w, (unigrams.get(w) ?? 0) + weight)
        const next = tokens[i + 1]
        if (next !== undefined && isContentWord(next)) {
          const phrase = `${w} ${next}`
          bigrams.set(phrase, (bigrams.get(phrase) ?? 0) + weight)
        }
      }
    }
  }
  const titleWords = new Set(words(title))
  for (const [w, n] of unigrams) if (titleWords.has(w)) unigrams.set(w, n + 2)

  const scored: Array<Keyword> = []
  const absorbed = new Map<string, number>()
  for (const [phrase, n] of bigrams) {
    if (n < 2) continue
    const [a, b] = phrase.split(" ") as [string, string]
    scored.push({ term: phrase, weight: n * 1.5 + (titleWords.has(a) || titleWords.has(b) ? 1 : 0) })
    absorbed.set(a, (absorbed.get(a) ?? 0) + n)
    absorbed.set(b, (absorbed.get(b) ?? 0) + n)
  }
  for (const [w, n] of unigrams) {
    const rest = n - (absorbed.get(w) ?? 0)
    if (rest > 0) scored.push({ term: w, weight: rest })
  }
  return scored
    .sort((a, b) => b.weight - a.weight || a.term.localeCompare(b.term))
    .slice(0, limit)
}
