/**
 * The local page: an HTTP server on 127.0.0.1 (`@effect/platform`'s
 * HttpRouter over Node's HTTP server) that serves one small page and a JSON
 * API over the library's use cases — find papers for a note, ask a question,
 * write the note, BibTeX — with progress as server-sent events. A spoken
 * question (`POST /api/voice`, 16 kHz mono WAV the page made) is heard through
 * the speech port and answered as a typed one; an answer is read aloud through
 * the same ports (`GET /api/runs/:id/speech`).
 *
 * Safe by default: loopback only; every request's `Host` must name this
 * server (DNS rebinding) and its `Origin`, when sent, must be this server's;
 * every API call carries the random token printed at start
 * (`Authorization: Bearer`). The page loads without the token but then holds
 * no data; the printed address carries the token in its query, and the page
 * served with it holds the note list in its first HTML (the page then moves
 * the token to the fragment, which browsers never send).
 *
 * @since 0.1.0
 */
import { FileSystem, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { NodeContext, NodeHttpServer, NodeHttpServerRequest } from "@effect/platform-node"
import { Cause, Context, Effect, Exit, FiberMap, Layer, ParseResult, Queue, type Scope, Schema, Stream } from "effect"
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { term } from "../core/arxivQuery.js"
import { InvalidArgument } from "../core/errors.js"
import { withWaitReporter } from "../core/waiting.js"
import type { Progress } from "../core/workflow.js"
import { announcesTooLarge, BodyTooLarge, loopbackHosts, loopbackOrigins, MAX_BODY_BYTES, newToken, readBody, refuse, tokenMatches } from "../http/guard.js"
import { backendsOf, companionLayer, type CompanionPorts, type CompanionSetup, queryBuilderLayer, speechLayer } from "../layers.js"
import { ArxivPort } from "../core/ports/ArxivPort.js"
import { VaultPort } from "../core/ports/VaultPort.js"
import { LlmJudgePort } from "../core/ports/LlmJudgePort.js"
import { QueryBuilderPort } from "../core/ports/QueryBuilderPort.js"
import { askArxivTool, type AskResult } from "../tools/ask.js"
import { askArxivVoiceTool, speakAnswer } from "../tools/voice.js"
import { SpeechToTextPort } from "../core/ports/SpeechToTextPort.js"
import { AudioUnusable } from "../core/speech.js"
import type { TextToSpeechPort } from "../core/ports/TextToSpeechPort.js"
import { digest, digestProgressLine, summarizeDigest } from "../tools/digest.js"
import { COMPANION_FOLDER, isDigestTitle } from "../core/digestNote.js"
import { progressLine } from "../tools/companion.js"
import { exportBibtex } from "../tools/papers.js"
import { commitPreview, type CompanionPreview, previewCompanion } from "../tools/preview.js"
import { askView, noteView } from "./view.js"

/** Options of {@link serveUi}. */
export interface UiOptions {
  /** Where the companion reads and writes, offline or live (as for `run`). */
  readonly setup: CompanionSetup
  /** The port on 127.0.0.1; 0 picks a free one. Default 5178. */
  readonly port?: number | undefined
  /** The API token; default a fresh random one. */
  readonly token?: string | undefined
  /** Where server-side notes go (a run that failed unexpectedly); default nowhere. */
  readonly log?: ((line: string) => void) | undefined
}

/** A running page server. */
export interface UiServer {
  /** The address to open: the page, with the token in the query. */
  readonly url: string
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly port: number
  readonly token: string
}

/** The default port of the page. */
export const DEFAULT_PORT = 5178

/** The server could not start (port in use, assets missing, ...). */
export class UiStartFailed extends Schema.TaggedError<UiStartFailed>("arxiv-companion/UiStartFailed")(
  "UiStartFailed",
  { reason: Schema.String }
) {
  override get message(): string {
    return `The page could not start: ${this.reason}`
  }
}

/** A request body over the faces' limit (4 MB): 413, and the rest of it is never read. */
class RequestTooLarge extends Schema.TaggedError<RequestTooLarge>("arxiv-companion/RequestTooLarge")(
  "RequestTooLarge",
  { max: Schema.Number }
) {
  override get message(): string {
    return new BodyTooLarge(this.max).message
  }
}

/** What the page asks to run. */
const RunRequest = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("note"), title: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)) }),
  Schema.Struct({
    kind: Schema.Literal("ask"),
    question: Schema.String.pipe(Schema.maxLength(2000)),
    top: Schema.optional(Schema.Int.pipe(Schema.between(1, 20)))
  }),
  Schema.Struct({ kind: Schema.Literal("digest"), since: Schema.optional(Schema.String.pipe(Schema.maxLength(20))) }),
  Schema.Struct({
    kind: Schema.Literal("voice"),
    /** The spoken question as a data URL (`data:audio/wav;base64,…`); its size is checked by the voice use case. */
    audio: Schema.String.pipe(Schema.minLength(1)),
    top: Schema.optional(Schema.Int.pipe(Schema.between(1, 20)))
  })
)
type RunRequest = typeof RunRequest.Type

/** A spoken question (`POST /api/voice`): a run like a typed one, heard first. */
const VoiceRequest = Schema.Struct({
  audio: Schema.String.pipe(Schema.minLength(1)),
  top: Schema.optional(Schema.Int.pipe(Schema.between(1, 20)))
})

const BibtexRequest = Schema.Struct({ ids: Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(50)) })

/** One server-sent event of a run. */
type RunEvent =
  | { readonly type: "started"; readonly id: string; readonly text: string }
  | { readonly type: "progress"; readonly tag: string; readonly text: string }
  | { readonly type: "heard"; readonly text: string; readonly seconds: number }
  | { readonly type: "result"; readonly id: string; readonly view: unknown }
  | { readonly type: "failure"; readonly tag: string; readonly message: string }
  | { readonly type: "cancelled"; readonly text: string }

const terminal = (e: RunEvent) => e.type === "result" || e.type === "failure" || e.type === "cancelled"
const sse = (e: RunEvent): string => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`

/** A refused request body in one line: each problem as `path: what is wrong`. */
const oneLineIssues = (e: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(e)
    .map((i) => `${i.path.length === 0 ? "" : `${i.path.join(".")}: `}${i.message.replace(/\s+/gu, " ").trim()}`)
    .join("; ")

/** A typed error as the page shows it: the same message the CLI prints, on one line. */
const failureOf = (error: { readonly _tag: string; readonly message: string }) => ({
  tag: error._tag,
  message: error.message.replace(/\s+/gu, " ").trim()
})

const STATUS: Readonly<Record<string, number>> = {
  InvalidArgument: 400,
  NotEnoughInformation: 422,
  NoteNotFound: 404,
  PaperNotFound: 404,
  UnsafeWrite: 409,
  RequestTooLarge: 413,
  UpstreamUnavailable: 502,
  VaultUnavailable: 503,
  VaultUnauthorized: 503,
  JudgeFailed: 502,
  AudioUnusable: 400,
  NothingHeard: 422,
  SpeechUnavailable: 503,
  SpeechFailed: 502
}

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store"
}

const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Mermaid writes <style> into the SVG it draws
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  // the answer read aloud plays from a blob the page fetched with its token
  "media-src blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

const jsonError = (status: number, tag: string, message: string) =>
  HttpServerResponse.unsafeJson({ error: { tag, message } }, { status, headers: SECURITY_HEADERS })

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status, headers: SECURITY_HEADERS })

/** The prompt that names a note exactly, whatever its title holds. */
export const promptFor = (title: string): string =>
  /[[\]|#^]/u.test(title)
    ? /"/u.test(title) ? `Find papers related to my note called ${title}` : `Find papers related to "${title}"`
    : `Find papers related to [[${title}]]`

/** What a progress event says on the page (a preview writes nothing until asked). */
const pageLine = (e: Progress): string =>
  e._tag === "Written"
    ? e.status === "unchanged"
      ? `Done: ${e.path} is already up to date`
      : `Done: ready to write ${e.path} (nothing is written until you press “Write to vault”)`
    : progressLine(e)

/**
 * Progress of a question, read off the ports it goes through (the query
 * written, the papers found) — the ask use case itself has no progress hook.
 */
const askProgress = (emit: (tag: string, text: string) => Effect.Effect<void>) =>
<A, E, R>(ask: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const builder = yield* QueryBuilderPort
    const arxiv = yield* ArxivPort
    const judge = yield* LlmJudgePort
    return yield* ask.pipe(
      Effect.provideService(QueryBuilderPort, {
        ...builder,
        build: (question) =>
          builder.build(question).pipe(Effect.tap((b) => emit("QueryBuilt", `arXiv query (${b.builder}): ${b.query}`)))
      }),
      Effect.provideService(ArxivPort, {
        ...arxiv,
        search: (search) =>
          arxiv.search(search).pipe(
            Effect.tap((found) =>
              emit("Searched", `Found ${found.total} matching papers on arXiv; re-ranking ${found.papers.length} with ${judge.name}`)
            )
          )
      })
    )
  })

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/** The page's first line (as app.js writes it from `/api/info`). */
const modeLine = (info: { readonly vault: string; readonly offline: boolean }): string =>
  `Vault: ${info.vault} · ${info.offline ? "offline (recorded data)" : "live arXiv and OpenAlex"}`

/** The static files of the page, read once at start. */
interface Assets {
  readonly files: ReadonlyMap<string, { readonly body: Uint8Array; readonly type: string }>
  /** Mermaid's browser build, from the package's own dependency when installed. */
  readonly mermaid: string | undefined
}

const ASSET_TYPES: ReadonlyArray<readonly [string, string]> = [
  ["index.html", "text/html; charset=utf-8"],
  ["app.css", "text/css; charset=utf-8"],
  ["app.js", "text/javascript; charset=utf-8"]
]

const loadAssets = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  // beside this module in src/ui, or in dist/ui once bundled
  const dirs = ["./static/", "./ui/static/"].map((d) => fileURLToPath(new URL(d, import.meta.url)))
  let dir: string | undefined
  for (const d of dirs) {
    if (yield* fs.exists(`${d}index.html`).pipe(Effect.orElseSucceed(() => false))) {
      dir = d
      break
    }
  }
  if (dir === undefined) return yield* new UiStartFailed({ reason: `the page's files are missing (looked in ${dirs.join(", ")}); reinstall arxiv-companion` })
  const files = new Map<string, { body: Uint8Array; type: string }>()
  for (const [name, type] of ASSET_TYPES) {
    const body = yield* fs.readFile(`${dir}${name}`).pipe(Effect.mapError(() => new UiStartFailed({ reason: `cannot read ${dir}${name}` })))
    files.set(`/${name === "index.html" ? "" : name}`, { body, type })
  }
  let mermaid: string | undefined
  try {
    mermaid = createRequire(import.meta.url).resolve("mermaid/dist/mermaid.min.js")
  } catch {
    mermaid = undefined
  }
  return { files, mermaid } satisfies Assets
})

/** Every port the page uses: the companion's and the query builder for questions. */
type UiPorts = CompanionPorts | QueryBuilderPort

/**
 * Serve the page on 127.0.0.1 until the scope closes; closing it cancels the
 * runs in flight and closes the server.
 */
export const serveUi = (options: UiOptions): Effect.Effect<UiServer, UiStartFailed | InvalidArgument, Scope.Scope> =>
  Effect.gen(function*() {
    const log = options.log ?? (() => undefined)
    const token = options.token ?? newToken()
    const assets = yield* loadAssets.pipe(Effect.provide(NodeContext.layer))
    const ports: Context.Context<UiPorts> = yield* Layer.build(
      Layer.merge(companionLayer(options.setup), queryBuilderLayer(options.setup))
    )
    const vault = Context.get(ports, VaultPort)
    // the seconds each note of a digest waits for arXiv: its pace live, none on the corpus or a mirror
    const digestPace = (options.setup.arxiv ?? (options.setup.offline === true ? "corpus" : "live")) === "live" ? 3 : 0

    const nodeServer = http.createServer()
    const requestedPort = options.port ?? DEFAULT_PORT
    const server = yield* NodeHttpServer.make(() => nodeServer, { host: "127.0.0.1", port: requestedPort }).pipe(
      Effect.mapError((e) => {
        const code = (e.cause as { code?: string } | undefined)?.code
        return new UiStartFailed({
          reason: code === "EADDRINUSE"
            ? `port ${requestedPort} on 127.0.0.1 is in use. Pass --port N (--port 0 picks a free port).`
            : `cannot listen on 127.0.0.1:${requestedPort} (${code ?? String(e.cause)})`
        })
      })
    )
    const port = server.address._tag === "TcpAddress" ? server.address.port : requestedPort
    // on close: runs are cancelled first (below), then open streams cut, then the server closed
    yield* Effect.addFinalizer(() => Effect.sync(() => nodeServer.closeAllConnections()))
    const runs = yield* FiberMap.make<string>()
    const previews = new Map<string, CompanionPreview>()
    // the last answers to questions, typed or spoken, for "Read aloud"
    const answers = new Map<string, AskResult>()
    const keepAnswer = (id: string, answer: AskResult) => {
      answers.set(id, answer)
      for (const old of answers.keys()) {
        if (answers.size <= 32) break
        answers.delete(old)
      }
    }
    // the speech ports (offline by default); a misconfigured audio API is said when voice is used, the page still starts
    const speech = yield* Layer.build(speechLayer()).pipe(Effect.either)
    const withSpeech = <A, E, R>(
      effect: Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | InvalidArgument, Exclude<R, SpeechToTextPort | TextToSpeechPort>> =>
      speech._tag === "Left" ? Effect.fail(speech.left) : Effect.provide(effect, speech.right)
    const keep = (id: string, preview: CompanionPreview) => {
      previews.set(id, preview)
      // the last few results can be written; older ones must be run again
      for (const old of previews.keys()) {
        if (previews.size <= 32) break
        previews.delete(old)
      }
    }

    // Mermaid's browser build (3.5 MB) is read on first use only
    const mermaid = yield* Effect.cached(
      assets.mermaid === undefined
        ? Effect.succeed(undefined)
        : FileSystem.FileSystem.pipe(
          Effect.flatMap((fs) => fs.readFile(assets.mermaid!)),
          Effect.orElseSucceed(() => undefined),
          Effect.provide(NodeContext.layer)
        )
    )
    const policy = { hosts: loopbackHosts("127.0.0.1", port), origins: loopbackOrigins("127.0.0.1", port), token }

    /** The body read by the faces' one reader (at most 4 MB, as the MCP HTTP face), then decoded. */
    const decodeBody = <A, I>(schema: Schema.Schema<A, I>) =>
      HttpServerRequest.HttpServerRequest.pipe(
        Effect.flatMap((req) =>
          Effect.tryPromise({
            try: () => readBody(NodeHttpServerRequest.toIncomingMessage(req)),
            catch: (e) =>
              e instanceof BodyTooLarge
                ? new RequestTooLarge({ max: e.max })
                : new InvalidArgument({ argument: "request", reason: "the body could not be read" })
          })
        ),
        Effect.flatMap((text) =>
          Effect.try({
            try: (): unknown => JSON.parse(text),
            catch: () => new InvalidArgument({ argument: "request", reason: "the body must be JSON" })
          })
        ),
        Effect.flatMap(Schema.decodeUnknown(schema)),
        Effect.mapError((e) =>
          ParseResult.isParseError(e) ? new InvalidArgument({ argument: "request", reason: oneLineIssues(e) }) : e
        )
      )

    /** A run as a stream of events: the work runs in its own fiber; the stream ending early cancels it. */
    const startRun = (request: RunRequest) =>
      Effect.gen(function*() {
        const id = randomUUID()
        const events = yield* Queue.unbounded<RunEvent>()
        const emit = (e: RunEvent) => Queue.offer(events, e).pipe(Effect.asVoid)
        const work: Effect.Effect<RunEvent, { readonly _tag: string; readonly message: string }, UiPorts> = request.kind === "note"
          ? previewCompanion(promptFor(request.title), undefined, {
            onProgress: (e) => emit({ type: "progress", tag: e._tag, text: pageLine(e) })
          }).pipe(Effect.map((preview) => {
            keep(id, preview)
            return { type: "result", id, view: noteView(preview.report, preview.writes.length > 0) } as const
          }))
          : request.kind === "digest"
          ? digest({ since_date: request.since === undefined || request.since.trim() === "" ? undefined : request.since }, {
            onProgress: (e) => emit({ type: "progress", tag: e._tag, text: digestProgressLine(e, digestPace) })
          }).pipe(Effect.map((report) => ({ type: "result", id, view: { kind: "digest", ...summarizeDigest(report) } }) as const))
          : request.kind === "voice"
          ? Effect.gen(function*() {
            const stt = yield* SpeechToTextPort
            return yield* askArxivVoiceTool({ audio: request.audio, top: request.top }).pipe(
              // what was heard is said before the question is answered, so a misheard question shows at once
              Effect.provideService(SpeechToTextPort, {
                ...stt,
                // the page's messages name the recording, not the tool's argument
                transcribe: (audio) =>
                  stt.transcribe({ ...audio, name: "the recording" }).pipe(Effect.tap((t) => emit({ type: "heard", text: t.text, seconds: Math.round(t.seconds * 10) / 10 })))
              }),
              Effect.catchTag("AudioUnusable", (e) =>
                Effect.fail(e.source === "the audio argument" ? new AudioUnusable({ source: "the recording", reason: e.reason }) : e))
            )
          }).pipe(
            askProgress((tag, text) => emit({ type: "progress", tag, text })),
            withSpeech,
            Effect.map(({ result, heard }) => {
              keepAnswer(id, result)
              return { type: "result", id, view: { ...askView(result), heard } } as const
            })
          )
          : askArxivTool({ question: request.question, top: request.top }).pipe(
            Effect.map((answer) => {
              keepAnswer(id, answer)
              return { type: "result", id, view: askView(answer) } as const
            }),
            askProgress((tag, text) => emit({ type: "progress", tag, text }))
          )
        const program = work.pipe(
          // a call waiting for an upstream (arXiv's slot, a Retry-After, a retry) says so, as the CLI does
          withWaitReporter((wait) => emit({ type: "progress", tag: "Waiting", text: wait.message })),
          Effect.catchAll((error) => Effect.succeed<RunEvent>({ type: "failure", ...failureOf(error) })),
          Effect.onExit((exit) =>
            Exit.match(exit, {
              onSuccess: emit,
              onFailure: (cause) => {
                if (Cause.isInterruptedOnly(cause)) return emit({ type: "cancelled", text: "Cancelled." })
                log(`run ${id} failed unexpectedly: ${Cause.pretty(cause)}`)
                return emit({ type: "failure", tag: "Unexpected", message: `Unexpected error: ${Cause.squash(cause)}` })
              }
            })
          ),
          Effect.provide(ports)
        )
        yield* emit({
          type: "started",
          id,
          text: request.kind === "note"
            ? `Looking for “${request.title}” in the vault`
            : request.kind === "digest"
            ? "Reading the vault's concept notes"
            : request.kind === "voice"
            ? "Listening to the recording"
            : "Turning the question into an arXiv query"
        })
        yield* FiberMap.run(runs, id, program)
        const body = Stream.fromQueue(events).pipe(
          Stream.takeUntil(terminal),
          Stream.map(sse),
          Stream.encodeText,
          // the page went away (closed, aborted): the run stops too
          Stream.ensuring(FiberMap.remove(runs, id))
        )
        return HttpServerResponse.stream(body, {
          contentType: "text/event-stream",
          headers: { ...SECURITY_HEADERS, "x-accel-buffering": "no" }
        })
      })

    const normalize = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()

    /** The concept notes whose title holds `query` (generated notes left out): the first 50, and how many match. */
    const listNotes = (query: string) =>
      Effect.gen(function*() {
        const q = normalize(query).trim()
        const notes = yield* vault.listNotes()
        const generated = / — Related Papers( \(\d{4}-\d{2}-\d{2}( \d+)?\))?$/u
        const matching = notes
          .filter((n) => !generated.test(n.title) && !isDigestTitle(n.title) && !n.path.startsWith(`${COMPANION_FOLDER}/`))
          .map((n) => ({ n, at: normalize(n.title).indexOf(q) }))
          .filter((m) => q === "" || m.at >= 0)
          .sort((a, b) => (a.at === 0 ? 0 : 1) - (b.at === 0 ? 0 : 1) || a.n.title.localeCompare(b.n.title))
        return { total: matching.length, notes: matching.slice(0, 50).map(({ n }) => ({ title: n.title, path: n.path })) }
      })

    /**
     * The page, with the vault's note list and the mode already in its HTML when the address's token
     * comes with it (`/?token=…`, the printed address), so the first paint shows the notes to pick from
     * instead of an empty list that fills after two API calls. Without the token the page holds no data.
     */
    const indexHtml = new TextDecoder().decode(assets.files.get("/")!.body)
    const filledPage = (search: URLSearchParams) =>
      Effect.gen(function*() {
        const presented = search.get("token")
        if (presented === null || !tokenMatches(presented, token)) return undefined
        const listed = yield* listNotes("").pipe(Effect.option)
        if (listed._tag === "None") return undefined
        const info = { vault: vault.name, offline: options.setup.offline === true, mermaid: assets.mermaid !== undefined }
        const { notes, total } = listed.value
        const items = notes.map((n, i) =>
          `<li><label for="note-${i}"><input type="radio" name="note" value="${escapeHtml(n.title)}" id="note-${i}"${notes.length === 1 ? " checked" : ""}><span>${escapeHtml(n.title)}</span></label></li>`
        ).join("")
        const count = total === 0 ? "The vault has no notes." : total > notes.length
          ? `${total} notes match; the first ${notes.length} are listed.`
          : `${total} note${total === 1 ? "" : "s"}.`
        const boot = JSON.stringify({ info, notes, total }).replace(/</g, "\\u003c")
        return indexHtml
          .replace(`<p id="mode" class="hint">Connecting…</p>`, () => `<p id="mode" class="hint">${escapeHtml(modeLine(info))}</p>`)
          .replace(`<p id="note-count" class="hint" aria-live="polite"></p>`, () => `<p id="note-count" class="hint" aria-live="polite">${escapeHtml(count)}</p>`)
          .replace(`<ul id="note-list"></ul>`, () => `<ul id="note-list">${items}</ul>`)
          .replace(`</head>`, () => `<script type="application/json" id="boot">${boot}</script>\n</head>`)
      })

    const routes = HttpRouter.empty.pipe(
      HttpRouter.get(
        "/api/info",
        Effect.gen(function*() {
          return json({
            vault: vault.name,
            offline: options.setup.offline === true,
            mermaid: assets.mermaid !== undefined,
            running: yield* FiberMap.size(runs)
          })
        })
      ),
      HttpRouter.get(
        "/api/notes",
        Effect.gen(function*() {
          const req = yield* HttpServerRequest.HttpServerRequest
          return json(yield* listNotes(new URL(req.url, "http://x").searchParams.get("q") ?? ""))
        })
      ),
      HttpRouter.post("/api/runs", decodeBody(RunRequest).pipe(Effect.flatMap(startRun))),
      HttpRouter.post("/api/voice", decodeBody(VoiceRequest).pipe(Effect.flatMap((body) => startRun({ kind: "voice", ...body })))),
      HttpRouter.get(
        "/api/runs/:id/speech",
        Effect.gen(function*() {
          const { id } = yield* HttpRouter.params
          const answer = id === undefined ? undefined : answers.get(id)
          if (answer === undefined) {
            return jsonError(404, "NoSuchRun", "This answer is no longer held by the server: ask again, then read it aloud.")
          }
          const audio = yield* speakAnswer(answer, "wav").pipe(withSpeech)
          return HttpServerResponse.uint8Array(audio.bytes, { contentType: audio.mimeType, headers: SECURITY_HEADERS })
        })
      ),
      HttpRouter.post(
        "/api/runs/:id/cancel",
        Effect.gen(function*() {
          const { id } = yield* HttpRouter.params
          if (id === undefined || !(yield* FiberMap.has(runs, id))) {
            return jsonError(404, "NoSuchRun", "That run is not going on any more (it finished or was cancelled).")
          }
          yield* FiberMap.remove(runs, id)
          return json({ cancelled: true })
        })
      ),
      HttpRouter.post(
        "/api/runs/:id/write",
        Effect.gen(function*() {
          const { id } = yield* HttpRouter.params
          const preview = id === undefined ? undefined : previews.get(id)
          if (preview === undefined) {
            return jsonError(404, "NoSuchRun", "These results are no longer held by the server: run the companion again, then write.")
          }
          const written = yield* commitPreview(preview).pipe(Effect.provide(ports))
          return json(written)
        })
      ),
      HttpRouter.post(
        "/api/bibtex",
        decodeBody(BibtexRequest).pipe(
          Effect.flatMap((body) => exportBibtex({ arxiv_ids: body.ids })),
          Effect.provide(ports),
          Effect.map((r) => json(r))
        )
      )
    )

    const page = (path: string) => {
      const asset = assets.files.get(path)
      if (asset === undefined) return undefined
      return HttpServerResponse.uint8Array(asset.body, {
        contentType: asset.type,
        headers: { ...SECURITY_HEADERS, ...(path === "/" ? { "content-security-policy": PAGE_CSP } : {}) }
      })
    }

    const app: HttpApp.Default<never, never> = Effect.gen(function*() {
      const req = yield* HttpServerRequest.HttpServerRequest
      const path = new URL(req.url, "http://x").pathname
      const isApi = path.startsWith("/api/")
      const refusal = refuse({ host: req.headers["host"], origin: req.headers["origin"], authorization: req.headers["authorization"] }, policy, isApi)
      if (refusal !== undefined) return jsonError(refusal.status, refusal.status === 401 ? "Unauthorized" : "Forbidden", refusal.reason)
      if (!isApi) {
        if (req.method !== "GET" && req.method !== "HEAD") return jsonError(405, "MethodNotAllowed", "Only GET is served here.")
        if (path === "/vendor/mermaid.min.js") {
          const body = yield* mermaid
          if (body !== undefined) {
            return HttpServerResponse.uint8Array(body, {
              contentType: "text/javascript; charset=utf-8",
              headers: { ...SECURITY_HEADERS, "cache-control": "max-age=3600" }
            })
          }
        }
        if (path === "/") {
          const filled = yield* filledPage(new URL(req.url, "http://x").searchParams)
          if (filled !== undefined) {
            return HttpServerResponse.text(filled, {
              contentType: "text/html; charset=utf-8",
              headers: { ...SECURITY_HEADERS, "content-security-policy": PAGE_CSP }
            })
          }
        }
        return page(path) ?? jsonError(404, "NotFound", `Nothing at ${path}.`)
      }
      if (announcesTooLarge(req.headers["content-length"])) {
        return HttpServerResponse.unsafeJson(
          { error: { tag: "RequestTooLarge", message: new BodyTooLarge(MAX_BODY_BYTES).message } },
          { status: 413, headers: { ...SECURITY_HEADERS, connection: "close" } }
        )
      }
      return yield* routes.pipe(
        Effect.catchTag("RouteNotFound", () => Effect.succeed(jsonError(404, "NotFound", `No API at ${req.method} ${path}.`))),
        Effect.catchAll((error) => {
          const e = failureOf(error as { _tag: string; message: string })
          const response = jsonError(STATUS[e.tag] ?? 500, e.tag, e.message)
          // a body cut off unread: the connection goes, not the next request on it
          return Effect.succeed(e.tag === "RequestTooLarge" ? HttpServerResponse.setHeader(response, "connection", "close") : response)
        })
      )
    }).pipe(
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.sync(() => {
          log(`request failed unexpectedly: ${Cause.pretty(cause)}`)
          return jsonError(500, "Unexpected", `Unexpected error: ${Cause.squash(cause)}`)
        })
      ),
      Effect.provide(NodeContext.layer)
    ) as HttpApp.Default<never, never>
    yield* server.serve(app)

    if (backendsOf(options.setup).arxiv === "corpus") {
      // load the offline corpus now, so the first run does not wait for it
      yield* Effect.forkScoped(
        Context.get(ports, ArxivPort).search({ query: term("all", "warm"), categories: [], maxResults: 1 }).pipe(Effect.ignore)
      )
    }
    const origin = `http://127.0.0.1:${port}`
    // the token in the query lets the first HTML carry the note list; the page then moves it to the fragment
    return { url: `${origin}/?token=${token}`, origin, port, token }
  })
