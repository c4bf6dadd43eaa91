/**
 * The HTTP policy shared by the live adapters: one request attempt with a
 * timeout and UTF-8 body, the descriptive User-Agent, retries with capped
 * jittered backoff that honour Retry-After, and process-wide rate limiters.
 *
 * Adapters build on these and translate the final `TransientFailure` into
 * their port's typed error (usually `UpstreamUnavailable`).
 *
 * @since 0.1.0
 */
import type { HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import { Clock, Data, Duration, Effect, Option, Random } from "effect"

/** The version the User-Agent announces. */
export const CLIENT_VERSION = "0.1.0"

/** Where people can learn what this client is. */
export const PROJECT_URL = "https://www.npmjs.com/package/arxiv-companion"

/**
 * A descriptive User-Agent with a contact, as arXiv's terms ask:
 * `arxiv-companion/0.1.0 (+https://www.npmjs.com/package/arxiv-companion; mailto:you@example.org)`.
 * A contact that already carries a scheme (`mailto:`, `https://`) is used as it is.
 */
export const userAgent = (contact?: string | undefined): string => {
  const c = contact?.trim()
  const who = c === undefined || c === ""
    ? ""
    : /^[a-z][a-z0-9+.-]*:/i.test(c)
    ? `; ${c}`
    : c.includes("@")
    ? `; mailto:${c}`
    : `; ${c}`
  return `arxiv-companion/${CLIENT_VERSION} (+${PROJECT_URL}${who})`
}

/** A response read in full: status, lower-cased headers and the body decoded as UTF-8. */
export interface TextResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/**
 * A failure worth retrying (or, after the last attempt, reporting as the
 * upstream being unavailable): a transient status, a timeout, a reset.
 */
export class TransientFailure extends Data.TaggedError("TransientFailure")<{
  readonly reason: string
  readonly status?: number | undefined
  /** What the upstream asked us to wait, from Retry-After or an equivalent. */
  readonly retryAfterMillis?: number | undefined
}> {}

/** 408, 425, 429 and every 5xx are worth another attempt. */
export const isTransientStatus = (status: number): boolean =>
  status === 408 || status === 425 || status === 429 || (status >= 500 && status <= 599)

/**
 * Retry-After as milliseconds: either delta-seconds or an HTTP date (relative
 * to `nowMillis`). Undefined when absent or unreadable.
 */
export const parseRetryAfter = (value: string | undefined, nowMillis: number): number | undefined => {
  if (value === undefined) return undefined
  const v = value.trim()
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000)
  const date = Date.parse(v)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - nowMillis)
}

/**
 * A transient failure from a response status, carrying Retry-After.
 */
export const transientFromResponse = (response: TextResponse, nowMillis: number, reason?: string): TransientFailure =>
  new TransientFailure({
    reason: reason ?? `HTTP ${response.status}`,
    status: response.status,
    retryAfterMillis: parseRetryAfter(response.headers["retry-after"], nowMillis)
  })

const describeHttpError = (error: HttpClientError.HttpClientError): string => {
  const cause = error.cause
  const detail = cause instanceof Error
    ? ((cause as NodeJS.ErrnoException).code ?? cause.message)
    : cause === undefined
    ? ""
    : String(cause)
  const what = error._tag === "RequestError"
    ? error.reason === "Transport" ? "connection failed" : `request ${error.reason.toLowerCase()} error`
    : error.reason === "Decode"
    ? "connection dropped while reading the response"
    : `response ${error.reason.toLowerCase()} error`
  return detail === "" ? what : `${what} (${detail})`
}

/**
 * Send one request and read the whole body as UTF-8 text, within `timeout`
 * (headers and body together). Any status is returned as it is: the caller
 * decides what is success. Transport errors, resets and timeouts become a
 * `TransientFailure`; an invalid URL is a defect (a bug in the adapter).
 */
export const sendText = (
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  timeout: Duration.DurationInput
): Effect.Effect<TextResponse, TransientFailure> =>
  client.execute(request).pipe(
    Effect.flatMap((response) =>
      Effect.map(response.arrayBuffer, (buffer): TextResponse => ({
        status: response.status,
        headers: response.headers,
        body: new TextDecoder("utf-8").decode(buffer)
      }))
    ),
    Effect.scoped,
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () => new TransientFailure({ reason: `no answer within ${Duration.format(Duration.decode(timeout))}` })
    }),
    Effect.catchIf(
      (e): e is HttpClientError.HttpClientError => e._tag === "RequestError" || e._tag === "ResponseError",
      (error) =>
        error._tag === "RequestError" && error.reason === "InvalidUrl"
          ? Effect.die(error)
          : Effect.fail(new TransientFailure({ reason: describeHttpError(error) }))
    )
  )

/** How often and how long to retry. */
export interface RetryPolicy {
  /** Total attempts, the first included (>= 1). */
  readonly maxAttempts: number
  /** Backoff before the first retry; doubles after each attempt. */
  readonly baseDelay: Duration.DurationInput
  /** Cap on one backoff delay. */
  readonly maxDelay: Duration.DurationInput
  /**
   * The longest Retry-After we are willing to wait; an upstream asking for
   * more fails at once (with the wait it asked for in the error).
   */
  readonly maxRetryAfter: Duration.DurationInput
}

/** 4 attempts, 1 s doubling to at most 16 s, Retry-After honoured up to 60 s. */
export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 4,
  baseDelay: "1 second",
  maxDelay: "16 seconds",
  maxRetryAfter: "60 seconds"
}

/**
 * The backoff before retry number `retry` (0-based): exponential, capped, with
 * "equal jitter" (half fixed, half random), and never shorter than what the
 * upstream asked for with Retry-After.
 */
export const backoffMillis = (
  policy: RetryPolicy,
  retry: number,
  random: number,
  retryAfterMillis?: number | undefined
): number => {
  const base = Duration.toMillis(policy.baseDelay)
  const cap = Duration.toMillis(policy.maxDelay)
  const exp = Math.min(cap, base * 2 ** retry)
  const jittered = exp / 2 + (exp / 2) * random
  return Math.round(Math.max(jittered, retryAfterMillis ?? 0))
}

/**
 * Retry `attempt` on `TransientFailure` with the policy's capped, jittered
 * backoff, honouring Retry-After. Other errors pass through at once. After
 * the last attempt (or when Retry-After exceeds `maxRetryAfter`) the last
 * `TransientFailure` is returned; `onRetry` sees each retry before its wait.
 */
export const retryTransient = (
  policy: RetryPolicy,
  onRetry?: (failure: TransientFailure, retry: number, delayMillis: number) => Effect.Effect<void>
) =>
<A, E, R>(attempt: Effect.Effect<A, E | TransientFailure, R>): Effect.Effect<A, E | TransientFailure, R> => {
  const maxRetryAfter = Duration.toMillis(policy.maxRetryAfter)
  const loop = (retry: number): Effect.Effect<A, E | TransientFailure, R> =>
    Effect.catchIf(
      attempt,
      (e): e is TransientFailure => e instanceof TransientFailure,
      (failure) => {
        if (retry + 1 >= policy.maxAttempts) return Effect.fail(failure)
        if (failure.retryAfterMillis !== undefined && failure.retryAfterMillis > maxRetryAfter) {
          return Effect.fail(failure)
        }
        return Effect.flatMap(Random.next, (random) => {
          const delay = backoffMillis(policy, retry, random, failure.retryAfterMillis)
          return (onRetry ? onRetry(failure, retry, delay) : Effect.void).pipe(
            Effect.zipRight(Effect.sleep(Duration.millis(delay))),
            Effect.zipRight(loop(retry + 1))
          )
        })
      }
    )
  return loop(0)
}

/**
 * Spaces request starts at least `interval` apart and lets at most
 * `concurrency` requests be in flight. Time comes from Effect's Clock, so a
 * TestClock drives it in tests.
 */
export interface RateLimiter {
  /** The current interval (a shared limiter only ever widens it). */
  readonly interval: Duration.Duration
  readonly concurrency: number
  /** Run `request` in the next free slot; the slot is held until it ends. */
  readonly withPermit: <A, E, R>(request: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** Options of a rate limiter. */
export interface RateLimiterOptions {
  /** Minimum time between the starts of two requests. */
  readonly interval: Duration.DurationInput
  /** Requests in flight at once (default 1: one connection at a time). */
  readonly concurrency?: number | undefined
}

/** A new, unshared rate limiter. Prefer `sharedRateLimiter` in adapters. */
export const makeRateLimiter = (options: RateLimiterOptions): RateLimiter & {
  /** Lengthen the interval to at least `interval` (never shortens it). */
  readonly widen: (interval: Duration.DurationInput) => void
} => {
  let interval = Duration.decode(options.interval)
  let intervalMillis = Duration.toMillis(interval)
  const concurrency = Math.max(1, options.concurrency ?? 1)
  const inFlight = Effect.unsafeMakeSemaphore(concurrency)
  const reserve = Effect.unsafeMakeSemaphore(1)
  let next: number | undefined
  // Reserve the next start slot (under a short lock), then wait for it outside the lock.
  const slot = reserve.withPermits(1)(
    Effect.map(Clock.currentTimeMillis, (now) => {
      // A clock that went backwards (another TestClock, a reset) must not block forever.
      if (next !== undefined && next - now > intervalMillis) next = undefined
      const at = next === undefined ? now : Math.max(now, next)
      next = at + intervalMillis
      return at - now
    })
  )
  return {
    get interval() {
      return interval
    },
    concurrency,
    widen: (longer) => {
      const d = Duration.decode(longer)
      if (Duration.greaterThan(d, interval)) {
        interval = d
        intervalMillis = Duration.toMillis(d)
      }
    },
    withPermit: (request) =>
      inFlight.withPermits(1)(
        Effect.flatMap(slot, (wait) => wait > 0 ? Effect.zipRight(Effect.sleep(Duration.millis(wait)), request) : request)
      )
  }
}

const registry = new Map<string, ReturnType<typeof makeRateLimiter>>()

/**
 * The process-wide rate limiter for `key` (use the upstream's origin, e.g.
 * `https://export.arxiv.org`): every layer built in this process, CLI or MCP,
 * shares it, so building a layer twice never doubles the rate. Created on
 * first use with `options`; a later caller asking for a longer interval
 * widens it (never narrows it); the first caller's concurrency stays.
 */
export const sharedRateLimiter = (key: string, options: RateLimiterOptions): RateLimiter => {
  const existing = registry.get(key)
  if (existing !== undefined) {
    existing.widen(options.interval)
    return existing
  }
  const limiter = makeRateLimiter(options)
  registry.set(key, limiter)
  return limiter
}

/** The origin (`scheme://host:port`) of a URL, the natural key of a shared limiter. */
export const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/** Read a header, case-insensitively. */
export const header = (response: TextResponse, name: string): Option.Option<string> =>
  Option.fromNullable(response.headers[name.toLowerCase()])
