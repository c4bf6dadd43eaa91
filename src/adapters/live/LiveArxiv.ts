/**
 * The live arXiv adapter: `ArxivPort` over arXiv's Atom API
 * (`https://export.arxiv.org/api/query`, or ARXIV_API_URL).
 *
 * Polite by construction: every request of the process to the same arXiv
 * origin goes through one shared limiter (one connection at a time, request
 * starts at least 3 s apart), with a descriptive User-Agent and a contact.
 * Transient failures (429, 5xx, timeouts, resets, arXiv's HTTP 200 "Rate
 * exceeded.", truncated feeds) are retried with capped, jittered backoff that
 * honours Retry-After. Arguments are checked before anything is sent.
 * Answers are kept in the `ResponseCache`, so a warm rerun asks arXiv nothing.
 *
 * @since 0.1.0
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Config, type ConfigError, Duration, Effect, Either, Layer, Option } from "effect"
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
  defaultRetryPolicy,
  isTransientStatus,
  originOf,
  type RateLimiter,
  type RetryPolicy,
  retryTransient,
  sendText,
  sharedRateLimiter,
  type TextResponse,
  TransientFailure,
  transientFromResponse,
  userAgent as makeUserAgent
} from "./http.js"
import { requestKey, ResponseCache } from "./ResponseCache.js"

/** arXiv's query endpoint. */
export const DEFAULT_ARXIV_URL = "https://export.arxiv.org/api/query"

/** arXiv's terms: no more than one request every three seconds. */
export const ARXIV_MIN_INTERVAL: Duration.Duration = Duration.seconds(3)

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
   * process. Default 3 s; never less than 3 s against arxiv.org itself.
   */
  readonly minInterval?: Duration.DurationInput | undefined
  /** Per-attempt timeout, headers and body (ARXIV_TIMEOUT). Default 30 s. */
  readonly timeout?: Duration.DurationInput | undefined
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

const unavailable = (failure: TransientFailure): UpstreamUnavailable =>
  new UpstreamUnavailable({
    service: SERVICE,
    reason: failure.reason,
    status: failure.status,
    retryAfterSeconds: failure.retryAfterMillis === undefined ? undefined : Math.ceil(failure.retryAfterMillis / 1000)
  })

/**
 * What one answer means: a feed (HTTP 200, or 406 carrying a valid feed), a
 * rate limit (429, or 200 with "Rate exceeded."), a transient failure, or
 * arXiv's own error entry (HTTP 400) naming the bad argument.
 */
const interpret = (
  response: TextResponse,
  now: number,
  argument: string,
  parse: (body: string) => Either.Either<AtomFeed, AtomParseError>
): Either.Either<AtomFeed, TransientFailure | InvalidArgument | UpstreamUnavailable> => {
  const feed = parse(response.body)
  if (Either.isRight(feed)) {
    const errors = feed.right.errors
    if (errors.length > 0 && (response.status === 400 || feed.right.entries.length === 0)) {
      return Either.left(new InvalidArgument({ argument, reason: `arXiv says: ${errors.map((e) => e.message).join("; ")}` }))
    }
    if (response.status === 200 || response.status === 406) {
      // arXiv sometimes serves an empty page for a query it says has results (arxiv.py's UnexpectedEmptyPageError)
      if (feed.right.entries.length === 0 && feed.right.total > feed.right.start && argument === "query") {
        return Either.left(
          new TransientFailure({ reason: `arXiv returned an empty page of ${feed.right.total} results`, status: response.status })
        )
      }
      return Either.right(feed.right)
    }
  }
  if (/^\s*rate exceeded\.?\s*$/i.test(response.body)) {
    return Either.left(transientFromResponse(response, now, `rate limited by arXiv (HTTP ${response.status} "Rate exceeded.")`))
  }
  if (isTransientStatus(response.status)) return Either.left(transientFromResponse(response, now))
  if (response.status === 200 || response.status === 406) {
    // A 200 that is not a feed is most often a truncated or garbled transfer: worth another try.
    return Either.left(
      new TransientFailure({
        reason: `arXiv answered HTTP ${response.status} with ${Either.isLeft(feed) ? feed.left.message : "an unusable body"}`,
        status: response.status
      })
    )
  }
  return Either.left(
    new UpstreamUnavailable({
      service: SERVICE,
      status: response.status,
      reason: `unexpected answer${Either.isLeft(feed) ? "" : " (an Atom feed)"}; check ARXIV_API_URL`
    })
  )
}

/** Build the service from the context's HttpClient and ResponseCache. */
export const make = (
  options: LiveArxivOptions = {}
): Effect.Effect<ArxivService, never, HttpClient.HttpClient | ResponseCache> =>
  Effect.gen(function*() {
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerPropagation(false))
    const cache = yield* ResponseCache
    const apiUrl = normaliseApiUrl(options.apiUrl ?? DEFAULT_ARXIV_URL)
    const requested = Duration.decode(options.minInterval ?? ARXIV_MIN_INTERVAL)
    const interval = isArxivOrg(apiUrl) ? Duration.max(requested, ARXIV_MIN_INTERVAL) : requested
    const limiter: RateLimiter = sharedRateLimiter(originOf(apiUrl), { interval, concurrency: 1 })
    const timeout = options.timeout ?? "30 seconds"
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

    /** One polite GET, retried; the body of a good feed, or a typed error. */
    const fetchFeed = (url: string, argument: string): Effect.Effect<string, ArxivError> => {
      const attempt = Effect.gen(function*() {
        const response = yield* limiter.withPermit(
          sendText(client, HttpClientRequest.get(url, { headers }), timeout)
        )
        const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
        const meaning = interpret(response, now, argument, parse)
        return yield* Either.isRight(meaning) ? Effect.succeed(response.body) : Effect.fail(meaning.left)
      })
      return attempt.pipe(
        retryTransient(policy, (failure, retry, delay) =>
          Effect.logDebug(
            `arXiv: ${failure.reason}; retry ${retry + 1}/${policy.maxAttempts - 1} in ${(delay / 1000).toFixed(1)} s`
          )),
        Effect.catchTag("TransientFailure", (failure) => Effect.fail(unavailable(failure)))
      )
    }

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

/** The live adapter as a layer; needs an HttpClient and a ResponseCache. */
export const layer = (
  options: LiveArxivOptions = {}
): Layer.Layer<ArxivPort, never, HttpClient.HttpClient | ResponseCache> => Layer.effect(ArxivPort, make(options))

/** The options read from configuration: ARXIV_API_URL, ARXIV_COMPANION_CONTACT, ARXIV_TIMEOUT. */
export const optionsConfig: Config.Config<LiveArxivOptions> = Config.all({
  apiUrl: Config.string("ARXIV_API_URL").pipe(Config.withDefault(DEFAULT_ARXIV_URL)),
  contact: Config.option(Config.nonEmptyString("ARXIV_COMPANION_CONTACT")).pipe(Config.map(Option.getOrUndefined)),
  timeout: Config.duration("ARXIV_TIMEOUT").pipe(Config.withDefault(Duration.seconds(30)))
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
