/**
 * A spoken question made ready for the offline recogniser: checked (size,
 * format, length, something that could be speech), decoded and converted to
 * 16 kHz mono 16-bit PCM — WAV in pure JavaScript, Ogg/FLAC/AIFF/MP3 through
 * sox (Debian's `sox`) when it is installed.
 *
 * @since 0.1.0
 */
import type { CommandExecutor } from "@effect/platform"
import { Effect } from "effect"
import { MAX_AUDIO_BYTES, MAX_AUDIO_SECONDS, shownSize } from "../../core/limits.js"
import type { AudioInput } from "../../core/ports/SpeechToTextPort.js"
import { AudioUnusable, NothingHeard, SpeechFailed, type SpeechUnavailable } from "../../core/speech.js"
import { runOwned } from "./ownedProcess.js"
import { decodeWav, isWav, type Pcm, resample, seconds, speechLikelihood, WavError } from "./wav.js"

/** The recogniser's sample rate. */
export const RECOGNISER_RATE = 16_000

/** The formats sox reads here, by their first bytes (its `-t` name). */
export const sniff = (b: Uint8Array, mimeType: string | undefined): string | undefined => {
  const head = String.fromCharCode(...b.subarray(0, 12))
  if (isWav(b)) return "wav"
  if (head.startsWith("OggS")) return "ogg"
  if (head.startsWith("fLaC")) return "flac"
  if (head.startsWith("FORM") && /AIF[FC]/.test(head.slice(8, 12))) return "aiff"
  if (head.startsWith("ID3") || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0)) return "mp3"
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return "webm"
  const m = (mimeType ?? "").toLowerCase()
  return m.includes("wav") ? "wav" : undefined
}

/** Loudness below this is silence (dBFS of the loudest 20 ms). Speech read here peaks at -8 to -22 dBFS. */
const SILENCE_DB = -50
/** Frame loudness varying less than this (dB between the 10th and 90th percentile) is a steady noise; speech spreads 22–104 dB. */
const STEADY_DB = 10
/** A floor of dither, about -57 dBFS: digital silence between espeak-ng's words breaks the recogniser's features (measured: "cause dropout and over the new …" without, "… prevent overfitting in …" with). */
const DITHER = 0.0015

/** A deterministic dither (a fixed linear congruential sequence): the same audio always gives the same transcript. */
const dither = (pcm: Pcm): Pcm => {
  const out = new Float32Array(pcm.samples.length)
  let seed = 0x2545f491
  for (let i = 0; i < out.length; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    out[i] = pcm.samples[i]! + DITHER * ((seed / 0xffffffff) * 2 - 1)
  }
  return { samples: out, rate: pcm.rate }
}

/** The audio as 16 kHz mono samples, checked; nothing is run for audio that cannot be a question. */
export const prepareAudio = (
  executor: CommandExecutor.CommandExecutor,
  audio: AudioInput
): Effect.Effect<Pcm, AudioUnusable | NothingHeard | SpeechUnavailable | SpeechFailed> =>
  Effect.gen(function*() {
    const unusable = (reason: string) => new AudioUnusable({ source: audio.name, reason })
    if (audio.bytes.length === 0) return yield* Effect.fail(unusable("it is empty (0 bytes): record the question again"))
    if (audio.bytes.length > MAX_AUDIO_BYTES) {
      return yield* Effect.fail(unusable(
        `it is ${shownSize(audio.bytes.length)} bytes, over the ${shownSize(MAX_AUDIO_BYTES)}-byte limit for a spoken question: record a shorter question (up to ${MAX_AUDIO_SECONDS} s)`
      ))
    }
    const kind = sniff(audio.bytes, audio.mimeType)
    if (kind === undefined) {
      return yield* Effect.fail(unusable("it is not audio in a format read here (WAV, Ogg, FLAC, AIFF or MP3): save the recording as WAV"))
    }
    if (kind === "webm") {
      return yield* Effect.fail(unusable("WebM audio is not read offline: save the recording as WAV or Ogg (the local page sends WAV)"))
    }
    const decoded = kind === "wav"
      ? yield* Effect.try({ try: () => decodeWav(audio.bytes), catch: (e) => unusable(e instanceof WavError ? e.message : String(e)) })
      : yield* viaSox(executor, audio, kind)
    const length = seconds(decoded)
    if (length > MAX_AUDIO_SECONDS) {
      return yield* Effect.fail(unusable(`it is ${length.toFixed(1)} s long, over the ${MAX_AUDIO_SECONDS} s limit for a spoken question: record a shorter question`))
    }
    const pcm = resample(decoded, RECOGNISER_RATE)
    if (length < 0.2) return yield* Effect.fail(new NothingHeard({ source: audio.name, seconds: length, reason: "too short for a word" }))
    const { loudestDb, spreadDb } = speechLikelihood(pcm)
    if (loudestDb < SILENCE_DB) return yield* Effect.fail(new NothingHeard({ source: audio.name, seconds: length, reason: "only silence" }))
    if (spreadDb < STEADY_DB) return yield* Effect.fail(new NothingHeard({ source: audio.name, seconds: length, reason: "only a steady noise" }))
    return dither(pcm)
  })

const viaSox = (
  executor: CommandExecutor.CommandExecutor,
  audio: AudioInput,
  kind: string
): Effect.Effect<Pcm, AudioUnusable | SpeechUnavailable | SpeechFailed> =>
  runOwned(executor, {
    program: "sox",
    args: ["-q", "-t", kind, "-", "-t", "wav", "-e", "signed-integer", "-b", "16", "-c", "1", "-r", String(RECOGNISER_RATE), "-"],
    stdin: audio.bytes,
    timeout: "30 seconds",
    engine: "sox",
    install: `apt-get install sox${kind === "mp3" ? " libsox-fmt-mp3" : ""}, or save the recording as WAV`
  }).pipe(
    Effect.flatMap((out): Effect.Effect<Pcm, AudioUnusable | SpeechFailed> =>
      out.exitCode !== 0 || out.stdout.length <= 44
        ? Effect.fail(
          new AudioUnusable({
            source: audio.name,
            reason: `sox could not read it as ${kind.toUpperCase()} (${lastLine(out.stderr) || `exit code ${out.exitCode}`}): save the recording as WAV`
          })
        )
        : Effect.try({
          try: () => decodeWav(out.stdout),
          catch: (e) => new SpeechFailed({ engine: "sox", reason: `its output could not be read (${e instanceof Error ? e.message : String(e)})` })
        })
    )
  )

/** The last non-empty line of a program's messages, without its "sox FAIL formats:" prefix. */
export const lastLine = (text: string): string =>
  (text.split("\n").map((l) => l.trim()).filter((l) => l !== "").pop() ?? "").replace(/^sox (?:FAIL|WARN) \w+:\s*/, "")
