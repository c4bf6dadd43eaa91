/**
 * Bounded memory on any upstream answer, and messages a person can act on,
 * against real loopback servers: an answer over the 64 MB cap is cut off
 * while it arrives (or refused from its Content-Length), not retried;
 * arXiv's HTTP 200 "Rate exceeded." is said to be its rate limit, a 503
 * without Retry-After promises no "Try again in 0 s", and a keyless OpenAlex
 * 429 is never announced as "trying again".
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as LiveArxiv from "../../src/adapters/arxiv/LiveArxiv.js"
import * as LiveOpenAlex from "../../src/adapters/openalex/LiveOpenAlex.js"
import * as ResponseCache from "../../src/adapters/http/ResponseCache.js"
import { ArxivPort } from "../../src/core/ports/ArxivPort.js"
import { OpenAlexPort } from "../../src/core/ports/OpenAlexPort.js"
import { type UpstreamWait, withWaitReporter } from "../../src/core/waiting.js"
import { arxivStandIn, Fault } from "../support/arxiv-standin.js"
import { openAlexStandIn } from "../support/openalex-standin.js"
import { typedQuery } from "../support/query.js"

/** A server whose every answer is `total` bytes of XML-ish filler, sent in 1 MB chunks (chunked, or with Content-Length). */
const hugeAnswers = (options: { readonly total: number; readonly announce?: boolean }) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const stats = { requests: 0, bytesSent: 0 }
      const chunk = Buffer.alloc(1_000_000, "<entry>x</entry>\n")
      const server = http.createServer((req, res) => {
        stats.requests++
        res.writeHead(200, {
          "content-type": req.url?.startsWith("/works") ? "application/json" : "application/atom+xml",
          ...(options.announce === true ? { "content-length": String(options.total) } : {})
        })
        let left = options.total
        const pump = () => {
          while (left > 0 && !res.destroyed) {
            const n = Math.min(left, chunk.length)
            left -= n
            stats.bytesSent += n
            if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once("drain", pump)
          }
          if (!res.destroyed) res.end()
        }
        if (options.announce === true) res.end(chunk.subarray(0, 10))
        else pump()
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      return { url, stats, server }
    }),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  )

const fast = { minInterval: "5 millis", timeout: "20 seconds", retry: { baseDelay: "5 millis", maxDelay: "20 millis" } } as const

const arxivAt = (url: string) =>
  Effect.map(
    Layer.build(
      LiveArxiv.layer({ ...fast, apiUrl: url }).pipe(
        Layer.provide(Layer.mergeAll(NodeHttpClient.layerUndici, ResponseCache.layerDisabled))
      )
    ),
    (ctx) => Context.get(ctx, ArxivPort)
  )

const openAlexAt = (url: string) =>
  Effect.map(
    Layer.build(LiveOpenAlex.layer({ apiUrl: url, retryBaseDelay: "5 millis" }).pipe(Layer.provide(NodeHttpClient.layerUndici))),
    (ctx) => Context.get(ctx, OpenAlexPort)
  )

const heard = () => {
  const waits: Array<UpstreamWait> = []
  return { waits, reporter: withWaitReporter((w) => Effect.sync(() => void waits.push(w))) }
}

describe("an upstream answer over the cap", () => {
  it.scopedLive("arXiv: reading stops at 64 MB of a 200 MB answer, once, and says so", () =>
    Effect.gen(function*() {
      const server = yield* hugeAnswers({ total: 200_000_000 })
      const arxiv = yield* arxivAt(`${server.url}/api/query`)
      const error = yield* Effect.flip(arxiv.search({ query: typedQuery("all:huge"), categories: [], maxResults: 10 }))
      assert.strictEqual(error._tag, "UpstreamUnavailable")
      assert.include(error.message, "larger than 64 MB")
      assert.notInclude(error.message, "Try again")
      assert.strictEqual(server.stats.requests, 1)
      // what the server managed to push before the client let go: the cap and what the sockets buffer
      assert.isBelow(server.stats.bytesSent, 100_000_000)
    }))

  it.scopedLive("arXiv: a Content-Length over the cap is refused before reading", () =>
    Effect.gen(function*() {
      const server = yield* hugeAnswers({ total: 500_000_000, announce: true })
      const arxiv = yield* arxivAt(`${server.url}/api/query`)
      const error = yield* Effect.flip(arxiv.search({ query: typedQuery("all:huge"), categories: [], maxResults: 10 }))
      assert.include(error.message, "its answer is 500 MB, more than the 64 MB this client reads")
      assert.strictEqual(server.stats.requests, 1)
    }))

  it.scopedLive("OpenAlex: the same cap, and no retry", () =>
    Effect.gen(function*() {
      const server = yield* hugeAnswers({ total: 200_000_000 })
      const openalex = yield* openAlexAt(server.url)
      const error = yield* Effect.flip(openalex.worksByIds(["W2525778437"]))
      assert.include(error.message, "larger than 64 MB")
      assert.strictEqual(server.stats.requests, 1)
    }))
})

describe("messages about an upstream's refusals", () => {
  it.scopedLive("arXiv's HTTP 200 \"Rate exceeded.\" is its rate limit, in the retries and in the end, never \"HTTP 429\"", () =>
    Effect.gen(function*() {
      const standIn = yield* arxivStandIn()
      standIn.failAlways(Fault.rateExceeded200())
      const arxiv = yield* arxivAt(standIn.url)
      const { waits, reporter } = heard()
      const error = yield* Effect.flip(arxiv.search({ query: typedQuery("all:testing"), categories: [], maxResults: 10 }).pipe(reporter))
      assert.strictEqual(error.message, "arXiv is unavailable: its rate limit was reached (it answered \"Rate exceeded.\").")
      const retries = waits.filter((w) => w.reason === "retry")
      assert.strictEqual(retries.length, 3)
      for (const w of retries) assert.match(w.message, /^arXiv: its rate limit was reached \(it answered "Rate exceeded\."\); trying again in \d+ s/)
      assert.strictEqual(standIn.requests.length, 4)
    }))

  it.scopedLive("a 503 without Retry-After does not say \"Try again in 0 s\"", () =>
    Effect.gen(function*() {
      const standIn = yield* arxivStandIn()
      standIn.failAlways({ _tag: "Status", status: 503, retryAfter: "0", body: "busy" })
      const arxiv = yield* arxivAt(standIn.url)
      const error = yield* Effect.flip(arxiv.search({ query: typedQuery("all:testing"), categories: [], maxResults: 10 }))
      assert.strictEqual(error.message, "arXiv is unavailable (HTTP 503): HTTP 503.")
      standIn.failAlways(Fault.unavailable())
      const again = yield* Effect.flip(arxiv.search({ query: typedQuery("all:other"), categories: [], maxResults: 10 }))
      assert.notInclude(again.message, "Try again")
    }))

  it.scopedLive("a keyless OpenAlex 429 is not announced as \"trying again\": it says to get a key, after one request", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn({ keylessBudget: 0 })
      const openalex = yield* openAlexAt(standIn.url)
      const { waits, reporter } = heard()
      const error = yield* Effect.flip(openalex.worksByArxivIds(["1706.03762"]).pipe(reporter))
      assert.include(error.message, "set OPENALEX_API_KEY")
      assert.deepStrictEqual(waits.map((w) => w.message), [])
      assert.strictEqual(standIn.requests.length, 1)
    }))
})
