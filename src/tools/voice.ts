/**
 * Asking by voice: the spoken question heard through SpeechToTextPort and
 * answered by the same use case as a typed one (`askArxivTool`), and the
 * answer read aloud through TextToSpeechPort, written for listening (titles,
 * a sentence each; no URLs, ids or scores). The CLI's `ask --audio`, the
 * page's microphone and `ask_arxiv` with `audio` all go through here.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { type AudioInput, SpeechToTextPort, type Transcript } from "../core/ports/SpeechToTextPort.js"
import { type SpeechFormat, TextToSpeechPort } from "../core/ports/TextToSpeechPort.js"
import { spokenAnswer } from "../core/speech.js"
import { type AskInput, askArxivTool, type AskResult } from "./ask.js"

/** What was heard, as tool data. */
export interface Heard {
  readonly text: string
  readonly language?: string | undefined
  readonly seconds: number
  readonly engine: string
}

const heardOf = (t: Transcript): Heard => ({
  text: t.text,
  ...(t.language === undefined ? {} : { language: t.language }),
  seconds: Math.round(t.seconds * 10) / 10,
  engine: t.engine
})

/** Hear a spoken question (nothing else runs when it cannot be heard). */
export const hearQuestion = Effect.fn("Tools.hearQuestion")(function*(audio: AudioInput) {
  const stt = yield* SpeechToTextPort
  return heardOf(yield* stt.transcribe(audio))
})

/** Answer a spoken question: what was heard, and the answer to it as to a typed question. */
export const askByVoice = Effect.fn("Tools.askByVoice")(function*(audio: AudioInput, input: Omit<AskInput, "question"> = {}) {
  const heard = yield* hearQuestion(audio)
  const answer = yield* askArxivTool({ ...input, question: heard.text })
  return { heard, answer }
})

/** The answer as it is read aloud. */
export const spokenText = (r: AskResult): string =>
  spokenAnswer(
    r.question,
    r.papers.map((p) => ({ title: p.title, summary: p.summary, year: p.published_date.slice(0, 4) })),
    r.message
  )

/** The answer read aloud, in WAV (default) or Ogg. */
export const speakAnswer = Effect.fn("Tools.speakAnswer")(function*(r: AskResult, format: SpeechFormat = "wav") {
  const tts = yield* TextToSpeechPort
  return yield* tts.speak(spokenText(r), format)
})
