/**
 * The authors a note cites, as students cite them: "Duan et al", "(Girshick
 * 2014)", "Kaiser & Sutskever", "Reed & de Freitas", "Kingma and Ba (2014)", "the Bahdanau paper",
 * "Ruder's blog post", "Kim's model" (the word after the possessive must be
 * one a work is called by: "Adam's convergence", "Montezuma's Revenge" and
 * "Google's production system" are not citations). Their surnames become `au:` clauses of
 * the companion's second arXiv search, so a paper the note names by its
 * authors is found even when its abstract uses few of the note's words.
 *
 * Pure parsing: `findAuthorCues` reads the text; `citedAuthors` decides with
 * arXiv statistics which cues are names. A capitalised word arXiv abstracts
 * use often ("Dropout", "Google", "Figure", "Net") or that the note also
 * writes in lower case is an ordinary word, not a surname, unless "et al"
 * follows it (nothing but a surname comes before "et al").
 *
 * @since 0.3.0
 */
import type { TermLookup } from "./ports/TermStatsPort.js"
import { stripMarks } from "./text.js"

/** How the note cites an author. */
export type AuthorCue =
  /** "Duan et al", "Wilson et al. 2017" */
  | "et-al"
  /** "Kaiser & Sutskever", "Kingma and Ba (2014)" */
  | "pair"
  /** "(Girshick 2014)", "(Gers, 2000)", "Hochreiter (1997)" */
  | "year"
  /** "the Bahdanau paper" */
  | "the-paper"
  /** "Kim's model", "Ruder's blog post" */
  | "possessive"

/** One citation of an author in a note, before it is checked against arXiv statistics. */
export interface AuthorCueMatch {
  /** The surname as the note writes it ("Lakshminarayanan", "LeCun", "Bucilă"). */
  readonly surname: string
  readonly cue: AuthorCue
  /** What the note wrote, on one line. */
  readonly text: string
}

/** The knobs of {@link citedAuthors}; `authorDefaults` holds the chosen values. */
export interface AuthorParams {
  /**
   * A capitalised word used by more than this many of the statistics' abstracts
   * is an ordinary word ("Dropout" 173, "Google" 165, "Figure" 117), not a
   * surname (most surnames: fewer than 40 of 36,421; "Li" 256 and "Le" 95 are
   * then only recognised before "et al").
   */
  readonly maxDocuments: number
  /** The most surnames one note contributes (first cited first). */
  readonly limit: number
}

export const authorDefaults: AuthorParams = { maxDocuments: 50, limit: 8 }

/** Notes longer than this are scanned only up to it (a bound for hostile input). */
const MAX_SCAN = 1_000_000

// a surname: capitalised, letters only (with Latin diacritics), an optional particle glued on
// ("LeCun", "McMahan", "DeVries") and an optional second part after a hyphen ("Bar-Hillel");
// "ResNet", "DeepMind", "PixelCNN" are not surnames (a capital inside that no particle explains)
const LOWER = "a-z\\u00DF-\\u00F6\\u00F8-\\u00FF\\u0100-\\u024F"
const PART = `(?:Mc|Mac|De|Di|Da|Du|Le|La|Van|Von)?[A-Z][${LOWER}]+`
const NAME = `${PART}(?:-${PART})?`
/** The lower-case particles a surname may follow, written apart ("de Freitas", "van den Oord", "dos Santos"): `au:` asks for the capitalised part. */
export const SURNAME_PARTICLES = "(?:(?:de|da|di|du|dos|das|del|della|van|von|der|den|ter|le|la)\\s+){0,2}"
const P = SURNAME_PARTICLES
const YEAR = "(?:19|20)\\d{2}[a-z]?"
// a name starts at a word boundary and is not the tail of a hyphenated or dotted token ("R-CNN", "e.Kim")
const B = `(?<![\\p{L}\\p{N}.'’-])`
const E = `(?![\\p{L}\\p{N}])`
const POSSESSED =
  "paper|papers|model|models|method|overview|blog|post|article|survey|review|tutorial|work|algorithm|approach|" +
  "architecture|trick|formulation|derivation|thesis|experiments|results|analysis|version"

const CUES: ReadonlyArray<readonly [AuthorCue, RegExp]> = [
  ["et-al", new RegExp(`${B}(${NAME}),?\\s+et\\.?\\s*al${E}`, "gu")],
  ["pair", new RegExp(`${B}(${NAME})\\s*&\\s*${P}(${NAME})${E}`, "gu")],
  ["pair", new RegExp(`${B}(${NAME})\\s+and\\s+${P}(${NAME}),?\\s*\\(?${YEAR}${E}`, "gu")],
  ["year", new RegExp(`\\((${NAME}),?\\s+${YEAR}${E}`, "gu")],
  ["year", new RegExp(`${B}(${NAME})\\s+\\(${YEAR}\\)`, "gu")],
  ["the-paper", new RegExp(`\\b[Tt]he\\s+(${NAME})\\s+paper${E}`, "gu")],
  ["possessive", new RegExp(`${B}(${NAME})['’]s\\s+(?:${POSSESSED})${E}`, "gu")]
]

const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim()

/** Fold a surname to plain lower-case letters ("Bucilă" → "bucila"). */
export const foldName = (s: string): string =>
  stripMarks(s).toLowerCase()

/**
 * Every place the note cites an author by one of the cues above, in the order
 * they appear (a pair gives both names). Code blocks, inline code, comments
 * and URLs are skipped. Candidates only: {@link citedAuthors} decides.
 */
export const findAuthorCues = (noteText: string): ReadonlyArray<AuthorCueMatch> => {
  const text = noteText.slice(0, MAX_SCAN)
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/%%[\s\S]*?%%/g, " ")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/`[^`\n]*`/g, " ")
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/[*_]+/g, "")
  const found: Array<AuthorCueMatch & { readonly at: number }> = []
  for (const [cue, re] of CUES) {
    for (const m of text.matchAll(re)) {
      for (const name of m.slice(1)) {
        if (name !== undefined) found.push({ surname: name, cue, text: oneLine(m[0]), at: m.index + m[0].indexOf(name) })
      }
    }
  }
  return found.sort((a, b) => a.at - b.at).map(({ surname, cue, text }) => ({ surname, cue, text }))
}

/**
 * The authors a note cites, first cited first, each surname once (at most
 * `params.limit`). `cues` are {@link findAuthorCues} of `noteText`; `stats`
 * are the statistics of their surnames, in the same order. A cue other than
 * "et al" is dropped when its word is common in arXiv abstracts (more than
 * `params.maxDocuments` of them) or when the note also writes it in lower
 * case ("Dropout's trick" beside "dropout"): then it is an ordinary word.
 * "The X paper" and "X's …" are also dropped when X is a word of one of the
 * note's `keywords`: a method named like a person ("the Adam paper", "the
 * Hyperband paper"), which the concept query already searches for.
 */
export const citedAuthors = (
  noteText: string,
  cues: ReadonlyArray<AuthorCueMatch>,
  stats: TermLookup,
  params: AuthorParams = authorDefaults,
  keywords: ReadonlyArray<string> = []
): ReadonlyArray<AuthorCueMatch> => {
  const lowerCase = new Set(noteText.slice(0, MAX_SCAN).match(/(?<![\p{L}\p{N}])\p{Ll}[\p{L}'’-]*/gu) ?? [])
  const keywordWords = new Set(keywords.flatMap((k) => foldName(k).split(/[\s-]+/)))
  const out: Array<AuthorCueMatch> = []
  const seen = new Set<string>()
  cues.forEach((c, i) => {
    const key = foldName(c.surname)
    if (seen.has(key) || out.length >= params.limit) return
    if (c.cue !== "et-al") {
      const stat = stats.stats[i]
      if (stat === undefined || stat.ignored || stat.documentFrequency > params.maxDocuments) return
      if (lowerCase.has(c.surname.toLowerCase())) return
      if ((c.cue === "the-paper" || c.cue === "possessive") && keywordWords.has(key)) return
    }
    seen.add(key)
    out.push({ surname: c.surname, cue: c.cue, text: c.text })
  })
  return out
}
