/**
 * Voice: the typed errors of the speech ports, and the pure parts of asking
 * by voice — the answer written for listening, and the word error rate of a
 * transcript.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** A speech program, its model or a configured audio service is not available; `hint` says what to install or set. */
export class SpeechUnavailable extends Schema.TaggedError<SpeechUnavailable>("arxiv-companion/SpeechUnavailable")(
  "SpeechUnavailable",
  { engine: Schema.String, reason: Schema.String, hint: Schema.String }
) {
  override get message(): string {
    return `${this.engine} is not available: ${this.reason}. ${this.hint}`
  }
}

/** The audio cannot be used as it is (format, size, a cut-off file); `reason` says what to fix. */
export class AudioUnusable extends Schema.TaggedError<AudioUnusable>("arxiv-companion/AudioUnusable")(
  "AudioUnusable",
  { source: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `Cannot use ${this.source}: ${this.reason}`
  }
}

/** The audio holds no speech the recogniser could hear (silence, noise, an empty transcript). */
export class NothingHeard extends Schema.TaggedError<NothingHeard>("arxiv-companion/NothingHeard")(
  "NothingHeard",
  { source: Schema.String, seconds: Schema.Number, reason: Schema.optional(Schema.String) }
) {
  override get message(): string {
    const why = this.reason === undefined ? "" : `, ${this.reason}`
    return `Heard nothing in ${this.source} (${this.seconds.toFixed(1)} s of audio${why}): speak closer to the microphone or type the question`
  }
}

/** A speech program or service ran but failed (crashed, timed out, answered with an error). */
export class SpeechFailed extends Schema.TaggedError<SpeechFailed>("arxiv-companion/SpeechFailed")(
  "SpeechFailed",
  { engine: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `${this.engine} failed: ${this.reason}`
  }
}

/** Errors a speech port may fail with. */
export type SpeechError = SpeechUnavailable | AudioUnusable | NothingHeard | SpeechFailed

/** One paper of an answer, as the spoken answer needs it. */
export interface SpokenPaper {
  readonly title: string
  readonly summary?: string | undefined
  readonly year?: string | undefined
}

const URLISH = /\b(?:https?:\/\/|www\.)\S+/gi
const ARXIV_ID = /\b(?:arXiv:)?(?:\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Z]{2})?\/\d{7})\b/gi
const LATEX = /\$[^$]*\$/g

/** Text fit for a speech engine: no URLs, no arXiv ids, no TeX, no symbols read out letter by letter. */
export const forListening = (text: string): string =>
  text
    .replace(URLISH, "")
    .replace(ARXIV_ID, "")
    .replace(LATEX, "")
    .replace(/[{}\\_^*#|<>[\]~`]/g, " ")
    .replace(/\(\s*\)/g, "")
    .replace(/\s+([,.;:)])/g, "$1")
    .replace(/\s+/g, " ")
    .trim()

/** The first sentence of a text (up to its first full stop followed by a space or the end). */
export const firstSentence = (text: string): string => {
  const t = text.replace(/\s+/g, " ").trim()
  const m = /^(.{20,}?[.!?])(?:\s|$)/.exec(t)
  return m?.[1] ?? t
}

/**
 * The answer written for listening: how many papers, then each title with
 * one sentence of its summary; no URLs, ids or scores read out.
 */
export const spokenAnswer = (question: string, papers: ReadonlyArray<SpokenPaper>, message?: string): string => {
  if (papers.length === 0) {
    return forListening(message ?? `I found no papers for: ${question}.`)
  }
  const count = papers.length === 1 ? "one paper" : `${papers.length} papers`
  const parts = [`Here ${papers.length === 1 ? "is" : "are"} ${count} for: ${forListening(question).replace(/[?.!]+$/, "")}.`]
  papers.forEach((p, i) => {
    const title = forListening(p.title).replace(/[.!?]+$/, "")
    const year = p.year === undefined ? "" : `, from ${p.year}`
    const sentence = p.summary === undefined || p.summary.trim() === "" ? "" : ` ${forListening(firstSentence(p.summary))}`
    parts.push(`${ordinal(i + 1)}: ${title}${year}.${sentence}`)
  })
  return parts.join(" ").replace(/\.\./g, ".")
}

const ORDINALS = ["First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth"]
const ordinal = (n: number): string => ORDINALS[n - 1] ?? `Number ${n}`

/** The words of a transcript as word error rate compares them: lower case, letters and digits, hyphens split. */
export const werWords = (text: string): ReadonlyArray<string> =>
  text.toLowerCase().replace(/[-_/]/g, " ").replace(/[^a-z0-9' ]+/g, " ").split(/\s+/).filter((w) => w !== "")

/** Word-level edit distance (substitutions, deletions, insertions) between a reference and a hypothesis. */
export const wordErrors = (reference: ReadonlyArray<string>, hypothesis: ReadonlyArray<string>): number => {
  let prev = Array.from({ length: hypothesis.length + 1 }, (_, j) => j)
  for (let i = 1; i <= reference.length; i++) {
    const row = [i]
    for (let j = 1; j <= hypothesis.length; j++) {
      const same = reference[i - 1] === hypothesis[j - 1] ? 0 : 1
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + same))
    }
    prev = row
  }
  return prev[hypothesis.length]!
}
