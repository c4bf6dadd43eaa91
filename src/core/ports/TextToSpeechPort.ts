/**
 * Text to speech: an answer read aloud. An optional port: only `ask --speak`,
 * the page's "Read aloud" and `ask_arxiv` with `speak` use it.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { SpeechError } from "../speech.js"

/** The audio formats a spoken answer comes in. */
export type SpeechFormat = "wav" | "ogg"

/** A spoken text. */
export interface SpokenAudio {
  readonly bytes: Uint8Array
  /** "audio/wav" or "audio/ogg" (Ogg/Opus or Ogg/Vorbis, as the engine makes it). */
  readonly mimeType: string
  /** Who spoke it, e.g. "espeak-ng". */
  readonly engine: string
}

/** The text-to-speech service. */
export interface TextToSpeechService {
  /**
   * The text spoken, in `format` (default WAV). SpeechUnavailable when the
   * program or service is missing, AudioUnusable for a format it cannot make.
   */
  readonly speak: (text: string, format?: SpeechFormat) => Effect.Effect<SpokenAudio, SpeechError>
}

/** @since 0.1.0 */
export class TextToSpeechPort extends Context.Tag("arxiv-companion/TextToSpeechPort")<TextToSpeechPort, TextToSpeechService>() {}
