/**
 * The per-service limiter, driven by the TestClock: spacing from what really
 * happened (actual starts, answers), Retry-After holding back every caller,
 * first come first served, reports while waiting, one instance per service
 * and address for the process.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Context, Duration, Effect, Either, Fiber, Layer, TestClock } from "effect"
import * as LiveArxiv from "../../src/adapters/arxiv/LiveArxiv.js"
import * as UpstreamLimiter from "../../src/adapters/http/UpstreamLimiter.js"
import { type UpstreamWait, withWaitReporter } from "../../src/core/waiting.js"

const now = Effect.clockWith((c) => c.currentTimeMillis)

describe("UpstreamLimiter", () => {
  it.effect("spaces starts by the interval, one at a time, first come first served", () =>
    Effect.gen(function*() {
      const limiter = UpstreamLimiter.make({ service: "test", interval: "3 seconds" })
      const starts: Array<readonly [number, number]> = []
      let inFlight = 0
      let maxInFlight = 0
      const request = (i: number) =>
        limiter.withPermit(() =>
          Effect.gen(function*() {
            starts.push([i, yield* now])
            maxInFlight = Math.max(maxInFlight, ++inFlight)
            yield* Effect.sleep("500 millis")
            inFlight--
          })
        )
      const fiber = yield* Effect.fork(Effect.all([0, 1, 2, 3, 4].map(request), { concurrency: "unbounded" }))
      yield* TestClock.adjust("20 seconds")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(starts, [[0, 0], [1, 3000], [2, 6000], [3, 9000], [4, 12000]])
      assert.strictEqual(maxInFlight, 1)
    }))

  it.effect("counts the interval from the actual start, not from the planned one", () =>
    Effect.gen(function*() {
      const limiter = UpstreamLimiter.make({ service: "test", interval: "3 seconds" })
      const starts: Array<number> = []
      yield* limiter.withPermit(() => Effect.asVoid(now))
      // the next caller arrives late (as when its timer fired late): the slot after it counts from its start
      yield* TestClock.adjust("4500 millis")
      const late = yield* Effect.fork(limiter.withPermit(() => Effect.map(now, (t) => void starts.push(t))))
      const next = yield* Effect.fork(limiter.withPermit(() => Effect.map(now, (t) => void starts.push(t))))
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(late)
      yield* Fiber.join(next)
      assert.deepStrictEqual(starts, [4500, 7500])
    }))

  it.effect("with spacing \"answer\", counts from the moment the answer began to arrive", () =>
    Effect.gen(function*() {
      const limiter = UpstreamLimiter.make({ service: "test", interval: "3 seconds", spacing: "answer" })
      const starts: Array<number> = []
      const request = (latency: string) =>
        limiter.withPermit((answered) =>
          Effect.gen(function*() {
            starts.push(yield* now)
            yield* Effect.sleep(Duration.decode(latency as Duration.DurationInput))
            yield* answered
            yield* Effect.sleep("200 millis") // reading the body
          })
        )
      const fiber = yield* Effect.fork(Effect.all([request("1 second"), request("10 millis"), request("10 millis")], {
        concurrency: "unbounded"
      }))
      yield* TestClock.adjust("20 seconds")
      yield* Fiber.join(fiber)
      // answered at 1000 → next start 4000; answered at 4010 → next 7010
      assert.deepStrictEqual(starts, [0, 4000, 7010])
    }))

  it.effect("a Retry-After holds back every queued caller, not only the one that received it", () =>
    Effect.gen(function*() {
      const limiter = UpstreamLimiter.make({ service: "test", interval: "3 seconds" })
      const starts: Array<number> = []
      const first = limiter.withPermit(() =>
        Effect.gen(function*() {
          starts.push(yield* now)
          yield* limiter.holdBack(20_000) // 429 Retry-After: 20
        })
      )
      const other = limiter.withPermit(() => Effect.map(now, (t) => void starts.push(t)))
      const fiber = yield* Effect.fork(Effect.all([first, other, other], { concurrency: "unbounded" }))
      yield* TestClock.adjust("19999 millis")
      assert.deepStrictEqual(starts, [0])
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(starts, [0, 20_000, 23_000])
    }))

  it.effect("a long Retry-After (one hour) is kept: a caller joining later faces the whole hold", () =>
    Effect.gen(function*() {
      const limiter = UpstreamLimiter.make({ service: "test", interval: "3 seconds" })
      yield* limiter.withPermit(() => limiter.holdBack(3_600_000))
      yield* TestClock.adjust("10 minutes")
      assert.strictEqual((yield* limiter.state).heldMillis, 3_000_000)
      const starts: Array<number> = []
      const fiber = yield* Effect.fork(limiter.withPermit(() => Effect.map(now, (t) => void starts.push(t))))
      yield* TestClock.adjust("49 minutes")
      assert.deepStrictEqual(starts, [])
      yield* TestClock.adjust("2 minutes")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(starts, [3_600_000])
    }))

  it.effect("a clock that jumps back (a TestClock after the live one) forgets the times taken on the old one", () =>
    Effect.gen(function*() {
      const limiter = UpstreamLimiter.make({ service: "test", interval: "3 seconds" })
      // held for an hour on the live clock (years after the TestClock's 0)
      yield* Effect.withClock(limiter.withPermit(() => limiter.holdBack(3_600_000)), Clock.make())
      // read on the TestClock: no hold, and a request starts at once
      assert.deepStrictEqual(yield* limiter.state, { ahead: 0, waitMillis: 0, heldMillis: 0 })
      const started = yield* limiter.withPermit(() => now)
      assert.strictEqual(started, 0)
    }))

  it.effect("with several permits, two holders never share a slot", () =>
    Effect.gen(function*() {
      const limiter = UpstreamLimiter.make({ service: "test", interval: "100 millis", concurrency: 4 })
      const starts: Array<number> = []
      const fiber = yield* Effect.fork(Effect.all(
        Array.from({ length: 8 }, () => limiter.withPermit(() => Effect.zipRight(Effect.map(now, (t) => void starts.push(t)), Effect.sleep("1 second")))),
        { concurrency: "unbounded" }
      ))
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(starts, [0, 100, 200, 300, 1000, 1100, 1200, 1300])
    }))

  it.effect("an interrupted waiter leaves the queue and the others keep their order", () =>
    Effect.gen(function*() {
      const limiter = UpstreamLimiter.make({ service: "test", interval: "1 second" })
      const starts: Array<string> = []
      const request = (name: string) => limiter.withPermit(() => Effect.sync(() => void starts.push(name)))
      const a = yield* Effect.fork(request("a"))
      const b = yield* Effect.fork(request("b"))
      const c = yield* Effect.fork(request("c"))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(b)
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(a)
      yield* Fiber.join(c)
      assert.deepStrictEqual(starts, ["a", "c"])
      assert.deepStrictEqual(yield* limiter.state, { ahead: 0, waitMillis: 0, heldMillis: 0 })
    }))

  it.effect("a caller waiting longer than a second reports its place, then every 5 s", () =>
    Effect.gen(function*() {
      const limiter = UpstreamLimiter.make({ service: "arXiv", interval: "3 seconds" })
      const reports: Array<UpstreamWait> = []
      const calls = Array.from({ length: 5 }, () => limiter.withPermit(() => Effect.void))
      const last = limiter.withPermit(() => Effect.void).pipe(withWaitReporter((w) => Effect.sync(() => void reports.push(w))))
      const fiber = yield* Effect.fork(Effect.all([...calls, last], { concurrency: "unbounded" }))
      yield* TestClock.adjust("20 seconds")
      yield* Fiber.join(fiber)
      assert.isAtLeast(reports.length, 3)
      assert.strictEqual(reports[0]!.reason, "queued")
      // the first call is done at once; the second holds the permit and waits for 3 s; three more are queued
      assert.strictEqual(reports[0]!.ahead, 4)
      assert.strictEqual(reports[0]!.remainingMillis, 15_000)
      assert.strictEqual(reports[0]!.message, "Waiting for arXiv: 4 requests ahead, about 15 s (arXiv allows one request every 3 s)")
      assert.isTrue(reports.every((r, i) => i === 0 || r.waitedMillis > reports[i - 1]!.waitedMillis))
    }))

  it.effect("one limiter per service and address for the process; another service on the same address has its own", () =>
    Effect.sync(() => {
      const url = `http://127.0.0.1:${40_000 + Math.floor(Math.random() * 20_000)}/api/query`
      const a = UpstreamLimiter.shared(url, { service: "arXiv", interval: "3 seconds" })
      const b = UpstreamLimiter.shared(url.replace("/api/query", "/other"), { service: "arXiv", interval: "1 second" })
      const openalex = UpstreamLimiter.shared(url, { service: "OpenAlex", interval: "20 millis", concurrency: 8 })
      assert.strictEqual(a, b)
      assert.strictEqual(Duration.toMillis(b.interval), 3000)
      assert.notStrictEqual(a, openalex)
      assert.strictEqual(openalex.concurrency, 8)
    }))

  it.scoped("arXiv's limiter spaces request starts, not answers: answers taking 800 ms do not stretch the 3 s", () =>
    Effect.gen(function*() {
      const url = `http://127.0.0.1:${40_000 + Math.floor(Math.random() * 20_000)}/api/query`
      const limiter = Context.get(yield* Layer.build(LiveArxiv.limiterLayer({ apiUrl: url })), UpstreamLimiter.ArxivLimiter)
      const starts: Array<number> = []
      const request = limiter.withPermit((answered) =>
        Effect.gen(function*() {
          starts.push(yield* now)
          yield* Effect.sleep("800 millis")
          yield* answered
        })
      )
      const fiber = yield* Effect.fork(Effect.all(Array.from({ length: 5 }, () => request), { concurrency: "unbounded" }))
      yield* TestClock.adjust("30 seconds")
      yield* Fiber.join(fiber)
      const step = 3000 + Duration.toMillis(LiveArxiv.ARXIV_START_MARGIN)
      assert.deepStrictEqual(starts, [0, step, 2 * step, 3 * step, 4 * step])
    }))

  it.scoped("on arXiv's limiter a harvest's page is spaced from its answer, an API call from its start: a page answered late pushes the next request back", () =>
    Effect.gen(function*() {
      const url = `http://127.0.0.1:${40_000 + Math.floor(Math.random() * 20_000)}/api/query`
      const limiter = Context.get(yield* Layer.build(LiveArxiv.limiterLayer({ apiUrl: url })), UpstreamLimiter.ArxivLimiter)
      const starts: Array<number> = []
      const request = (latency: string, spacing?: UpstreamLimiter.Spacing) =>
        limiter.withPermit((answered) =>
          Effect.gen(function*() {
            starts.push(yield* now)
            yield* Effect.sleep(Duration.decode(latency as Duration.DurationInput))
            yield* answered
          }), { spacing })
      const fiber = yield* Effect.fork(Effect.all([request("2 seconds", "answer"), request("2 seconds"), request("10 millis")], {
        concurrency: "unbounded"
      }))
      yield* TestClock.adjust("30 seconds")
      yield* Fiber.join(fiber)
      const step = 3000 + Duration.toMillis(LiveArxiv.ARXIV_START_MARGIN)
      // the page answered at 2000 → the next start at 2000 + step; that API call's answer (2 s later) does not count
      assert.deepStrictEqual(starts, [0, 2000 + step, 2000 + 2 * step])
    }))

  it.effect("a request whose answer would come after its call's deadline is not sent", () =>
    Effect.gen(function*() {
      const limiter = UpstreamLimiter.make({ service: "arXiv", interval: "3 seconds" })
      let sent = 0
      const request = limiter.withPermit(() => Effect.zipRight(Effect.sync(() => void sent++), Effect.sleep("2 seconds")))
      const first = yield* Effect.fork(request)
      yield* Effect.yieldNow()
      // queued behind the first: could start at 3 s, but its answer (2 s, as the last one took) would come at 5 s
      const late = yield* Effect.fork(Effect.either(Effect.locally(request, UpstreamLimiter.callDeadline, 4500)))
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(first)
      const refused = yield* Fiber.join(late)
      assert.isTrue(Either.isLeft(refused))
      assert.strictEqual(sent, 1)
      assert.include(Either.isLeft(refused) ? refused.left.reason : "", "and about 2 s for its answer")
    }))
})
