/**
 * The OpenAI-compatible audio adapters against a loopback stand-in of
 * /v1/audio/transcriptions and /v1/audio/speech (test/support/audio-api-standin.ts):
 * multipart upload, the Whisper model named, the key as a bearer token and never
 * in a message, 429 + Retry-After retried, a 400 for a bad format in one line.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import * as OpenAiAudio from "../../src/adapters/speech/OpenAiAudio.js"
import { decodeWav, encodeWav, seconds } from "../../src/adapters/speech/wav.js"
import { SpeechToTextPort } from "../../src/core/ports/SpeechToTextPort.js"
import { TextToSpeechPort } from "../../src/core/ports/TextToSpeechPort.js"
import { type AudioStandIn, startAudioStandIn } from "../support/audio-api-standin.js"

const KEY = "sk-test-0123456789abcdef"
const question = encodeWav({ samples: Float32Array.from({ length: 16000 }, (_, i) => 0.3 * Math.sin(i / 5)), rate: 16000 })

const withStandIn = <A, E>(use: (api: AudioStandIn, layer: Layer.Layer<SpeechToTextPort | TextToSpeechPort>) => Effect.Effect<A, E, never>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => startAudioStandIn({ key: KEY })),
    (api) =>
      use(api, OpenAiAudio.layer({ baseUrl: api.url, apiKey: Redacted.make(KEY), transcriptionModel: "whisper-1", retryBaseDelay: "10 millis" }).pipe(Layer.provide(NodeHttpClient.layerUndici))),
    (api) => Effect.promise(() => api.close())
  )

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit) || exit.cause._tag !== "Fail") throw new Error(`expected a typed failure, got ${String(exit)}`)
  return exit.cause.error
}

describe("the OpenAI-compatible audio adapters", () => {
  it.live("upload the recording as multipart with the Whisper model, and read text and language", () =>
    withStandIn((api, layer) =>
      Effect.gen(function*() {
        const heard = yield* SpeechToTextPort.pipe(Effect.flatMap((s) => s.transcribe({ bytes: question, name: "question.wav", mimeType: "audio/wav" })), Effect.provide(layer))
        assert.deepStrictEqual(heard, { text: "how does dropout prevent overfitting in neural networks", language: "en", seconds: 3.2, engine: "audio API (whisper-1)" })
        const sent = api.requests[0]!
        assert.strictEqual(sent.path, "/v1/audio/transcriptions")
        assert.match(sent.contentType ?? "", /^multipart\/form-data; boundary=/)
        assert.strictEqual(sent.authorization, `Bearer ${KEY}`)
        assert.deepStrictEqual(sent.fields, { model: "whisper-1", response_format: "verbose_json" })
        assert.strictEqual(sent.file?.name, "question.wav")
        assert.strictEqual(sent.file?.type, "audio/wav")
        assert.deepStrictEqual([...sent.file!.bytes], [...question])
      })), 30_000)

  it.live("wait out a 429's Retry-After and try again", () =>
    withStandIn((api, layer) =>
      Effect.gen(function*() {
        api.failNext({ status: 429, headers: { "retry-after": "1" } })
        const started = Date.now()
        const heard = yield* SpeechToTextPort.pipe(Effect.flatMap((s) => s.transcribe({ bytes: question, name: "q.wav" })), Effect.provide(layer))
        assert.strictEqual(heard.text, api.transcript)
        assert.strictEqual(api.requests.length, 2)
        // a lower bound only (load can only lengthen it): fails only if the Retry-After of 1 s was not waited out
        assert.isAtLeast(Date.now() - started, 900)
      })), 30_000)

  it.live("say in one line what the API refused: a bad format (400), a wrong key (401), an endpoint that keeps failing; the key never shown", () =>
    withStandIn((api, layer) =>
      Effect.gen(function*() {
        const stt = (bytes: Uint8Array, name: string) => SpeechToTextPort.pipe(Effect.flatMap((s) => s.transcribe({ bytes, name })), Effect.provide(layer), Effect.exit)
        // AIFF is read offline (through sox) but not by the API: its own 400 comes back in the message
        const aiff = new Uint8Array([...new TextEncoder().encode("FORM\0\0\0\0AIFF"), ...new Uint8Array(100)])
        const e1 = failureOf(yield* stt(aiff, "question.aiff"))
        assert.strictEqual(e1._tag, "AudioUnusable")
        assert.strictEqual(e1.message, `Cannot use question.aiff: audio API (whisper-1) refused it (HTTP 400: Invalid file format. Supported formats: ["flac","m4a","mp3","mp4","mpeg","mpga","oga","ogg","wav","webm"])`)
        api.failNext({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 })
        const e2 = failureOf(yield* stt(question, "q.wav"))
        assert.strictEqual(e2._tag, "SpeechFailed")
        assert.match(e2.message, /^audio API \(whisper-1\) failed: http:\/\/127\.0\.0\.1:\d+\/v1 did not answer usefully \(HTTP 503: The server had an error\)$/)
        const wrongKey = OpenAiAudio.layer({ baseUrl: api.url, apiKey: Redacted.make("sk-wrong-key-0000"), retryBaseDelay: "10 millis" }).pipe(Layer.provide(NodeHttpClient.layerUndici))
        const e3 = failureOf(yield* SpeechToTextPort.pipe(Effect.flatMap((s) => s.transcribe({ bytes: question, name: "q.wav" })), Effect.provide(wrongKey), Effect.exit))
        assert.strictEqual(e3._tag, "SpeechUnavailable")
        assert.include(e3.message, "the key was refused (HTTP 401: Incorrect API key provided")
        assert.include(e3.message, "Check ARXIV_COMPANION_AUDIO_API_KEY.")
        for (const e of [e1, e2, e3]) assert.notInclude(e.message, "sk-wrong-key-0000"), assert.notInclude(e.message, KEY)
      })), 60_000)

  it.live("read the answer aloud through /v1/audio/speech, WAV that decodes", () =>
    withStandIn((api, layer) =>
      Effect.gen(function*() {
        const spoken = yield* TextToSpeechPort.pipe(Effect.flatMap((t) => t.speak("Here are 2 papers for dropout. First: Dropout, from 2014.")), Effect.provide(layer))
        assert.strictEqual(spoken.mimeType, "audio/wav")
        assert.isAbove(seconds(decodeWav(spoken.bytes)), 1)
        assert.deepStrictEqual(api.requests[0]!.json, { model: "tts-1", input: "Here are 2 papers for dropout. First: Dropout, from 2014.", voice: "alloy", response_format: "wav" })
        // the stand-in makes only WAV: asking for Ogg/Opus is its 400, said in one line
        const e = failureOf(yield* TextToSpeechPort.pipe(Effect.flatMap((t) => t.speak("hello", "ogg")), Effect.provide(layer), Effect.exit))
        assert.strictEqual(e.message, "Cannot use the text to read: audio API (tts-1) refused it (HTTP 400: this stand-in only makes wav, not opus)")
      })), 30_000)
})
