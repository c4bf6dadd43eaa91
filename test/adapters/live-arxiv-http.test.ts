import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Schema, TestClock } from "effect"
import {
  backoffMillis,
  makeRateLimiter,
  parseRetryAfter,
  type RetryPolicy,
  retryTransient,
  sharedRateLimiter,
  TransientFailure,
  userAgent
} from "../../src/adapters/live/http.js"

const policy: RetryPolicy = { maxAttempts: 4, baseDelay: "1 second", maxDelay: "4 seconds", maxRetryAfter: "60 seconds" }

describe("shared HTTP policy", () => {
  it("names the client and a contact in the User-Agent", () => {
    assert.match(userAgent("me@lab.org"), /^arxiv-companion\/\d+\.\d+\.\d+ \(\+https:\/\/\S+; mailto:me@lab\.org\)$/)
    assert.include(userAgent("https://lab.org/contact"), "; https://lab.org/contact)")
    assert.notInclude(userAgent(undefined), ";")
  })

  it("reads Retry-After as seconds or as an HTTP date", () => {
    assert.strictEqual(parseRetryAfter("7", 0), 7000)
    const now = Date.parse("2026-04-12T22:00:00Z")
    assert.strictEqual(parseRetryAfter("Sun, 12 Apr 2026 22:00:30 GMT", now), 30_000)
    assert.strictEqual(parseRetryAfter("Sun, 12 Apr 2026 21:00:00 GMT", now), 0)
    assert.isUndefined(parseRetryAfter("soon", now))
    assert.isUndefined(parseRetryAfter(undefined, now))
  })

  it.prop("backs off exponentially, capped, jittered between half and all of the step", {
    random: Schema.Number.pipe(Schema.between(0, 0.9999)),
    retry: Schema.Int.pipe(Schema.between(0, 20))
  }, ({ random, retry }) => {
    const step = Math.min(4000, 1000 * 2 ** retry)
    const delay = backoffMillis(policy, retry, random)
    assert.isAtLeast(delay, step / 2)
    assert.isAtMost(delay, step)
    assert.isAtLeast(backoffMillis(policy, retry, random, 10_000), 10_000)
  })

  it.effect("honours Retry-After before the next attempt (TestClock)", () =>
    Effect.gen(function*() {
      let attempts = 0
      const attempt = Effect.suspend(() => {
        attempts++
        return attempts === 1
          ? Effect.fail(new TransientFailure({ reason: "HTTP 429", status: 429, retryAfterMillis: 20_000 }))
          : Effect.succeed("ok")
      })
      const fiber = yield* Effect.fork(retryTransient(policy)(attempt))
      yield* TestClock.adjust("19999 millis")
      assert.strictEqual(attempts, 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* Fiber.join(fiber), "ok")
      assert.strictEqual(attempts, 2)
    }))

  it.effect("stops after maxAttempts and passes other errors through at once", () =>
    Effect.gen(function*() {
      let attempts = 0
      const failing = Effect.suspend(() => {
        attempts++
        return Effect.fail(new TransientFailure({ reason: "HTTP 503", status: 503 }))
      })
      const fiber = yield* Effect.fork(Effect.flip(retryTransient(policy)(failing)))
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason, "HTTP 503")
      assert.strictEqual(attempts, 4)

      let other = 0
      const invalid = Effect.suspend(() => (other++, Effect.fail("bad request" as const)))
      assert.strictEqual(yield* Effect.flip(retryTransient(policy)(invalid)), "bad request")
      assert.strictEqual(other, 1)
    }))

  it("shares one limiter per key in the process, widening (never narrowing) its interval", () => {
    const key = `https://example.test:${Math.random()}`
    const first = sharedRateLimiter(key, { interval: "1 second" })
    const second = sharedRateLimiter(key, { interval: "3 seconds" })
    const third = sharedRateLimiter(key, { interval: "10 millis", concurrency: 8 })
    assert.strictEqual(first, second)
    assert.strictEqual(second, third)
    assert.strictEqual(Duration.toMillis(third.interval), 3000)
    assert.strictEqual(third.concurrency, 1)
  })

  it.effect("spaces request starts by the interval and runs one at a time (TestClock)", () =>
    Effect.gen(function*() {
      const limiter = makeRateLimiter({ interval: "3 seconds" })
      const starts: Array<number> = []
      let inFlight = 0
      let maxInFlight = 0
      const request = Effect.gen(function*() {
        starts.push(yield* Effect.clockWith((c) => c.currentTimeMillis))
        inFlight++
        maxInFlight = Math.max(maxInFlight, inFlight)
        yield* Effect.sleep("500 millis")
        inFlight--
      })
      const fiber = yield* Effect.fork(Effect.all(Array.from({ length: 5 }, () => limiter.withPermit(request)), {
        concurrency: "unbounded"
      }))
      yield* TestClock.adjust("20 seconds")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(starts, [0, 3000, 6000, 9000, 12000])
      assert.strictEqual(maxInFlight, 1)
    }))
})
