/**
 * Politeness towards one upstream service, for the whole process: at most
 * `concurrency` requests in flight, request starts at least `interval` apart,
 * callers served first come first served, and a Retry-After from the upstream
 * holding back every caller, not only the one that received it.
 *
 * The interval is measured from what really happened, never from a plan: from
 * the moment a request actually started, and (with `spacing: "answer"`, for
 * arXiv) from the moment its answer began to arrive — the upstream has
 * certainly received a request by then, so the gaps it sees between two
 * requests are never shorter than `interval`, however the latency varies.
 *
 * Each service has its own limiter (`ArxivLimiter`, `OpenAlexLimiter`,
 * `JudgeLimiter`, `ArxivWebLimiter`), provided as a layer. The default layers
 * hand out one instance per service and address for the whole process (kept
 * in a `globalValue`, so even two copies of this module — the CLI and the
 * library bundled apart — share it): two layers built in one process never
 * double the rate. Two services on one address do not share a slot.
 *
 * Effect's own `RateLimiter` spaces starts only: it bounds neither the
 * requests in flight nor takes a Retry-After, and cannot say how long the
 * queue is; hence this module.
 *
 * Time comes from Effect's Clock, so a TestClock drives it in tests. While a
 * caller waits longer than a second it reports its place in the queue
 * (`reportWait`, src/core/waiting.ts).
 *
 * @since 0.2.0
 */
import { Clock, Context, Data, Deferred, Duration, Effect, Exit, FiberRef, Layer, Option } from "effect"
import { globalValue } from "effect/GlobalValue"
import { reportWait } from "../../core/waiting.js"
import * as Lease from "./UpstreamLease.js"
import type { LeaseWait, UpstreamLease } from "./UpstreamLease.js"
import { sentSince } from "./requestStarts.js"

/** How a limiter measures the interval between two requests. */
export type Spacing =
  /** From the start of one request to the start of the next. */
  | "start"
  /** Also from the moment the previous answer began to arrive (one connection at a time, arXiv). */
  | "answer"

/** Options of a limiter. */
export interface UpstreamLimiterOptions {
  /** The upstream, as users know it ("arXiv"): named in reports and messages. */
  readonly service: string
  /** Minimum time between request starts. */
  readonly interval: Duration.DurationInput
  /** Requests in flight at once (default 1). */
  readonly concurrency?: number | undefined
  /** See {@link Spacing}; default "start". */
  readonly spacing?: Spacing | undefined
  /** A waiting caller reports when it starts waiting (if longer than 1 s) and then this often; default 5 s. */
  readonly reportEvery?: Duration.DurationInput | undefined
  /**
   * Added to the interval when spacing starts (not in messages): a request
   * reaches the upstream a little after its start is counted, more so on a
   * busy machine, so the upstream never sees two closer than `interval`.
   * Default 0.
   */
  readonly margin?: Duration.DurationInput | undefined
  /**
   * The upstream's lease shared with the user's other processes
   * (UpstreamLease.ts): every start is also spaced across them, and with
   * `concurrency` 1 no two requests of any of them are in flight at once.
   */
  readonly lease?: UpstreamLease | undefined
  /**
   * The upstream's origin: a start is also counted from the moment the
   * request's headers really went out (requestStarts.ts), when later.
   */
  readonly origin?: string | undefined
}

/** What a new request would face right now. */
export interface QueueState {
  /** Requests in flight or waiting before it. */
  readonly ahead: number
  /** The least time until it could start (ms). */
  readonly waitMillis: number
  /** How long the upstream asked everyone to hold back, from now (ms; 0 when it did not). */
  readonly heldMillis: number
}

/**
 * When the current call must be done by (Clock milliseconds), if it has a
 * deadline: set by `withDeadline` (http.ts) around one adapter call. A request
 * joining a queue it cannot get through before then is refused at once.
 */
export const callDeadline: FiberRef.FiberRef<number | undefined> = globalValue(
  Symbol.for("arxiv-companion/callDeadline"),
  () => FiberRef.unsafeMake<number | undefined>(undefined)
)

/**
 * When the current call's request went out (Clock milliseconds), while it
 * waits for the answer; set by the limiter on a record `withDeadline`
 * (http.ts) puts around one call, so a call out of time can say whether it
 * was still queued or waiting for an answer.
 */
export interface CallRequests {
  sentAt: number | undefined
}

/** The current call's {@link CallRequests} record, if one is kept. */
export const callRequest: FiberRef.FiberRef<CallRequests | undefined> = globalValue(
  Symbol.for("arxiv-companion/callRequest"),
  () => FiberRef.unsafeMake<CallRequests | undefined>(undefined)
)

/** Note in the call's record (if any) that its request went out now, and that it ended when `request` ends. */
const sending = <A, E, R>(request: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.zip(FiberRef.get(callRequest), Clock.currentTimeMillis), ([record, now]) => {
    if (record === undefined) return request
    record.sentAt = now
    return Effect.ensuring(request, Effect.sync(() => void (record.sentAt = undefined)))
  })

/** A request that could not start before its call's deadline: the queue it found, in words. */
export class QueueTooLong extends Data.TaggedError("QueueTooLong")<{
  readonly service: string
  /** Requests in flight or waiting before it. */
  readonly ahead: number
  /** The least time it would have waited (ms). */
  readonly waitMillis: number
  /** The upstream's hold (Retry-After) from now (ms), 0 when none. */
  readonly heldMillis: number
  /** Time left before the call's deadline (ms). */
  readonly leftMillis: number
  readonly intervalMillis: number
  /** How long the upstream's last answer took (ms), counted in: a request whose answer would come too late is not sent. */
  readonly answerMillis?: number | undefined
  /** The wait is for the user's other processes (their requests, their Retry-After), not this one's queue. */
  readonly elsewhere?: boolean | undefined
}> {
  /** Why, for a person: how long the queue is and what to do. */
  get reason(): string {
    const left = `the ${Math.max(0, Math.round(this.leftMillis / 1000))} s left before this call's deadline`
    const answer = this.answerMillis === undefined || this.answerMillis < 1000
      ? ""
      : ` and about ${Math.round(this.answerMillis / 1000)} s for its answer`
    if (this.heldMillis >= this.waitMillis && this.heldMillis > 0) {
      return `it asked ${this.elsewhere === true ? "every process of yours" : "this process"} to wait ${
        Math.ceil(this.heldMillis / 1000)
      } s (Retry-After), longer than ${left}`
    }
    if (this.elsewhere === true) {
      return `another arxiv-companion process of yours is using ${this.service} (one request every ${
        spoken(this.intervalMillis)
      } for all of them${answer}), longer than ${left}; try again in a minute`
    }
    return `${plural(this.ahead, "request")} of this process ${this.ahead === 1 ? "is" : "are"} queued ahead of this one ` +
      `(about ${Math.ceil(this.waitMillis / 1000)} s at one request every ${spoken(this.intervalMillis)}${answer}), longer than ${left}; ` +
      "ask for less at once, or try again in a minute"
  }
}

/** A limiter for one upstream service. */
export interface UpstreamLimiter {
  readonly service: string
  /** The current interval (a shared limiter only ever widens it). */
  readonly interval: Duration.Duration
  readonly concurrency: number
  /**
   * Run a request in the next free slot; the slot is held until it ends.
   * The request may call `answered` when its answer begins to arrive.
   * `spacing` overrides the limiter's for this request (what it counts the
   * next slot from): an arXiv API call is spaced from its start, a harvest's
   * page from its answer.
   */
  readonly withPermit: <A, E, R>(
    request: (answered: Effect.Effect<void>) => Effect.Effect<A, E, R>,
    options?: { readonly spacing?: Spacing | undefined }
  ) => Effect.Effect<A, E | QueueTooLong, R>
  /** No request of this limiter starts sooner than `millis` from now (the upstream's Retry-After). */
  readonly holdBack: (millis: number) => Effect.Effect<void>
  /** What a request joining now would face. */
  readonly state: Effect.Effect<QueueState>
}

/** A clock reading this far behind the previous one is a jump back, not jitter. */
const CLOCK_JUMP_MILLIS = 60_000

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

const spoken = (millis: number) => millis % 1000 === 0 ? `${millis / 1000} s` : `${millis} ms`

const aboutSeconds = (millis: number) => `about ${Math.max(1, Math.ceil(millis / 1000))} s`

/** A new, unshared limiter. Adapters take theirs from a layer (see `layerShared`). */
export const make = (options: UpstreamLimiterOptions): UpstreamLimiter & {
  /** Lengthen the interval to at least `interval` (never shortens it). */
  readonly widen: (interval: Duration.DurationInput) => void
  /** Share the budget with the user's other processes from now on (once; later leases are ignored). */
  readonly useLease: (lease: UpstreamLease) => void
  /** Whether the budget is shared with the user's other processes. */
  readonly leased: boolean
} => {
  const service = options.service
  let interval = Duration.decode(options.interval)
  let intervalMillis = Duration.toMillis(interval)
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1))
  const spacing = options.spacing ?? "start"
  const reportEvery = Duration.decode(options.reportEvery ?? "5 seconds")
  const marginMillis = Duration.toMillis(Duration.decode(options.margin ?? 0))
  let lease = options.lease
  // how long the last answer took, start to end (ms): a request that cannot be answered before its deadline is not sent
  let answerMillis = 0
  const queue: Array<Deferred.Deferred<void>> = []
  let inFlight = 0
  // holders of a permit still waiting for their start
  let pending = 0
  // earliest start of the next request, and the upstream's hold, in Clock milliseconds
  let nextAt = Number.NEGATIVE_INFINITY
  let heldUntil = Number.NEGATIVE_INFINITY

  const dispatch = () => {
    while (inFlight < concurrency && queue.length > 0) {
      inFlight++
      Deferred.unsafeDone(queue.shift()!, Exit.void)
    }
  }
  const release = Effect.sync(() => {
    inFlight--
    dispatch()
  })

  // the latest clock reading, to notice a clock that jumped back
  let lastNow = Number.NEGATIVE_INFINITY
  /**
   * A clock that jumped back (a TestClock after the live one, a corrected
   * system clock) must not block for ages: times taken on the old clock are
   * forgotten. A long hold on a steady clock (Retry-After: 3600) is kept.
   */
  const sane = (now: number) => {
    if (now < lastNow - CLOCK_JUMP_MILLIS) {
      nextAt = Number.NEGATIVE_INFINITY
      heldUntil = Number.NEGATIVE_INFINITY
    }
    lastNow = now
  }

  /**
   * What a request with `queued` requests waiting for a permit before it
   * faces: those, the holders not started yet and the next free start. Never
   * more than it will wait (a running request may move the next start later,
   * never earlier), so a deadline refuses no call that could have made it.
   */
  const stateAt = (now: number, queued: number): QueueState => {
    sane(now)
    const free = Math.max(nextAt, heldUntil, now)
    const rounds = Math.floor((queued + pending) / concurrency)
    return {
      ahead: queued + inFlight,
      waitMillis: Math.max(0, free - now) + rounds * (intervalMillis + marginMillis),
      heldMillis: Math.max(0, heldUntil - now)
    }
  }

  const report = (reason: "queued" | "held", state: QueueState, waited: number) =>
    reportWait({
      service,
      reason,
      ahead: state.ahead,
      remainingMillis: state.waitMillis,
      waitedMillis: waited,
      message: reason === "held"
        ? `Waiting for ${service}: it asked to wait ${aboutSeconds(state.heldMillis)} (Retry-After)`
        : `Waiting for ${service}: ${plural(state.ahead, "request")} ahead, ${aboutSeconds(state.waitMillis)} ` +
          `(${service} allows one request every ${spoken(intervalMillis)})`
    })

  /**
   * Wait for a permit, reporting the place in the queue while it lasts. A
   * call with a deadline it cannot meet from here is refused before it joins.
   */
  const acquire = (startedAt: number, deadline: number | undefined) =>
    Effect.suspend((): Effect.Effect<void, QueueTooLong> => {
      if (deadline !== undefined) {
        const state = stateAt(startedAt, queue.length)
        if (state.waitMillis > 0 && startedAt + state.waitMillis + answerMillis >= deadline) {
          return Effect.fail(tooLong(state, deadline - startedAt))
        }
      }
      if (inFlight < concurrency && queue.length === 0) {
        inFlight++
        return Effect.void
      }
      const turn = Deferred.unsafeMake<void>(undefined as never)
      queue.push(turn)
      const wait: Effect.Effect<void> = Effect.gen(function*() {
        let first = true
        for (;;) {
          const now = yield* Clock.currentTimeMillis
          const position = queue.indexOf(turn)
          if (position < 0) return
          const state = stateAt(now, position)
          if (!first || state.waitMillis > 1000) yield* report(state.heldMillis > 0 ? "held" : "queued", state, now - startedAt)
          first = false
          const done = yield* Deferred.await(turn).pipe(Effect.timeout(reportEvery), Effect.option)
          if (Option.isSome(done)) return
        }
      })
      return wait.pipe(
        Effect.onInterrupt(() =>
          Effect.sync(() => {
            const i = queue.indexOf(turn)
            if (i >= 0) queue.splice(i, 1)
            else {
              // granted in the same instant as interrupted: hand the permit on
              inFlight--
              dispatch()
            }
          })
        )
      )
    })

  /**
   * With a permit: wait until the next start is allowed. The check and the
   * claim happen without a yield in between, so two holders (concurrency > 1)
   * never take the same slot; the loop re-checks after each sleep, since the
   * upstream may have asked for more meanwhile and a timer may fire early.
   */
  const slot = (startedAt: number, deadline: number | undefined) =>
    Effect.suspend(() => {
      pending++
      return waitForStart(startedAt, deadline).pipe(Effect.ensuring(Effect.sync(() => void pending--)))
    })

  const tooLong = (state: QueueState, leftMillis: number, elsewhere = false) =>
    new QueueTooLong({
      service,
      ...state,
      leftMillis,
      intervalMillis,
      ...(answerMillis > 0 ? { answerMillis } : {}),
      ...(elsewhere ? { elsewhere } : {})
    })

  const waitForStart = (startedAt: number, deadline: number | undefined) =>
    Effect.gen(function*() {
      let reported = false
      for (;;) {
        const now = yield* Clock.currentTimeMillis
        sane(now)
        const at = Math.max(now, nextAt, heldUntil)
        if (at <= now) {
          // an answer that would come after the call's deadline is of no use: the request is not sent
          if (deadline !== undefined && now + answerMillis >= deadline) {
            return yield* Effect.fail(tooLong({ ahead: 0, waitMillis: 0, heldMillis: 0 }, deadline - now))
          }
          nextAt = Math.max(nextAt, now + intervalMillis + marginMillis)
          return
        }
        if (at - now > 1000 || reported) {
          const state = { ahead: 0, waitMillis: at - now, heldMillis: Math.max(0, heldUntil - now) }
          yield* report(heldUntil > now ? "held" : "queued", state, now - startedAt)
          reported = true
        }
        yield* Effect.sleep(Duration.millis(Math.min(at - now, Duration.toMillis(reportEvery))))
      }
    })

  /** The next slot also counts from the moment the headers went out, when the client says (later than counted). */
  const spaceFromHeaders = (since: number) =>
    Effect.suspend(() => {
      const sent = options.origin === undefined ? undefined : sentSince(options.origin, since)
      if (sent === undefined) return Effect.void
      return Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          sane(now)
          // the wall-clock moment on this fiber's Clock; never later than now
          nextAt = Math.max(nextAt, Math.min(now, now - (Date.now() - sent)) + intervalMillis + marginMillis)
        }))
    })

  /** The next slot counts from now (the answer began to arrive, or the request ended unanswered). */
  const spaceFromNow = Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.sync(() => {
      sane(now)
      nextAt = Math.max(nextAt, now + intervalMillis + marginMillis)
    }))

  /** Waiting for the user's other processes: give up when the answer would come after the call's deadline. */
  const leaseCheck = (wait: LeaseWait, deadline: number | undefined): Effect.Effect<void, QueueTooLong> =>
    deadline === undefined ? Effect.void : Effect.flatMap(Clock.currentTimeMillis, (now) =>
      now + wait.waitMillis + answerMillis >= deadline
        ? Effect.fail(tooLong({ ahead: 0, waitMillis: wait.waitMillis, heldMillis: wait.heldMillis }, deadline - now, true))
        : Effect.void)

  const leaseReport = (wait: LeaseWait, startedAt: number): Effect.Effect<void> =>
    wait.waitMillis <= 1000 ? Effect.void : Effect.flatMap(Clock.currentTimeMillis, (now) =>
      reportWait({
        service,
        reason: wait.heldMillis > 0 ? "held" : "queued",
        ahead: 0,
        remainingMillis: wait.waitMillis,
        waitedMillis: now - startedAt,
        message: wait.heldMillis > 0
          ? `Waiting for ${service}: it asked to wait ${aboutSeconds(wait.heldMillis)} (Retry-After, told another process of yours)`
          : `Waiting for ${service}: another arxiv-companion process of yours is using it, ${aboutSeconds(wait.waitMillis)} ` +
            `(${service} allows one request every ${spoken(intervalMillis)} for all of them)`
      }))

  const withPermit = <A, E, R>(
    request: (answered: Effect.Effect<void>) => Effect.Effect<A, E, R>,
    options?: { readonly spacing?: Spacing | undefined }
  ): Effect.Effect<A, E | QueueTooLong, R> =>
    Effect.flatMap(Effect.zip(Clock.currentTimeMillis, FiberRef.get(callDeadline)), ([startedAt, deadline]) => {
      let marked = false
      const answered: Effect.Effect<void> = (options?.spacing ?? spacing) === "answer"
        ? Effect.suspend(() => {
          if (marked) return Effect.void
          marked = true
          return spaceFromNow
        })
        : Effect.void
      const timed = Effect.flatMap(Clock.currentTimeMillis, (sentAt) => {
        const wallSent = Date.now()
        return Effect.tap(
          sending(request(answered)),
          () => Effect.map(Clock.currentTimeMillis, (now) => void (answerMillis = Math.max(0, now - sentAt)))
        ).pipe(Effect.ensuring(spaceFromHeaders(wallSent)))
      })
      const send = lease === undefined ? timed : lease.run({
        intervalMillis: intervalMillis + marginMillis,
        exclusive: concurrency === 1,
        check: (wait) => leaseCheck(wait, deadline),
        onWait: (wait) => leaseReport(wait, startedAt)
      }, timed)
      return Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(
          restore(acquire(startedAt, deadline)),
          restore(Effect.zipRight(slot(startedAt, deadline), send)).pipe(
            // one connection at a time: an unanswered request (a timeout, a reset) spaces from its end
            Effect.ensuring(answered),
            Effect.ensuring(release)
          )
        )
      )
    })

  return {
    service,
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
    useLease: (l) => {
      lease ??= l
    },
    get leased() {
      return lease !== undefined
    },
    withPermit,
    holdBack: (millis) =>
      Effect.zipRight(
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.sync(() => {
            sane(now)
            heldUntil = Math.max(heldUntil, now + millis)
          })),
        Effect.suspend(() => lease === undefined || millis <= 0 ? Effect.void : lease.holdBack(Date.now() + millis))
      ),
    state: Effect.map(Clock.currentTimeMillis, (now) => stateAt(now, queue.length))
  }
}

const registry = globalValue(
  Symbol.for("arxiv-companion/upstreamLimiters/v2"),
  () => new Map<string, ReturnType<typeof make>>()
)

/** The origin (`scheme://host:port`) of a URL; the URL itself when it is none. */
export const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/**
 * The process-wide limiter of `options.service` at `url`'s origin: created on
 * first use; a later caller asking for a longer interval widens it (never
 * narrows it); the first caller's concurrency and spacing stay.
 */
export const shared = (url: string, options: UpstreamLimiterOptions): ReturnType<typeof make> => {
  const key = `${options.service} ${originOf(url)}`
  const existing = registry.get(key)
  if (existing !== undefined) {
    existing.widen(options.interval)
    return existing
  }
  const limiter = make({ ...options, origin: originOf(url) })
  registry.set(key, limiter)
  return limiter
}

/** arXiv's API (export.arxiv.org): one request at a time, 3 s apart. */
export class ArxivLimiter extends Context.Tag("arxiv-companion/ArxivLimiter")<ArxivLimiter, UpstreamLimiter>() {}

/** arXiv's web pages (full text, arxiv.org). */
export class ArxivWebLimiter extends Context.Tag("arxiv-companion/ArxivWebLimiter")<ArxivWebLimiter, UpstreamLimiter>() {}

/** OpenAlex. */
export class OpenAlexLimiter extends Context.Tag("arxiv-companion/OpenAlexLimiter")<OpenAlexLimiter, UpstreamLimiter>() {}

/** The LLM judge's endpoint. */
export class JudgeLimiter extends Context.Tag("arxiv-companion/JudgeLimiter")<JudgeLimiter, UpstreamLimiter>() {}

const leaseProblems = globalValue(Symbol.for("arxiv-companion/upstreamLeaseProblems"), () => new Set<string>())

/**
 * A service's process-wide limiter (see {@link shared}) as the layer of its
 * tag. With `leaseDir` its budget is shared with every process of the user
 * through the service's lease in that folder (UpstreamLease.ts); a folder
 * that cannot be used leaves the process to its own limiter, with one warning.
 */
export const layerShared = <I>(
  tag: Context.Tag<I, UpstreamLimiter>,
  url: string,
  options: UpstreamLimiterOptions,
  leaseDir?: string | undefined
): Layer.Layer<I> =>
  Layer.effect(
    tag,
    Effect.suspend(() => {
      const limiter = shared(url, options)
      if (leaseDir === undefined || limiter.leased) return Effect.succeed(limiter)
      const opened = Lease.open(leaseDir, options.service, originOf(url))
      if (opened.lease !== undefined) {
        limiter.useLease(opened.lease)
        return Effect.succeed(limiter)
      }
      const key = `${options.service} ${leaseDir}`
      if (leaseProblems.has(key)) return Effect.succeed(limiter)
      leaseProblems.add(key)
      return Effect.as(
        Effect.logWarning(
          `${options.service}: requests are spaced for this process only, not shared with your other processes: ` +
            `${opened.problem}; set ARXIV_COMPANION_LEASE_DIR to a folder of your own`
        ),
        limiter
      )
    })
  )

/** A limiter of its own, shared with nobody (tests, or a caller that wants separate accounting). */
export const layerUnshared = <I>(tag: Context.Tag<I, UpstreamLimiter>, options: UpstreamLimiterOptions): Layer.Layer<I> =>
  Layer.sync(tag, () => make(options))
