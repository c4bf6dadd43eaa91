/**
 * One limiter per service, not per address: arXiv and OpenAlex served from
 * the same loopback address (a small proxy in front of the two stand-ins)
 * keep their own slots, so OpenAlex never waits for arXiv's 3 s. TestClock:
 * the clock stands still, so a call that waited for arXiv's slot would never
 * finish; requests travel over real sockets.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Fiber, Layer, Option, Redacted, TestClock } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as LiveArxiv from "../../src/adapters/arxiv/LiveArxiv.js"
import * as LiveOpenAlex from "../../src/adapters/openalex/LiveOpenAlex.js"
import * as ResponseCache from "../../src/adapters/http/ResponseCache.js"
import { ArxivPort } from "../../src/core/ports/ArxivPort.js"
import { OpenAlexPort } from "../../src/core/ports/OpenAlexPort.js"
import { arxivStandIn } from "../support/arxiv-standin.js"
import { openAlexStandIn } from "../support/openalex-standin.js"
import { typedQuery } from "../support/query.js"

/** A loopback proxy: /api/query to `arxiv`, everything else to `openalex`. */
const oneAddress = (arxiv: string, openalex: string) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<http.Server>((resolve) => {
        const server = http.createServer((req, res) => {
          const target = new URL(req.url ?? "/", (req.url ?? "").startsWith("/api/query") ? arxiv : openalex)
          const upstream = http.request(target, { method: req.method, headers: req.headers }, (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers)
            answer.pipe(res)
          })
          req.pipe(upstream)
        })
        server.listen(0, "127.0.0.1", () => resolve(server))
      })
    ),
    (server) => Effect.promise(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))))
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))

const realTime = (ms: number) => Effect.promise(() => new Promise<void>((r) => setTimeout(r, ms)))

describe("limiters are per service", () => {
  it.effect("OpenAlex on arXiv's address does not wait for arXiv's 3 s slot (TestClock)", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const arxivBackend = yield* arxivStandIn()
        const openalexBackend = yield* openAlexStandIn()
        const address = yield* oneAddress(new URL(arxivBackend.url).origin, openalexBackend.url)
        const deps = Layer.mergeAll(NodeHttpClient.layer, ResponseCache.layerDisabled)
        const arxiv = Context.get(
          yield* Layer.build(LiveArxiv.layer({ apiUrl: `${address}/api/query`, deadline: "1 hour" }).pipe(Layer.provide(deps))),
          ArxivPort
        )
        const openalex = Context.get(
          yield* Layer.build(
            LiveOpenAlex.layer({ apiUrl: address, apiKey: Redacted.make("test-key-0123456789") }).pipe(Layer.provide(deps))
          ),
          OpenAlexPort
        )
        yield* arxiv.search({ query: typedQuery("all:testing"), categories: [], maxResults: 10 })
        // arXiv's next slot is 3 s away (on the TestClock, which stands still)
        const queued = yield* Effect.fork(arxiv.search({ query: typedQuery("all:other"), categories: [], maxResults: 5 }))
        const lookup = yield* openalex.worksByArxivIds(["1609.08144"]).pipe(
          Effect.raceFirst(Effect.as(realTime(5_000), "waited for arXiv's slot" as const))
        )
        assert.notStrictEqual(lookup, "waited for arXiv's slot")
        if (typeof lookup !== "string") assert.strictEqual(lookup.impacts[0]!.openalexId, "W2525778437")
        assert.isTrue(Option.isNone(yield* Fiber.poll(queued)), "arXiv's second search still waits for its slot")
        // 3 s and the margin that keeps the gaps arXiv sees at 3 s or more
        yield* TestClock.adjust(Duration.sum("3 seconds", LiveArxiv.ARXIV_START_MARGIN))
        yield* Fiber.join(queued)
        assert.strictEqual(arxivBackend.requests.length, 2)
      })
    ))
})
