/**
 * The HTTP side of the live OpenAlex adapters: one GET with OpenAlex's key and
 * error conventions, retries for transient failures, and the Schema of the
 * work records the adapters read.
 *
 * Secrets: OpenAlex takes its key as the `api_key` query parameter, so the key
 * is part of the request URL. It is added last, only to the outgoing request;
 * the URL is never logged or put in an error, and request tracing is switched
 * off for keyed requests (a span would record `url.full`).
 *
 * When a ResponseCache is in the context, successful answers are kept under
 * the request without its key (endpoint `openalex.works`).
 *
 * @since 0.1.0
 */
import { HttpClient, HttpClientError, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Config, Duration, Effect, Either, Layer, Option, Redacted, Schema } from "effect"
import { parseArxivId } from "../../core/arxiv.js"
import { InvalidArgument, type OpenAlexError, UpstreamUnavailable } from "../../core/errors.js"
import { clipLine } from "../../core/text.js"
import {
  afterRetries,
  bodyOf,
  countingRetries,
  defaultRetryPolicy,
  failureOf,
  isTransientStatus,
  politeClient,
  retryAfterField,
  type RetryPolicy,
  TransientFailure,
  unavailable,
  userAgent,
  withDeadline,
  withRetries
} from "../http/http.js"
import { requestKey, ResponseCache } from "../http/ResponseCache.js"
import { leaseDirConfig } from "../http/UpstreamLease.js"
import { layerShared, OpenAlexLimiter, QueueTooLong } from "../http/UpstreamLimiter.js"

/** Where OpenAlex lives unless OPENALEX_API_URL says otherwise. */
export const DEFAULT_OPENALEX_URL = "https://api.openalex.org"

/** Options shared by the live OpenAlex adapters. */
export interface OpenAlexClientOptions {
  /** Base URL; default https://api.openalex.org (OPENALEX_API_URL). */
  readonly apiUrl?: string | undefined
  /** OpenAlex API key (OPENALEX_API_KEY), sent as `api_key`. Required by OpenAlex since 2026-02-13. */
  readonly apiKey?: Redacted.Redacted | undefined
  /** Contact address for OpenAlex's legacy polite pool (OPENALEX_MAILTO). */
  readonly mailto?: string | undefined
  /** User-Agent header; default `arxiv-companion/<version> (+<project>; mailto:<mailto>)`. */
  readonly userAgent?: string | undefined
  /** Attempts after the first for transient failures (429, 5xx, timeouts, resets, truncated bodies). Default 3. */
  readonly retries?: number | undefined
  /** First backoff delay; doubles per retry, jittered, capped at 8 s. Default 500 ms. */
  readonly retryBaseDelay?: Duration.DurationInput | undefined
  /** A Retry-After longer than this is not waited for: the call fails at once with the delay. Default 30 s. */
  readonly maxRetryAfter?: Duration.DurationInput | undefined
  /** Per-attempt timeout. Default 20 s. */
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * One overall deadline per call, its wait for a slot and its retries
   * included (OPENALEX_DEADLINE). A call that could not start before it (a
   * Retry-After holding every OpenAlex call back for longer) fails at once,
   * saying why. Default 50 s.
   */
  readonly deadline?: Duration.DurationInput | undefined
  /**
   * The folder of the lease that shares OpenAlex's spacing and Retry-After
   * with the user's other processes (UpstreamLease.ts); `optionsConfig` sets
   * it (ARXIV_COMPANION_LEASE_DIR, else `leases/` in the user's cache folder).
   */
  readonly leaseDir?: string | undefined
}

/** The deadline of one OpenAlex call unless OPENALEX_DEADLINE says otherwise. */
export const DEFAULT_DEADLINE: Duration.Duration = Duration.seconds(50)

/** The same options read from configuration (OPENALEX_API_URL, OPENALEX_API_KEY, OPENALEX_MAILTO, OPENALEX_DEADLINE). */
export const optionsConfig: Config.Config<OpenAlexClientOptions> = Config.all({
  apiUrl: Config.string("OPENALEX_API_URL").pipe(Config.withDefault(DEFAULT_OPENALEX_URL)),
  apiKey: Config.option(Config.redacted("OPENALEX_API_KEY")).pipe(
    Config.map((o) => Option.getOrUndefined(Option.filter(o, (k) => Redacted.value(k).trim() !== "")))
  ),
  mailto: Config.option(Config.string("OPENALEX_MAILTO")).pipe(
    Config.map((o) => Option.getOrUndefined(Option.filter(o, (m) => m.trim() !== "")))
  ),
  deadline: Config.duration("OPENALEX_DEADLINE").pipe(Config.withDefault(DEFAULT_DEADLINE)),
  leaseDir: leaseDirConfig
})

// ---------------------------------------------------------------------------
// Records

const NullableString = Schema.optional(Schema.NullOr(Schema.String))

/** The part of an OpenAlex location the adapters read. */
export const LocationRecord = Schema.Struct({
  id: NullableString,
  landing_page_url: NullableString,
  pdf_url: NullableString
})

/** The part of an OpenAlex work record the adapters read (extra fields are ignored). */
export const WorkRecord = Schema.Struct({
  id: Schema.String,
  doi: NullableString,
  title: NullableString,
  display_name: NullableString,
  publication_year: Schema.optional(Schema.NullOr(Schema.Int)),
  publication_date: NullableString,
  ids: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  locations: Schema.optional(Schema.NullOr(Schema.Array(LocationRecord))),
  primary_location: Schema.optional(Schema.NullOr(LocationRecord)),
  cited_by_count: Schema.optional(Schema.NullOr(Schema.NonNegativeInt)),
  referenced_works: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  /** word → positions; OpenAlex ships abstracts only this way */
  abstract_inverted_index: Schema.optional(
    Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.NonNegativeInt) }))
  ),
  authorships: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({
    author: Schema.optional(Schema.NullOr(Schema.Struct({ display_name: NullableString }))),
    raw_author_name: NullableString
  }))))
})
export type WorkRecord = typeof WorkRecord.Type

/** Abstracts longer than this many words are not rebuilt (a bound for hostile positions). */
const MAX_ABSTRACT_WORDS = 5_000

/** The abstract of a record, rebuilt from OpenAlex's inverted index ("" when there is none). */
export const abstractOf = (record: WorkRecord): string => {
  const index = record.abstract_inverted_index
  if (index === undefined || index === null) return ""
  const slots: Array<string> = []
  for (const [word, positions] of Object.entries(index)) {
    for (const at of positions) if (at < MAX_ABSTRACT_WORDS) slots[at] = word
  }
  return slots.filter((w) => w !== undefined).join(" ").replace(/\s+/g, " ").trim()
}

/** The authors of a record, in order. */
export const authorsOf = (record: WorkRecord): ReadonlyArray<string> =>
  (record.authorships ?? []).flatMap((a) => {
    const name = (a.author?.display_name ?? a.raw_author_name ?? "").trim()
    return name === "" ? [] : [name]
  })

/** A `/works` list page. */
export const WorkList = Schema.Struct({
  meta: Schema.optional(Schema.Struct({
    count: Schema.optional(Schema.NullOr(Schema.Number)),
    next_cursor: Schema.optional(Schema.NullOr(Schema.String))
  })),
  results: Schema.Array(WorkRecord)
})
export type WorkList = typeof WorkList.Type

const ErrorBody = Schema.parseJson(Schema.Struct({
  error: Schema.optional(Schema.Unknown),
  message: Schema.optional(Schema.Unknown)
}))

/** `https://openalex.org/W123` or `W123` → `W123`; undefined for anything else. */
export const shortWorkId = (id: string): string | undefined => {
  const m = /^(?:https?:\/\/(?:api\.)?openalex\.org\/(?:works\/)?)?([Ww]\d+)$/.exec(id.trim())
  return m === null ? undefined : `W${m[1]!.slice(1)}`
}

/**
 * The OpenAlex work ids asked for, each once: short id → the id as given (trimmed), in the order asked; the first
 * id that is not a work id fails the whole call, saying which.
 */
export const wantedWorkIds = (openalexIds: ReadonlyArray<string>): Either.Either<Map<string, string>, InvalidArgument> => {
  const wanted = new Map<string, string>()
  for (const raw of openalexIds) {
    const id = shortWorkId(raw)
    if (id === undefined) {
      return Either.left(new InvalidArgument({ argument: "OpenAlex work id", reason: `"${raw}" is not an OpenAlex work id (e.g. W2525778437)` }))
    }
    if (!wanted.has(id)) wanted.set(id, raw.trim())
  }
  return Either.right(wanted)
}

/** A DOI without its resolver prefix, lower-cased. */
export const bareDoi = (doi: string): string => doi.trim().replace(/^https?:\/\/(?:dx\.)?doi\.org\//i, "").replace(/^doi:/i, "").toLowerCase()

/** The arXiv DataCite DOI of a bare arXiv id. */
export const arxivDoi = (arxivId: string): string => `10.48550/arxiv.${arxivId.toLowerCase()}`

/** The comparison key of an arXiv id: lower-case, no version. */
export const arxivKey = (arxivId: string): string => arxivId.trim().toLowerCase().replace(/v\d+$/, "")

const fromArxivDoi = (doi: string): string | undefined => {
  const m = /^10\.48550\/arxiv\.(.+)$/.exec(bareDoi(doi))
  return m === null ? undefined : arxivKey(m[1]!)
}

const fromUrl = (url: string): string | undefined => {
  if (/doi\.org\//i.test(url)) return fromArxivDoi(url)
  if (!/arxiv\.org\/(?:abs|pdf|html)\//i.test(url)) return undefined
  const parsed = parseArxivId(url.replace(/^http:/i, "https:").replace(/[?#].*$/, ""))
  return parsed === undefined ? undefined : arxivKey(parsed.id)
}

const fromLocationId = (id: string): string | undefined => {
  const oai = /^pmh:oai:arxiv\.org:(.+)$/i.exec(id)
  if (oai !== null) return arxivKey(oai[1]!)
  if (/^doi:/i.test(id)) return fromArxivDoi(id)
  return undefined
}

/**
 * Every arXiv id a record points to, as comparison keys: its own DOI and ids
 * when they are arXiv DOIs, and its locations (arXiv landing pages, PDFs,
 * arXiv OAI ids, arXiv DOIs). A merged record can carry another DOI and year
 * yet still list its arXiv version among its locations.
 */
export const arxivKeysOf = (record: WorkRecord): ReadonlySet<string> => {
  const keys = new Set<string>()
  const add = (key: string | undefined) => {
    if (key !== undefined && key !== "") keys.add(key)
  }
  if (typeof record.doi === "string") add(fromArxivDoi(record.doi))
  for (const value of Object.values(record.ids ?? {})) {
    if (typeof value === "string") add(fromUrl(value) ?? fromArxivDoi(value))
  }
  const locations = [...(record.locations ?? []), ...(record.primary_location ? [record.primary_location] : [])]
  for (const location of locations) {
    if (typeof location.id === "string") add(fromLocationId(location.id))
    if (typeof location.landing_page_url === "string") add(fromUrl(location.landing_page_url))
    if (typeof location.pdf_url === "string") add(fromUrl(location.pdf_url))
  }
  return keys
}

/** A title for a record, with a fallback for the empty titles OpenAlex sometimes has. */
export const titleOf = (record: WorkRecord): string => {
  const title = (record.title ?? "").trim() || (record.display_name ?? "").trim()
  if (title !== "") return title
  const id = shortWorkId(record.id) ?? record.id
  return typeof record.doi === "string" && record.doi !== ""
    ? `Untitled work (OpenAlex ${id}, doi:${bareDoi(record.doi)})`
    : `Untitled work (OpenAlex ${id})`
}

// ---------------------------------------------------------------------------
// HTTP

const SERVICE = "OpenAlex"
const KEY_REQUIRED = "OpenAlex requires an API key since February 2026 and this request had none. " +
  "Get a free key at https://openalex.org/settings/api and set OPENALEX_API_KEY"

/** OpenAlex's `{error, message}` body as one line; a short description of HTML or empty bodies. */
const describeBody = (status: number, body: string): string => {
  const parsed = Schema.decodeUnknownOption(ErrorBody)(body)
  if (Option.isSome(parsed)) {
    const parts = [parsed.value.error, parsed.value.message].filter((p): p is string => typeof p === "string" && p !== "")
    if (parts.length > 0) return clipLine(parts.join(": "), 300)
  }
  if (/<html|<!doctype/i.test(body)) {
    const title = /<title>([^<]*)<\/title>/i.exec(body)?.[1]?.trim()
    return `an HTML page${title ? ` ("${clipLine(title, 80)}")` : ""} instead of JSON`
  }
  return body.trim() === "" ? `HTTP ${status} with an empty body` : clipLine(body, 120)
}

const isJson = (body: string): boolean => {
  try {
    JSON.parse(body)
    return true
  } catch {
    return false
  }
}

/** Whether a body (e.g. one kept in the cache) still decodes with `schema`. */
const decodes = <A, I>(body: string, schema: Schema.Schema<A, I>): boolean => {
  try {
    return Either.isRight(Schema.decodeUnknownEither(schema)(JSON.parse(body)))
  } catch {
    return false
  }
}

const decodeBody = <A, I>(
  body: string,
  schema: Schema.Schema<A, I>,
  status: number
): Effect.Effect<A, UpstreamUnavailable | TransientFailure> => {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return Effect.fail(new TransientFailure({ reason: "the response was not complete JSON (truncated or malformed)", status }))
  }
  return Schema.decodeUnknown(schema)(json).pipe(
    Effect.mapError(() =>
      new UpstreamUnavailable({ service: SERVICE, status, reason: "the response did not have the shape of OpenAlex works" })
    )
  )
}

/** A ready OpenAlex HTTP client: `getJson(path, params, schema)` with the adapter's error policy. */
export interface OpenAlexClient {
  /** Whether requests carry an API key. */
  readonly keyed: boolean
  /**
   * GET `path` with `params` and decode the JSON body with `schema`. `notFound`
   * turns a 404 into the caller's error (singleton lookups); without it a 404
   * means a wrong base URL.
   */
  readonly getJson: <A, I>(
    path: string,
    params: ReadonlyArray<readonly [string, string]>,
    schema: Schema.Schema<A, I>,
    notFound?: () => OpenAlexError
  ) => Effect.Effect<A, OpenAlexError>
}

/**
 * OpenAlex allows 100 requests per second per key: stay well under it,
 * process-wide (8 at once, 20 ms apart), and with `leaseDir` starts 20 ms
 * apart and Retry-After shared by every process of the user.
 */
export const limiterLayer = (options: Pick<OpenAlexClientOptions, "apiUrl" | "leaseDir"> = {}): Layer.Layer<OpenAlexLimiter> =>
  layerShared(OpenAlexLimiter, options.apiUrl ?? DEFAULT_OPENALEX_URL, {
    service: SERVICE,
    interval: Duration.millis(20),
    concurrency: 8
  }, options.leaseDir)

/** Build the client from the context's HttpClient and OpenAlexLimiter (and ResponseCache, if any). */
export const makeClient = Effect.fn("OpenAlex.makeClient")(function*(options: OpenAlexClientOptions) {
  const base = (options.apiUrl ?? DEFAULT_OPENALEX_URL).replace(/\/+$/, "")
  const apiKey = options.apiKey
  const secret = apiKey === undefined ? "" : Redacted.value(apiKey).trim()
  const keyed = secret !== ""
  const timeout = options.timeout ?? "20 seconds"
  const deadline = options.deadline ?? DEFAULT_DEADLINE
  const policy: RetryPolicy = {
    ...defaultRetryPolicy,
    maxAttempts: 1 + Math.max(0, options.retries ?? 3),
    baseDelay: options.retryBaseDelay ?? "500 millis",
    maxDelay: "8 seconds",
    maxRetryAfter: options.maxRetryAfter ?? "30 seconds"
  }
  const limiter = yield* OpenAlexLimiter

  /** Upstream text that could echo the key (it is in the URL) never leaves with it. */
  const scrub = (text: string): string => (secret.length < 4 ? text : text.split(secret).join("<redacted>"))

  const cache = Option.getOrUndefined(yield* Effect.serviceOption(ResponseCache))
  let raw = (yield* HttpClient.HttpClient).pipe(
    HttpClient.mapRequest(HttpClientRequest.setHeader("user-agent", options.userAgent ?? userAgent(options.mailto))),
    HttpClient.mapRequest(HttpClientRequest.acceptJson)
  )
  // the key rides in the query string; keep it out of trace spans (url.full, url.query)
  if (keyed) raw = HttpClient.withTracerDisabledWhen(raw, () => true)

  /**
   * Answers no retry can change, decided before the retries: without a key,
   * 401/403/429 mean "get a key"; with one, 401 means it was rejected. A 2xx
   * that is not complete JSON was cut off: worth another attempt.
   */
  const refuseEarly = (
    response: HttpClientResponse.HttpClientResponse
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, UpstreamUnavailable | TransientFailure> => {
    const status = response.status
    if (status >= 200 && status < 300) {
      return Effect.flatMap(Effect.orElseSucceed(response.text, () => ""), (body) =>
        isJson(body)
          ? Effect.succeed(response)
          : Effect.fail(new TransientFailure({ reason: "the response was not complete JSON (truncated or malformed)", status })))
    }
    if (!(status === 401 || status === 403 || status === 429) || (keyed && status !== 401)) return Effect.succeed(response)
    return Effect.flatMap(Effect.orElseSucceed(response.text, () => ""), (body) => {
      const said = scrub(describeBody(status, body))
      return Effect.fail(
        new UpstreamUnavailable({
          service: SERVICE,
          status,
          reason: keyed
            ? `OpenAlex rejected the API key in OPENALEX_API_KEY (${said}); check it at https://openalex.org/settings/api`
            : `${KEY_REQUIRED} (OpenAlex said: ${said})`
        })
      )
    })
  }

  const client = politeClient(raw, { limiter, timeout }).pipe(
    HttpClient.transformResponse(Effect.flatMap(refuseEarly)),
    withRetries(policy, SERVICE)
  )

  /** What is left after the retries, as the port's typed errors (never with the key in them). */
  const translate = (error: unknown, notFound: (() => OpenAlexError) | undefined, retries: number): Effect.Effect<never, OpenAlexError> => {
    const retried = afterRetries(retries)
    if (error instanceof UpstreamUnavailable || error instanceof InvalidArgument) return Effect.fail(error)
    // refused before any request: nothing was retried
    if (error instanceof QueueTooLong) return Effect.fail(unavailable(SERVICE, error))
    if (HttpClientError.isHttpClientError(error) && error._tag === "ResponseError" && error.reason === "StatusCode") {
      const status = error.response.status
      return Effect.flatMap(bodyOf(error), (body): Effect.Effect<never, OpenAlexError> => {
        const said = scrub(describeBody(status, body))
        if (status === 400) return Effect.fail(new InvalidArgument({ argument: "OpenAlex query", reason: said }))
        if (status === 404 && notFound !== undefined) return Effect.fail(notFound())
        if (status === 404) {
          return Effect.fail(
            new UpstreamUnavailable({ service: SERVICE, status, reason: `${base} answered 404 Not Found with ${said}; check OPENALEX_API_URL` })
          )
        }
        const f = failureOf(error)
        return Effect.fail(
          new UpstreamUnavailable({
            service: SERVICE,
            status,
            reason: isTransientStatus(status)
              ? `${status === 429 ? "rate limit or daily budget exceeded" : "server error"} (${said})${retried}`
              : `unexpected answer: ${said}`,
            ...retryAfterField(f.retryAfterMillis)
          })
        )
      })
    }
    const f = failureOf(error)
    return Effect.fail(
      new UpstreamUnavailable({
        service: SERVICE,
        reason: `${scrub(f.reason)}${retried}`,
        ...(f.status === undefined ? {} : { status: f.status }),
        ...retryAfterField(f.retryAfterMillis)
      })
    )
  }

  const getJson = <A, I>(
    path: string,
    params: ReadonlyArray<readonly [string, string]>,
    schema: Schema.Schema<A, I>,
    notFound?: () => OpenAlexError
  ): Effect.Effect<A, OpenAlexError> => {
    const all: Array<readonly [string, string]> = [...params]
    if (options.mailto !== undefined && options.mailto.trim() !== "") all.push(["mailto", options.mailto.trim()])
    const publicUrl = `${base}${path}?${new URLSearchParams(all.map(([k, v]): [string, string] => [k, v])).toString()}`
    let request = HttpClientRequest.get(`${base}${path}`).pipe(HttpClientRequest.setUrlParams(all))
    if (keyed) request = HttpClientRequest.appendUrlParam(request, "api_key", secret)

    const fetch: Effect.Effect<string, OpenAlexError> = countingRetries(
      client.execute(request).pipe(
        Effect.flatMap((response) => response.text),
        Effect.flatMap((text) => Effect.as(decodeBody(text, schema, 200), text))
      ),
      (error, retries) => translate(error, notFound, retries)
    ).pipe(withDeadline(limiter, deadline))
    // the cache key is the request without the key (requestKey also strips api_key)
    const body = cache === undefined
      ? fetch
      : cache.cached({ endpoint: "openalex.works", key: requestKey("GET", publicUrl), usable: (text) => decodes(text, schema) }, fetch)
    return Effect.flatMap(body, (text) =>
      decodeBody(text, schema, 200).pipe(
        Effect.catchTag("TransientFailure", (failure) => Effect.fail(new UpstreamUnavailable({ service: SERVICE, reason: failure.reason })))
      ))
  }

  return { keyed, getJson } satisfies OpenAlexClient
})
