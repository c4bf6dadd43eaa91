/**
 * The shared HTTP policy (src/adapters/http/http.ts) on the platform's
 * HttpClient, over a scripted client and the TestClock: retries on a
 * jittered, capped exponential schedule that honours Retry-After, the status
 * check, answers read in full inside the slot, a Retry-After holding back the
 * whole service, the overall deadline.
 */
import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { type Duration, Effect, Fiber, TestClock } from "effect"
import {
  parseRetryAfter,
  politeClient,
  type RetryPolicy,
  TransientFailure,
  unavailable,
  userAgent,
  withDeadline,
  withRetries
} from "../../src/adapters/http/http.js"
import * as UpstreamLimiter from "../../src/adapters/http/UpstreamLimiter.js"

const policy: RetryPolicy = { maxAttempts: 4, baseDelay: "1 second", maxDelay: "4 seconds", maxRetryAfter: "60 seconds" }

/** A client answering from a script (one answer per request, the last repeated), recording when each request came. */
const scripted = (answers: ReadonlyArray<{ readonly status: number; readonly body?: string; readonly retryAfter?: string }>) => {
  const times: Array<number> = []
  let i = 0
  const client = HttpClient.make((request) =>
    Effect.map(Effect.clockWith((c) => c.currentTimeMillis), (now): HttpClientResponse.HttpClientResponse => {
      times.push(now)
      const a = answers[Math.min(i++, answers.length - 1)]!
      return HttpClientResponse.fromWeb(
        request,
        new Response(a.body ?? "ok", { status: a.status, headers: a.retryAfter === undefined ? {} : { "retry-after": a.retryAfter } })
      )
    })
  )
  return { client, times }
}

const limiter = (interval: Duration.DurationInput = "10 millis") => UpstreamLimiter.make({ service: "Test", interval })

const get = <E>(client: HttpClient.HttpClient.With<E>) =>
  Effect.flatMap(client.execute(HttpClientRequest.get("http://upstream.test/x")), (r) => r.text)

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

  it.effect("retries transient statuses with capped exponential backoff, jittered between half and all of the step", () =>
    Effect.gen(function*() {
      const upstream = scripted([{ status: 503 }, { status: 502 }, { status: 500 }, { status: 200, body: "fine" }])
      const client = politeClient(upstream.client, { limiter: limiter(), timeout: "1 minute" }).pipe(withRetries(policy, "Test"))
      const fiber = yield* Effect.fork(get(client))
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* Fiber.join(fiber), "fine")
      const delays = upstream.times.slice(1).map((t, i) => t - upstream.times[i]!)
      assert.strictEqual(delays.length, 3)
      const steps = [1000, 2000, 4000]
      delays.forEach((d, i) => {
        assert.isAtLeast(d, steps[i]! / 2, `retry ${i + 1}`)
        assert.isAtMost(d, steps[i]! + 10, `retry ${i + 1}`)
      })
    }))

  it.effect("honours Retry-After before the next attempt", () =>
    Effect.gen(function*() {
      const upstream = scripted([{ status: 429, retryAfter: "20" }, { status: 200, body: "ok" }])
      const client = politeClient(upstream.client, { limiter: limiter(), timeout: "1 minute" }).pipe(withRetries(policy, "Test"))
      const fiber = yield* Effect.fork(get(client))
      yield* TestClock.adjust("19999 millis")
      assert.strictEqual(upstream.times.length, 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* Fiber.join(fiber), "ok")
      assert.deepStrictEqual(upstream.times, [0, 20_000])
    }))

  it.effect("stops after maxAttempts; a refusal that is not transient and a Retry-After beyond the cap are not retried", () =>
    Effect.gen(function*() {
      const always503 = scripted([{ status: 503 }])
      const failing = politeClient(always503.client, { limiter: limiter(), timeout: "1 minute" }).pipe(withRetries(policy, "Test"))
      const fiber = yield* Effect.fork(Effect.flip(get(failing)))
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(always503.times.length, 4)
      assert.strictEqual(unavailable("Test", error).message, "Test is unavailable (HTTP 503): HTTP 503.")

      const bad = scripted([{ status: 400 }])
      yield* Effect.flip(get(politeClient(bad.client, { limiter: limiter(), timeout: "1 minute" }).pipe(withRetries(policy, "Test"))))
      assert.strictEqual(bad.times.length, 1)

      const tooLong = scripted([{ status: 429, retryAfter: "3600" }])
      const refused = yield* Effect.flip(
        get(politeClient(tooLong.client, { limiter: limiter(), timeout: "1 minute" }).pipe(withRetries(policy, "Test")))
      )
      assert.strictEqual(tooLong.times.length, 1)
      assert.strictEqual(unavailable("Test", refused, 0).retryAfterSeconds, 3600)
    }))

  it.effect("a failure the adapter raises in its response transform is retried like a transient status", () =>
    Effect.gen(function*() {
      const upstream = scripted([{ status: 200, body: "<feed" }, { status: 200, body: "<feed/>" }])
      const client = politeClient(upstream.client, { limiter: limiter(), timeout: "1 minute" }).pipe(
        HttpClient.transformResponse(Effect.flatMap((r) =>
          Effect.flatMap(r.text, (t) => t.endsWith("/>") ? Effect.succeed(r) : Effect.fail(new TransientFailure({ reason: "cut off" })))
        )),
        withRetries(policy, "Test")
      )
      const fiber = yield* Effect.fork(get(client))
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* Fiber.join(fiber), "<feed/>")
      assert.strictEqual(upstream.times.length, 2)
    }))

  it.effect("a 429 with Retry-After holds back the whole service; answers stay readable after the slot is released", () =>
    Effect.gen(function*() {
      const shared = limiter("3 seconds")
      const upstream = scripted([{ status: 429, body: "slow down", retryAfter: "30" }, { status: 200, body: "ok" }])
      const client = politeClient(upstream.client, { limiter: shared, timeout: "1 minute" })
      const first = yield* client.execute(HttpClientRequest.get("http://upstream.test/a"))
      assert.strictEqual(first.status, 429)
      assert.strictEqual(yield* first.text, "slow down")
      assert.strictEqual(yield* first.text, "slow down")
      assert.deepStrictEqual(yield* shared.state, { ahead: 0, waitMillis: 30_000, heldMillis: 30_000 })
      // another caller of the same service waits for the hold, not for the interval
      const other = yield* Effect.fork(client.execute(HttpClientRequest.get("http://upstream.test/b")))
      yield* TestClock.adjust("29 seconds")
      assert.strictEqual(upstream.times.length, 1)
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* Fiber.join(other)).status, 200)
      assert.deepStrictEqual(upstream.times, [0, 30_000])
    }))

  it.effect("a call that cannot start before its deadline fails at once, saying how long the queue is", () =>
    Effect.gen(function*() {
      const shared = limiter("3 seconds")
      // each answer takes half a second (the last one, sent at 9 s, is answered before the 10 s deadline)
      const slow = HttpClient.make((request) =>
        Effect.as(Effect.sleep("500 millis"), HttpClientResponse.fromWeb(request, new Response("ok", { status: 200 })))
      )
      const client = politeClient(slow, { limiter: shared, timeout: "1 minute" })
      const call = get(client).pipe(withDeadline(shared, "10 seconds"))
      const queued = yield* Effect.forEach([1, 2, 3, 4], () => Effect.fork(call))
      while ((yield* shared.state).ahead < 4) yield* Effect.yieldNow()
      // one in flight, three queued: the next could start at 3 + 3 × 3 = 12 s
      const error = yield* Effect.flip(call)
      assert.strictEqual(
        unavailable("Test", error).message,
        "Test is unavailable: 4 requests of this process are queued ahead of this one (about 12 s at one request every 3 s), " +
          "longer than the 10 s left before this call's deadline; ask for less at once, or try again in a minute."
      )
      yield* TestClock.adjust("20 seconds")
      for (const f of queued) assert.strictEqual(yield* Fiber.join(f), "ok")
    }))

  it.effect("a call past its deadline says what it was waiting for: an answer since N s, or its place in the queue", () =>
    Effect.gen(function*() {
      const shared = limiter("3 seconds")
      // the first request is answered at once, every later one hangs
      let requests = 0
      const hangsAfterOne = HttpClient.make((request) =>
        requests++ === 0 ? Effect.succeed(HttpClientResponse.fromWeb(request, new Response("ok", { status: 200 }))) : Effect.never
      )
      const client = politeClient(hangsAfterOne, { limiter: shared, timeout: "1 minute" })
      const call = Effect.flip(get(client).pipe(withDeadline(shared, "10 seconds")))
      assert.strictEqual(yield* get(client), "ok")
      // waits for the next slot (3 s), goes out, is never answered
      const sent = yield* Effect.fork(call)
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual(
        (yield* Fiber.join(sent)).message,
        "Test is unavailable: no answer within this call's 10 s deadline: its request went out 7 s ago and Test has not answered."
      )
      // behind a request that never ends (one without a deadline), a call stays queued until its own deadline
      const hung = yield* Effect.fork(get(client))
      const queued = yield* Effect.fork(call)
      yield* TestClock.adjust("10 seconds")
      const late = (yield* Fiber.join(queued)).message
      assert.match(
        late,
        /^Test is unavailable: no answer within this call's 10 s deadline \(Waiting for Test: 1 request ahead, about \d+ s \(Test allows one request every 3 s\)\)\.$/,
        late
      )
      yield* Fiber.interrupt(hung)
      assert.strictEqual(requests, 3)
    }))

  it.effect("a call that hangs from the start says so", () =>
    Effect.gen(function*() {
      const shared = limiter("3 seconds")
      const hang = HttpClient.make(() => Effect.never)
      const client = politeClient(hang, { limiter: shared, timeout: "1 minute" })
      const fiber = yield* Effect.fork(Effect.flip(get(client).pipe(withDeadline(shared, "10 seconds"))))
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual(
        (yield* Fiber.join(fiber)).message,
        "Test is unavailable: no answer within this call's 10 s deadline: its request went out 10 s ago and Test has not answered."
      )
    }))
})
