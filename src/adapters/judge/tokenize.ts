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

const tokenizeUncached = (text: string): ReadonlyArray<Token | null> => {
  const out: Array<Token | null> = []
  const normal = text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
  for (const m of normal.matchAll(/[a-z0-9]+|[^a-z0-9\s]+/g)) {
    const w = m[0]
    if (!/^[a-z0-9]/.test(w)) {
      // hyphens and apostrophes join a compound; other punctuation breaks a phrase
      if (!/^['’-]$/.test(w)) out.push(null)
      continue
    }
    if (w.length < 2 || STOP.has(w) || !/[a-z]/.test(w)) {
      out.push(null)
      continue
    }
    out.push({ stem: stem(w), word: w })
  }
  return out
}

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
