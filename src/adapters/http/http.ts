/**
 * The HTTP policy shared by the live adapters, built from the platform's
 * `HttpClient`:
 *
 * - `politeClient`: every request waits for its service's slot (the
 *   `UpstreamLimiter` the adapter takes from its layer), runs with a
 *   per-attempt timeout and is read in full inside that slot; a 429/503 with
 *   Retry-After holds back the whole service; an adapter's own reading of odd
 *   answers (arXiv's HTTP 200 "Rate exceeded.", a 406 carrying a feed) is a
 *   response transform applied there;
 * - `withRetries`: `HttpClient.filterStatusOk` and `HttpClient.retryTransient`
 *   with a capped, jittered exponential `Schedule` that honours Retry-After
 *   (and gives up at once when the upstream asks for longer than we wait);
 * - `withDeadline`: one overall deadline per call, queue included, whose
 *   message says how long the queue was; a call that cannot start before its
 *   deadline fails at once.
 *
 * Adapters translate what is left (`ResponseError`, `TransientFailure`,
 * transport errors) into their port's typed errors with `failureOf`.
 *
 * @since 0.1.0
 */
import { HttpClient, HttpClientError, HttpClientResponse } from "@effect/platform"
import { Cause, Chunk, Clock, Data, Duration, Effect, FiberRef, Schedule, Stream } from "effect"
import { globalValue } from "effect/GlobalValue"
import { UpstreamUnavailable } from "../../core/errors.js"
import { reportWait, type UpstreamWait, withWaitReporter } from "../../core/waiting.js"
import { VERSION } from "../../version.js"
import { callDeadline, callRequest, type CallRequests, QueueTooLong, type Spacing, type UpstreamLimiter } from "./UpstreamLimiter.js"

/** The version the User-Agent announces. */
export const CLIENT_VERSION: string = VERSION

/** Where people can learn what this client is. */
export const PROJECT_URL = "https://www.npmjs.com/package/arxiv-companion"

/**
 * A descriptive User-Agent with a contact, as arXiv's terms ask:
 * `arxiv-companion/<version> (+https://www.npmjs.com/package/arxiv-companion; mailto:you@example.org)`.
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

/**
 * A failure worth another attempt that the platform cannot see from the
 * status alone: a timeout, a body cut off or unreadable, an answer that only
 * looks like success. Adapters raise it in their response transform.
 */
export class TransientFailure extends Data.TaggedError("TransientFailure")<{
  readonly reason: string
  readonly status?: number | undefined
  /** What the upstream asked us to wait, from Retry-After or an equivalent. */
  readonly retryAfterMillis?: number | undefined
  /** Attempts made before giving up (set by `retryTransientFailures`). */
  readonly attempts?: number | undefined
}> {}

/**
 * An answer larger than the cap: reading stopped when the cap was passed (or
 * at once, when Content-Length said so). Not worth another attempt: the next
 * answer would be as large.
 */
export class AnswerTooLarge extends Data.TaggedError("AnswerTooLarge")<{
  readonly maxBytes: number
  /** What Content-Length announced, when it did. */
  readonly announcedBytes?: number | undefined
}> {
  get reason(): string {
    const cap = `${Math.round(this.maxBytes / 1_000_000)} MB`
    return this.announcedBytes === undefined
      ? `its answer is larger than ${cap}, more than any answer this client reads; not read further, not asked again`
      : `its answer is ${Math.round(this.announcedBytes / 1_000_000)} MB, more than the ${cap} this client reads; not read, not asked again`
  }
}

/** The default cap on one answer (bytes). */
export const MAX_BODY_BYTES = 64_000_000

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

/** Everything the policy's client can fail with before an adapter translates it. */
export type PolicyError = HttpClientError.HttpClientError | TransientFailure | QueueTooLong | AnswerTooLarge

const NULL_BODY = new Set([101, 204, 205, 304])

/**
 * The wait an error carries: Retry-After of a refused response (a date is
 * read against `nowMillis`), or what a `TransientFailure` recorded.
 */
export const retryAfterOf = (error: unknown, nowMillis: number): number | undefined => {
  if (error instanceof TransientFailure) return error.retryAfterMillis
  if (HttpClientError.isHttpClientError(error) && error._tag === "ResponseError") {
    return parseRetryAfter(error.response.headers["retry-after"], nowMillis)
  }
  return undefined
}

/** Options of {@link politeClient}. */
export interface PoliteOptions {
  /** The service's limiter (from its layer: `ArxivLimiter`, `OpenAlexLimiter`, ...). */
  readonly limiter: UpstreamLimiter
  /** One attempt, headers and body together. */
  readonly timeout: Duration.DurationInput
  /**
   * The service's reading of odd answers, on the response read in full: e.g.
   * arXiv's HTTP 200 "Rate exceeded." becomes a 429, a 406 carrying a feed a
   * 200. Runs inside the slot, before the Retry-After check.
   */
  readonly adjust?: ((response: HttpClientResponse.HttpClientResponse, body: Uint8Array) => number) | undefined
  /** Largest body read (bytes): reading stops as soon as it is passed (`AnswerTooLarge`, not retried). Default 64 MB. */
  readonly maxBodyBytes?: number | undefined
  /** What the next request is spaced from, when not the limiter's own spacing ({@link Spacing}). */
  readonly spacing?: Spacing | undefined
}

/**
 * The body of `response`, read as it arrives and never more than `maxBytes`
 * of it: a Content-Length above the cap fails before reading, and a body
 * that passes it fails at the chunk that does (the rest is not downloaded).
 */
export const readCapped = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<Uint8Array, HttpClientError.ResponseError | AnswerTooLarge> => {
  const announced = Number(response.headers["content-length"])
  if (Number.isFinite(announced) && announced > maxBytes) {
    return Effect.zipRight(
      // let the connection go without reading it
      Stream.runDrain(Stream.take(response.stream, 0)).pipe(Effect.ignore),
      Effect.fail(new AnswerTooLarge({ maxBytes, announcedBytes: announced }))
    )
  }
  return response.stream.pipe(
    Stream.runFoldEffect({ chunks: Chunk.empty<Uint8Array>(), size: 0 }, (acc, chunk) =>
      acc.size + chunk.length > maxBytes
        ? Effect.fail(new AnswerTooLarge({ maxBytes }))
        : Effect.succeed({ chunks: Chunk.append(acc.chunks, chunk), size: acc.size + chunk.length })),
    Effect.map(({ chunks, size }) => {
      const bytes = new Uint8Array(size)
      let at = 0
      for (const chunk of chunks) {
        bytes.set(chunk, at)
        at += chunk.length
      }
      return bytes
    })
  )
}

/**
 * A client whose every request waits for the service's slot, runs within
 * `timeout` and is read in full before the slot is released (one connection
 * at a time means the body too). The response handed on is buffered: its
 * `text`, `json` and `arrayBuffer` can be read after the slot is gone. A 429
 * or 503 holds the whole service back for its Retry-After (or one interval
 * without one). Timeouts and bodies cut off become `TransientFailure`.
 */
export const politeClient = (
  client: HttpClient.HttpClient,
  options: PoliteOptions
): HttpClient.HttpClient.With<PolicyError> => {
  const timeout = Duration.decode(options.timeout)
  const limiter = options.limiter
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES
  return HttpClient.transform(
    client,
    (effect, request): Effect.Effect<HttpClientResponse.HttpClientResponse, PolicyError> =>
      limiter.withPermit((answered) =>
        effect.pipe(
          Effect.tap(() => answered),
          Effect.flatMap((response) =>
            Effect.flatMap(readCapped(response, maxBody), (bytes) => {
              const status = options.adjust?.(response, bytes) ?? response.status
              return Effect.succeed(HttpClientResponse.fromWeb(
                request,
                new Response(NULL_BODY.has(status) ? null : bytes, { status, headers: response.headers })
              ))
            })
          ),
          Effect.tap((response) =>
            response.status === 429 || response.status === 503
              ? Effect.flatMap(Clock.currentTimeMillis, (now) =>
                limiter.holdBack(
                  parseRetryAfter(response.headers["retry-after"], now) ??
                    (response.status === 429 ? Duration.toMillis(limiter.interval) : 0)
                ))
              : Effect.void
          ),
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () => new TransientFailure({ reason: `no answer within ${spoken(timeout)}` })
          }),
          Effect.catchIf(
            (e): e is HttpClientError.ResponseError => HttpClientError.isHttpClientError(e) && e._tag === "ResponseError",
            (e) => Effect.fail(new TransientFailure({ reason: describeHttpError(e), status: e.response.status }))
          )
        ), { spacing: options.spacing })
  )
}

const spoken = (d: Duration.Duration): string => {
  const ms = Duration.toMillis(d)
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`
}

/**
 * The retry schedule of a policy: exponential from `baseDelay`, capped at
 * `maxDelay`, with equal jitter (half fixed, half random), never shorter than
 * the upstream's Retry-After, at most `maxAttempts - 1` retries, and none at
 * all when the upstream asks for longer than `maxRetryAfter`. Each retry is
 * logged at debug level and reported to whoever listens (`reportWait`).
 */
export const retrySchedule = (
  policy: RetryPolicy,
  service: string,
  options: { readonly report?: boolean | undefined } = {}
): Schedule.Schedule<unknown, unknown> => {
  const cap = Duration.decode(policy.maxDelay)
  const maxRetryAfter = Duration.toMillis(policy.maxRetryAfter)
  return Schedule.exponential(policy.baseDelay, 2).pipe(
    Schedule.modifyDelay((_, delay) => Duration.min(delay, cap)),
    Schedule.jitteredWith({ min: 0.5, max: 1 }),
    Schedule.intersect(Schedule.recurs(Math.max(0, policy.maxAttempts - 1))),
    Schedule.intersect(Schedule.identity<unknown>()),
    // decided before the retry is announced: a failure no retry can change is never "tried again"
    Schedule.whileInputEffect((error) =>
      Effect.map(Clock.currentTimeMillis, (now) => isRetryable(error) && (retryAfterOf(error, now) ?? 0) <= maxRetryAfter)
    ),
    Schedule.modifyDelayEffect(([[, retries], error], delay) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const wait = Math.max(Duration.toMillis(delay), retryAfterOf(error, now) ?? 0)
        const attempt = retries + 2
        const reason = failureOf(error, now).reason
        yield* Effect.logDebug(`${service}: ${reason}; attempt ${attempt}/${policy.maxAttempts} in ${Math.round(wait)} ms`)
        if (options.report === false) return Duration.millis(wait)
        yield* reportWait({
          service,
          reason: "retry",
          ahead: 0,
          remainingMillis: wait,
          waitedMillis: 0,
          message: `${service}: ${reason}; trying again in ${Math.max(1, Math.round(wait / 1000))} s ` +
            `(attempt ${attempt} of ${policy.maxAttempts})`
        })
        return Duration.millis(wait)
      })
    ),
    Schedule.map((): unknown => undefined)
  )
}

/** How many times the current call's request was sent: set per call by `countingRetries`, counted by `withRetries`. */
const sends = globalValue(Symbol.for("arxiv-companion/http/sends"), () => FiberRef.unsafeMake(0))

/**
 * Run one call through a `withRetries` client; a failure goes to `onFailure`
 * with the number of retries the call really had (none when, say, a
 * Retry-After beyond the cap ended it at once), for a message that says so.
 */
export const countingRetries = <A, E, R, B, E2, R2>(
  call: Effect.Effect<A, E, R>,
  onFailure: (error: E, retries: number) => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E2, R | R2> =>
  Effect.locally(
    Effect.catchAll(call, (error) => Effect.flatMap(FiberRef.get(sends), (n) => onFailure(error, Math.max(0, n - 1)))),
    sends,
    0
  )

/** ", after 2 retries"; nothing when the request was not retried. */
export const afterRetries = (retries: number): string =>
  retries === 0 ? "" : `, after ${retries} ${retries === 1 ? "retry" : "retries"}`

/**
 * The platform's status check and retries on a polite client:
 * `filterStatusOk`, then `retryTransient` (transport errors, timeouts,
 * 408/425/429/5xx, and the adapter's `TransientFailure`s) on `retrySchedule`.
 */
export const withRetries = (policy: RetryPolicy, service: string) =>
<E>(client: HttpClient.HttpClient.With<E>): HttpClient.HttpClient.With<E | HttpClientError.ResponseError> =>
  HttpClient.retryTransient(HttpClient.filterStatusOk(HttpClient.tapRequest(client, () => FiberRef.update(sends, (n) => n + 1))), {
    mode: "errors-only",
    while: (e: E | HttpClientError.ResponseError) => isRetryable(e),
    schedule: retrySchedule(policy, service)
  })

/**
 * The same retries for a client that is not the platform's HttpClient (an
 * SDK's promises, e.g. Notion's): its `TransientFailure`s are retried on
 * `retrySchedule`, logged at debug level but not reported as waits; anything
 * else passes through at once.
 */
export const retryTransientFailures = (policy: RetryPolicy, service: string) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    let attempts = 0
    const attempt: Effect.Effect<A, E, R> = Effect.zipRight(Effect.sync(() => void attempts++), self)
    const retried: Effect.Effect<A, E, R> = Effect.retry(attempt, {
      while: (e: E) => e instanceof TransientFailure,
      schedule: retrySchedule(policy, service, { report: false })
    })
    return Effect.mapError(retried, (e): E => (e instanceof TransientFailure ? new TransientFailure({ reason: e.reason, status: e.status, retryAfterMillis: e.retryAfterMillis, attempts }) as E : e))
  })

/** A `TransientFailure`, a transport error, or a refused response whose status is worth another attempt. */
const isRetryable = (e: unknown): boolean =>
  e instanceof TransientFailure ||
  Cause.isTimeoutException(e) ||
  (HttpClientError.isHttpClientError(e) &&
    (e._tag === "RequestError" ? e.reason === "Transport" : isTransientStatus(e.response.status)))

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
    : error.reason === "StatusCode"
    ? `HTTP ${error.response.status}`
    : `response ${error.reason.toLowerCase()} error`
  return detail === "" || error.reason === "StatusCode" ? what : `${what} (${detail})`
}

/** What a final failure of the policy's client says: a reason, the status and Retry-After when known. */
export const failureOf = (
  error: unknown,
  nowMillis = Date.now()
): { readonly reason: string; readonly status?: number | undefined; readonly retryAfterMillis?: number | undefined } => {
  if (error instanceof TransientFailure) {
    return { reason: error.reason, status: error.status, retryAfterMillis: error.retryAfterMillis }
  }
  if (error instanceof QueueTooLong) {
    return { reason: error.reason, retryAfterMillis: error.heldMillis > 0 ? error.heldMillis : undefined }
  }
  if (error instanceof AnswerTooLarge) return { reason: error.reason }
  if (HttpClientError.isHttpClientError(error)) {
    if (error._tag === "ResponseError") {
      return {
        reason: describeHttpError(error),
        status: error.response.status,
        retryAfterMillis: retryAfterOf(error, nowMillis)
      }
    }
    return { reason: describeHttpError(error) }
  }
  return { reason: String(error) }
}

/** The body of a refused response (buffered by `politeClient`), or "" when it cannot be read. */
export const bodyOf = (error: HttpClientError.ResponseError): Effect.Effect<string> =>
  Effect.orElseSucceed(error.response.text, () => "")

/** A failure of the policy's client as `UpstreamUnavailable` of `service`. */
export const unavailable = (service: string, error: unknown, nowMillis?: number): UpstreamUnavailable => {
  const f = failureOf(error, nowMillis)
  return new UpstreamUnavailable({
    service,
    reason: f.reason,
    ...(f.status === undefined ? {} : { status: f.status }),
    ...retryAfterField(f.retryAfterMillis)
  })
}

/** `retryAfterSeconds` for an error, only for a real wait: none, or one of 0 s, says nothing. */
export const retryAfterField = (millis: number | undefined): { readonly retryAfterSeconds?: number } =>
  millis === undefined || millis <= 0 ? {} : { retryAfterSeconds: Math.ceil(millis / 1000) }

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/**
 * One overall deadline for a call to `limiter`'s service, its wait in the
 * queue and its retries included. A request that could not start before the
 * deadline is refused when it joins the queue (`QueueTooLong`, which the
 * adapter reports as the upstream unavailable, saying how long the queue
 * is); a call that runs out of time says what it was waiting for: an answer
 * to a request that went out N s ago, or the last wait it reported.
 */
export const withDeadline = (limiter: UpstreamLimiter, deadline: Duration.DurationInput) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | UpstreamUnavailable, R> =>
  Effect.gen(function*() {
    const limit = Duration.decode(deadline)
    const service = limiter.service
    const end = (yield* Clock.currentTimeMillis) + Duration.toMillis(limit)
    const request: CallRequests = { sentAt: undefined }
    let last: UpstreamWait | undefined
    const waitingFor = (now: number): string =>
      request.sentAt !== undefined
        ? `: its request went out ${Math.max(0, Math.round((now - request.sentAt) / 1000))} s ago and ${service} has not answered`
        : last === undefined
        ? ""
        : ` (${last.message})`
    // decided when the time is up, before the call is interrupted
    const outOfTime = Effect.flatMap(Effect.sleep(limit), () =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.fail(
          new UpstreamUnavailable({ service, reason: `no answer within this call's ${spoken(limit)} deadline${waitingFor(now)}` })
        )))
    return yield* Effect.raceFirst(
      self.pipe(
        withWaitReporter((wait) => Effect.sync(() => void (last = wait))),
        Effect.locally(callDeadline, end),
        Effect.locally(callRequest, request)
      ),
      outOfTime
    )
  })
