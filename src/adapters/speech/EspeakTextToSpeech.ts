/**
 * TextToSpeechPort offline: espeak-ng (Debian's `espeak-ng`), US-English
 * voice, the text on stdin and WAV on stdout; Ogg (Vorbis) through sox. The
 * programs are killed on timeout or interruption.
 *
 * @since 0.1.0
 */
import { CommandExecutor } from "@effect/platform"
import { Config, Duration, Effect, Layer, Option } from "effect"
import { MAX_SPOKEN_CHARS, shownSize } from "../../core/limits.js"
import type { SpeechFormat, SpokenAudio } from "../../core/ports/TextToSpeechPort.js"
import { TextToSpeechPort, type TextToSpeechService } from "../../core/ports/TextToSpeechPort.js"
import { AudioUnusable, SpeechFailed } from "../../core/speech.js"
import { lastLine } from "./audioInput.js"
import { runOwned } from "./ownedProcess.js"
import { decodeWav, encodeWav } from "./wav.js"

/** Options of the offline voice. */
export interface EspeakOptions {
  /** The program (default `espeak-ng`). */
  readonly program?: string | undefined
  /** The voice (default `en-us`). */
  readonly voice?: string | undefined
  /** Words a minute (default 165). */
  readonly speed?: number | undefined
  /** The longest a reading may take (default 60 s). */
  readonly timeout?: Duration.DurationInput | undefined
}

const ENGINE = "espeak-ng"

/** Build the service from the context's CommandExecutor. */
export const make = (options: EspeakOptions = {}) =>
  Effect.gen(function*() {
    const executor = yield* CommandExecutor.CommandExecutor
    const program = options.program ?? "espeak-ng"
    const timeout = options.timeout ?? "60 seconds"

    const speak = Effect.fn("TextToSpeechPort.speak")(function*(text: string, format: SpeechFormat = "wav") {
      const said = text.replace(/\s+/g, " ").trim()
      if (said === "") return yield* Effect.fail(new AudioUnusable({ source: "the text to read", reason: "it is empty" }))
      if (said.length > MAX_SPOKEN_CHARS) {
        return yield* Effect.fail(
          new AudioUnusable({ source: "the text to read", reason: `it is ${shownSize(said.length)} characters, over the ${shownSize(MAX_SPOKEN_CHARS)}-character limit` })
        )
      }
      const out = yield* runOwned(executor, {
        program,
        args: ["-v", options.voice ?? "en-us", "-s", String(options.speed ?? 165), "--stdout"],
        stdin: new TextEncoder().encode(said + "\n"),
        timeout,
        engine: ENGINE,
        install: "apt-get install espeak-ng"
      })
      if (out.exitCode !== 0 || out.stdout.length <= 44) {
        return yield* Effect.fail(new SpeechFailed({ engine: ENGINE, reason: lastLine(out.stderr) || `${program} exited with code ${out.exitCode}` }))
      }
      // espeak-ng streams, so its header carries no length: written again with the real one
      const wav = yield* Effect.try({
        try: () => encodeWav(decodeWav(out.stdout)),
        catch: (e) => new SpeechFailed({ engine: ENGINE, reason: `its audio could not be read (${e instanceof Error ? e.message : String(e)})` })
      })
      if (format === "wav") return { bytes: wav, mimeType: "audio/wav", engine: ENGINE } satisfies SpokenAudio
      const ogg = yield* runOwned(executor, {
        program: "sox",
        args: ["-q", "-t", "wav", "-", "-t", "ogg", "-"],
        stdin: wav,
        timeout,
        engine: "sox",
        install: "apt-get install sox libsox-fmt-all, or ask for WAV"
      })
      if (ogg.exitCode !== 0 || ogg.stdout.length === 0) {
        return yield* Effect.fail(new SpeechFailed({ engine: "sox", reason: lastLine(ogg.stderr) || `sox exited with code ${ogg.exitCode}` }))
      }
      return { bytes: ogg.stdout, mimeType: "audio/ogg", engine: `${ENGINE} + sox (Ogg Vorbis)` } satisfies SpokenAudio
    })
    return TextToSpeechPort.of({ speak } satisfies TextToSpeechService)
  })

/** The offline voice as a layer. */
export const layer = (options: EspeakOptions = {}) => Layer.effect(TextToSpeechPort, make(options))

/** The offline voice configured by ARXIV_COMPANION_ESPEAK_VOICE (default en-us). */
export const layerConfig = Layer.unwrapEffect(
  Config.option(Config.string("ARXIV_COMPANION_ESPEAK_VOICE")).pipe(Effect.map((voice) => layer({ voice: Option.getOrUndefined(voice) })))
)
