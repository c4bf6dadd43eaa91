/**
 * The live arXiv adapter: `ArxivPort` over arXiv's Atom API
 * (`https://export.arxiv.org/api/query`, or ARXIV_API_URL).
 *
 * Polite by construction: every request of the process to the same arXiv
 * origin goes through one shared limiter (one connection at a time, request
 * starts at least 3 s apart), and with `layerConfig` through the lease that
 * shares that budget with every other process of the user
 * (UpstreamLease.ts), with a descriptive User-Agent and a contact.
 * Transient failures (429, 5xx, timeouts, resets, arXiv's HTTP 200 "Rate
 * exceeded.", truncated feeds) are retried with capped, jittered backoff that
 * honours Retry-After. Arguments are checked before anything is sent.
 * Answers are kept in the `ResponseCache`, so a warm rerun asks arXiv nothing.
 *
 * @since 0.1.0
 */
import { HttpClient, HttpClientError, type HttpClientResponse } from "@effect/platform"
import { Clock, Config, type ConfigError, Duration, Effect, Either, Layer, Option } from "effect"
import { buildSearchQuery, parseArxivId, validateSearch } from "../../core/arxiv.js"
import { type ArxivError, InvalidArgument, UpstreamUnavailable } from "../../core/errors.js"
import type { Paper } from "../../core/models.js"
import {
  type ArxivLookup,
  ArxivPort,
  type ArxivSearch,
  type ArxivSearchResult,
  type ArxivService
} from "../../core/ports/ArxivPort.js"
import { type AtomFeed, type AtomParseError, parseFeed } from "./atom.js"
import {
  bodyOf,
  defaultRetryPolicy,
  isTransientStatus,
  parseRetryAfter,
  politeClient,
  type RetryPolicy,
  TransientFailure,
  unavailable,
  userAgent as makeUserAgent,
  withDeadline,
  withRetries
} from "../http/http.js"
import { requestKey, ResponseCache } from "../http/ResponseCache.js"
import { leaseDirConfig } from "../http/UpstreamLease.js"
import { ArxivLimiter, layerShared } from "../http/UpstreamLimiter.js"

/** arXiv's query endpoint. */
export const DEFAULT_ARXIV_URL = "https://export.arxiv.org/api/query"

/** arXiv's terms: no more than one request every three seconds. */
export const ARXIV_MIN_INTERVAL: Duration.Duration = Duration.seconds(3)

/**
 * Added to the interval between two starts: a request reaches arXiv a little
 * after its start is counted (tens of ms on a loaded 2-core machine, where the
 * bench saw gaps of 2,990 ms at 3 s exactly), so arXiv never sees a shorter gap.
 */
export const ARXIV_START_MARGIN: Duration.Duration = Duration.millis(100)

/** The overall deadline of one call (queue and retries included) unless ARXIV_DEADLINE says otherwise. */
export const DEFAULT_DEADLINE: Duration.Duration = Duration.seconds(50)

/** How many ids one `id_list` request carries. */
export const ID_BATCH_SIZE = 50

const SERVICE = "arXiv"

/** Options of the live arXiv adapter. */
export interface LiveArxivOptions {
  /** The query endpoint; default https://export.arxiv.org/api/query (ARXIV_API_URL). */
  readonly apiUrl?: string | undefined
  /** A contact for the User-Agent: an e-mail address or URL (ARXIV_COMPANION_CONTACT). */
  readonly contact?: string | undefined
  /** The whole User-Agent, if the default (`arxiv-companion/<v> (+<project>; mailto:<contact>)`) won't do. */
  readonly userAgent?: string | undefined
  /**
   * Minimum time between request starts, shared by every caller in the
   * process (and every process sharing the lease). Default 3 s
   * (ARXIV_MIN_INTERVAL, for stand-ins in tests); never less than 3 s
   * against arxiv.org itself.
   */
  readonly minInterval?: Duration.DurationInput | undefined
  /**
   * The folder of the lease that shares arXiv's budget with the user's other
   * processes (UpstreamLease.ts). `layerConfig` sets it
   * (ARXIV_COMPANION_LEASE_DIR, else `leases/` in the user's cache folder);
   * without it the budget is this process's alone.
   */
  readonly leaseDir?: string | undefined
  /** Per-attempt timeout, headers and body (ARXIV_TIMEOUT). Default 30 s. */
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * Overall deadline of one call, its wait for a slot and its retries
   * included (ARXIV_DEADLINE). Default 50 s: under the 60 s many MCP hosts
   * give a tool call. A call that could not start before it fails at once.
   */
  readonly deadline?: Duration.DurationInput | undefined
  /** Retry policy; default 4 attempts, 3 s doubling to 30 s, Retry-After honoured up to 60 s. */
  readonly retry?: Partial<RetryPolicy> | undefined
}

/** The default retry policy against arXiv: its backoff starts at its rate limit. */
export const arxivRetryPolicy: RetryPolicy = {
  ...defaultRetryPolicy,
  baseDelay: "3 seconds",
  maxDelay: "30 seconds",
  maxRetryAfter: "60 seconds"
}

const isArxivOrg = (url: string): boolean => {
  try {
    return /(^|\.)arxiv\.org$/i.test(new URL(url).hostname)
  } catch {
    return false
  }
}

/** http://export.arxiv.org answers 301 to https; go there directly. */
const normaliseApiUrl = (url: string): string =>
  isArxivOrg(url) ? url.replace(/^http:\/\//i, "https://") : url

/** Query-string encoding arXiv reads as meant: spaces as `+`, a literal `+` as `%2B`. */
const encode = (value: string): string =>
  encodeURIComponent(value).replace(/%20/g, "+").replace(/%3A/gi, ":").replace(/%2C/gi, ",").replace(/%2F/gi, "/")

const queryString = (params: ReadonlyArray<readonly [string, string]>): string =>
  params.map(([k, v]) => `${k}=${encode(v)}`).join("&")

/** Checks shared with every ArxivPort adapter (src/core/arxiv.ts). */
export { validateSearch }

/**
 * The id as sent in `id_list`: modern ids keep their version, legacy ids lose
 * it (the API rejects versioned legacy ids).
 */
const idListForm = (input: string): Either.Either<string, InvalidArgument> => {
  const parsed = parseArxivId(input)
  if (parsed === undefined) {
    return Either.left(
      new InvalidArgument({
        argument: "id",
        reason: `"${input}" is not an arXiv id (e.g. 1409.0473, 2104.12255v1 or hep-th/9901001).`
      })
    )
  }
  return Either.right(parsed.id.includes("/") ? parsed.id : parsed.id + (parsed.version ?? ""))
}

/** The URL of a search request. */
export const searchUrl = (apiUrl: string, request: ArxivSearch): string =>
  `${apiUrl}?${
    queryString([
      ["search_query", buildSearchQuery(request.query, request.categories, request.since)],
      ["start", String(request.start ?? 0)],
      ["max_results", String(request.maxResults)],
      ["sortBy", request.sortBy ?? "relevance"],
      ["sortOrder", request.sortOrder ?? "descending"]
    ])
  }`

/** The URL of an id lookup: `id_list` with `max_results` = the number of ids. */
export const idListUrl = (apiUrl: string, ids: ReadonlyArray<string>): string =>
  `${apiUrl}?${queryString([["id_list", ids.join(",")], ["max_results", String(ids.length)]])}`

const RATE_EXCEEDED = /^\s*rate exceeded\.?\s*$/i

/**
 * arXiv's odd answers, read on the whole response inside its slot: the body
 * "Rate exceeded." (arXiv sends it with HTTP 200) is a rate limit, so a 429;
 * a 406 carrying a valid feed is a success, so a 200.
 */
const adjustStatus = (isFeed: (body: string) => boolean) =>
(response: HttpClientResponse.HttpClientResponse, bytes: Uint8Array): number => {
  if (bytes.length < 64 && RATE_EXCEEDED.test(new TextDecoder().decode(bytes))) return 429
  if (response.status === 406 && isFeed(new TextDecoder().decode(bytes))) return 200
  return response.status
}

/** Build the service from the context's HttpClient, ResponseCache and ArxivLimiter. */
export const make = (
  options: LiveArxivOptions = {}
): Effect.Effect<ArxivService, never, HttpClient.HttpClient | ResponseCache | ArxivLimiter> =>
  Effect.gen(function*() {
    const cache = yield* ResponseCache
    const limiter = yield* ArxivLimiter
    const apiUrl = normaliseApiUrl(options.apiUrl ?? DEFAULT_ARXIV_URL)
    const timeout = options.timeout ?? "30 seconds"
    const deadline = options.deadline ?? DEFAULT_DEADLINE
    const policy: RetryPolicy = { ...arxivRetryPolicy, ...options.retry }
    const headers = {
      "user-agent": options.userAgent ?? makeUserAgent(options.contact),
      accept: "application/atom+xml, application/xml;q=0.9, */*;q=0.1"
    }

    // A body fetched is parsed once to judge it and again after the cache hands it back: keep the last few.
    const parsed = new Map<string, Either.Either<AtomFeed, AtomParseError>>()
    const parse = (body: string): Either.Either<AtomFeed, AtomParseError> => {
      const known = parsed.get(body)
      if (known !== undefined) return known
      const feed = parseFeed(body)
      parsed.set(body, feed)
      if (parsed.size > 4) parsed.delete(parsed.keys().next().value!)
      return feed
    }

    /**
     * A 200 that is no feed is most often a truncated or garbled transfer, and
     * arXiv sometimes serves an empty page for a query it says has results
     * (arxiv.py's UnexpectedEmptyPageError): both are worth another attempt.
     */
    const checkFeed = (response: HttpClientResponse.HttpClientResponse) =>
      response.status === 429 ? rateLimited(response) : response.status !== 200 ? Effect.succeed(response) : Effect.flatMap(
        Effect.orElseSucceed(response.text, () => ""),
        (body): Effect.Effect<HttpClientResponse.HttpClientResponse, TransientFailure> => {
          const feed = parse(body)
          if (Either.isLeft(feed)) {
            return Effect.fail(new TransientFailure({ reason: `arXiv answered HTTP 200 with ${feed.left.message}`, status: 200 }))
          }
          const { entries, errors, start, total } = feed.right
          if (entries.length === 0 && errors.length === 0 && total > start && response.request.url.includes("search_query=")) {
            return Effect.fail(new TransientFailure({ reason: `arXiv returned an empty page of ${total} results`, status: 200 }))
          }
          return Effect.succeed(response)
        }
      )

    /** arXiv's "Rate exceeded." (sent with HTTP 200 or 429) is its rate limit, said so, not "HTTP 429". */
    const rateLimited = (response: HttpClientResponse.HttpClientResponse) =>
      Effect.flatMap(
        Effect.orElseSucceed(response.text, () => ""),
        (body): Effect.Effect<HttpClientResponse.HttpClientResponse, TransientFailure> => {
          if (!RATE_EXCEEDED.test(body)) return Effect.succeed(response)
          return Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const retryAfterMillis = parseRetryAfter(response.headers["retry-after"], now)
            return Effect.fail(
              new TransientFailure({
                reason: "its rate limit was reached (it answered \"Rate exceeded.\")",
                ...(retryAfterMillis === undefined ? {} : { retryAfterMillis })
              })
            )
          })
        }
      )

    const client = politeClient((yield* HttpClient.HttpClient).pipe(HttpClient.withTracerPropagation(false)), {
      limiter,
      timeout,
      adjust: adjustStatus((body) => Either.isRight(parse(body)) && Either.getOrThrow(parse(body)).errors.length === 0)
    }).pipe(HttpClient.transformResponse(Effect.flatMap(checkFeed)), withRetries(policy, SERVICE))

    /** What a refused answer means: arXiv's error entry names a bad argument; anything else is arXiv unavailable. */
    const refused = (error: unknown, argument: string): Effect.Effect<never, ArxivError> => {
      if (!(HttpClientError.isHttpClientError(error) && error._tag === "ResponseError" && error.reason === "StatusCode")) {
        return Effect.fail(unavailable(SERVICE, error))
      }
      const status = error.response.status
      if (isTransientStatus(status)) return Effect.fail(unavailable(SERVICE, error))
      if (status === 414) {
        return Effect.fail(new InvalidArgument({ argument, reason: "arXiv refused the request as too long (HTTP 414); shorten it" }))
      }
      return Effect.flatMap(bodyOf(error), (body): Effect.Effect<never, ArxivError> => {
        const feed = parse(body)
        if (Either.isRight(feed) && feed.right.errors.length > 0) {
          return Effect.fail(
            new InvalidArgument({ argument, reason: `arXiv says: ${feed.right.errors.map((e) => e.message).join("; ")}` })
          )
        }
        return Effect.fail(
          new UpstreamUnavailable({
            service: SERVICE,
            status,
            reason: `unexpected answer${Either.isRight(feed) ? " (an Atom feed)" : ""}; check ARXIV_API_URL`
          })
        )
      })
    }

    /** One polite GET, retried, within the call's deadline; the body of a good feed, or a typed error. */
    const fetchFeed = (url: string, argument: string): Effect.Effect<string, ArxivError> =>
      client.get(url, { headers }).pipe(
        Effect.flatMap((response) => response.text),
        Effect.catchAll((error) => refused(error, argument)),
        Effect.flatMap((body) => {
          // a feed that only carries arXiv's error entry (HTTP 200 with no results) names a bad argument
          const feed = parse(body)
          return Either.isRight(feed) && feed.right.errors.length > 0 && feed.right.entries.length === 0
            ? Effect.fail(
              new InvalidArgument({ argument, reason: `arXiv says: ${feed.right.errors.map((e) => e.message).join("; ")}` })
            )
            : Effect.succeed(body)
        }),
        withDeadline(limiter, deadline)
      )

    /** A cached body is only served when it still reads as a feed; anything else is fetched again. */
    const isFeed = (body: string): boolean => Either.isRight(parse(body))

    const feedOf = (body: string): Effect.Effect<AtomFeed, UpstreamUnavailable> => {
      const feed = parse(body)
      return Either.isRight(feed)
        ? Effect.succeed(feed.right)
        : Effect.fail(new UpstreamUnavailable({ service: SERVICE, reason: feed.left.message }))
    }

    const search = Effect.fn("ArxivPort.search")(function*(request: ArxivSearch) {
      const valid = yield* validateSearch(request)
      const url = searchUrl(apiUrl, valid)
      yield* Effect.annotateCurrentSpan("arxiv.url", url)
      const body = yield* cache.cached(
        { endpoint: "arxiv.search", key: requestKey("GET", url), usable: isFeed },
        fetchFeed(url, "query")
      )
      const feed = yield* feedOf(body)
      const seen = new Set<string>()
      const papers: Array<Paper> = []
      for (const entry of feed.entries) {
        if (seen.has(entry.paper.arxivId)) continue
        seen.add(entry.paper.arxivId)
        papers.push(entry.paper)
      }
      return { papers, total: feed.total, start: feed.start } satisfies ArxivSearchResult
    })

    const getPapers = Effect.fn("ArxivPort.getPapers")(function*(ids: ReadonlyArray<string>) {
      const wanted: Array<string> = []
      for (const input of ids) {
        const id = yield* idListForm(input)
        if (!wanted.includes(id)) wanted.push(id)
      }
      if (wanted.length === 0) return { papers: [], missing: [] } satisfies ArxivLookup
      const found = new Map<string, Paper>()
      const batches: Array<Array<string>> = []
      const sorted = [...wanted].sort()
      for (let i = 0; i < sorted.length; i += ID_BATCH_SIZE) batches.push(sorted.slice(i, i + ID_BATCH_SIZE))
      for (const batch of batches) {
        const url = idListUrl(apiUrl, batch)
        const body = yield* cache.cached(
          { endpoint: "arxiv.ids", key: requestKey("GET", url), usable: isFeed },
          fetchFeed(url, "id")
        )
        const feed = yield* feedOf(body)
        for (const entry of feed.entries) {
          found.set(entry.paper.arxivId, entry.paper)
          if (entry.version !== undefined) found.set(entry.paper.arxivId + entry.version, entry.paper)
        }
      }
      const papers: Array<Paper> = []
      const missing: Array<string> = []
      for (const id of wanted) {
        const paper = found.get(id)
        if (paper === undefined) missing.push(id)
        else if (!papers.includes(paper)) papers.push(paper)
      }
      return { papers, missing } satisfies ArxivLookup
    })

    return ArxivPort.of({ search, getPapers })
  })

/**
 * arXiv's process-wide limiter for the endpoint of `options` (one request at
 * a time; request starts 3 s apart, never less against arxiv.org itself), as
 * a layer: every layer built in this process for the same endpoint shares it,
 * and with `leaseDir` every process of the user.
 */
export const limiterLayer = (
  options: Pick<LiveArxivOptions, "apiUrl" | "minInterval" | "leaseDir"> = {}
): Layer.Layer<ArxivLimiter> => {
  const apiUrl = normaliseApiUrl(options.apiUrl ?? DEFAULT_ARXIV_URL)
  const requested = Duration.decode(options.minInterval ?? ARXIV_MIN_INTERVAL)
  const interval = isArxivOrg(apiUrl) ? Duration.max(requested, ARXIV_MIN_INTERVAL) : requested
  return layerShared(
    ArxivLimiter,
    apiUrl,
    { service: SERVICE, interval, concurrency: 1, spacing: "start", margin: ARXIV_START_MARGIN },
    options.leaseDir
  )
}

/** The live adapter as a layer with arXiv's process-wide limiter; needs an HttpClient and a ResponseCache. */
export const layer = (
  options: LiveArxivOptions = {}
): Layer.Layer<ArxivPort, never, HttpClient.HttpClient | ResponseCache> =>
  Layer.effect(ArxivPort, make(options)).pipe(Layer.provide(limiterLayer(options)))

/**
 * The options read from configuration: ARXIV_API_URL, ARXIV_COMPANION_CONTACT,
 * ARXIV_TIMEOUT, ARXIV_DEADLINE, ARXIV_MIN_INTERVAL (never below 3 s against
 * arxiv.org) and the lease's folder (ARXIV_COMPANION_LEASE_DIR, else `leases/`
 * in the user's cache folder).
 */
export const optionsConfig: Config.Config<LiveArxivOptions> = Config.all({
  apiUrl: Config.string("ARXIV_API_URL").pipe(Config.withDefault(DEFAULT_ARXIV_URL)),
  contact: Config.option(Config.nonEmptyString("ARXIV_COMPANION_CONTACT")).pipe(Config.map(Option.getOrUndefined)),
  timeout: Config.duration("ARXIV_TIMEOUT").pipe(Config.withDefault(Duration.seconds(30))),
  deadline: Config.duration("ARXIV_DEADLINE").pipe(Config.withDefault(DEFAULT_DEADLINE)),
  minInterval: Config.option(Config.duration("ARXIV_MIN_INTERVAL")).pipe(Config.map(Option.getOrUndefined)),
  leaseDir: leaseDirConfig
})

/**
 * The live adapter configured from the environment; `overrides` (e.g. from
 * CLI flags) win over it.
 */
export const layerConfig = (
  overrides: LiveArxivOptions = {}
): Layer.Layer<ArxivPort, ConfigError.ConfigError, HttpClient.HttpClient | ResponseCache> =>
  Layer.unwrapEffect(
    Effect.map(optionsConfig, (fromEnv) =>
      layer({
        ...fromEnv,
        ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined))
      }))
  )
