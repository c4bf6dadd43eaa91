/**
 * The offline recogniser's model of the field: a bigram language model
 * (ARPA text, absolute discounting with back-off) of how research questions
 * and abstracts are worded, and pronunciations for its words — the CMU
 * dictionary's where it has them, espeak-ng's phonemes mapped to CMU phones
 * where it does not (overfitting, embeddings, convolutional…).
 *
 * Pure and deterministic: the same text gives the same bytes.
 * `scripts/build-speech-model.ts` builds the shipped files with it.
 *
 * @since 0.1.0
 */

/** The sentences of a text as the recogniser hears them: lower-case words, no numbers, no TeX, hyphens split. */
export const lmSentences = (text: string): ReadonlyArray<ReadonlyArray<string>> =>
  text
    .replace(/\$[^$]*\$/g, " ")
    .replace(/https?:\/\/\S+/g, " ")
    .split(/[.?!;:()[\]{}"]+(?:\s|$)|\n/)
    .map((s) =>
      s.toLowerCase()
        .replace(/[-‐–—/]/g, " ")
        .split(/[^a-z']+/)
        .map((w) => w.replace(/^'+|'+$/g, ""))
        .filter((w) => w.length > 0 && (w.length > 1 || w === "a" || w === "i"))
    )
    .filter((s) => s.length > 0)

/** Words by how often they occur, most frequent first (ties alphabetical). */
export const wordCounts = (sentences: Iterable<ReadonlyArray<string>>): ReadonlyArray<readonly [string, number]> => {
  const counts = new Map<string, number>()
  for (const s of sentences) for (const w of s) counts.set(w, (counts.get(w) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
}

/** Options of {@link arpaBigrams}. */
export interface BigramOptions {
  /** Bigrams seen fewer times are left to the back-off (default 2). */
  readonly minBigramCount?: number
  /** The absolute discount (default 0.7). */
  readonly discount?: number
}

const log10 = (p: number): string => Math.log10(p).toFixed(4)

/**
 * A bigram language model in ARPA text over `vocabulary` (other words break
 * the context, as a pause does), with sentence marks `<s>` and `</s>`.
 * Unigrams add-one smoothed; bigrams absolutely discounted, the mass left
 * going to the unigrams through each word's back-off weight.
 */
export const arpaBigrams = (
  sentences: Iterable<ReadonlyArray<string>>,
  vocabulary: ReadonlySet<string>,
  options: BigramOptions = {}
): string => {
  const minCount = options.minBigramCount ?? 2
  const D = options.discount ?? 0.7
  const uni = new Map<string, number>()
  const bi = new Map<string, Map<string, number>>()
  const add = (a: string, b: string) => {
    let m = bi.get(a)
    if (m === undefined) bi.set(a, (m = new Map()))
    m.set(b, (m.get(b) ?? 0) + 1)
  }
  for (const s of sentences) {
    let prev = "<s>"
    uni.set("<s>", (uni.get("<s>") ?? 0) + 1)
    for (const w of s) {
      if (!vocabulary.has(w)) {
        if (prev !== "<s>") add(prev, "</s>")
        prev = "<s>"
        continue
      }
      uni.set(w, (uni.get(w) ?? 0) + 1)
      add(prev, w)
      prev = w
    }
    if (prev !== "<s>") add(prev, "</s>")
    uni.set("</s>", (uni.get("</s>") ?? 0) + 1)
  }
  for (const w of vocabulary) if (!uni.has(w)) uni.set(w, 0)
  const words = [...uni.keys()].sort()
  const total = [...uni.entries()].reduce((t, [w, c]) => t + (w === "<s>" ? 0 : c + 1), 0)
  const pUni = (w: string) => ((uni.get(w) ?? 0) + 1) / total
  const unigramLines: Array<string> = []
  const bigramLines: Array<string> = []
  for (const a of words) {
    const next = bi.get(a)
    let backoff = 1
    if (next !== undefined) {
      const ctx = [...next.values()].reduce((t, c) => t + c, 0)
      const kept = [...next.entries()].filter(([, c]) => c >= minCount).sort((x, y) => (x[0] < y[0] ? -1 : 1))
      let probSeen = 0
      let uniSeen = 0
      const types = next.size
      for (const [b, c] of kept) {
        const p = (c - D) / ctx + (D * types / ctx) * pUni(b)
        probSeen += p
        uniSeen += pUni(b)
        bigramLines.push(`${log10(p)} ${a} ${b}`)
      }
      backoff = (1 - probSeen) / (1 - uniSeen)
    }
    const p = a === "<s>" ? "-99.0000" : log10(pUni(a))
    unigramLines.push(`${p} ${a}${a === "</s>" ? "" : ` ${log10(backoff)}`}`)
  }
  return [
    "\\data\\",
    `ngram 1=${unigramLines.length}`,
    `ngram 2=${bigramLines.length}`,
    "",
    "\\1-grams:",
    ...unigramLines,
    "",
    "\\2-grams:",
    ...bigramLines,
    "",
    "\\end\\",
    ""
  ].join("\n")
}

/** espeak-ng's IPA phonemes (en-us) and the CMU phones they are heard as. */
const IPA_TO_CMU: ReadonlyArray<readonly [string, string]> = [
  ["aɪɚ", "AY ER"], ["aʊɚ", "AW ER"], ["ɑːɹ", "AA R"], ["ɔːɹ", "AO R"], ["oːɹ", "AO R"], ["ɪɹ", "IH R"], ["ɛɹ", "EH R"],
  ["ʊɹ", "UH R"], ["iə", "IY AH"], ["ɪə", "IH AH"], ["aɪ", "AY"], ["aʊ", "AW"], ["eɪ", "EY"], ["oʊ", "OW"], ["ɔɪ", "OY"],
  ["tʃ", "CH"], ["dʒ", "JH"], ["əl", "AH L"], ["ɑː", "AA"], ["ɔː", "AO"], ["uː", "UW"], ["iː", "IY"], ["ɜː", "ER"],
  ["oː", "OW"], ["n̩", "AH N"], ["l̩", "AH L"], ["ɑ", "AA"], ["ɔ", "AO"], ["u", "UW"], ["i", "IY"], ["ɜ", "ER"], ["ɚ", "ER"],
  ["æ", "AE"], ["ɛ", "EH"], ["ɪ", "IH"], ["ᵻ", "IH"], ["ʊ", "UH"], ["ʌ", "AH"], ["ə", "AH"], ["ɐ", "AH"], ["a", "AA"],
  ["e", "EH"], ["o", "OW"], ["p", "P"], ["b", "B"], ["t", "T"], ["d", "D"], ["k", "K"], ["ɡ", "G"], ["g", "G"], ["f", "F"],
  ["v", "V"], ["θ", "TH"], ["ð", "DH"], ["s", "S"], ["z", "Z"], ["ʃ", "SH"], ["ʒ", "ZH"], ["h", "HH"], ["m", "M"],
  ["n", "N"], ["ŋ", "NG"], ["l", "L"], ["ɹ", "R"], ["r", "R"], ["j", "Y"], ["w", "W"], ["ɾ", "T"], ["ʔ", "T"], ["x", "K"],
  ["ç", "HH"]
]

/**
 * CMU phones of one word's espeak-ng IPA, phonemes separated by "_"
 * (`espeak-ng -q --ipa --sep=_ -v en-us`); undefined when a symbol has no
 * CMU phone.
 */
export const ipaToCmu = (ipa: string): ReadonlyArray<string> | undefined => {
  const phones: Array<string> = []
  for (const raw of ipa.trim().split(/[_\s]+/)) {
    let p = raw.replace(/[ˈˌ‍ː̃.]/g, (c) => (c === "ː" ? "ː" : ""))
    while (p.length > 0) {
      const hit = IPA_TO_CMU.find(([sym]) => p.startsWith(sym))
      if (hit === undefined) {
        if (/^[ːˑ]/.test(p)) {
          p = p.slice(1)
          continue
        }
        return undefined
      }
      phones.push(...hit[1].split(" "))
      p = p.slice(hit[0].length)
    }
  }
  return phones.length === 0 ? undefined : phones
}

/**
 * The question frames people ask in (the companion's README and CLI
 * examples, with no concept words): the language model learns how a
 * question begins from these, and what it is about from the corpus.
 */
export const QUESTION_FRAMES: ReadonlyArray<string> = [
  "what are the main ways to", "what are the main methods for", "what is the best way to", "how does", "how do",
  "how can i", "how can we", "how to", "why does", "why do", "which", "which methods", "which papers", "papers by",
  "papers about", "papers on", "find papers on", "find papers about", "what are", "what is", "is there", "are there",
  "who introduced", "the main ideas of", "recent work on", "the state of the art in", "compare", "versus"
]
