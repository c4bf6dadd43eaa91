/**
 * The live OpenAlex adapter over real sockets, against the loopback stand-in
 * that replays recorded OpenAlex records (test/support/openalex-standin.ts).
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Exit, Fiber, Layer, Option, Redacted, Schema, TestClock } from "effect"
import { OpenAlexPort } from "../../src/core/ports/OpenAlexPort.js"
import * as LiveOpenAlex from "../../src/adapters/openalex/LiveOpenAlex.js"
import * as ResponseCache from "../../src/adapters/http/ResponseCache.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { arxivKeysOf, limiterLayer, WorkRecord } from "../../src/adapters/openalex/openalexClient.js"
import { OpenAlexLimiter } from "../../src/adapters/http/UpstreamLimiter.js"
import { Fault, loadPool, openAlexStandIn, type OpenAlexStandIn, SHARED_DATA } from "../support/openalex-standin.js"
import { captureLogs } from "../support/logs.js"

const fast = { retryBaseDelay: "5 millis", retries: 3 } as const

/** The adapter over a real HTTP client, alive for the test's scope. */
const port = (standIn: OpenAlexStandIn, options: LiveOpenAlex.LiveOpenAlexOptions = {}) =>
  Layer.build(
    LiveOpenAlex.layer({ apiUrl: standIn.url, apiKey: Redacted.make("test-key-0123456789"), ...fast, ...options }).pipe(
      Layer.provide(NodeHttpClient.layerUndici)
    )
  ).pipe(Effect.map(Context.get(OpenAlexPort)))

// the 42 distinct works cited by the two recorded seeds W3045921891 and W3046863325
const seedReferences = (standIn: OpenAlexStandIn): Array<string> => {
  const refs = new Set<string>()
  for (const id of ["W3045921891", "W3046863325"]) {
    for (const w of standIn.pool.get(id)!["referenced_works"] as Array<string>) refs.add(w.replace("https://openalex.org/", ""))
  }
  return [...refs]
}

describe("LiveOpenAlex.worksByArxivIds", () => {
  it.scopedLive("resolves a batch in one request and matches records back through their locations", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn)
      const lookup = yield* openalex.worksByArxivIds(["1609.08144", "2007.14454v2", "1310.4546", "1806.03537", "2401.99999"])

      assert.strictEqual(standIn.worksRequests().length, 1)
      const sent = standIn.worksRequests()[0]!.params
      assert.strictEqual(
        sent["filter"],
        "doi:10.48550/arxiv.1609.08144|10.48550/arxiv.2007.14454|10.48550/arxiv.1310.4546|10.48550/arxiv.1806.03537|10.48550/arxiv.2401.99999"
      )
      assert.include(sent["select"]!, "locations")
      assert.notInclude(sent["select"]!, "abstract_inverted_index")
      assert.strictEqual(sent["api_key"], "test-key-0123456789")

      const byId = new Map(lookup.impacts.map((i) => [i.arxivId, i]))
      assert.deepStrictEqual(lookup.missing, ["2401.99999"])
      assert.strictEqual(lookup.source.name, "OpenAlex")
      assert.isUndefined(lookup.source.recordedOn)

      const gnmt = byId.get("1609.08144")!
      assert.strictEqual(gnmt.openalexId, "W2525778437")
      assert.strictEqual(gnmt.citationCount, 5625)
      assert.strictEqual(gnmt.publicationDate, "2016-09-26")

      // found, with 0 citations: an impact of 0, not a missing paper; the caller's spelling is kept
      const seed = byId.get("2007.14454v2")!
      assert.strictEqual(seed.openalexId, "W3045921891")
      assert.strictEqual(seed.citationCount, 0)
      assert.strictEqual(seed.referencedWorks?.length, 37)
      assert.isTrue(seed.referencedWorks!.every((w) => /^W\d+$/.test(w)))

      // word2vec's merged record: doi 10.57702/kcdhx0zi and year 2025, matched through arxiv.org/abs/1310.4546;
      // its year is not trusted
      const w2v = byId.get("1310.4546")!
      assert.strictEqual(w2v.openalexId, "W2153579005")
      assert.strictEqual(w2v.citationCount, 18057)
      assert.isUndefined(w2v.publicationYear)
      assert.isUndefined(w2v.publicationDate)
    }))

  it.scopedLive("ignores records that point to none of the requested papers", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn)
      // W3046863325 (the ACM seed) has the DOI 10.1145/3383583.3398584 and no arXiv location
      const lookup = yield* openalex.worksByArxivIds(["1806.03537"])
      assert.deepStrictEqual(lookup.impacts.map((i) => i.openalexId), ["W2807650837"])
      assert.deepStrictEqual(lookup.missing, [])
    }))

  it.scopedLive("batches 50 ids per request: 10 candidates are 1 request, 120 are 3", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn)
      const ids = (n: number) => Array.from({ length: n }, (_, i) => `2301.${String(10000 + i)}`)
      const ten = yield* openalex.worksByArxivIds(ids(10))
      assert.strictEqual(standIn.worksRequests().length, 1)
      assert.strictEqual(ten.missing.length, 10)
      yield* openalex.worksByArxivIds(ids(120))
      assert.strictEqual(standIn.worksRequests().length, 4)
      const sizes = standIn.worksRequests().slice(1).map((r) => r.params["filter"]!.split("|").length).sort((a, b) => a - b)
      assert.deepStrictEqual(sizes, [20, 50, 50])
    }))

  it.scopedLive("rejects a malformed id before any request", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn)
      const error = yield* Effect.flip(openalex.worksByArxivIds(["1609.08144", "not an id"]))
      assert.strictEqual(error._tag, "InvalidArgument")
      assert.strictEqual(standIn.requests.length, 0)
    }))
})

describe("LiveOpenAlex.worksByIds", () => {
  it.scopedLive("hydrates the 42 references of the seeds in one request; 4 do not resolve", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn)
      const refs = seedReferences(standIn)
      assert.strictEqual(refs.length, 42)
      const lookup = yield* openalex.worksByIds(refs)
      assert.strictEqual(standIn.worksRequests().length, 1)
      assert.match(standIn.worksRequests()[0]!.params["filter"]!, /^openalex:W\d+(\|W\d+){41}$/)
      assert.strictEqual(lookup.works.length, 38)
      assert.deepStrictEqual([...lookup.missing].sort(), ["W2962739339", "W2963090765", "W3098501485", "W3101913037"])

      const byId = new Map(lookup.works.map((w) => [w.openalexId, w]))
      assert.strictEqual(byId.get("W2250539671")!.title, "Glove: Global Vectors for Word Representation")
      // BERT's record has an empty title: it gets a fallback naming the record
      const bert = byId.get("W2963341956")!
      assert.strictEqual(bert.citedByCount, 30214)
      assert.strictEqual(bert.title, "Untitled work (OpenAlex W2963341956, doi:10.18653/v1/n19-1423)")
      assert.strictEqual(byId.get("W2525778437")!.arxivId, "1609.08144")
      assert.strictEqual(byId.get("W2525778437")!.doi, "10.48550/arxiv.1609.08144")
    }))

  it.scopedLive("accepts full OpenAlex URLs and answers in the caller's spelling for missing ids", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn)
      const lookup = yield* openalex.worksByIds(["https://openalex.org/W2525778437", "W1"])
      assert.deepStrictEqual(lookup.works.map((w) => w.openalexId), ["W2525778437"])
      assert.deepStrictEqual(lookup.missing, ["W1"])
    }))

  it.scopedLive("an empty request sends nothing", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn)
      assert.deepStrictEqual(yield* openalex.worksByIds([]), { works: [], missing: [] })
      assert.strictEqual(standIn.requests.length, 0)
    }))
})

describe("LiveOpenAlex.mostCitedArxivWorks", () => {
  it.scopedLive("one works search, arXiv-only, sorted by citations, with the metadata the judge needs", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn)
      const r = yield* openalex.mostCitedArxivWorks({
        phrases: ["Word Embeddings", "distributed representations", "translation", "word embeddings"],
        limit: 10
      })
      assert.strictEqual(standIn.worksRequests().length, 1)
      const sent = standIn.worksRequests()[0]!
      assert.strictEqual(sent.path, "/works")
      // phrases quoted, OR-ed, each once; only works arXiv lists; most cited first; per_page = the limit
      assert.strictEqual(sent.params["search"], `"word embeddings" OR "distributed representations" OR translation`)
      assert.strictEqual(sent.params["filter"], "indexed_in:arxiv")
      assert.strictEqual(sent.params["sort"], "cited_by_count:desc")
      assert.strictEqual(sent.params["per_page"], "10")
      for (const f of ["abstract_inverted_index", "authorships", "locations", "cited_by_count", "referenced_works"]) {
        assert.include(sent.params["select"]!.split(","), f)
      }
      assert.strictEqual(sent.status, 200)

      assert.deepStrictEqual(r.papers.map((p) => p.paper.arxivId), ["1310.4546", "1609.08144", "1806.03537"])
      const counts = r.papers.map((p) => p.impact.citationCount)
      assert.deepStrictEqual(counts, [18057, 5625, 144])
      const [w2v, gnmt] = r.papers
      // word2vec's merged record carries another DOI and the year 2025: the arXiv id comes from its
      // locations and the date from the id, never from the merged record
      assert.strictEqual(w2v!.paper.published, "2013-10-01")
      assert.strictEqual(w2v!.impact.openalexId, "W2153579005")
      assert.match(w2v!.paper.abstract, /^The recently introduced continuous Skip-gram model/)
      assert.include(w2v!.paper.authors, "Tomáš Mikolov")
      // GNMT's record is the preprint's own (arXiv DOI): its date is arXiv's
      assert.strictEqual(gnmt!.paper.published, "2016-09-26")
      assert.strictEqual(gnmt!.paper.title, "Google's Neural Machine Translation System: Bridging the Gap between Human and Machine Translation")
      assert.strictEqual(gnmt!.impact.source.name, "OpenAlex")
      assert.deepStrictEqual(gnmt!.impact.referencedWorks, ["W1968594024", "W2121879602", "W2964121744", "W2251743902"])
    }))

  it.scopedLive("sends nothing for no usable phrase or a limit outside 1..100", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn)
      assert.deepStrictEqual((yield* openalex.mostCitedArxivWorks({ phrases: ["", " ()\"*"], limit: 5 })).papers, [])
      const bad = yield* Effect.exit(openalex.mostCitedArxivWorks({ phrases: ["attention"], limit: 101 }))
      assert.isTrue(Exit.isFailure(bad))
      assert.strictEqual(standIn.worksRequests().length, 0)
    }))
})

describe("LiveOpenAlex faults", () => {
  it.scopedLive("429 with Retry-After, 503, a truncated body and a reset are retried until an answer", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn)
      standIn.failNext(Fault.rateLimited("1"), Fault.unavailable(), Fault.truncated())
      const lookup = yield* openalex.worksByArxivIds(["1609.08144"])
      assert.strictEqual(lookup.impacts[0]!.openalexId, "W2525778437")
      assert.deepStrictEqual(standIn.requests.map((r) => r.status), [429, 503, 200, 200])

      standIn.failNext(Fault.reset())
      const works = yield* openalex.worksByIds(["W2525778437"])
      assert.strictEqual(works.works.length, 1)
    }))

  it.scopedLive("an answer that never comes times out and is asked again", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn, { timeout: "300 millis" })
      standIn.failNext(Fault.hang())
      const lookup = yield* openalex.worksByIds(["W2525778437"])
      assert.strictEqual(lookup.works.length, 1)
      assert.strictEqual(standIn.requests.length, 2)
    }))

  it.scopedLive("a 503 that lasts becomes UpstreamUnavailable after the bounded retries", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn, { retries: 2 })
      standIn.failNext(Fault.unavailable(), Fault.unavailable(), Fault.unavailable(), Fault.unavailable())
      const error = yield* Effect.flip(openalex.worksByArxivIds(["1609.08144"]))
      assert.strictEqual(error._tag, "UpstreamUnavailable")
      assert.strictEqual(error._tag === "UpstreamUnavailable" ? error.status : 0, 503)
      assert.strictEqual(standIn.requests.length, 3)
      assert.include(error.message, ", after 2 retries")
    }))

  it.scopedLive("a Retry-After beyond the cap fails at once and says when to come back", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn, { maxRetryAfter: "5 seconds" })
      standIn.failNext(Fault.rateLimited("3600"))
      const error = yield* Effect.flip(openalex.worksByArxivIds(["1609.08144"]))
      assert.strictEqual(error._tag, "UpstreamUnavailable")
      if (error._tag === "UpstreamUnavailable") assert.strictEqual(error.retryAfterSeconds, 3600)
      assert.include(error.message, "Try again in 3600 s")
      assert.strictEqual(standIn.requests.length, 1)
      // it was not retried, so the message does not say it was
      assert.notInclude(error.message, "retr")
    }))

  it.scopedLive("without a key, the recorded 401 says an OpenAlex API key is required, at once", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn({ requiredKey: "the-real-key" })
      const openalex = yield* port(standIn, { apiKey: undefined })
      const error = yield* Effect.flip(openalex.worksByArxivIds(["1609.08144"]))
      assert.strictEqual(error._tag, "UpstreamUnavailable")
      assert.include(error.message, "OPENALEX_API_KEY")
      assert.include(error.message, "February 2026")
      assert.include(error.message, "API key not found")
      assert.strictEqual(standIn.requests.length, 1)
      assert.notProperty(standIn.requests[0]!.params, "api_key")
    }))

  it.scopedLive("without a key, a spent keyless budget (429) also asks for OPENALEX_API_KEY", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn({ keylessBudget: 1 })
      const openalex = yield* port(standIn, { apiKey: undefined })
      yield* openalex.worksByIds(["W2525778437"])
      const error = yield* Effect.flip(openalex.worksByIds(["W2525778437"]))
      assert.include(error.message, "HTTP 429")
      assert.include(error.message, "OPENALEX_API_KEY")
      assert.strictEqual(standIn.requests.length, 2)
    }))

  it.scopedLive("a rejected key is named without being shown, in errors and logs", () =>
    Effect.gen(function*() {
      const secret = "sk-openalex-SECRET-42"
      const standIn = yield* openAlexStandIn({ requiredKey: "another-key" })
      const openalex = yield* port(standIn, { apiKey: Redacted.make(secret) })
      standIn.failNext(Fault.unavailable(), Fault.rateLimited("0"))
      const { exit, lines } = yield* captureLogs(openalex.worksByArxivIds(["1609.08144"]))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? String(exit.cause) : ""
      assert.include(error, "OPENALEX_API_KEY")
      assert.notInclude(error, secret)
      assert.isAbove(lines.length, 0) // the two retries were logged
      for (const line of lines) assert.notInclude(line, secret)
      // the key was sent, as api_key, on every attempt
      assert.deepStrictEqual(standIn.requests.map((r) => r.params["api_key"]), [secret, secret, secret])
    }))

  it.scopedLive("a 404 HTML page (wrong base URL) is a clear UpstreamUnavailable, not a parse error", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn, { apiUrl: `${standIn.url}/v2` })
      const error = yield* Effect.flip(openalex.worksByArxivIds(["1609.08144"]))
      assert.strictEqual(error._tag, "UpstreamUnavailable")
      assert.include(error.message, "HTTP 404")
      assert.include(error.message, "404 Not Found")
      assert.include(error.message, "OPENALEX_API_URL")
      assert.strictEqual(standIn.requests.length, 1)
    }))

  it.scopedLive("an OpenAlex 400 becomes InvalidArgument with OpenAlex's message", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn)
      standIn.failNext(Fault.invalidFilter())
      const error = yield* Effect.flip(openalex.worksByArxivIds(["1609.08144"]))
      assert.strictEqual(error._tag, "InvalidArgument")
      assert.include(error.message, "DOESNTEXIST is not a valid field")
      assert.isBelow(error.message.length, 500)
      assert.strictEqual(standIn.requests.length, 1)
    }))
})

describe("LiveOpenAlex.layerConfig", () => {
  it.scopedLive("reads OPENALEX_API_URL, OPENALEX_API_KEY, OPENALEX_MAILTO and OPENALEX_DEADLINE", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const config = ConfigProvider.fromMap(
        new Map([
          ["OPENALEX_API_URL", standIn.url],
          ["OPENALEX_API_KEY", "cfg-key-987654"],
          ["OPENALEX_MAILTO", "someone@example.org"],
          ["OPENALEX_DEADLINE", "90 seconds"]
        ])
      )
      const lookup = yield* Effect.flatMap(OpenAlexPort, (o) => o.worksByArxivIds(["1609.08144"])).pipe(
        Effect.provide(
          LiveOpenAlex.layerConfig(fast).pipe(Layer.provide(NodeHttpClient.layerUndici), Layer.provide(Layer.setConfigProvider(config)))
        )
      )
      assert.strictEqual(lookup.impacts.length, 1)
      const sent = standIn.requests[0]!
      assert.strictEqual(sent.params["api_key"], "cfg-key-987654")
      assert.strictEqual(sent.params["mailto"], "someone@example.org")
      assert.include(String(sent.headers["user-agent"]), "mailto:someone@example.org")
      // OPENALEX_DEADLINE: a call held back longer than it is refused, naming it
      standIn.failNext(Fault.rateLimited("120"))
      const again = (ids: Array<string>) =>
        Effect.flatMap(OpenAlexPort, (o) => o.worksByArxivIds(ids)).pipe(
          Effect.provide(
            LiveOpenAlex.layerConfig(fast).pipe(Layer.provide(NodeHttpClient.layerUndici), Layer.provide(Layer.setConfigProvider(config)))
          ),
          Effect.flip
        )
      yield* again(["1310.4546"])
      assert.include((yield* again(["1806.03537"])).message, "longer than the 90 s left before this call's deadline")
    }))
})

const realPause = (ms: number) => Effect.promise(() => new Promise<void>((r) => setTimeout(r, ms)))

/** OpenAlex's process-wide limiter for `standIn` (the one its adapter uses), once it is holding every call back. */
const heldLimiter = (standIn: OpenAlexStandIn) =>
  Effect.gen(function*() {
    const limiter = Context.get(yield* Layer.build(limiterLayer({ apiUrl: standIn.url })), OpenAlexLimiter)
    for (let waited = 0; (yield* limiter.state).heldMillis === 0 && waited < 10_000; waited += 10) yield* realPause(10)
    return limiter
  })

describe("LiveOpenAlex politeness: one Retry-After for every call, a deadline per call", () => {
  it.effect("a Retry-After holds back every OpenAlex call, not only the one that got it (TestClock)", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const standIn = yield* openAlexStandIn()
        const openalex = yield* port(standIn)
        standIn.failNext(Fault.rateLimited("20"))
        const first = yield* Effect.fork(openalex.worksByArxivIds(["1609.08144"]))
        const limiter = yield* heldLimiter(standIn)
        assert.deepStrictEqual(standIn.requests.map((r) => r.status), [429])
        // another call, after the 429: OpenAlex asked this process to wait 20 s, so it waits too
        const second = yield* Effect.fork(openalex.worksByIds(["W2525778437"]))
        yield* TestClock.adjust("19999 millis")
        yield* realPause(100)
        assert.strictEqual(standIn.requests.length, 1)
        assert.isTrue(Option.isNone(yield* Fiber.poll(second)))
        assert.strictEqual((yield* limiter.state).heldMillis, 1)
        yield* TestClock.adjust("1 second")
        assert.strictEqual((yield* Fiber.join(first)).impacts[0]!.openalexId, "W2525778437")
        assert.strictEqual((yield* Fiber.join(second)).works.length, 1)
        assert.deepStrictEqual(standIn.requests.map((r) => r.status), [429, 200, 200])
      })
    ))

  it.effect("a call that cannot start before its deadline is refused at once, without a request, saying why (TestClock)", () =>
    // the clock stands still: a call that waited for the 120 s would never end
    Effect.scoped(Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const openalex = yield* port(standIn)
      // beyond what a call waits for (30 s): that call fails at once, and every OpenAlex call is held for 120 s
      standIn.failNext(Fault.rateLimited("120"))
      const first = yield* Effect.flip(openalex.worksByArxivIds(["1609.08144"]))
      assert.strictEqual(first._tag === "UpstreamUnavailable" ? first.retryAfterSeconds : 0, 120)
      const refused = yield* Effect.flip(openalex.worksByIds(["W2525778437"]))
      assert.strictEqual(refused._tag, "UpstreamUnavailable")
      assert.strictEqual(
        refused.message,
        "OpenAlex is unavailable: it asked this process to wait 120 s (Retry-After), longer than the 50 s left before this call's deadline. Try again in 120 s."
      )
      assert.strictEqual(standIn.requests.length, 1)
    })))
})

describe("LiveOpenAlex with the response cache", () => {
  it.scopedLive("a warm rerun makes no OpenAlex request, and the key is in no cache entry", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "arxiv-companion-openalex-cache-"))
      const secret = "cache-secret-key-5555"
      const standIn = yield* openAlexStandIn()
      const run = Effect.flatMap(OpenAlexPort, (o) => o.worksByArxivIds(["1609.08144", "1310.4546"])).pipe(
        Effect.provide(
          LiveOpenAlex.layer({ apiUrl: standIn.url, apiKey: Redacted.make(secret), ...fast }).pipe(
            Layer.provide(NodeHttpClient.layerUndici),
            Layer.provide(ResponseCache.layer({ dir }).pipe(Layer.provide(NodeContext.layer)))
          )
        )
      )
      const cold = yield* run
      const warm = yield* run
      assert.strictEqual(standIn.requests.length, 1)
      assert.deepStrictEqual(warm, cold)
      for (const file of fs.readdirSync(dir)) assert.notInclude(fs.readFileSync(nodePath.join(dir, file), "utf8"), secret)
      const files = fs.readdirSync(dir).filter((f) => !f.startsWith("."))
      assert.strictEqual(files.length, 1)
      const entry = fs.readFileSync(nodePath.join(dir, files[0]!), "utf8")
      assert.include(entry, "filter=doi")
      assert.notInclude(entry, secret)
      assert.notInclude(files[0]!, secret)
    }))
})

describe("the OpenAlex stand-in", () => {
  it.scopedLive("replays a recorded request byte for byte, with its status", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const get = (pathAndQuery: string) =>
        Effect.promise(async () => {
          const response = await fetch(`${standIn.url}${pathAndQuery}`)
          return { status: response.status, body: await response.text() }
        })
      const seeds = yield* get("/works?filter=openalex%3AW3045921891%7CW3046863325&per-page=200&mailto=x%40example.org&cursor=%2A")
      assert.strictEqual(seeds.status, 200)
      assert.strictEqual(seeds.body, fs.readFileSync(nodePath.join(SHARED_DATA, "openalex/openalexPro/works_filter_openalex_W3045921891_W3046863325_seeds.json"), "utf8"))
      const unknownDoi = yield* get("/works/https://doi.org/10.1046%2Fj.1365-2699.2003.00795?select=open_access,doi")
      assert.strictEqual(unknownDoi.status, 404)
      assert.include(unknownDoi.body, "<title>404 Not Found</title>")
      const badFilter = yield* get("/works?filter=DOESNTEXIST%3A1")
      assert.strictEqual(badFilter.status, 400)
      assert.include(badFilter.body, "DOESNTEXIST is not a valid field")
    }))
})

describe("matching records back to arXiv ids", () => {
  it("every recorded record with an arXiv DOI points to that id; records with no arXiv version point to none", () => {
    const pool = loadPool()
    let withArxivDoi = 0
    for (const record of pool.values()) {
      const decoded = Schema.decodeUnknownSync(WorkRecord)(record)
      const keys = arxivKeysOf(decoded)
      const doi = typeof decoded.doi === "string" ? /10\.48550\/arxiv\.(.+)$/i.exec(decoded.doi)?.[1] : undefined
      if (doi !== undefined) {
        withArxivDoi++
        assert.isTrue(keys.has(doi.toLowerCase()), `${decoded.id} → ${doi}`)
      }
      const mentionsArxiv = JSON.stringify(record).toLowerCase().includes("arxiv")
      if (!mentionsArxiv) assert.strictEqual(keys.size, 0, decoded.id)
    }
    assert.isAtLeast(withArxivDoi, 3)
    const w2v = Schema.decodeUnknownSync(WorkRecord)(pool.get("W2153579005"))
    assert.deepStrictEqual([...arxivKeysOf(w2v)], ["1310.4546"])
    assert.strictEqual(arxivKeysOf(Schema.decodeUnknownSync(WorkRecord)(pool.get("W3046863325"))).size, 0)
  })
})
