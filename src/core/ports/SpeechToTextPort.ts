/**
 * Speech to text: a spoken question as text. An optional port: only asking
 * by voice uses it (`ask --audio`, the page's microphone, `ask_arxiv` with
 * `audio`).
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { SpeechError } from "../speech.js"

/** Audio as it arrived: its bytes, its MIME type when known, and a name for messages ("question.wav", "the recording"). */
export interface AudioInput {
  readonly bytes: Uint8Array
  /** e.g. "audio/wav", "audio/ogg"; absent: read from the bytes. */
  readonly mimeType?: string | undefined
  /** What the messages call it. */
  readonly name: string
}

/** What was heard. */
export interface Transcript {
  /** The words heard, one line; never empty (nothing heard is NothingHeard). */
  readonly text: string
  /** The language, as a BCP 47 tag, when the recogniser knows it. */
  readonly language?: string | undefined
  /** Length of the audio in seconds. */
  readonly seconds: number
  /** Who heard it, e.g. "pocketsphinx (en-us, field language model)". */
  readonly engine: string
}

/** The speech-to-text service. */
export interface SpeechToTextService {
  /**
   * The words of a spoken question. AudioUnusable for a format it cannot read,
   * a file cut off or too large; NothingHeard for silence, noise or an empty
   * transcript; SpeechUnavailable when the program, model or service is missing.
   */
  readonly transcribe: (audio: AudioInput) => Effect.Effect<Transcript, SpeechError>
}

/** @since 0.1.0 */
export class SpeechToTextPort extends Context.Tag("arxiv-companion/SpeechToTextPort")<SpeechToTextPort, SpeechToTextService>() {}
