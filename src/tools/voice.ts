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
import { InvalidArgument } from "../core/errors.js"
import { MAX_AUDIO_BYTES, shownSize } from "../core/limits.js"
import { AudioUnusable, spokenAnswer } from "../core/speech.js"
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

/** Arguments of {@link askArxivVoiceTool}: ask_arxiv's, with the question typed or spoken, and the answer read aloud on request. */
export interface AskVoiceInput extends Omit<AskInput, "question"> {
  readonly question?: string | undefined
  /** A spoken question as a data URL, its MIME type and base64 (`data:audio/wav;base64,…`; at most MAX_AUDIO_BYTES decoded). */
  readonly audio?: string | undefined
  /** Also read the answer aloud (WAV). */
  readonly speak?: boolean | undefined
}

/** The base64 of a spoken question, checked before it is decoded. */
const audioArg = (audio: string) =>
  Effect.gen(function*() {
    const url = /^data:([\w.+-]+\/[\w.+-]+)(?:;[^;,]*)*;base64,(.*)$/s.exec(audio.trim())
    if (url === null) {
      return yield* Effect.fail(new AudioUnusable({ source: "the audio argument", reason: "it is not a base64 data URL: send data:audio/wav;base64,… (or audio/ogg, audio/flac)" }))
    }
    const data = url[2]!.replace(/\s+/g, "")
    if (data.length > Math.ceil(MAX_AUDIO_BYTES / 3) * 4) {
      return yield* Effect.fail(new AudioUnusable({ source: "the audio argument", reason: `it is over the ${shownSize(MAX_AUDIO_BYTES)}-byte limit for a spoken question: record a shorter question` }))
    }
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return yield* Effect.fail(new AudioUnusable({ source: "the audio argument", reason: "its data is not base64" }))
    return { bytes: new Uint8Array(Buffer.from(data, "base64")), mimeType: url[1]!, name: "the audio argument" } satisfies AudioInput
  })

/** ask_arxiv with a typed or spoken question: the answer (its `question` is the transcript), what was heard, and the answer read aloud on request. */
export const askArxivVoiceTool = Effect.fn("Tools.askArxivVoice")(function*(input: AskVoiceInput) {
  const { audio, speak, question, ...rest } = input
  if (audio !== undefined && question !== undefined && question.trim() !== "") {
    return yield* Effect.fail(new InvalidArgument({ argument: "question", reason: "give question or audio, not both" }))
  }
  if (audio === undefined && (question === undefined || question.trim() === "")) {
    return yield* Effect.fail(new InvalidArgument({ argument: "question", reason: "give a research question, or audio of one" }))
  }
  const heard = audio === undefined ? undefined : yield* hearQuestion(yield* audioArg(audio))
  const answer = yield* askArxivTool({ ...rest, question: heard?.text ?? question ?? "" })
  // a spoken question's transcript is the answer's `question`: what was heard is what was asked
  const spoken = speak === true ? yield* speakAnswer(answer) : undefined
  return { result: answer, heard, spoken }
})
