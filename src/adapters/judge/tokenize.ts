/**
 * Tokenisation for the local judge: the same function builds the shipped
 * document-frequency table and scores at run time, so the two always agree.
 *
 * Lower-case, diacritics stripped, split at anything that is not a letter or
 * digit, English and abstract-boilerplate stop words dropped, Porter-stemmed
 * with the `stemmer` package. Each token keeps its surface form so a
 * rationale can show a word a person recognises ("networks", not "network").
 *
 * @since 0.1.0
 */
import { stem } from "../corpus/stem.js"

/** English function words plus words every abstract uses ("paper", "propose"). */
const STOP: ReadonlySet<string> = new Set(
  (
    "a about above after again against all almost along already also although always am among an and another any are " +
    "around as at be because been before being below between both but by can cannot could did do does doing done down " +
    "due during each either else enough especially etc even ever every few for from further furthermore get gets given " +
    "gives go had has have having he hence her here herein hers him his how however i if in into is it its itself just " +
    "less let like made mainly make makes many may me might more moreover most mostly much must my namely near nearly " +
    "neither no nor not now of off often on once one only onto or other others otherwise our ours out over own per " +
    "perhaps quite rather really respectively same several she should show shows shown showed since so some still such " +
    "than that the their theirs them themselves then there thereby therefore these they this those though through " +
    "throughout thus to together too toward towards under unlike until up upon us use used uses using usually various " +
    "very via was we well were what whatever when where whereas whether which while who whom whose why will with within " +
    "without would yet you your " +
    // boilerplate of scientific abstracts: present in nearly every candidate, never what a note is about
    "paper papers propose proposed proposes present presents presented introduce introduces introduced describe describes " +
    "described demonstrate demonstrates demonstrated article work works study studies address addresses novel new " +
    "approach approaches result results obtain obtained achieve achieves achieved experiment experiments experimental " +
    "perform performs performed performance significantly significant outperform outperforms"
  ).split(/\s+/)
)

/** One content token: its stem (what is matched) and its surface form (what a rationale shows). */
export interface Token {
  readonly stem: string
  readonly word: string
}

export { stem }

/** Whether a lower-case word is a stop word. */
export const isStopWord = (word: string): boolean => STOP.has(word)

/**
 * The content tokens of a text, in order. `null` marks a break (a stop word
 * or punctuation) so that phrases never straddle one.
 */
export const tokenize = (text: string): ReadonlyArray<Token | null> => {
  const hit = tokenCache.get(text)
  if (hit !== undefined) return hit
  const out = tokenizeUncached(text)
  if (tokenCache.size >= cacheLimit) tokenCache.delete(tokenCache.keys().next().value!)
  tokenCache.set(text, out)
  return out
}

// the same abstracts are judged again and again (against several notes, in reruns)
const tokenCache = new Map<string, ReadonlyArray<Token | null>>()
let cacheLimit = 2048

/** How many tokenised texts to keep (evaluation scripts raise it to hold a whole benchmark). */
export const setTokenCacheLimit = (n: number): void => {
  cacheLimit = Math.max(1, n)
  tokenCache.clear()
}

/**
 * What the pattern `[a-z0-9]+|[^a-z0-9\s]+` over the folded text reads, scanned by character code: a run of
 * letters and digits is a word; a run of anything else but white space (JavaScript's `\s`) is punctuation, of which
 * a lone hyphen or apostrophe joins a compound and any other breaks a phrase. Each word is looked up once per
 * process (`wordToken`), so a text's tokens are shared objects, not one new object per word.
 */
const tokenizeUncached = (text: string): ReadonlyArray<Token | null> => {
  const out: Array<Token | null> = []
  // NFKD leaves ASCII as it is: only a text with other characters is decomposed and stripped of its marks
  const normal = (NON_ASCII.test(text) ? text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "") : text).toLowerCase()
  const n = normal.length
  let i = 0
  while (i < n) {
    const c = normal.charCodeAt(i)
    if (isWordChar(c)) {
      let j = i + 1
      while (j < n && isWordChar(normal.charCodeAt(j))) j++
      out.push(wordToken(normal.slice(i, j)))
      i = j
    } else if (isSpace(c)) {
      i++
    } else {
      let j = i + 1
      for (let d: number; j < n && !isWordChar(d = normal.charCodeAt(j)) && !isSpace(d); j++);
      // hyphens and apostrophes join a compound; other punctuation breaks a phrase
      if (j - i !== 1 || (c !== 0x27 && c !== 0x2019 && c !== 0x2d)) out.push(null)
      i = j
    }
  }
  return out
}

const NON_ASCII = /[^\x00-\x7f]/

/** a–z or 0–9 */
const isWordChar = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)

/** JavaScript's `\s`: its white space and line terminators (ECMA-262 WhiteSpace, LineTerminator). */
const isSpace = (c: number): boolean =>
  c <= 0x20
    ? c === 0x20 || (c >= 0x09 && c <= 0x0d)
    : c >= 0xa0 &&
      (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f ||
        c === 0x205f || c === 0x3000 || c === 0xfeff)

/** A folded word's token, or null for a stop word, a one-letter word or a number: one object per word. */
const wordToken = (w: string): Token | null => {
  let t = words.get(w)
  if (t === undefined) {
    t = w.length < 2 || STOP.has(w) || !/[a-z]/.test(w) ? null : { stem: stem(w), word: w }
    if (words.size >= 200_000) words.clear()
    words.set(w, t)
  }
  return t
}
const words = new Map<string, Token | null>()

/** The stems of a text, without breaks. */
export const stems = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const t of tokenize(text)) if (t !== null) out.push(t.stem)
  return out
}

/**
 * Content-token pairs one word apart within a run of content words ("human pose estimation" → "human estim"): the
 * pairs a concept forms beside the adjacent ones (concept.ts), so a paper is read for them the same way.
 */
export const skipBigrams = (tokens: ReadonlyArray<Token | null>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = 0; i + 2 < tokens.length; i++) {
    const a = tokens[i]
    const b = tokens[i + 2]
    if (a != null && tokens[i + 1] != null && b != null && a.stem !== b.stem) out.push(`${a.stem} ${b.stem}`)
  }
  return out
}

/** Adjacent content-token pairs ("neural network" → "neural network" stems joined by a space). */
export const bigrams = (tokens: ReadonlyArray<Token | null>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = tokens[i]
    const b = tokens[i + 1]
    if (a != null && b != null && a.stem !== b.stem) out.push(`${a.stem} ${b.stem}`)
  }
  return out
}
