/**
 * What a digest announces beyond the judge's bar: a cheap, deterministic check that a paper names the note's
 * concept where a reader looks first (its title and first sentence), and a cap per note. Pure.
 *
 * The rule shipped was chosen on the 76 graded tuning notes by a rule written before the simulation
 * (eval/digest/README.md, "a bar that travels").
 *
 * @since 0.5.0
 */
import { singular } from "./keywords.js"
import { STOP_WORDS, words } from "./text.js"

/**
 * How many of the note's title words a paper must name in its title or first sentence: `none` (no check), `any`
 * (one at least), `half` (half of them, rounded up). A title without content words requires nothing.
 */
export type ConceptGate = "none" | "any" | "half"

/** The announcing rule of a digest, beyond the judge's bar. */
export interface AnnounceRule {
  readonly gate: ConceptGate
  /** The most papers announced per note, by the keep order (the run's `maxResults` when that is fewer; absent: it). */
  readonly cap?: number | undefined
}

/** The first sentence of an abstract: up to the first ". ", "? " or "! ", at most 300 characters. */
export const firstSentence = (abstract: string): string => {
  const at = abstract.search(/[.?!]\s/)
  return (at < 0 ? abstract : abstract.slice(0, at + 1)).slice(0, 300)
}

/** A note title's content words: lower case, no stop, function or boilerplate word, plurals folded, a letter in each. */
export const conceptWords = (title: string): ReadonlyArray<string> => [
  ...new Set(words(title).filter((w) => w.length >= 3 && !STOP_WORDS.has(w) && /[a-z]/.test(w)).map(singular))
]

/** Whether two words match: equal, or one a prefix of the other and the shorter at least 4 letters long. */
const wordsMatch = (a: string, b: string): boolean => {
  if (a === b) return true
  const [short, long] = a.length <= b.length ? [a, b] : [b, a]
  return short.length >= 4 && long.startsWith(short)
}

/** How many of the concept's words the paper's title and first sentence name. */
export const namedWords = (concept: ReadonlyArray<string>, paper: { readonly title: string; readonly abstract: string }): number => {
  const seen = [...new Set(words(`${paper.title} ${firstSentence(paper.abstract)}`).map(singular))]
  return concept.filter((c) => seen.some((w) => wordsMatch(c, w))).length
}

/** Whether a paper passes the gate for a note whose title's content words are `concept`. */
export const passesGate = (gate: ConceptGate, concept: ReadonlyArray<string>, paper: { readonly title: string; readonly abstract: string }): boolean => {
  if (gate === "none" || concept.length === 0) return true
  const named = namedWords(concept, paper)
  return gate === "any" ? named >= 1 : named >= Math.ceil(concept.length / 2)
}
