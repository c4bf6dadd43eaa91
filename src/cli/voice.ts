/**
 * `ask --audio` / `--speak` / `--speak-to`: the spoken question read from a
 * file (its size checked before it is read), and the spoken answer written
 * whole (never over an existing file) and played through a player found on
 * the PATH, or its place said.
 */
import { Command, CommandExecutor, FileSystem } from "@effect/platform"
import { Console, Effect, Option } from "effect"
import { tmpdir } from "node:os"
import { basename, extname, join } from "node:path"
import { MAX_AUDIO_BYTES, shownSize } from "../core/limits.js"
import type { AudioInput } from "../core/ports/SpeechToTextPort.js"
import type { SpeechFormat, SpokenAudio } from "../core/ports/TextToSpeechPort.js"
import { InvalidArgument } from "../core/errors.js"
import { AudioUnusable } from "../core/speech.js"
import type { AskResult } from "../tools/ask.js"
import { hearQuestion, speakAnswer } from "../tools/voice.js"

const MIME: Readonly<Record<string, string>> = {
  ".wav": "audio/wav",
  ".ogg": "audio/ogg",
  ".oga": "audio/ogg",
  ".opus": "audio/ogg",
  ".flac": "audio/flac",
  ".mp3": "audio/mpeg",
  ".aiff": "audio/aiff",
  ".aif": "audio/aiff",
  ".webm": "audio/webm"
}

/** The spoken question in `path`, refused before it is read when it is missing, not a file or too large. */
export const readAudioFile = (path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const name = basename(path)
    const fail = (reason: string) => Effect.fail(new AudioUnusable({ source: name, reason }))
    const info = yield* fs.stat(path).pipe(Effect.option)
    if (info._tag === "None") return yield* fail(`there is no file ${path}: check the path`)
    if (info.value.type !== "File") return yield* fail(`${path} is not a file`)
    if (Number(info.value.size) > MAX_AUDIO_BYTES) {
      return yield* fail(
        `it is ${shownSize(Number(info.value.size))} bytes, over the ${shownSize(MAX_AUDIO_BYTES)}-byte limit for a spoken question: record a shorter question`
      )
    }
    const bytes = yield* fs.readFile(path).pipe(Effect.catchAll((e) => fail(`it cannot be read (${e.message})`)))
    return { bytes, mimeType: MIME[extname(path).toLowerCase()], name } satisfies AudioInput
  })

/** The format a file name asks for: Ogg for .ogg/.oga/.opus, WAV otherwise. */
export const formatOf = (path: string): SpeechFormat => (/\.(ogg|oga|opus)$/i.test(path) ? "ogg" : "wav")

/** Write the spoken answer to `path`, whole (a temporary file renamed), never over an existing file. */
export const writeSpoken = (path: string, audio: SpokenAudio) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false))) {
      return yield* Effect.fail(new AudioUnusable({ source: path, reason: "the file exists and was not written by this answer: choose another name or remove it" }))
    }
    const part = `${path}.part-${process.pid}`
    yield* fs.writeFile(part, audio.bytes).pipe(
      Effect.zipRight(fs.rename(part, path)),
      Effect.tapError(() => fs.remove(part).pipe(Effect.ignore)),
      Effect.catchAll((e) => Effect.fail(new AudioUnusable({ source: path, reason: `it cannot be written (${e.message})` })))
    )
    return path
  })

/** Players tried in turn, each with how it plays a file. */
const PLAYERS: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["paplay", []],
  ["aplay", ["-q"]],
  ["play", ["-q"]],
  ["ffplay", ["-nodisp", "-autoexit", "-loglevel", "quiet"]]
]

/** Play the spoken answer through the first player that works; say where the file is when none does. */
export const playSpoken = (audio: SpokenAudio, keptAt: string | undefined) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const executor = yield* CommandExecutor.CommandExecutor
    const file = keptAt ?? join(tmpdir(), `arxiv-companion-answer-${process.pid}.${audio.mimeType === "audio/ogg" ? "ogg" : "wav"}`)
    if (keptAt === undefined) yield* fs.writeFile(file, audio.bytes).pipe(Effect.orDie)
    for (const [program, args] of PLAYERS) {
      const code = yield* executor.exitCode(Command.make(program, ...args, file)).pipe(
        Effect.timeout("5 minutes"),
        Effect.option
      )
      if (code._tag === "Some" && Number(code.value) === 0) return
    }
    yield* Console.error(`No audio player worked here (tried ${PLAYERS.map(([p]) => p).join(", ")}): the spoken answer is in ${file}`)
  })

/**
 * The question of `ask`: typed, or heard from `--audio` (printed as "Heard: …" on stdout before anything
 * else runs). One of the two, not both; a `--speak-to` file that exists is refused before anything runs.
 */
export const askedQuestion = (typed: Option.Option<string>, audio: Option.Option<string>, speakTo: Option.Option<string>, json: boolean) =>
  Effect.gen(function*() {
    if (Option.isSome(speakTo)) {
      const fs = yield* FileSystem.FileSystem
      if (yield* fs.exists(speakTo.value).pipe(Effect.orElseSucceed(() => false))) {
        return yield* Effect.fail(new AudioUnusable({ source: speakTo.value, reason: "the file exists: choose another name for the spoken answer or remove it" }))
      }
    }
    if (Option.isSome(typed) && Option.isSome(audio)) {
      return yield* Effect.fail(new InvalidArgument({ argument: "question", reason: "give a typed question or --audio FILE, not both" }))
    }
    if (Option.isSome(typed)) return { question: typed.value, heard: undefined }
    if (Option.isNone(audio)) {
      return yield* Effect.fail(new InvalidArgument({ argument: "question", reason: "type a research question, or give a recording of one with --audio FILE" }))
    }
    const heard = yield* readAudioFile(audio.value).pipe(Effect.flatMap(hearQuestion))
    // with --json the transcript is the "heard" field of the one JSON document
    if (!json) yield* Console.log(`Heard: ${heard.text}`)
    return { question: heard.text, heard }
  })

/** `--speak` / `--speak-to`: the answer read aloud, written and/or played. */
export const spokenAnswer = (r: AskResult, play: boolean, to: string | undefined) =>
  Effect.gen(function*() {
    if (!play && to === undefined) return
    const audio = yield* speakAnswer(r, to === undefined ? "wav" : formatOf(to))
    const written = to === undefined ? undefined : yield* writeSpoken(to, audio)
    if (written !== undefined) yield* Console.error(`Wrote the spoken answer to ${written}`)
    if (play) yield* playSpoken(audio, written)
  })
