/**
 * A loopback stand-in of an OpenAI-compatible audio API, shaped from the
 * public API reference (platform.openai.com/docs/api-reference/audio):
 *
 * - `POST /v1/audio/transcriptions`: multipart/form-data with `file` and
 *   `model` (required) and `response_format` (`json` default, `verbose_json`
 *   adds `language` — a language name, e.g. "english" — and `duration`);
 *   a file that is not audio in a supported format answers 400 with the API's
 *   error object ("Invalid file format. Supported formats: [...]"); the
 *   "transcript" is the one the test scripts, as no speech is recognised here;
 * - `POST /v1/audio/speech`: JSON `model`, `input`, `voice`,
 *   `response_format` (mp3 default, opus, aac, flac, wav, pcm); answers a real
 *   WAV file (a tone as long as the input would take to read) for `wav`;
 * - a bearer key checked (401 with the API's error object otherwise);
 * - faults queued with `failNext` (e.g. 429 with Retry-After), one per request.
 *
 * Every request is recorded (path, headers, form fields, JSON body).
 */
import * as http from "node:http"
import { listenOnFreshPort } from "./loopback.js"

export interface AudioRequest {
  readonly path: string
  readonly authorization: string | undefined
  readonly contentType: string | undefined
  readonly fields: Readonly<Record<string, string>>
  readonly file?: { readonly name: string; readonly type: string; readonly bytes: Uint8Array } | undefined
  readonly json?: Record<string, unknown> | undefined
}

export interface AudioStandIn {
  readonly url: string
  readonly requests: Array<AudioRequest>
  /** The next requests answer with these statuses (and headers) instead. */
  readonly failNext: (...faults: ReadonlyArray<{ status: number; headers?: Record<string, string> }>) => void
  /** What the next transcriptions "hear". */
  transcript: string
  readonly close: () => Promise<void>
}

const SUPPORTED = ["flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm"]

const apiError = (res: http.ServerResponse, status: number, message: string, type = "invalid_request_error") => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify({ error: { message, type, param: null, code: null } }))
}

const looksLikeAudio = (b: Uint8Array): boolean => {
  const head = Buffer.from(b.subarray(0, 4)).toString("latin1")
  return head === "RIFF" || head === "OggS" || head === "fLaC" || head.startsWith("ID3") || (b[0] === 0x1a && b[1] === 0x45)
}

/** A WAV file of a quiet tone, `seconds` long at 16 kHz. */
const toneWav = (seconds: number): Uint8Array => {
  const n = Math.round(16000 * seconds)
  const b = Buffer.alloc(44 + n * 2)
  b.write("RIFF", 0), b.writeUInt32LE(36 + n * 2, 4), b.write("WAVE", 8), b.write("fmt ", 12), b.writeUInt32LE(16, 16)
  b.writeUInt16LE(1, 20), b.writeUInt16LE(1, 22), b.writeUInt32LE(16000, 24), b.writeUInt32LE(32000, 28), b.writeUInt16LE(2, 32)
  b.writeUInt16LE(16, 34), b.write("data", 36), b.writeUInt32LE(n * 2, 40)
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 220 * i) / 16000)), 44 + i * 2)
  return b
}

export const startAudioStandIn = async (options: { readonly key?: string } = {}): Promise<AudioStandIn> => {
  const requests: Array<AudioRequest> = []
  const faults: Array<{ status: number; headers?: Record<string, string> }> = []
  const state = { transcript: "how does dropout prevent overfitting in neural networks" }
  const server = http.createServer(async (req, res) => {
    const chunks: Array<Buffer> = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks)
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname
    const contentType = req.headers["content-type"]
    const fields: Record<string, string> = {}
    let file: AudioRequest["file"]
    let json: Record<string, unknown> | undefined
    if (contentType?.startsWith("multipart/form-data")) {
      const form = await new Request("http://x/", { method: "POST", headers: { "content-type": contentType }, body }).formData()
      for (const [k, v] of form.entries()) {
        if (typeof v === "string") fields[k] = v
        else file = { name: v.name, type: v.type, bytes: new Uint8Array(await v.arrayBuffer()) }
      }
    } else if (contentType?.startsWith("application/json")) {
      json = JSON.parse(body.toString("utf8")) as Record<string, unknown>
    }
    requests.push({ path, authorization: req.headers.authorization, contentType, fields, file, json })
    const fault = faults.shift()
    if (fault !== undefined) {
      res.writeHead(fault.status, { "content-type": "application/json", ...fault.headers })
      return res.end(JSON.stringify({ error: { message: fault.status === 429 ? "Rate limit reached for requests" : "The server had an error", type: "requests", param: null, code: null } }))
    }
    if (options.key !== undefined && req.headers.authorization !== `Bearer ${options.key}`) {
      return apiError(res, 401, "Incorrect API key provided: sk-wr***ng. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error")
    }
    if (req.method === "POST" && path === "/v1/audio/transcriptions") {
      if (file === undefined) return apiError(res, 400, "you must provide a file")
      if (fields["model"] === undefined) return apiError(res, 400, "you must provide a model parameter")
      const ext = file.name.split(".").pop()?.toLowerCase() ?? ""
      if (!SUPPORTED.includes(ext) || !looksLikeAudio(file.bytes)) {
        return apiError(res, 400, `Invalid file format. Supported formats: ${JSON.stringify(SUPPORTED)}`)
      }
      const format = fields["response_format"] ?? "json"
      res.writeHead(200, { "content-type": "application/json" })
      return res.end(JSON.stringify(
        format === "verbose_json"
          ? { task: "transcribe", language: "english", duration: 3.2, text: state.transcript, segments: [] }
          : { text: state.transcript }
      ))
    }
    if (req.method === "POST" && path === "/v1/audio/speech") {
      if (json === undefined || typeof json["input"] !== "string" || typeof json["model"] !== "string" || typeof json["voice"] !== "string") {
        return apiError(res, 400, "model, input and voice are required")
      }
      const format = (json["response_format"] as string | undefined) ?? "mp3"
      if (!["mp3", "opus", "aac", "flac", "wav", "pcm"].includes(format)) return apiError(res, 400, `Invalid response_format: ${format}`)
      if (format !== "wav") return apiError(res, 400, `this stand-in only makes wav, not ${format}`)
      res.writeHead(200, { "content-type": "audio/wav" })
      return res.end(toneWav(Math.min(30, (json["input"] as string).split(" ").length / 3)))
    }
    apiError(res, 404, `Invalid URL (${req.method} ${path})`)
  })
  const port = await listenOnFreshPort(server)
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext: (...f) => void faults.push(...f),
    get transcript() {
      return state.transcript
    },
    set transcript(t: string) {
      state.transcript = t
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
