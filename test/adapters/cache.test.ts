import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Path } from "@effect/platform"
import { ConfigProvider, Deferred, Duration, Effect, Exit, Fiber, Layer, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as ResponseCache from "../../src/adapters/http/ResponseCache.js"
import { reportWait, type UpstreamWait, withWaitReporter } from "../../src/core/waiting.js"
import { captureLogs } from "../support/logs.js"

const tempDir = () => fs.mkdtempSync(nodePath.join(os.tmpdir(), "arxiv-companion-cache-"))
/** The entry files (the directory also holds the prune marker). */
const entries = (dir: string) => fs.readdirSync(dir).filter((f) => !f.startsWith("."))

const cacheLayer = (options: ResponseCache.ResponseCacheOptions) =>
  ResponseCache.layer(options).pipe(Layer.provide(NodeContext.layer))

const counter = () => {
  let n = 0
  return {
    get count() {
      return n
    },
    fetch: (body: string) => Effect.sync(() => (n++, body))
  }
}

const request = { endpoint: "arxiv.search", key: "GET https://export.arxiv.org/api/query?search_query=all%3Agan" }

describe("ResponseCache", () => {
  it.effect("keeps a response on disk and answers the next identical request from it", () => {
    const dir = tempDir()
    const upstream = counter()
    return Effect.gen(function*() {
      const cache = yield* ResponseCache.ResponseCache
      const first = yield* cache.cached(request, upstream.fetch("<feed>Ramírez</feed>"))
      const second = yield* cache.cached(request, upstream.fetch("other"))
      assert.strictEqual(first, "<feed>Ramírez</feed>")
      assert.strictEqual(second, "<feed>Ramírez</feed>")
      assert.strictEqual(upstream.count, 1)
      assert.deepStrictEqual(yield* cache.stats, { hits: 1, misses: 1, coalesced: 0, writes: 1 })
      const files = entries(dir)
      assert.strictEqual(files.length, 1)
      assert.match(files[0]!, /^arxiv\.search-[0-9a-f]{40}$/)
      const envelope = JSON.parse(fs.readFileSync(nodePath.join(dir, files[0]!), "utf8"))
      assert.strictEqual(envelope.key, request.key)
      assert.strictEqual(envelope.body, "<feed>Ramírez</feed>")
    }).pipe(Effect.provide(cacheLayer({ dir })))
  })

  it.effect("survives a restart: a new layer over the same directory hits", () => {
    const dir = tempDir()
    const upstream = counter()
    const once = Effect.flatMap(ResponseCache.ResponseCache, (c) => c.cached(request, upstream.fetch("feed")))
    return Effect.gen(function*() {
      yield* Effect.provide(once, cacheLayer({ dir }))
      const again = yield* Effect.provide(once, cacheLayer({ dir }))
      assert.strictEqual(again, "feed")
      assert.strictEqual(upstream.count, 1)
    })
  })

  it.effect("expires entries after the endpoint's TTL (driven by the TestClock)", () => {
    const dir = tempDir()
    const upstream = counter()
    return Effect.gen(function*() {
      const cache = yield* ResponseCache.ResponseCache
      yield* cache.cached(request, upstream.fetch("v1"))
      yield* TestClock.adjust("59 minutes")
      assert.strictEqual(yield* cache.cached(request, upstream.fetch("v2")), "v1")
      yield* TestClock.adjust("2 minutes")
      assert.strictEqual(yield* cache.cached(request, upstream.fetch("v2")), "v2")
      assert.strictEqual(upstream.count, 2)
      // another endpoint falls back to its prefix's TTL, then the default
      const hours = (endpoint: string) => Duration.toHours(cache.ttlOf(endpoint))
      assert.strictEqual(hours("openalex.works"), 7 * 24)
      assert.strictEqual(hours("judge.chat"), 1)
      assert.strictEqual(hours("something"), 24)
    }).pipe(Effect.provide(cacheLayer({ dir, ttls: { "arxiv.search": "1 hour", judge: "1 hour" } })))
  })

  it.effect("coalesces 20 identical concurrent requests into one upstream call", () => {
    const dir = tempDir()
    let calls = 0
    return Effect.gen(function*() {
      const cache = yield* ResponseCache.ResponseCache
      const gate = yield* Deferred.make<void>()
      const fetch = Effect.zipRight(Effect.sync(() => calls++), Effect.as(Deferred.await(gate), "feed"))
      const fibers = yield* Effect.forEach(
        Array.from({ length: 20 }, () => cache.cached(request, fetch)),
        (e) => Effect.fork(e)
      )
      // the gate opens once every caller has looked on disk and joined (a slow disk under load must not
      // let a late caller find the answer already written and count as a hit)
      yield* Effect.repeat(Effect.zipLeft(cache.stats, Effect.yieldNow()), { until: (s) => s.misses + s.coalesced === 20 })
      yield* Deferred.succeed(gate, undefined)
      const bodies = yield* Fiber.joinAll(fibers)
      assert.strictEqual(calls, 1)
      assert.deepStrictEqual(new Set(bodies), new Set(["feed"]))
      const stats = yield* cache.stats
      assert.strictEqual(stats.misses, 1)
      assert.strictEqual(stats.coalesced, 19)
    }).pipe(Effect.provide(cacheLayer({ dir })))
  })

  it.effect("callers sharing one request each hear what it waits for; one joining late hears the last wait at once", () =>
    Effect.gen(function*() {
      const cache = yield* ResponseCache.ResponseCache
      const wait = (message: string): UpstreamWait => ({
        service: "arXiv",
        reason: "queued",
        ahead: 1,
        remainingMillis: 3000,
        waitedMillis: 0,
        message
      })
      const firstReported = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const fetch = reportWait(wait("Waiting for arXiv: 1 request ahead")).pipe(
        Effect.zipRight(Deferred.succeed(firstReported, undefined)),
        Effect.zipRight(Deferred.await(gate)),
        Effect.zipRight(reportWait(wait("arXiv: HTTP 503; trying again in 2 s"))),
        Effect.as("feed")
      )
      const heard = { leader: [] as Array<string>, joiner: [] as Array<string>, left: [] as Array<string> }
      const caller = (into: Array<string>, joined?: Deferred.Deferred<void>) =>
        cache.cached(request, fetch).pipe(
          withWaitReporter((w) =>
            Effect.zipRight(
              Effect.sync(() => void into.push(w.message)),
              joined === undefined ? Effect.void : Deferred.succeed(joined, undefined)
            )
          )
        )
      const leader = yield* Effect.fork(caller(heard.leader))
      yield* Deferred.await(firstReported)
      // two callers join after the first wait was reported: they hear it at once
      const joined = yield* Deferred.make<void>()
      const leftJoined = yield* Deferred.make<void>()
      const joiner = yield* Effect.fork(caller(heard.joiner, joined))
      const leaver = yield* Effect.fork(caller(heard.left, leftJoined))
      yield* Deferred.await(joined)
      yield* Deferred.await(leftJoined)
      // one of them gives up before the next wait: it hears no more
      yield* Fiber.interrupt(leaver)
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual(yield* Fiber.join(leader), "feed")
      assert.strictEqual(yield* Fiber.join(joiner), "feed")
      const both = ["Waiting for arXiv: 1 request ahead", "arXiv: HTTP 503; trying again in 2 s"]
      assert.deepStrictEqual(heard.leader, both)
      assert.deepStrictEqual(heard.joiner, both)
      assert.deepStrictEqual(heard.left, ["Waiting for arXiv: 1 request ahead"])
      const stats = yield* cache.stats
      assert.strictEqual(stats.misses, 1)
      assert.strictEqual(stats.coalesced, 2)
    }).pipe(Effect.provide(ResponseCache.layerDisabled)))

  it.effect("an interrupted caller does not cancel the call others are waiting for", () =>
    Effect.gen(function*() {
      const cache = yield* ResponseCache.ResponseCache
      const gate = yield* Deferred.make<void>()
      let calls = 0
      const fetch = Effect.zipRight(Effect.sync(() => calls++), Effect.as(Deferred.await(gate), "feed"))
      const first = yield* Effect.fork(cache.cached(request, fetch))
      yield* Effect.yieldNow()
      const second = yield* Effect.fork(cache.cached(request, fetch))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(first)
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual(yield* Fiber.join(second), "feed")
      assert.strictEqual(calls, 1)
    }).pipe(Effect.provide(ResponseCache.layerDisabled)))

  it.effect("does not keep failures", () => {
    const dir = tempDir()
    let calls = 0
    return Effect.gen(function*() {
      const cache = yield* ResponseCache.ResponseCache
      const failing = Effect.zipRight(Effect.sync(() => calls++), Effect.fail("HTTP 503" as const))
      const error = yield* Effect.flip(cache.cached(request, failing))
      assert.strictEqual(error, "HTTP 503")
      assert.strictEqual(yield* cache.cached(request, Effect.succeed("ok")), "ok")
      assert.strictEqual(entries(dir).length, 1)
      assert.strictEqual(calls, 1)
    }).pipe(Effect.provide(cacheLayer({ dir })))
  })

  it.effect("treats a corrupt entry as a miss", () => {
    const dir = tempDir()
    const upstream = counter()
    return Effect.gen(function*() {
      const cache = yield* ResponseCache.ResponseCache
      yield* cache.cached(request, upstream.fetch("feed"))
      const file = nodePath.join(dir, entries(dir)[0]!)
      fs.writeFileSync(file, "{\"v\":1,\"key\":\"GET htt") // a torn write
      assert.strictEqual(yield* cache.cached(request, upstream.fetch("fresh")), "fresh")
      assert.strictEqual(upstream.count, 2)
    }).pipe(Effect.provide(cacheLayer({ dir })))
  })

  it.effect("with enabled: false touches no disk and asks upstream every time", () => {
    const dir = nodePath.join(tempDir(), "never-created")
    const upstream = counter()
    return Effect.gen(function*() {
      const cache = yield* ResponseCache.ResponseCache
      assert.isFalse(cache.enabled)
      yield* cache.cached(request, upstream.fetch("a"))
      assert.strictEqual(yield* cache.cached(request, upstream.fetch("b")), "b")
      assert.strictEqual(upstream.count, 2)
      assert.isFalse(fs.existsSync(dir))
    }).pipe(Effect.provide(cacheLayer({ dir, enabled: false })))
  })

  it.live("prunes entries older than the longest TTL, and nothing but its own entries", () => {
    const dir = tempDir()
    const upstream = counter()
    return Effect.gen(function*() {
      const cache = yield* ResponseCache.ResponseCache
      yield* cache.cached(request, upstream.fetch("fresh"))
      const [fresh] = fs.readdirSync(dir).filter((f) => f.startsWith("arxiv.search-"))
      const old = `openalex.works-${"a".repeat(40)}`
      const longAgo = new Date(Date.now() - 60 * 24 * 3600 * 1000)
      fs.writeFileSync(nodePath.join(dir, old), "{}")
      fs.utimesSync(nodePath.join(dir, old), longAgo, longAgo)
      fs.writeFileSync(nodePath.join(dir, "notes.txt"), "mine")
      fs.utimesSync(nodePath.join(dir, "notes.txt"), longAgo, longAgo)
      assert.strictEqual(yield* cache.prune, 1)
      const left = fs.readdirSync(dir)
      assert.include(left, fresh)
      assert.include(left, "notes.txt")
      assert.notInclude(left, old)
    }).pipe(Effect.provide(cacheLayer({ dir })))
  })

  it.effect("requestKey sorts parameters and leaves secrets out", () =>
    Effect.sync(() => {
      const a = ResponseCache.requestKey(
        "get",
        "https://api.openalex.org/works?filter=doi:a|b&api_key=SECRET&select=id"
      )
      const b = ResponseCache.requestKey("GET", "https://api.openalex.org/works?select=id&filter=doi:a|b&api_key=OTHER")
      assert.strictEqual(a, b)
      assert.notInclude(a, "SECRET")
      assert.include(a, "select=id")
      const post = ResponseCache.requestKey("POST", "http://127.0.0.1:1/v1/chat/completions", { body: "{\"x\":1}" })
      assert.strictEqual(post, "POST http://127.0.0.1:1/v1/chat/completions\n{\"x\":1}")
    }))

  it.effect("finds its directory from ARXIV_COMPANION_CACHE_DIR, XDG_CACHE_HOME, then HOME", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const withEnv = (env: Record<string, string>) =>
        Effect.withConfigProvider(ResponseCache.defaultCacheDir, ConfigProvider.fromMap(new Map(Object.entries(env))))
      assert.strictEqual(
        yield* withEnv({ ARXIV_COMPANION_CACHE_DIR: "/x/c", XDG_CACHE_HOME: "/xdg", HOME: "/home/u" }),
        "/x/c"
      )
      assert.strictEqual(yield* withEnv({ XDG_CACHE_HOME: "/xdg", HOME: "/home/u" }), path.join("/xdg", "arxiv-companion"))
      assert.strictEqual(yield* withEnv({ XDG_CACHE_HOME: "relative", HOME: "/home/u" }), "/home/u/.cache/arxiv-companion")
      assert.strictEqual(yield* withEnv({ HOME: "/home/u" }), "/home/u/.cache/arxiv-companion")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("layerConfig turns the disk cache off with ARXIV_COMPANION_CACHE=off", () => {
    const dir = nodePath.join(tempDir(), "off")
    return Effect.gen(function*() {
      const cache = yield* ResponseCache.ResponseCache
      assert.isFalse(cache.enabled)
    }).pipe(
      Effect.provide(ResponseCache.layerConfig({ dir }).pipe(Layer.provide(NodeContext.layer))),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["ARXIV_COMPANION_CACHE", "off"]])))
    )
  })
})

describe("ResponseCache heals", () => {
  it.effect("an entry with a valid wrapper and an unusable body is a miss: refetched and overwritten", () => {
    const dir = tempDir()
    const upstream = counter()
    const usable = (body: string) => body.startsWith("<feed>")
    const feedRequest = { ...request, usable }
    return Effect.gen(function*() {
      const cache = yield* ResponseCache.ResponseCache
      yield* cache.cached(feedRequest, upstream.fetch("<feed>one</feed>"))
      const file = nodePath.join(dir, entries(dir)[0]!)
      const envelope = JSON.parse(fs.readFileSync(file, "utf8"))
      fs.writeFileSync(file, JSON.stringify({ ...envelope, body: "Rate exceeded." }))
      assert.strictEqual(yield* cache.cached(feedRequest, upstream.fetch("<feed>two</feed>")), "<feed>two</feed>")
      assert.strictEqual(upstream.count, 2)
      assert.strictEqual(JSON.parse(fs.readFileSync(file, "utf8")).body, "<feed>two</feed>")
      // healed: the next call is a hit again
      assert.strictEqual(yield* cache.cached(feedRequest, upstream.fetch("<feed>three</feed>")), "<feed>two</feed>")
      assert.strictEqual(upstream.count, 2)
    }).pipe(Effect.provide(cacheLayer({ dir })))
  })

  it.effect("never serves an entry past the endpoint's TTL, whatever expiry it claims", () => {
    const dir = tempDir()
    const upstream = counter()
    return Effect.gen(function*() {
      const cache = yield* ResponseCache.ResponseCache
      yield* cache.cached(request, upstream.fetch("v1"))
      const file = nodePath.join(dir, entries(dir)[0]!)
      const envelope = JSON.parse(fs.readFileSync(file, "utf8"))
      fs.writeFileSync(file, JSON.stringify({ ...envelope, expiresAt: Number.MAX_SAFE_INTEGER }))
      yield* TestClock.adjust("25 hours")
      assert.strictEqual(yield* cache.cached(request, upstream.fetch("v2")), "v2")
      // an entry stored "in the future" (a wrong clock, a hand edit) is not trusted either
      fs.writeFileSync(file, JSON.stringify({ ...envelope, storedAt: Number.MAX_SAFE_INTEGER - 1, expiresAt: Number.MAX_SAFE_INTEGER }))
      assert.strictEqual(yield* cache.cached(request, upstream.fetch("v3")), "v3")
      fs.writeFileSync(file, JSON.stringify({ ...envelope, storedAt: "never", expiresAt: "never" }))
      assert.strictEqual(yield* cache.cached(request, upstream.fetch("v4")), "v4")
      assert.strictEqual(upstream.count, 4)
    }).pipe(Effect.provide(cacheLayer({ dir })))
  })

  const unusableDirs: ReadonlyArray<readonly [string, () => string]> = [
    ["a folder under an existing file", () => {
      const file = nodePath.join(tempDir(), "a-file")
      fs.writeFileSync(file, "not a folder")
      return nodePath.join(file, "cache")
    }],
    ["a folder that cannot be created (/proc/nope)", () => "/proc/arxiv-companion-nope/cache"]
  ]
  for (const [name, makeDir] of unusableDirs) {
    it.live(`${name}: one warning, and the run goes on uncached`, () => {
      const dir = makeDir()
      const upstream = counter()
      return Effect.gen(function*() {
        const { exit, lines } = yield* captureLogs(
          Effect.gen(function*() {
            const cache = yield* ResponseCache.ResponseCache
            assert.isFalse(cache.enabled)
            yield* cache.cached(request, upstream.fetch("a"))
            return yield* cache.cached(request, upstream.fetch("b"))
          }).pipe(Effect.provide(cacheLayer({ dir })))
        )
        assert.deepStrictEqual(exit, Exit.succeed("b"))
        assert.strictEqual(upstream.count, 2)
        const warnings = lines.filter((l) => l.includes("cache"))
        assert.strictEqual(warnings.length, 1, lines.join("\n"))
        assert.include(warnings[0]!, dir)
        assert.notInclude(warnings[0]!, "\n")
        assert.notInclude(warnings[0]!, "    at ")
      }).pipe(Effect.timeout("5 seconds"))
    })
  }
})
