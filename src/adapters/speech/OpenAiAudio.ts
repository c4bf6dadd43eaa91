/**
 * Both speech ports over an OpenAI-compatible audio API — OpenAI, Groq, or a
 * local whisper.cpp / faster-whisper / LocalAI server:
 * `POST {base}/audio/transcriptions` (multipart: `file`, `model` — a Whisper
 * model —, `response_format=verbose_json`) and `POST {base}/audio/speech`
 * (JSON: `model`, `input`, `voice`, `response_format` wav or opus). On the
 * live adapters' HTTP policy (http.ts): a per-attempt timeout, bounded
 * retries of 429/5xx honouring Retry-After, bodies capped; the key is sent
 * as a bearer token and never appears in a message.
 *
 * @since 0.1.0
 */
import { HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import { Config, Context, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { MAX_AUDIO_BYTES, MAX_SPOKEN_CHARS, shownSize } from "../../core/limits.js"
import { type AudioInput, SpeechToTextPort, type Transcript } from "../../core/ports/SpeechToTextPort.js"
import { type SpeechFormat, type SpokenAudio, TextToSpeechPort } from "../../core/ports/TextToSpeechPort.js"
import { AudioUnusable, NothingHeard, SpeechFailed, SpeechUnavailable } from "../../core/speech.js"
import { bodyOf, defaultRetryPolicy, failureOf, politeClient, type RetryPolicy, withRetries } from "../http/http.js"
import { scrubber } from "../judge/LlmJudge.js"
import { shared } from "../http/UpstreamLimiter.js"
import { sniff } from "./audioInput.js"

/** Options of the audio API adapters. */
export interface OpenAiAudioOptions {
  /** The API's base URL, with its version: `https://api.openai.com/v1`, `https://api.groq.com/openai/v1`, `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string
  /** The bearer key (absent for a local server that needs none). */
  readonly apiKey?: Redacted.Redacted | undefined
  /** The transcription model (default `whisper-1`; Groq: `whisper-large-v3`). */
  readonly transcriptionModel?: string | undefined
  /** The speech model (default `tts-1`). */
  readonly speechModel?: string | undefined
  /** The voice (default `alloy`). */
  readonly voice?: string | undefined
  /** One attempt (default 60 s). */
  readonly timeout?: Duration.DurationInput | undefined
  /** Retries after the first attempt (default 3). */
  readonly retries?: number | undefined
  /** The first retry's backoff (default 1 s). */
  readonly retryBaseDelay?: Duration.DurationInput | undefined
}

/** The transcription answer: `json` gives `text`, `verbose_json` also `language` and `duration`. */
const TranscriptionAnswer = Schema.Struct({
  text: Schema.String,
  language: Schema.optional(Schema.NullOr(Schema.String)),
  duration: Schema.optional(Schema.NullOr(Schema.Number))
})

/** The API's error body. */
const ErrorAnswer = Schema.Struct({ error: Schema.Struct({ message: Schema.String }) })

/** Whisper names languages in English ("english"); the port speaks BCP 47. */
const LANGUAGES: Readonly<Record<string, string>> = {
  english: "en", german: "de", french: "fr", spanish: "es", italian: "it", portuguese: "pt", dutch: "nl", russian: "ru",
  chinese: "zh", japanese: "ja", korean: "ko", arabic: "ar", hindi: "hi", turkish: "tr", polish: "pl", ukrainian: "uk", swedish: "sv"
}
const languageTag = (l: string | null | undefined): string | undefined => {
  if (l === undefined || l === null || l.trim() === "") return undefined
  const v = l.trim().toLowerCase()
  return /^[a-z]{2,3}(-[a-z0-9]+)*$/i.test(v) && v.length <= 3 ? v : LANGUAGES[v]
}

const EXTENSIONS: Readonly<Record<string, readonly [string, string]>> = {
  wav: ["question.wav", "audio/wav"],
  ogg: ["question.ogg", "audio/ogg"],
  flac: ["question.flac", "audio/flac"],
  mp3: ["question.mp3", "audio/mpeg"],
  webm: ["question.webm", "audio/webm"],
  aiff: ["question.aiff", "audio/aiff"]
}

/**
 * A multipart/form-data body (RFC 7578), written out here: the global FormData of Node and the undici
 * the platform's client uses are different classes, and one cannot send the other's.
 */
export const multipart = (
  fields: ReadonlyArray<readonly [string, string]>,
  file: { readonly name: string; readonly type: string; readonly bytes: Uint8Array }
): { readonly body: Uint8Array; readonly contentType: string } => {
  const boundary = `----arxiv-companion-${crypto.randomUUID()}`
  const text = (s: string) => new TextEncoder().encode(s)
  const parts = [
    ...fields.map(([k, v]) => text(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)),
    text(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`),
    file.bytes,
    text(`\r\n--${boundary}--\r\n`)
  ]
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    body.set(p, at)
    at += p.length
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` }
}

/** Build both services from the context's HttpClient. Nothing is sent until a question comes. */
export const make = Effect.fn("OpenAiAudio.make")(function*(options: OpenAiAudioOptions) {
  const base = options.baseUrl.replace(/\/+$/, "")
  const secret = options.apiKey === undefined ? "" : Redacted.value(options.apiKey).trim()
  const scrub = scrubber(secret)
  const sttModel = options.transcriptionModel ?? "whisper-1"
  const ttsModel = options.speechModel ?? "tts-1"
  const limiter = shared(base, { service: "audio API", interval: Duration.zero, concurrency: 2 })
  const policy: RetryPolicy = { ...defaultRetryPolicy, maxAttempts: 1 + Math.max(0, options.retries ?? 3), baseDelay: options.retryBaseDelay ?? "1 second" }
  const http = yield* HttpClient.HttpClient
  const client = (engine: string) =>
    politeClient(http, { limiter, timeout: options.timeout ?? "60 seconds", maxBodyBytes: 32_000_000 }).pipe(
      withRetries(policy, engine),
      HttpClient.mapRequest((r) => (secret === "" ? r : HttpClientRequest.bearerToken(r, secret)))
    )

  /** A final failure in words, with the API's own message for a 4xx; the key scrubbed. */
  const failure = (engine: string, source: string) => (error: unknown) =>
    Effect.gen(function*() {
      const f = failureOf(error)
      const detail = HttpClientError.isHttpClientError(error) && error._tag === "ResponseError"
        ? yield* bodyOf(error).pipe(Effect.map((body) => {
          const parsed = Schema.decodeUnknownOption(Schema.parseJson(ErrorAnswer))(body)
          return Option.isSome(parsed) ? parsed.value.error.message : body.slice(0, 200)
        }))
        : ""
      const reason = scrub(detail === "" ? f.reason : `${f.reason}: ${detail}`)
      const retry = f.retryAfterMillis === undefined || f.retryAfterMillis <= 0 ? "" : `; try again in ${Math.ceil(f.retryAfterMillis / 1000)} s`
      if (f.status === 401 || f.status === 403) {
        return yield* Effect.fail(new SpeechUnavailable({ engine, reason: `the key was refused (${reason})`, hint: "Check ARXIV_COMPANION_AUDIO_API_KEY." }))
      }
      if (f.status === 400 || f.status === 413 || f.status === 415) return yield* Effect.fail(new AudioUnusable({ source, reason: `${engine} refused it (${reason})` }))
      if (f.status === 404) {
        return yield* Effect.fail(new SpeechUnavailable({ engine, reason: `${base} has no such endpoint or model (${reason})`, hint: "Check ARXIV_COMPANION_AUDIO_BASE_URL and the model names." }))
      }
      return yield* Effect.fail(new SpeechFailed({ engine, reason: `${scrub(base)} did not answer usefully (${reason}${retry})` }))
    })

  const sttEngine = `audio API (${sttModel})`
  const transcribe = Effect.fn("SpeechToTextPort.transcribe")(function*(audio: AudioInput) {
    if (audio.bytes.length === 0) return yield* Effect.fail(new AudioUnusable({ source: audio.name, reason: "it is empty (0 bytes): record the question again" }))
    if (audio.bytes.length > MAX_AUDIO_BYTES) {
      return yield* Effect.fail(new AudioUnusable({ source: audio.name, reason: `it is ${shownSize(audio.bytes.length)} bytes, over the ${shownSize(MAX_AUDIO_BYTES)}-byte limit for a spoken question: record a shorter question` }))
    }
    const kind = sniff(audio.bytes, audio.mimeType)
    if (kind === undefined) {
      return yield* Effect.fail(new AudioUnusable({ source: audio.name, reason: "it is not audio in a format read here (WAV, Ogg, FLAC, AIFF, MP3 or WebM): save the recording as WAV" }))
    }
    const [fileName, type] = EXTENSIONS[kind]!
    const { body, contentType } = multipart([["model", sttModel], ["response_format", "verbose_json"]], { name: fileName, type, bytes: audio.bytes })
    const request = HttpClientRequest.post(`${base}/audio/transcriptions`).pipe(HttpClientRequest.bodyUint8Array(body, contentType))
    const response = yield* client(sttEngine).execute(request).pipe(
      Effect.catchAll(failure(sttEngine, audio.name))
    )
    const answer = yield* response.json.pipe(
      Effect.flatMap(Schema.decodeUnknown(TranscriptionAnswer)),
      Effect.mapError(() => new SpeechFailed({ engine: sttEngine, reason: "its answer was not a transcription (no text)" }))
    )
    const text = answer.text.replace(/\s+/g, " ").trim()
    const seconds = answer.duration ?? 0
    if (text === "") return yield* Effect.fail(new NothingHeard({ source: audio.name, seconds, reason: "no words recognised" }))
    return { text, language: languageTag(answer.language), seconds, engine: sttEngine } satisfies Transcript
  })

  const ttsEngine = `audio API (${ttsModel})`
  const speak = Effect.fn("TextToSpeechPort.speak")(function*(text: string, format: SpeechFormat = "wav") {
    const said = text.replace(/\s+/g, " ").trim()
    if (said === "") return yield* Effect.fail(new AudioUnusable({ source: "the text to read", reason: "it is empty" }))
    if (said.length > MAX_SPOKEN_CHARS) {
      return yield* Effect.fail(new AudioUnusable({ source: "the text to read", reason: `it is ${shownSize(said.length)} characters, over the ${shownSize(MAX_SPOKEN_CHARS)}-character limit` }))
    }
    const request = HttpClientRequest.post(`${base}/audio/speech`).pipe(
      HttpClientRequest.bodyUnsafeJson({ model: ttsModel, input: said, voice: options.voice ?? "alloy", response_format: format === "wav" ? "wav" : "opus" })
    )
    const response = yield* client(ttsEngine).execute(request).pipe(Effect.catchAll(failure(ttsEngine, "the text to read")))
    const bytes = new Uint8Array(yield* response.arrayBuffer.pipe(Effect.mapError(() => new SpeechFailed({ engine: ttsEngine, reason: "its audio could not be read" }))))
    const head = new TextDecoder().decode(bytes.subarray(0, 4))
    if (format === "wav" ? head !== "RIFF" : head !== "OggS") {
      return yield* Effect.fail(new SpeechFailed({ engine: ttsEngine, reason: `its answer was not ${format === "wav" ? "WAV" : "Ogg/Opus"} audio` }))
    }
    return { bytes, mimeType: format === "wav" ? "audio/wav" : "audio/ogg", engine: ttsEngine } satisfies SpokenAudio
  })

  return { stt: SpeechToTextPort.of({ transcribe }), tts: TextToSpeechPort.of({ speak }) }
})

/** Both ports on the API. */
export const layer = (options: OpenAiAudioOptions): Layer.Layer<SpeechToTextPort | TextToSpeechPort, never, HttpClient.HttpClient> =>
  Layer.effectContext(Effect.map(make(options), ({ stt, tts }) => Context.make(SpeechToTextPort, stt).pipe(Context.add(TextToSpeechPort, tts))))

/** The API configured by ARXIV_COMPANION_AUDIO_BASE_URL (required), _API_KEY, _STT_MODEL, _TTS_MODEL and _VOICE. */
export const layerConfig = Layer.unwrapEffect(
  Config.all({
    baseUrl: Config.string("ARXIV_COMPANION_AUDIO_BASE_URL"),
    apiKey: Config.option(Config.redacted("ARXIV_COMPANION_AUDIO_API_KEY")),
    transcriptionModel: Config.option(Config.string("ARXIV_COMPANION_AUDIO_STT_MODEL")),
    speechModel: Config.option(Config.string("ARXIV_COMPANION_AUDIO_TTS_MODEL")),
    voice: Config.option(Config.string("ARXIV_COMPANION_AUDIO_VOICE"))
  }).pipe(Effect.map((c) =>
    layer({
      baseUrl: c.baseUrl,
      apiKey: Option.getOrUndefined(c.apiKey),
      transcriptionModel: Option.getOrUndefined(c.transcriptionModel),
      speechModel: Option.getOrUndefined(c.speechModel),
      voice: Option.getOrUndefined(c.voice)
    })
  ))
)
