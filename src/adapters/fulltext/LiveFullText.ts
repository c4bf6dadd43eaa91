/**
 * FullTextPort over arxiv.org: the paper's HTML (`/html/<id>`, LaTeXML) when
 * arXiv has it, else the text of its PDF (`/pdf/<id>`) extracted with unpdf.
 * Polite like the API adapter (one request at a time, 3 s apart per origin,
 * descriptive User-Agent), retried on transient failures, and the parsed
 * document kept in the ResponseCache when one is provided.
 *
 * @since 0.1.0
 */
import { HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import { Config, Duration, Effect, Layer, Option, Schema } from "effect"
import { parseArxivId } from "../../core/arxiv.js"
import { InvalidArgument, PaperNotFound, UpstreamUnavailable } from "../../core/errors.js"
import { FullText, Section } from "../../core/fulltext.js"
import { FullTextPort, type FullTextService } from "../../core/ports/FullTextPort.js"
import { defaultRetryPolicy, politeClient, unavailable, userAgent, withRetries } from "../http/http.js"
import { requestKey, ResponseCache } from "../http/ResponseCache.js"
import { ArxivWebLimiter, layerShared } from "../http/UpstreamLimiter.js"

/** Where arXiv serves papers unless ARXIV_WEB_URL says otherwise. */
export const DEFAULT_ARXIV_WEB_URL = "https://arxiv.org"

/** Options of the live full-text adapter. */
export interface LiveFullTextOptions {
  /** Base URL serving `/html/<id>` and `/pdf/<id>`; default https://arxiv.org (ARXIV_WEB_URL). */
  readonly baseUrl?: string | undefined
  /** Minimum time between two requests to that origin; default 3 s. */
  readonly interval?: Duration.DurationInput | undefined
  /** Per-request timeout; default 30 s. */
  readonly timeout?: Duration.DurationInput | undefined
  /** Contact for the User-Agent (ARXIV_COMPANION_CONTACT, as for the arXiv API). */
  readonly contact?: string | undefined
  /** PDFs larger than this are refused; default 40 MB. */
  readonly maxPdfBytes?: number | undefined
}

const SERVICE = "arXiv (full text)"

/** Text extracted from a PDF, one string per page (unpdf, loaded on first use). */
export const pdfPages = (bytes: Uint8Array): Effect.Effect<ReadonlyArray<string>, UpstreamUnavailable> =>
  Effect.tryPromise({
    try: async () => {
      const { extractText } = await import("unpdf")
      const { text } = await extractText(bytes, { mergePages: false })
      return text
    },
    catch: (e) => new UpstreamUnavailable({ service: SERVICE, reason: `the PDF could not be read (${e instanceof Error ? e.message : String(e)})` })
  })

const encodeFullText = Schema.encodeSync(Schema.parseJson(FullText))
const decodeFullText = Schema.decodeUnknownOption(Schema.parseJson(FullText))

const isNotFound = (e: unknown): boolean =>
  HttpClientError.isHttpClientError(e) && e._tag === "ResponseError" && e.response.status === 404

/** Build the service from the context's HttpClient and ArxivWebLimiter (and ResponseCache, if any). */
export const make = Effect.fn("LiveFullText.make")(function*(options: LiveFullTextOptions = {}) {
  const base = (options.baseUrl ?? DEFAULT_ARXIV_WEB_URL).replace(/\/+$/, "")
  const timeout = options.timeout ?? "30 seconds"
  const maxPdfBytes = options.maxPdfBytes ?? 40_000_000
  const limiter = yield* ArxivWebLimiter
  const cache = Option.getOrUndefined(yield* Effect.serviceOption(ResponseCache))
  const raw = (yield* HttpClient.HttpClient).pipe(
    HttpClient.mapRequest(HttpClientRequest.setHeader("user-agent", userAgent(options.contact)))
  )
  const client = politeClient(raw, { limiter, timeout, maxBodyBytes: maxPdfBytes }).pipe(
    withRetries({ ...defaultRetryPolicy, maxAttempts: 3 }, SERVICE)
  )

  /** The HTML page, or None when arXiv has no HTML for the paper (404). */
  const html = (id: string) =>
    client.get(`${base}/html/${id}`).pipe(
      Effect.flatMap((r) => r.text),
      Effect.map(Option.some),
      Effect.catchIf(isNotFound, () => Effect.succeedNone)
    )

  /** The PDF's bytes, or None when arXiv has no such paper (404). */
  const pdf = (id: string) =>
    client.get(`${base}/pdf/${id}`).pipe(
      Effect.flatMap((r) => r.arrayBuffer),
      Effect.map((b) => Option.some(new Uint8Array(b))),
      Effect.catchIf(isNotFound, () => Effect.succeedNone)
    )

  const fetchDocument = (id: string): Effect.Effect<FullText, PaperNotFound | UpstreamUnavailable> =>
    Effect.gen(function*() {
      // the parsers (and htmlparser2) load with the first paper read
      const { sectionsFromHtml, sectionsFromPdfText } = yield* Effect.promise(() => import("./fullTextParsers.js"))
      const page = yield* html(id)
      if (Option.isSome(page)) {
        const { sections, title } = sectionsFromHtml(page.value)
        if (sections.some((s) => s.text.length > 200)) {
          return new FullText({ arxivId: id, source: "arxiv-html", url: `${base}/html/${id}`, title, sections })
        }
      }
      const bytes = yield* pdf(id)
      if (Option.isNone(bytes)) return yield* new PaperNotFound({ id, source: "arXiv" })
      const pages = yield* pdfPages(bytes.value)
      const sections = sectionsFromPdfText(pages)
      const title = pages[0]?.split("\n").map((l) => l.trim()).find((l) => l.length > 10) ?? id
      return new FullText({
        arxivId: id,
        source: "pdf",
        url: `${base}/pdf/${id}`,
        title,
        sections: sections.length > 0 ? sections : [new Section({ heading: "Text", level: 1, text: "" })]
      })
    }).pipe(
      Effect.catchAll((e) =>
        Effect.fail(e instanceof PaperNotFound || e instanceof UpstreamUnavailable ? e : unavailable(SERVICE, e))
      )
    )

  const service: FullTextService = {
    fullText: Effect.fn("FullTextPort.fullText")(function*(arxivId: string) {
      const id = parseArxivId(arxivId)?.id
      if (id === undefined) {
        return yield* new InvalidArgument({ argument: "arXiv id", reason: `"${arxivId}" is not an arXiv id` })
      }
      if (cache === undefined) return yield* fetchDocument(id)
      const body = yield* cache.cached(
        {
          endpoint: "arxiv.fulltext",
          key: requestKey("GET", `${base}/fulltext/${id}`),
          usable: (text) => Option.isSome(decodeFullText(text))
        },
        Effect.map(fetchDocument(id), encodeFullText)
      )
      const decoded = decodeFullText(body)
      return Option.isSome(decoded) ? decoded.value : yield* fetchDocument(id)
    })
  }
  return service
})

/** arXiv's web pages, process-wide: one request at a time, `interval` (default 3 s) apart. */
export const limiterLayer = (options: Pick<LiveFullTextOptions, "baseUrl" | "interval"> = {}): Layer.Layer<ArxivWebLimiter> =>
  layerShared(ArxivWebLimiter, options.baseUrl ?? DEFAULT_ARXIV_WEB_URL, {
    service: SERVICE,
    interval: Duration.decode(options.interval ?? "3 seconds"),
    concurrency: 1,
    spacing: "answer"
  })

/** The live adapter as a layer; needs an HttpClient (a ResponseCache in the context is used). */
export const layer = (options: LiveFullTextOptions = {}): Layer.Layer<FullTextPort, never, HttpClient.HttpClient> =>
  Layer.effect(FullTextPort, make(options)).pipe(Layer.provide(limiterLayer(options)))

/**
 * The options from configuration: ARXIV_WEB_URL, and ARXIV_COMPANION_CONTACT,
 * the contact the arXiv API adapter sends too (ARXIV_CONTACT, its older name
 * here, still counts when ARXIV_COMPANION_CONTACT is not set).
 */
export const optionsConfig: Config.Config<LiveFullTextOptions> = Config.all({
  baseUrl: Config.string("ARXIV_WEB_URL").pipe(Config.withDefault(DEFAULT_ARXIV_WEB_URL)),
  contact: Config.option(
    Config.nonEmptyString("ARXIV_COMPANION_CONTACT").pipe(Config.orElse(() => Config.nonEmptyString("ARXIV_CONTACT")))
  ).pipe(Config.map(Option.getOrUndefined))
})

/** The live adapter configured from the environment. */
export const layerConfig = (
  config: Config.Config<LiveFullTextOptions> = optionsConfig
): Layer.Layer<FullTextPort, never, HttpClient.HttpClient> =>
  Layer.unwrapEffect(Effect.map(Effect.orDie(config), layer))
