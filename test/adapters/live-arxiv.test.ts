import type { HttpClient } from "@effect/platform"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, ConfigProvider, Context, Duration, Effect, Exit, Fiber, Layer, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as LiveArxiv from "../../src/adapters/arxiv/LiveArxiv.js"
import * as ResponseCache from "../../src/adapters/http/ResponseCache.js"
import { ArxivPort, type ArxivService } from "../../src/core/ports/ArxivPort.js"
import { type ArxivFault, type ArxivStandIn, arxivStandIn, type ArxivStandInOptions, Fault } from "../support/arxiv-standin.js"
import { typedQuery } from "../support/query.js"
import { and, term } from "../../src/core/arxivQuery.js"

/** Short waits so the fault tests run in real time quickly; the policy itself is what is tested. */
const fast: LiveArxiv.LiveArxivOptions = {
  contact: "tests@example.org",
  minInterval: "5 millis",
  timeout: "5 seconds",
  retry: { baseDelay: "5 millis", maxDelay: "20 millis" }
}

interface Setup {
  readonly arxiv?: LiveArxiv.LiveArxivOptions
  /** The HTTP client; default node:http (the CLI uses undici). */
  readonly client?: Layer.Layer<HttpClient.HttpClient>
  readonly cache?: Layer.Layer<ResponseCache.ResponseCache>
  readonly standIn?: ArxivStandInOptions
}

const arxivLayer = (url: string, setup: Setup) =>
  LiveArxiv.layer({ ...fast, ...setup.arxiv, apiUrl: url }).pipe(
    Layer.provide(Layer.mergeAll(setup.client ?? NodeHttpClient.layer, setup.cache ?? ResponseCache.layerDisabled))
  )

/** Build the live adapter against a fresh stand-in, both living as long as the test. */
const withArxiv = <A, E>(
  f: (arxiv: ArxivService, standIn: ArxivStandIn) => Effect.Effect<A, E>,
  setup: Setup = {}
) =>
  Effect.scoped(
    Effect.gen(function*() {
      const standIn = yield* arxivStandIn(setup.standIn)
      const context = yield* Layer.build(arxivLayer(standIn.url, setup))
      return yield* f(Context.get(context, ArxivPort), standIn)
    })
  )

const diskCache = (dir: string) => ResponseCache.layer({ dir }).pipe(Layer.provide(NodeContext.layer))
/** A freshly built adapter over `dir` as its disk cache (a restart, when built again). */
const withDiskCache = (standIn: ArxivStandIn, dir: string) =>
  Layer.build(arxivLayer(standIn.url, { cache: diskCache(dir) })).pipe(Effect.map((ctx) => Context.get(ctx, ArxivPort)))
const tempDir = () => fs.mkdtempSync(nodePath.join(os.tmpdir(), "arxiv-companion-live-"))

/** Request starts are 3 s apart, plus the margin that keeps the gaps arXiv sees at 3 s or more. */
const STEP = 3000 + Duration.toMillis(LiveArxiv.ARXIV_START_MARGIN)

const realPause = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/**
 * Requests travel over real sockets while the TestClock stands still: wait
 * (real time) until `k` have arrived at the stand-in, then a little longer to
 * see that no further one follows; the count.
 */
const arrivedAt = (standIn: ArxivStandIn) => (k: number) =>
  Effect.gen(function*() {
    for (let waited = 0; standIn.requests.length < k && waited < 10_000; waited += 10) yield* realPause(10)
    yield* realPause(50)
    return standIn.requests.length
  })

describe("LiveArxiv against the loopback stand-in", () => {
  it.live("searches with the query arXiv expects and a descriptive User-Agent", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        const result = yield* arxiv.search({ query: typedQuery("all:testing"), categories: [], maxResults: 10 })
        assert.strictEqual(result.papers.length, 10)
        assert.strictEqual(result.total, 214881)
        assert.strictEqual(result.papers[0]!.arxivId, "2202.12139")
        // UTF-8 end to end: names with accents arrive intact, without the Latin-1 mojibake one recorder had
        const names = result.papers.flatMap((p) => p.authors)
        assert.isTrue(names.some((n) => /[^\x00-\x7f]/.test(n)))
        assert.isFalse(names.some((n) => /Ã.|Â./.test(n)))
        assert.strictEqual(standIn.requests.length, 1)
        const request = standIn.requests[0]!
        assert.strictEqual(request.params["search_query"], "(all:testing)")
        assert.strictEqual(request.params["max_results"], "10")
        assert.strictEqual(request.params["start"], "0")
        assert.strictEqual(request.params["sortBy"], "relevance")
        assert.match(String(request.headers["user-agent"]), /^arxiv-companion\/\S+ \(\+https?:\/\/\S+; mailto:tests@example\.org\)$/)
      })
    ))

  it.live("reads ARXIV_API_URL and ARXIV_COMPANION_CONTACT from configuration", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const standIn = yield* arxivStandIn()
        const layer = LiveArxiv.layerConfig({ minInterval: "5 millis" }).pipe(
          Layer.provide(Layer.mergeAll(NodeHttpClient.layer, ResponseCache.layerDisabled))
        )
        const context = yield* Layer.build(layer).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([
            ["ARXIV_API_URL", standIn.url],
            ["ARXIV_COMPANION_CONTACT", "https://lab.example/contact"],
            ["ARXIV_TIMEOUT", "10 seconds"]
          ])))
        )
        const lookup = yield* Context.get(context, ArxivPort).getPapers(["1605.08386"])
        assert.deepStrictEqual(lookup.papers.map((p) => p.arxivId), ["1605.08386"])
        assert.include(String(standIn.requests[0]!.headers["user-agent"]), "; https://lab.example/contact)")
      })
    ))

  it.live("wraps user text in parentheses before the categories and sends the since-date without %2B", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        const result = yield* arxiv.search({
          query: typedQuery("all:neural OR all:learning"),
          categories: ["cs.LG", "stat.ML"],
          since: "2017-09-01",
          maxResults: 5
        })
        const request = standIn.requests[0]!
        assert.strictEqual(
          request.params["search_query"],
          "(all:neural OR all:learning) AND (cat:cs.LG OR cat:stat.ML) AND submittedDate:[201709010000 TO 999912312359]"
        )
        assert.notInclude(request.url, "%2B")
        assert.include(request.url, "submittedDate:%5B201709010000+TO+999912312359%5D")
        assert.isAbove(result.papers.length, 0)
        for (const p of result.papers) {
          assert.isTrue(p.categories.some((c) => c === "cs.LG" || c === "stat.ML"), p.arxivId)
          assert.isTrue(p.published >= "2017-09-01", p.published)
        }
      })
    ))

  it.live("reads the pre-2020 feed format from the replayed 2016 recording", () =>
    withArxiv((arxiv) =>
      Effect.gen(function*() {
        const result = yield* arxiv.search({ query: typedQuery("au:del_maestro AND ti:checkerboard"), categories: [], maxResults: 10 })
        assert.strictEqual(result.total, 1)
        assert.strictEqual(result.papers[0]!.arxivId, "cond-mat/0603029")
      })
    ))

  it.live("finds the companion's keyword query among offline-corpus records the stand-in serves", () =>
    withArxiv((arxiv) =>
      Effect.gen(function*() {
        const result = yield* arxiv.search({
          query: typedQuery("all:attention OR all:\"neural machine translation\""),
          categories: ["cs.CL"],
          maxResults: 50
        })
        const bahdanau = result.papers.find((p) => p.arxivId === "1409.0473")
        assert.isDefined(bahdanau)
        assert.strictEqual(bahdanau!.title, "Neural Machine Translation by Jointly Learning to Align and Translate")
        assert.strictEqual(bahdanau!.authors[0], "Dzmitry Bahdanau")
        assert.strictEqual(bahdanau!.published, "2014-09-01")
      }), { standIn: { corpus: "landmarks" } }))

  it.live("looks ids up in one id_list request with max_results = number of ids, reporting missing ones", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        const lookup = yield* arxiv.getPapers([
          "arXiv:1707.08567",
          "https://arxiv.org/abs/astro-ph/0601001v1",
          "2104.12255v1",
          "0808.05394",
          "quant-ph/0201082v1",
          "1707.08567"
        ])
        assert.strictEqual(standIn.requests.length, 1)
        const idList = standIn.requests[0]!.params["id_list"]!.split(",")
        assert.sameMembers(idList, ["1707.08567", "astro-ph/0601001", "2104.12255v1", "0808.05394", "quant-ph/0201082"])
        assert.strictEqual(standIn.requests[0]!.params["max_results"], "5")
        assert.sameMembers(lookup.papers.map((p) => p.arxivId), [
          "1707.08567",
          "astro-ph/0601001",
          "2104.12255",
          "quant-ph/0201082"
        ])
        assert.deepStrictEqual(lookup.missing, ["0808.05394"])
        assert.include(standIn.requests[0]!.url, "id_list=0808.05394,1707.08567")
      })
    ))

  it.live("splits long id lists into requests of 50, each with max_results = its number of ids", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        const ids = Array.from({ length: 120 }, (_, i) => `1409.${String(1000 + i).padStart(4, "0")}`)
        const lookup = yield* arxiv.getPapers([...ids, "1707.08567"])
        assert.deepStrictEqual(standIn.requests.map((r) => r.params["max_results"]), ["50", "50", "21"])
        assert.deepStrictEqual(
          standIn.requests.map((r) => r.params["id_list"]!.split(",").length),
          [50, 50, 21]
        )
        assert.deepStrictEqual(lookup.papers.map((p) => p.arxivId), ["1707.08567"])
        assert.strictEqual(lookup.missing.length, 120)
        assert.deepStrictEqual(lookup.missing, ids)
      })
    ))

  it.live("an empty search is an empty list, and no ids is no request", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        const result = yield* arxiv.search({ query: typedQuery("all:qwzxv"), categories: ["cs.LG"], maxResults: 10 })
        assert.deepStrictEqual(result.papers, [])
        assert.strictEqual(result.total, 0)
        assert.deepStrictEqual(yield* arxiv.getPapers([]), { papers: [], missing: [] })
        assert.strictEqual(standIn.requests.length, 1)
      })
    ))

  it.live("refuses bad arguments before any request", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        const base = { query: typedQuery("all:gan"), categories: ["cs.LG"], maxResults: 10 }
        const cases = [
          [{ ...base, categories: ["cs LG"] }, "category"],
          [{ ...base, categories: ["cs.LG); DROP"] }, "category"],
          [{ ...base, since: "2024-02-30" }, "since"],
          [{ ...base, since: "01/02/2024" }, "since"],
          [{ ...base, maxResults: 0 }, "max_results"],
          [{ ...base, maxResults: 2001 }, "max_results"],
          [{ ...base, maxResults: 2.5 }, "max_results"],
          [{ ...base, query: undefined, categories: [] }, "query"],
          // a 1 MB query used to reach arXiv and come back as "unexpected answer; check ARXIV_API_URL"
          [{ ...base, query: Array.from({ length: 131_072 }, () => term("all", "gan")).reduce((l, r) => and(l, r)) }, "query"]
        ] as const
        for (const [request, argument] of cases) {
          const error = yield* Effect.flip(arxiv.search(request))
          assert.strictEqual(error._tag, "InvalidArgument")
          assert.strictEqual(error._tag === "InvalidArgument" ? error.argument : "", argument)
        }
        const bad = yield* Effect.flip(arxiv.getPapers(["1409.0473", "abc"]))
        assert.strictEqual(bad._tag, "InvalidArgument")
        assert.include(bad.message, "\"abc\" is not an arXiv id")
        assert.strictEqual(standIn.requests.length, 0)
      })
    ))

  const recoverable: ReadonlyArray<readonly [string, ArxivFault]> = [
    ["429 with Retry-After", Fault.rateLimited("0")],
    ["503", Fault.unavailable()],
    ["HTTP 200 \"Rate exceeded.\"", Fault.rateExceeded200()],
    ["a timeout", Fault.hang()],
    ["a connection reset", Fault.reset()],
    ["a body cut off mid-transfer", Fault.truncated()],
    ["malformed XML", Fault.malformedXml()],
    ["an empty page for a query that has results", Fault.emptyPage()]
  ]
  const clients = [["node:http", NodeHttpClient.layer], ["undici", NodeHttpClient.layerUndici]] as const
  for (const [clientName, client] of clients) {
    for (const [name, fault] of recoverable) {
      it.live(`recovers from ${name} with a retry (${clientName})`, () =>
        withArxiv((arxiv, standIn) =>
          Effect.gen(function*() {
            standIn.failNext(fault)
            const result = yield* arxiv.search({ query: typedQuery("all:testing"), categories: [], maxResults: 10 })
            assert.strictEqual(result.papers.length, 10)
            assert.strictEqual(standIn.requests.length, 2)
            assert.strictEqual(standIn.requests[0]!.fault, fault._tag)
          }), { client, arxiv: { timeout: fault._tag === "Hang" ? "1 second" : "5 seconds" } }))
    }
  }

  it.live("takes a 406 that carries a valid feed as a success", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        standIn.failNext(Fault.notAcceptableWithFeed())
        const result = yield* arxiv.search({ query: typedQuery("all:testing"), categories: [], maxResults: 10 })
        assert.strictEqual(result.papers.length, 10)
        assert.strictEqual(standIn.requests.length, 1)
      })
    ))

  it.live("turns arXiv's HTTP 400 error entry into InvalidArgument with arXiv's message, without retrying", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        standIn.failNext(Fault.errorFeed("1707.08567"))
        const error = yield* Effect.flip(arxiv.getPapers(["1707.08567"]))
        assert.strictEqual(error._tag, "InvalidArgument")
        assert.include(error.message, "arXiv says: incorrect id format for 1707.08567")
        assert.strictEqual(standIn.requests.length, 1)
      })
    ))

  it.live("gives up after the last attempt with UpstreamUnavailable carrying the status", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        standIn.failAlways(Fault.unavailable())
        const error = yield* Effect.flip(arxiv.search({ query: typedQuery("all:testing"), categories: [], maxResults: 10 }))
        assert.strictEqual(error._tag, "UpstreamUnavailable")
        assert.strictEqual(error._tag === "UpstreamUnavailable" ? error.status : 0, 503)
        assert.include(error.message, "arXiv is unavailable (HTTP 503)")
        assert.strictEqual(standIn.requests.length, LiveArxiv.arxivRetryPolicy.maxAttempts)
      })
    ))

  it.live("times out a hanging arXiv on every attempt and says so", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        standIn.failAlways(Fault.hang())
        const error = yield* Effect.flip(arxiv.getPapers(["1707.08567"]))
        assert.strictEqual(error._tag, "UpstreamUnavailable")
        assert.include(error.message, "no answer within")
        assert.strictEqual(standIn.requests.length, LiveArxiv.arxivRetryPolicy.maxAttempts)
      }), { arxiv: { timeout: "300 millis" } }))

  it.live("does not wait out a Retry-After longer than it is willing to, and reports it", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        standIn.failNext(Fault.rateLimited("120"))
        const error = yield* Effect.flip(arxiv.search({ query: typedQuery("all:testing"), categories: [], maxResults: 10 }))
        assert.strictEqual(error._tag, "UpstreamUnavailable")
        assert.strictEqual(error._tag === "UpstreamUnavailable" ? error.retryAfterSeconds : 0, 120)
        assert.include(error.message, "Try again in 120 s")
        assert.strictEqual(standIn.requests.length, 1)
      })
    ))

  it.live("keeps on failing malformed XML as UpstreamUnavailable, not as a parse defect", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        standIn.failAlways(Fault.malformedXml())
        const error = yield* Effect.flip(arxiv.search({ query: typedQuery("all:testing"), categories: [], maxResults: 10 }))
        assert.strictEqual(error._tag, "UpstreamUnavailable")
        assert.include(error.message, "not an arXiv Atom feed")
      })
    ))

  it.live("answers a warm rerun from the disk cache without asking arXiv, across restarts", () => {
    const dir = tempDir()
    const search = { query: typedQuery("all:testing"), categories: [], maxResults: 10 }
    return Effect.scoped(
      Effect.gen(function*() {
        const standIn = yield* arxivStandIn()
        const build = () => withDiskCache(standIn, dir)
        const first = yield* build()
        const cold = yield* first.search(search)
        yield* first.getPapers(["1707.08567", "astro-ph/0601001"])
        assert.strictEqual(standIn.requests.length, 2)
        const warm = yield* first.search(search)
        assert.deepStrictEqual(warm, cold)
        const restarted = yield* build()
        yield* restarted.search(search)
        yield* restarted.getPapers(["astro-ph/0601001", "1707.08567"])
        assert.strictEqual(standIn.requests.length, 2)
      })
    )
  })

  it.live("heals a cache entry whose body is not a feed: refetched, overwritten, then served", () => {
    const dir = tempDir()
    const search = { query: typedQuery("all:testing"), categories: [], maxResults: 10 }
    return Effect.scoped(
      Effect.gen(function*() {
        const standIn = yield* arxivStandIn()
        const build = () => withDiskCache(standIn, dir)
        const cold = yield* (yield* build()).search(search)
        // a valid wrapper around a body that is no feed (what a broken proxy or a hand edit leaves)
        const [file] = fs.readdirSync(dir).filter((f) => f.startsWith("arxiv.search-"))
        const entry = nodePath.join(dir, file!)
        fs.writeFileSync(entry, JSON.stringify({ ...JSON.parse(fs.readFileSync(entry, "utf8")), body: "Rate exceeded." }))
        const healed = yield* (yield* build()).search(search)
        assert.deepStrictEqual(healed, cold)
        assert.strictEqual(standIn.requests.length, 2)
        assert.include(JSON.parse(fs.readFileSync(entry, "utf8")).body, "<feed")
        yield* (yield* build()).search(search)
        assert.strictEqual(standIn.requests.length, 2)
      })
    )
  })

  it.live("coalesces identical concurrent searches into one request", () =>
    withArxiv((arxiv, standIn) =>
      Effect.gen(function*() {
        const search = { query: typedQuery("all:testing"), categories: [], maxResults: 10 }
        const results = yield* Effect.all(Array.from({ length: 5 }, () => arxiv.search(search)), {
          concurrency: "unbounded"
        })
        assert.strictEqual(results.length, 5)
        assert.strictEqual(standIn.requests.length, 1)
      }), { standIn: { latencyMillis: 50 } }))

  it.effect("spaces requests 3 s apart, one at a time, for 20 concurrent callers across two layers (TestClock)", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const standIn = yield* arxivStandIn()
        // the default 3 s interval; two separately built adapters share the process-wide limiter
        const options: Setup = { arxiv: { minInterval: undefined, timeout: "1 hour", deadline: "1 hour" } }
        const a = Context.get(yield* Layer.build(arxivLayer(standIn.url, options)), ArxivPort)
        const b = Context.get(yield* Layer.build(arxivLayer(standIn.url, options)), ArxivPort)
        const fibers = yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => i), (i) =>
          Effect.fork((i % 2 === 0 ? a : b).search({ query: typedQuery(`all:caller${i}`), categories: ["cs.LG"], maxResults: 1 + i }))
        )
        const arrived = arrivedAt(standIn)
        for (let k = 1; k <= 20; k++) {
          assert.strictEqual(yield* arrived(k), k, `after ${(k - 1) * STEP} ms`)
          yield* TestClock.adjust(STEP - 1)
          assert.strictEqual(yield* arrived(k), k, `just before ${k * STEP} ms`)
          yield* TestClock.adjust("1 millis")
        }
        yield* Fiber.joinAll(fibers)
        assert.strictEqual(new Set(standIn.requests.map((r) => r.params["max_results"])).size, 20)
      })
    ))

  it.effect("a 429 with Retry-After holds back every queued search, not only the one that got it (TestClock)", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const standIn = yield* arxivStandIn()
        const arxiv = Context.get(
          yield* Layer.build(arxivLayer(standIn.url, { arxiv: { minInterval: undefined, timeout: "1 hour", deadline: "1 hour" } })),
          ArxivPort
        )
        standIn.failNext(Fault.rateLimited("20"))
        const fibers = yield* Effect.forEach([0, 1, 2], (i) =>
          Effect.fork(arxiv.search({ query: typedQuery(`all:held${i}`), categories: [], maxResults: 1 + i })))
        const arrived = arrivedAt(standIn)
        assert.strictEqual(yield* arrived(1), 1)
        assert.strictEqual(standIn.requests[0]!.status, 429)
        // 3 s later the others would have gone on; arXiv asked for 20 s, for everyone
        yield* TestClock.adjust("19999 millis")
        assert.strictEqual(yield* arrived(1), 1, "nothing before the Retry-After")
        yield* TestClock.adjust("1 millis")
        assert.strictEqual(yield* arrived(2), 2)
        yield* TestClock.adjust(STEP - 1)
        assert.strictEqual(yield* arrived(2), 2, "and the 3 s spacing after it")
        yield* TestClock.adjust("1 millis")
        assert.strictEqual(yield* arrived(3), 3)
        yield* TestClock.adjust(STEP)
        assert.strictEqual(yield* arrived(4), 4)
        const results = yield* Fiber.joinAll(fibers)
        assert.deepStrictEqual(results.map((r) => r.papers.length <= 3), [true, true, true])
      })
    ))

  it.effect("searches that cannot start before their deadline fail at once, saying how long the queue is (TestClock)", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const standIn = yield* arxivStandIn()
        const arxiv = Context.get(
          yield* Layer.build(arxivLayer(standIn.url, { arxiv: { minInterval: undefined, timeout: "1 hour", deadline: "10 seconds" } })),
          ArxivPort
        )
        const exits = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => i), (i) =>
          Effect.fork(Effect.exit(arxiv.search({ query: typedQuery(`all:deadline${i}`), categories: [], maxResults: 1 + i }))))
        const arrived = arrivedAt(standIn)
        for (let k = 1; k <= 4; k++) {
          assert.strictEqual(yield* arrived(k), k)
          yield* TestClock.adjust(STEP)
        }
        const outcomes = yield* Fiber.joinAll(exits)
        assert.strictEqual(standIn.requests.length, 4)
        const refused = outcomes.filter(Exit.isFailure).map((e) => String(Cause.squash(e.cause)))
        assert.strictEqual(refused.length, 4, refused.join("\n"))
        assert.match(refused[0]!, /^UpstreamUnavailable: arXiv is unavailable: \d requests of this process are queued ahead of this one \(about \d+ s at one request every 3 s\), longer than the \d+ s left before this call's deadline; ask for less at once, or try again in a minute\.$/)
      })
    ))
})
