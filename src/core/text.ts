/**
 * Small text utilities shared by the rules: normalisation, tokenisation, stop words.
 *
 * @since 0.1.0
 */

/** `s` without its combining diacritics ("Bucilă" → "Bucila"); case is kept. */
export const stripMarks = (s: string): string => s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "")

/** Lower-case, strip diacritics, unify quotes and dashes, collapse whitespace. */
export const normalizeTitle = (s: string): string =>
  stripMarks(s)
    .toLowerCase()
    .replace(/[‘’‚‛]/g, "'")
    .replace(/[“”„‟]/g, "\"")
    .replace(/[‐‑‒–—―]/g, "-")
    .replace(/\s+/g, " ")
    .trim()

/** English function words: never part of a keyword. */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also although always am an and any are aren't as at be because been before " +
    "being below between both but by can cannot could did do does doing done down during each either else etc even ever " +
    "every few for from further get gets given go had has have having he her here hers herself him himself his how however " +
    "i if in into is isn't it it's its itself just least less let like made make makes many may me might more most much " +
    "must my myself need needs neither no nor not now of off often on once one only or other others our ours ourselves out " +
    "over own per perhaps quite rather really same see seen she should since so some such than that the their theirs them " +
    "themselves then there these they thing things this those though through thus to too under until up upon us use used " +
    "uses using very via was we well were what when where whether which while who whom whose why will with within without " +
    "would yet you your yours yourself yourselves"
  ).split(/\s+/)
)

/**
 * Words a note uses about itself ("TODO: read the overview", "see the link"): never a keyword on their own,
 * but a phrase may hold them ("link prediction", "question answering", "adversarial examples", "reading
 * comprehension").
 */
export const NOTE_BOILERPLATE: ReadonlySet<string> = new Set(
  (
    "note notes todo tbd fixme page pages concept concepts idea ideas link links read reading summary overview question " +
    "questions answer example examples e.g i.e eg ie etc ok okay"
  ).split(/\s+/)
)

/** Function words and note boilerplate: words that never make a keyword on their own. */
export const STOP_WORDS: ReadonlySet<string> = new Set([...FUNCTION_WORDS, ...NOTE_BOILERPLATE])

/** Lower-cased word tokens (letters, digits, inner hyphens), diacritics stripped. */
export const words = (s: string): ReadonlyArray<string> =>
  normalizeTitle(s).match(/[a-z0-9]+(?:-[a-z0-9]+)*/g) ?? []

/** Edit distance between two strings (for "closest title" suggestions). */
export const levenshtein = (a: string, b: string): number => {
  if (a === b) return 0
  if (a.length === 0) return b.length
  if (b.length === 0) return a.length
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = cur
  }
  return prev[b.length]!
}

/**
 * `text` cut to at most `max` characters, "…" added when it was cut. Characters
 * are code points, not UTF-16 units: a letter outside the BMP (an emoji, a
 * rare CJK ideograph) is never split into a lone surrogate, which a UTF-8 file,
 * a JSON API or a URL would turn into "\uFFFD" or refuse.
 */
export const clip = (text: string, max: number): string => {
  const head = firstChars(text, max)
  return head === text ? text : `${head}…`
}

/** `text` on one line (each run of whitespace one space), clipped to `max` characters (see `clip`). */
export const clipLine = (text: string, max: number): string => clip(text.replace(/\s+/g, " ").trim(), max)

/** `text` in at most `max` characters (code points), the last one "…" when it was cut. */
export const fitTo = (text: string, max: number): string =>
  firstChars(text, max) === text ? text : `${firstChars(text, max - 1)}…`

/**
 * `text` with each half of a surrogate pair that has no other half replaced by
 * U+FFFD, which is what a UTF-8 file stores for it anyway: text written this
 * way reads back the same. JSON from a service may carry such halves
 * ("\ud83d" is valid JSON).
 */
export const wellFormed = (text: string): string => text.replace(/\p{Cs}/gu, "\uFFFD")

/** The first `n` characters (code points) of `text`: never half of a surrogate pair. */
export const firstChars = (text: string, n: number): string =>
  text.length <= n ? text : Array.from(text).slice(0, Math.max(0, n)).join("")

/** A title on one line, shortened on a word boundary to `max` characters (code points), with "…" when cut. */
export const shorten = (title: string, max: number): string => {
  const flat = [...title.replace(/\s+/gu, " ").trim()]
  if (flat.length <= max) return flat.join("")
  const cut = flat.slice(0, max).join("")
  const space = cut.lastIndexOf(" ")
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/u, "")}…`
}

/**
 * Key phrases made safe for a search service: words only (see `words`), each
 * phrase once, empty ones dropped, at most `max`. Both citation adapters send
 * or match exactly these.
 */
export const searchPhrases = (phrases: ReadonlyArray<string>, max = 8): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const p of phrases) {
    const clean = words(p).join(" ")
    if (clean !== "" && !out.includes(clean)) out.push(clean)
    if (out.length >= max) break
  }
  return out
}
