/**
 * SpeechToTextPort offline: CMU pocketsphinx (Debian's `pocketsphinx`,
 * `pocketsphinx_continuous`) with its US-English acoustic model
 * (`pocketsphinx-en-us`) and the package's model of the field — a bigram
 * language model of arXiv titles, abstracts and question frames, and
 * pronunciations for research words (`data/speech/`, see
 * scripts/build-speech-model.ts). The audio is checked and converted first
 * (audioInput.ts); the program reads it from a private temporary file and
 * is killed on timeout or interruption.
 *
 * @since 0.1.0
 */
import { CommandExecutor, FileSystem } from "@effect/platform"
import { Config, Duration, Effect, Layer, Option } from "effect"
import type { AudioInput, Transcript } from "../../core/ports/SpeechToTextPort.js"
import { SpeechToTextPort, type SpeechToTextService } from "../../core/ports/SpeechToTextPort.js"
import { NothingHeard, SpeechFailed, SpeechUnavailable } from "../../core/speech.js"
import { packageRoot } from "../corpus/packageData.js"
import { prepareAudio } from "./audioInput.js"
import { runOwned } from "./ownedProcess.js"
import { pcm16, seconds } from "./wav.js"

/** Where Debian's pocketsphinx-en-us puts the US-English model. */
export const DEBIAN_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us"

/** Options of the offline recogniser. */
export interface PocketsphinxOptions {
  /** The program (default `pocketsphinx_continuous`). */
  readonly program?: string | undefined
  /** The acoustic model folder (default Debian's `/usr/share/pocketsphinx/model/en-us/en-us`). */
  readonly acousticModel?: string | undefined
  /** The language model, ARPA (default the package's `data/speech/field.lm`). */
  readonly languageModel?: string | undefined
  /** The pronunciation dictionary (default the package's `data/speech/field.dic`). */
  readonly dictionary?: string | undefined
  /** The longest a transcription may take (default 60 s). */
  readonly timeout?: Duration.DurationInput | undefined
}

const ENGINE = "pocketsphinx"

const fieldFile = (name: string): string => `${packageRoot() ?? "."}/data/speech/${name}`

/** The last line the program logged as an error. */
const errorLine = (stderr: string): string =>
  stderr.split("\n").filter((l) => l.startsWith("ERROR") || l.startsWith("FATAL")).pop()?.replace(/^(?:ERROR|FATAL_ERROR): "?[^"]*"?, line \d+: /, "") ?? ""

/** Build the service from the context's CommandExecutor and FileSystem. */
export const make = (options: PocketsphinxOptions = {}) =>
  Effect.gen(function*() {
    const executor = yield* CommandExecutor.CommandExecutor
    const fs = yield* FileSystem.FileSystem
    const program = options.program ?? "pocketsphinx_continuous"
    const hmm = options.acousticModel ?? `${DEBIAN_MODEL_DIR}/en-us`
    const lm = options.languageModel ?? fieldFile("field.lm")
    const dict = options.dictionary ?? fieldFile("field.dic")
    const timeout = options.timeout ?? "60 seconds"
    const present = (path: string) => fs.exists(path).pipe(Effect.orElseSucceed(() => false))

    const checkModels = Effect.gen(function*() {
      if (!(yield* present(`${hmm}/mdef`))) {
        return yield* Effect.fail(
          new SpeechUnavailable({ engine: ENGINE, reason: `its US-English model is not installed (no ${hmm}/mdef)`, hint: "Install it (apt-get install pocketsphinx-en-us)." })
        )
      }
      for (const file of [lm, dict]) {
        if (!(yield* present(file))) {
          return yield* Effect.fail(
            new SpeechUnavailable({ engine: ENGINE, reason: `the field's language model is not built (no ${file})`, hint: "Run npm run build, or reinstall the package." })
          )
        }
      }
    })

    const transcribe = Effect.fn("SpeechToTextPort.transcribe")(function*(audio: AudioInput) {
      const pcm = yield* prepareAudio(executor, audio)
      yield* checkModels
      // pocketsphinx_continuous opens its input by name, and Node's stdin of a child is a socket it cannot open:
      // the audio goes through a private temporary file, removed when the call ends however it ends
      const out = yield* Effect.scoped(Effect.gen(function*() {
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "arxiv-companion-speech-" })
        const input = `${dir}/question.raw`
        yield* fs.writeFile(input, pcm16(pcm), { mode: 0o600 })
        return yield* runOwned(executor, {
          program,
          args: ["-infile", input, "-hmm", hmm, "-lm", lm, "-dict", dict],
          timeout,
          engine: ENGINE,
          install: "apt-get install pocketsphinx pocketsphinx-en-us"
        })
      })).pipe(
        Effect.catchTags({
          SystemError: (e) => Effect.fail(new SpeechFailed({ engine: ENGINE, reason: `could not write the audio for it (${e.message})` })),
          BadArgument: (e) => Effect.fail(new SpeechFailed({ engine: ENGINE, reason: `could not write the audio for it (${e.message})` }))
        })
      )
      if (out.exitCode !== 0) {
        return yield* Effect.fail(new SpeechFailed({ engine: ENGINE, reason: errorLine(out.stderr) || `${program} exited with code ${out.exitCode}` }))
      }
      const text = new TextDecoder().decode(out.stdout).split("\n").map((l) => l.trim()).filter((l) => l !== "").join(" ")
      const length = seconds(pcm)
      if (text === "") return yield* Effect.fail(new NothingHeard({ source: audio.name, seconds: length, reason: "no words recognised" }))
      return { text, language: "en", seconds: length, engine: `${ENGINE} (en-us, field language model)` } satisfies Transcript
    })
    return SpeechToTextPort.of({ transcribe } satisfies SpeechToTextService)
  })

/** The offline recogniser as a layer. */
export const layer = (options: PocketsphinxOptions = {}) => Layer.effect(SpeechToTextPort, make(options))

/** The offline recogniser configured by ARXIV_COMPANION_POCKETSPHINX_MODEL (an acoustic model folder), else Debian's. */
export const layerConfig = Layer.unwrapEffect(
  Config.option(Config.string("ARXIV_COMPANION_POCKETSPHINX_MODEL")).pipe(
    Effect.map((model) => layer({ acousticModel: Option.getOrUndefined(model) }))
  )
)
