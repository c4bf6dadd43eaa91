/**
 * The live citations adapter (get_citations) against the loopback OpenAlex stand-in.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import * as LiveOpenAlexCitations from "../../src/adapters/openalex/LiveOpenAlexCitations.js"
import { CitationsPort } from "../../src/core/ports/CitationsPort.js"
import { openAlexStandIn, type OpenAlexStandIn } from "../support/openalex-standin.js"

const citations = (standIn: OpenAlexStandIn) =>
  Layer.build(
    LiveOpenAlexCitations.layer({ apiUrl: standIn.url, apiKey: Redacted.make("k-citations-1"), retryBaseDelay: "5 millis" }).pipe(
      Layer.provide(NodeHttpClient.layerUndici)
    )
  ).pipe(Effect.map(Context.get(CitationsPort)))

describe("LiveOpenAlexCitations.citingWorks", () => {
  it.scopedLive("finds the paper's record, then its citing works most cited first: two requests", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const port = yield* citations(standIn)
      const result = yield* port.citingWorks("arXiv:1609.08144v2", 10)
      assert.strictEqual(result.arxivId, "1609.08144")
      assert.strictEqual(result.openalexId, "W2525778437")
      assert.include(result.works.map((w) => w.openalexId), "W3045921891")
      const counts = result.works.map((w) => w.citedByCount)
      assert.deepStrictEqual(counts, [...counts].sort((a, b) => b - a))
      assert.strictEqual(result.total, result.works.length)
      assert.strictEqual(standIn.requests.length, 2)
      assert.deepInclude(standIn.requests[1]!.params, { filter: "cites:W2525778437", sort: "cited_by_count:desc", per_page: "10" })
    }))

  it.scopedLive("a known paper nobody cites is an empty list, not PaperNotFound", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const port = yield* citations(standIn)
      const result = yield* port.citingWorks("2007.14454", 5)
      assert.strictEqual(result.openalexId, "W3045921891")
      assert.strictEqual(result.total, 0)
      assert.deepStrictEqual(result.works, [])
    }))

  it.scopedLive("a paper OpenAlex does not know is PaperNotFound; a bad limit is InvalidArgument before any request", () =>
    Effect.gen(function*() {
      const standIn = yield* openAlexStandIn()
      const port = yield* citations(standIn)
      const missing = yield* Effect.flip(port.citingWorks("2401.99999", 5))
      assert.strictEqual(missing._tag, "PaperNotFound")
      assert.strictEqual(standIn.requests.length, 1)
      const bad = yield* Effect.flip(port.citingWorks("1609.08144", 0))
      assert.strictEqual(bad._tag, "InvalidArgument")
      assert.strictEqual(standIn.requests.length, 1)
    }))
})
