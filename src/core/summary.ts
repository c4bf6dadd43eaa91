/**
 * An extractive summary of a paper: two or three whole sentences of its
 * abstract, chosen for what the paper contributes, the result it reports and
 * the note's concept, in the abstract's own order. A sentence is never cut,
 * reworded or invented; the same abstract and concept always give the same
 * summary.
 *
 * How sentences are chosen:
 * - "what it does": the sentence that states the contribution ("we
 *   propose/present/introduce …", "in this paper …", a method being named),
 *   helped by the note's keywords;
 * - "the key result": a sentence carrying a figure with its measure ("BLEU
 *   score of 34.8", "3.57% error", "45 frames per second"), else one that
 *   says the method improves on others;
 * - a third sentence only when it adds the note's concept or the method's
 *   name and the summary stays short.
 * Background ("X has recently been …"), questions and "code is available"
 * lines are avoided.
 *
 * @since 0.2.0
 */
import { singular } from "./keywords.js"
import { STOP_WORDS, words } from "./text.js"

/** What the summariser returns for one abstract. */
export interface ExtractiveSummary {
  /** The chosen sentences, joined by a space. Empty when the abstract is empty. */
  readonly text: string
  /** The chosen sentences, in the abstract's order, each exactly as the abstract has it (whitespace collapsed). */
  readonly sentences: ReadonlyArray<string>
  /** The headline figure with its measure when the abstract states one (e.g. "25.9 BLEU", "3.57% error"). */
  readonly keyFigure: string | undefined
}

/** Longest summary aimed for, in characters; two sentences are kept even when they are longer. */
export const SUMMARY_BUDGET = 450

/** Words before a period that do not end a sentence. */
const ABBREVIATIONS = new Set([
  "e.g", "i.e", "et al", "al", "vs", "cf", "fig", "figs", "eq", "eqs", "sec", "no", "resp", "approx", "ca", "viz", "dr",
  "mr", "ms", "prof", "st", "jr", "sr", "inc", "ltd", "co", "etc.)", "w.r.t", "a.k.a", "i.i.d", "ref", "refs", "tab", "ch"
])

/**
 * The sentences of a text (whitespace collapsed). A period ends a sentence
 * when followed by a space and a capital, a digit, a quote or a bracket, and
 * the word before it is not an abbreviation ("e.g.", "et al.", "Fig.") nor an
 * initial ("J. Smith"). Decimals ("3.57") and dotted names ("U.S.") stay whole.
 */
export const splitSentences = (text: string): ReadonlyArray<string> => {
  const flat = text.replace(/\s+/g, " ").trim()
  if (flat === "") return []
  const out: Array<string> = []
  let start = 0
  const boundary = /([.!?])(["'’”)\]]*)\s+(?=["'‘“(\[]?[A-Z0-9\u00C0-\u024F\u0370-\u03FF])/g
  for (let m = boundary.exec(flat); m !== null; m = boundary.exec(flat)) {
    const end = m.index + m[1]!.length + m[2]!.length
    if (m[1] === ".") {
      // the last two words before the period are all the checks need
      const before = flat.slice(Math.max(start, m.index - 48), m.index)
      const last = /(\S+)$/.exec(before)?.[1] ?? ""
      const word = last.toLowerCase().replace(/^[("'“‘[]+/, "")
      if (ABBREVIATIONS.has(word) || /^(?:[a-z]\.)+[a-z]$/i.test(word)) continue
      // an initial ("J. Smith") follows a name or another initial; "model G. The" ends a sentence
      const previous = /(\S+)\s+\S+$/.exec(before)?.[1] ?? ""
      if (/^[A-Z]$/.test(last) && (previous === "" || /^[A-Z][a-z]*\.?,?$/.test(previous))) continue
      if (/\bet al$/i.test(before)) continue
    }
    out.push(flat.slice(start, end).trim())
    start = m.index + m[0].length
  }
  const rest = flat.slice(start).trim()
  if (rest !== "") out.push(rest)
  return out
}

const NUM = String.raw`\d+(?:[.,]\d+)*`
const METRIC = String.raw`(?:BLEU|ROUGE(?:-\w+)?|METEOR|CIDEr|F1|F-?(?:score|measure)|mAP|AP|mIoU|mean IU|IoU|perplexity|` +
  String.raw`(?:top-?[15] )?(?:(?:test|validation|classification|word|character|relative) )?(?:error(?: rate)?|accuracy)|WER|CER|EER|AUC|PSNR|SSIM|FID|Inception score|recall|precision|` +
  String.raw`(?:success|win|compression) rate)`

/** Figures with their measure, best first. Each regex captures the whole figure phrase. */
const FIGURES: ReadonlyArray<RegExp> = [
  // "3.57% error", "4.9% top-5 validation error", "25.9 BLEU", "28.4 BLEU points"
  new RegExp(String.raw`\b${NUM}\s?%?\s(?:${METRIC})(?:\s(?:points?|score))?\b`, "i"),
  // "BLEU score of 34.8", "accuracy of 92.3%", "an F1 of 88.5", "mAP of 73.2%"
  new RegExp(String.raw`\b(?:${METRIC})(?:\s(?:score|points?))?\s(?:of|=|:|to|at|reaching|by)\s(?:about\s|nearly\s|only\s|over\s)?${NUM}\s?%?`, "i"),
  // "20% relative improvement", "25% error reduction", "a 10x speedup", "14 times fewer training steps"
  new RegExp(String.raw`\b${NUM}\s?(?:%|x|×|-fold|\stimes)\s(?:relative\s)?(?:error\s)?(?:improvement|reduction|speed-?up|faster|fewer|less|smaller|larger|more|lower|higher|better|compression)\b(?:\s(?:\w+\s)?(?:steps|parameters|memory|computation|error))?`, "i"),
  // "reduces translation errors by an average of 60%", "improves accuracy by 2.3%"
  new RegExp(String.raw`\b(?:reduc|improv|increas|lower|cut|boost)\w*\s(?:[\w-]+\s){0,3}by\s(?:an average of\s|about\s|up to\s|over\s|more than\s)?${NUM}\s?(?:%|x|×|\s(?:${METRIC}|points?))`, "i"),
  // "45 frames per second", "5fps"
  new RegExp(String.raw`\b${NUM}\s?(?:frames per second|fps)\b`, "i"),
  // "speedup of 10x", "an improvement of 1.0 BLEU"
  new RegExp(String.raw`\b(?:speed-?up|improvement|reduction|gain)\sof\s${NUM}\s?(?:%|x|×|\s(?:${METRIC}|points?))`, "i"),
  // any percentage, as the last resort
  new RegExp(String.raw`\b${NUM}\s?%`, "i")
]

/** The first figure with its measure in a sentence, and how specific the match is (0 = best). */
const figureIn = (sentence: string): { readonly text: string; readonly rank: number } | undefined => {
  for (let rank = 0; rank < FIGURES.length; rank++) {
    const m = FIGURES[rank]!.exec(sentence)
    if (m !== null) return { text: m[0].trim(), rank }
  }
  return undefined
}

type Figure = { readonly text: string; readonly rank: number } | undefined

/**
 * A figure fit to stand as the "Key result": one that carries its measure ("3.57% error", "25.9 BLEU",
 * "45 frames per second"). A bare percentage ("0.56%") says nothing alone; it still marks a result sentence.
 */
const withMeasure = (f: Figure): Figure => (f === undefined || f.rank === FIGURES.length - 1 ? undefined : f)

/** The headline figure of an abstract with its measure, if it states one. */
export const keyFigure = (abstract: string): string | undefined => {
  const sentences = splitSentences(abstract)
  return bestFigure(sentences, sentences.map((s) => withMeasure(figureIn(s))))?.text
}

/** The sentence whose figure is most likely the paper's headline result; `figures[i]` is `figureIn(sentences[i])`. */
const bestFigure = (
  sentences: ReadonlyArray<string>,
  figures: ReadonlyArray<Figure>
): { readonly text: string; readonly index: number } | undefined => {
  let best: { readonly text: string; readonly index: number; readonly score: number } | undefined
  sentences.forEach((s, index) => {
    const f = figures[index]
    if (f === undefined) return
    // a figure the authors claim ("we achieve", "our model") beats one about a baseline
    const score = (FIGURES.length - f.rank) * 2 + (OWN_RESULT.test(s) ? 3 : 0) + (BASELINE.test(s) ? -4 : 0)
    if (best === undefined || score > best.score) best = { text: f.text, index, score }
  })
  return best
}

const CONTRIBUTION = /\b(?:we|this (?:paper|work|article|thesis|note)|in this (?:paper|work|article)|here)\b[^.]*?\b(?:propose|present|introduce|describe|develop|design|derive|report|build|construct|define|formulate|devise|provide|offer|contribute|examine|explore|investigate|study|analy[sz]e)/i
const STRONG_CONTRIBUTION = /\b(?:we|this (?:paper|work))\s+(?:\w+ly\s+)?(?:propose|present|introduce|develop|describe)\b/i
const IN_THIS_PAPER = /\b(?:in this (?:paper|work|article)|here),? we\b|^this (?:paper|work|article) \w+s\b/i
const NAMES_METHOD = /\b(?:called|dubbed|named|codenamed|termed|we call|which we call|coined)\b/
const ACRONYM = /\b[A-Z][a-zA-Z]*[A-Z][a-zA-Z-]*\b/
const FINDING = /\b(?:we (?:show|demonstrate|find|prove|observe|establish)|our (?:main |key )?(?:contribution|insight|result|finding)s?|the (?:main|key) (?:contribution|idea|insight))\b/i
const OWN_RESULT = /\b(?:we|our|the proposed|this (?:method|model|approach|network|system))\b/i
const OUTPERFORMS = /\b(?:outperform\w*|state[- ]of[- ]the[- ]art|surpass\w*|exceed\w*|beat\w*|better than|records?|wins?|won|first place)\b/i
const IMPROVES = /\b(?:improv\w*|achiev\w*|significant(?:ly)? (?:gain|improvement)|speed-?ups?|faster|favou?rabl\w*|competitive|reduc\w*|on par)\b/i
const BASELINE = /\b(?:for comparison|the baseline (?:achieve|obtain|reach)\w*|previous(?:ly)? best (?:result|system|model)s? (?:is|was|of)|existing (?:system|method)s? (?:achieve|obtain)\w*)\b/i
const BACKGROUND = /\b(?:recently|has (?:been|become|attracted|received)|have (?:been|become|attracted|received)|is (?:a|an|one of the) (?:popular|common|well[- ]known|fundamental|central|key|important|challenging|powerful)|are (?:widely|commonly|increasingly)|traditional(?:ly)?|however|although|despite|remains? (?:a|an|challenging|difficult|open)|little work|suffer)\b/i
const BOILERPLATE = /\b(?:code|software|implementation|models?|data(?:set)?s?|source)\b[^.]{0,60}\b(?:is|are|has been|have been|will be)\s+(?:made\s+)?(?:publicly\s+|freely\s+)?(?:available|released)|\bhttps?:\/\/|\bgithub\b|\bavailable (?:at|online|from)\b/i

/** The note's terms as lists of singular words, for matching against sentences. */
const conceptTerms = (concept: ReadonlyArray<string>): ReadonlyArray<ReadonlyArray<string>> =>
  concept.map((term) => words(term).map(singular)).filter((t) => t.length > 0)

const matchesConcept = (sentenceWords: ReadonlySet<string>, terms: ReadonlyArray<ReadonlyArray<string>>): number =>
  terms.filter((t) => t.every((w) => sentenceWords.has(w))).length

interface Scored {
  readonly index: number
  readonly sentence: string
  readonly what: number
  readonly result: number
  readonly extra: number
  readonly figure: boolean
}

/** What the title says about the method: its content words, and the name before a colon ("Grad-CAM: …"). */
interface TitleSignals {
  readonly words: ReadonlyArray<string>
  readonly name: string | undefined
}

const titleSignals = (title: string): TitleSignals => {
  const flat = title.replace(/\s+/g, " ").trim()
  const colon = /^([^:]{2,40}):\s/.exec(flat)
  return {
    words: [...new Set(words(flat).map(singular))].filter((w) => w.length >= 3 && !STOP_WORDS.has(w)),
    name: colon === null ? undefined : colon[1]!.trim()
  }
}

/** The share (0..1) of the title's content words a sentence repeats, and whether it names what the title names. */
const titleOverlap = (
  sentence: string,
  sentenceWords: ReadonlySet<string>,
  title: TitleSignals
): { readonly share: number; readonly named: boolean } => ({
  share: title.words.length === 0 ? 0 : title.words.filter((w) => sentenceWords.has(w)).length / title.words.length,
  named: title.name !== undefined && sentence.toLowerCase().includes(title.name.toLowerCase())
})

const score = (
  sentence: string,
  index: number,
  count: number,
  terms: ReadonlyArray<ReadonlyArray<string>>,
  title: TitleSignals,
  figure: Figure
): Scored => {
  const sentenceWords = new Set(words(sentence).map(singular))
  const titled = titleOverlap(sentence, sentenceWords, title)
  const concept = Math.min(2, matchesConcept(sentenceWords, terms))
  const ours = OWN_RESULT.test(sentence)
  const background = BACKGROUND.test(sentence) && !ours ? 1.5 : 0
  const penalty = background + (sentence.endsWith("?") ? 1.5 : 0) + (BOILERPLATE.test(sentence) ? 6 : 0) +
    (sentence.length < 40 ? 1 : 0) + (sentence.length > 450 ? 1 : 0)
  const naming = (NAMES_METHOD.test(sentence) ? 1.5 : 0) + (ACRONYM.test(sentence) ? 0.5 : 0) + (titled.named ? 2 : 0)
  const what = (STRONG_CONTRIBUTION.test(sentence) ? 5 : IN_THIS_PAPER.test(sentence) ? 3.5 : CONTRIBUTION.test(sentence) ? 3 : 0) +
    (FINDING.test(sentence) ? 2 : 0) + naming + titled.share + concept * 0.75 +
    (index === 0 && !ours ? -1 : 0) + (index < count / 2 ? 0.5 : 0) - penalty
  const result = (figure === undefined ? 0 : 4 - Math.min(2, figure.rank * 0.5)) +
    (OUTPERFORMS.test(sentence) ? 2.5 : IMPROVES.test(sentence) ? 1.5 : 0) +
    (ours ? 1 : 0) + (FINDING.test(sentence) ? 1 : 0) + (BASELINE.test(sentence) && !ours ? -2 : 0) + concept * 0.5 - penalty
  const extra = concept + naming + (FINDING.test(sentence) ? 1 : 0) - penalty
  return { index, sentence, what, result, extra, figure: figure !== undefined }
}

const best = (candidates: ReadonlyArray<Scored>, by: (s: Scored) => number): Scored | undefined =>
  candidates.reduce<Scored | undefined>((top, s) => (top === undefined || by(s) > by(top) ? s : top), undefined)

/**
 * Two or three whole sentences of `abstract` saying what the paper does and
 * its key result, preferring sentences that use the note's `concept` terms.
 */
export const extractiveSummary = (
  paper: { readonly title: string; readonly abstract: string },
  concept: ReadonlyArray<string> = []
): ExtractiveSummary => {
  const sentences = splitSentences(paper.abstract)
  const figures = sentences.map(figureIn)
  if (sentences.length <= 2) {
    return { text: sentences.join(" "), sentences, keyFigure: bestFigure(sentences, figures.map(withMeasure))?.text }
  }
  const terms = conceptTerms(concept)
  const title = titleSignals(paper.title)
  const scored = sentences.map((s, i) => score(s, i, sentences.length, terms, title, figures[i]))
  const chosen = new Map<number, Scored>()
  const what = best(scored, (s) => s.what)!
  chosen.set(what.index, what)
  const figure = bestFigure(sentences, figures)
  const withFigure = figure === undefined ? undefined : scored[figure.index]!
  const result = withFigure !== undefined && !chosen.has(withFigure.index) && withFigure.result > 0
    ? withFigure
    : best(scored.filter((s) => !chosen.has(s.index)), (s) => s.result)
  if (result !== undefined && (result.result > 0 || chosen.size < 2)) chosen.set(result.index, result)
  if (chosen.size < 2) {
    const next = best(scored.filter((s) => !chosen.has(s.index)), (s) => s.what + s.result)
    if (next !== undefined) chosen.set(next.index, next)
  }
  const length = () => [...chosen.values()].reduce((n, s) => n + s.sentence.length + 1, 0)
  const room = SUMMARY_BUDGET - length()
  const third = best(
    scored.filter((s) => !chosen.has(s.index) && s.extra >= 1.5 && s.sentence.length <= room),
    (s) => s.extra + s.what * 0.5
  )
  if (third !== undefined) chosen.set(third.index, third)
  const order = [...chosen.values()].sort((a, b) => a.index - b.index)
  const picked = order.map((s) => s.sentence)
  const inSummary = bestFigure(picked, order.map((s) => withMeasure(figures[s.index])))?.text
  return { text: picked.join(" "), sentences: picked, keyFigure: inSummary }
}
