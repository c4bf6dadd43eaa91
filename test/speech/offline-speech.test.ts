/**
 * The offline speech adapters for real: espeak-ng reads a research question,
 * pocketsphinx with the field's language model hears it; bad audio is
 * refused in one line before the recogniser runs. Needs Debian's espeak-ng,
 * pocketsphinx, pocketsphinx-en-us and sox (test/support/speech.ts).
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import * as Espeak from "../../src/adapters/speech/EspeakTextToSpeech.js"
import * as Pocketsphinx from "../../src/adapters/speech/PocketsphinxSpeechToText.js"
import { decodeWav, encodeWav, seconds } from "../../src/adapters/speech/wav.js"
import { SpeechToTextPort } from "../../src/core/ports/SpeechToTextPort.js"
import { TextToSpeechPort } from "../../src/core/ports/TextToSpeechPort.js"
import { speechAvailable, TESTDATA } from "../support/speech.js"

const Speech = Layer.mergeAll(Pocketsphinx.layer(), Espeak.layer()).pipe(Layer.provide(NodeContext.layer))
const run = <A, E>(effect: Effect.Effect<A, E, SpeechToTextPort | TextToSpeechPort>) => Effect.provide(effect, Speech)

/** The pocketsphinx processes this test process started (from /proc: parent pid and program name). */
const recognisers = (): ReadonlyArray<string> =>
  readdirSync("/proc").filter((d) => /^\d+$/.test(d)).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      const m = /^\d+ \((.*)\) \S (\d+)/.exec(stat)
      return m !== null && m[1]!.startsWith("pocketsphinx") && Number(m[2]) === process.pid
    } catch {
      return false
    }
  })

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (failure === undefined) throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return failure
}

describe.skipIf(!speechAvailable("the offline speech tests"))("offline speech: espeak-ng and pocketsphinx", () => {
  it.live("hears the concept words of a research question espeak-ng reads", () =>
    run(Effect.gen(function*() {
      const spoken = yield* TextToSpeechPort.pipe(Effect.flatMap((t) => t.speak("how does dropout prevent overfitting in neural networks")))
      assert.strictEqual(spoken.mimeType, "audio/wav")
      const pcm = decodeWav(spoken.bytes)
      assert.isAbove(seconds(pcm), 1.5)
      const heard = yield* SpeechToTextPort.pipe(Effect.flatMap((s) => s.transcribe({ bytes: spoken.bytes, name: "question.wav" })))
      assert.strictEqual(heard.language, "en")
      assert.match(heard.engine, /pocketsphinx/)
      // the general model heard "ah da da real you don't …"; the field's model keeps the concept words
      assert.include(heard.text, "overfitting")
      assert.include(heard.text, "networks")
    })), 120_000)

  it.live("reads Ogg through sox, and makes Ogg when asked", () =>
    run(Effect.gen(function*() {
      const ogg = yield* TextToSpeechPort.pipe(Effect.flatMap((t) => t.speak("learning word embeddings from large text corpora", "ogg")))
      assert.strictEqual(ogg.mimeType, "audio/ogg")
      assert.strictEqual(new TextDecoder().decode(ogg.bytes.subarray(0, 4)), "OggS")
      const heard = yield* SpeechToTextPort.pipe(Effect.flatMap((s) => s.transcribe({ bytes: ogg.bytes, name: "question.ogg" })))
      assert.include(heard.text, "embeddings")
    })), 120_000)

  it.live("hears recorded human speech (pocketsphinx-testdata, LibriVox)", () =>
    run(Effect.gen(function*() {
      const bytes = readFileSync(`${TESTDATA}/librivox/sense_and_sensibility_01_austen_64kb-0880.wav`)
      const heard = yield* SpeechToTextPort.pipe(Effect.flatMap((s) => s.transcribe({ bytes, name: "0880.wav" })))
      // "he was not an ill disposed young man": a novel, not a research question; some words survive
      assert.isAbove(heard.text.split(" ").length, 2)
      assert.closeTo(heard.seconds, 2.99, 0.05)
    })), 120_000)

  it.live("refuses silence, a steady noise, a cut-off file and an unknown format in one line each, before the recogniser runs", () =>
    run(Effect.gen(function*() {
      const stt = yield* SpeechToTextPort
      const silence = encodeWav({ samples: new Float32Array(16000 * 3.2), rate: 16000 })
      const e1 = failureOf(yield* Effect.exit(stt.transcribe({ bytes: silence, name: "question.wav" })))
      assert.strictEqual(e1.message, "Heard nothing in question.wav (3.2 s of audio, only silence): speak closer to the microphone or type the question")
      const noise = execFileSync("sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", "-t", "wav", "-", "synth", "2", "whitenoise", "vol", "0.3"])
      const e2 = failureOf(yield* Effect.exit(stt.transcribe({ bytes: noise, name: "noise.wav" })))
      assert.strictEqual(e2._tag, "NothingHeard")
      assert.include(e2.message, "only a steady noise")
      const speech = yield* TextToSpeechPort.pipe(Effect.flatMap((t) => t.speak("attention mechanisms for neural machine translation")))
      const e3 = failureOf(yield* Effect.exit(stt.transcribe({ bytes: speech.bytes.subarray(0, speech.bytes.length / 2), name: "cut.wav" })))
      assert.strictEqual(e3._tag, "AudioUnusable")
      assert.match(e3.message, /^Cannot use cut\.wav: it is cut off \(the header announces \d+ bytes of audio, the file holds \d+\)$/)
      const e4 = failureOf(yield* Effect.exit(stt.transcribe({ bytes: new TextEncoder().encode("not audio at all"), name: "notes.txt" })))
      assert.strictEqual(e4.message, "Cannot use notes.txt: it is not audio in a format read here (WAV, Ogg, FLAC, AIFF or MP3): save the recording as WAV")
      const e5 = failureOf(yield* Effect.exit(stt.transcribe({ bytes: new Uint8Array(3_000_000), name: "long.wav" })))
      assert.include(e5.message, "over the 2,500,000-byte limit for a spoken question")
    })), 120_000)

  it.live("says in one line when the program or the model is not installed", () =>
    Effect.gen(function*() {
      const missingProgram = Pocketsphinx.layer({ program: "pocketsphinx_not_installed_here" })
      const speech = encodeWav({ samples: Float32Array.from({ length: 16000 }, (_, i) => (Math.floor(i / 2000) % 2) * 0.3 * Math.sin(i / 3)), rate: 16000 })
      const e1 = failureOf(yield* Effect.exit(SpeechToTextPort.pipe(Effect.flatMap((s) => s.transcribe({ bytes: speech, name: "q.wav" })), Effect.provide(missingProgram), Effect.provide(NodeContext.layer))))
      assert.strictEqual(e1.message, "pocketsphinx is not available: the program pocketsphinx_not_installed_here is not installed. Install it (apt-get install pocketsphinx pocketsphinx-en-us).")
      const missingModel = Pocketsphinx.layer({ acousticModel: "/nonexistent/en-us" })
      const e2 = failureOf(yield* Effect.exit(SpeechToTextPort.pipe(Effect.flatMap((s) => s.transcribe({ bytes: speech, name: "q.wav" })), Effect.provide(missingModel), Effect.provide(NodeContext.layer))))
      assert.strictEqual(e2.message, "pocketsphinx is not available: its US-English model is not installed (no /nonexistent/en-us/mdef). Install it (apt-get install pocketsphinx-en-us).")
      const e3 = failureOf(yield* Effect.exit(TextToSpeechPort.pipe(Effect.flatMap((t) => t.speak("hello")), Effect.provide(Espeak.layer({ program: "espeak_not_here" })), Effect.provide(NodeContext.layer))))
      assert.strictEqual(e3.message, "espeak-ng is not available: the program espeak_not_here is not installed. Install it (apt-get install espeak-ng).")
    }), 60_000)

  it.live("stops the recogniser when the call is interrupted or takes too long", () =>
    Effect.gen(function*() {
      const speech = yield* run(TextToSpeechPort.pipe(Effect.flatMap((t) => t.speak("semantic segmentation with fully convolutional networks"))))
      const slow = Pocketsphinx.layer({ timeout: "1 millis" })
      const e = failureOf(yield* Effect.exit(SpeechToTextPort.pipe(Effect.flatMap((s) => s.transcribe({ bytes: speech.bytes, name: "q.wav" })), Effect.provide(slow), Effect.provide(NodeContext.layer))))
      assert.strictEqual(e._tag, "SpeechFailed")
      assert.match(e.message, /^pocketsphinx failed: pocketsphinx_continuous took longer than 1ms and was stopped$/)
      const fiber = yield* Effect.fork(run(SpeechToTextPort.pipe(Effect.flatMap((s) => s.transcribe({ bytes: speech.bytes, name: "q.wav" })))))
      // wait until the recogniser is running, then interrupt the call
      while (recognisers().length === 0) yield* Effect.sleep("20 millis")
      const running = recognisers()
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(running.filter((pid) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ")), [])
    }), 120_000)
})
