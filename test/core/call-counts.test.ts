/**
 * The run's port calls counted by a wrapper over the ports
 * (src/core/callCounts.ts): each call a service method takes is one, the
 * judge's shortlist ranking is not, and effects outside the wrapper are not.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as InMemoryVault from "../../src/adapters/vault/InMemoryVault.js"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import { makeCallCounter } from "../../src/core/callCounts.js"
import { term } from "../../src/core/arxivQuery.js"
import { ArxivPort } from "../../src/core/ports/ArxivPort.js"
import { LlmJudgePort } from "../../src/core/ports/LlmJudgePort.js"
import { OpenAlexPort } from "../../src/core/ports/OpenAlexPort.js"
import { VaultPort } from "../../src/core/ports/VaultPort.js"

const ports = Layer.mergeAll(
  Layer.succeed(ArxivPort, {
    search: () => Effect.succeed({ papers: [], total: 0, start: 0 }),
    getPapers: () => Effect.succeed({ papers: [], missing: [] })
  }),
  Layer.succeed(OpenAlexPort, {
    worksByArxivIds: () => Effect.succeed({ impacts: [], missing: [] }) as never,
    worksByIds: () => Effect.succeed({ works: [], missing: [] }) as never,
    mostCitedArxivWorks: () => Effect.succeed({ papers: [], query: "" })
  }),
  LocalJudge.layer,
  InMemoryVault.layer({ "Note.md": "# Note\n" })
)

describe("makeCallCounter", () => {
  it.effect("counts each call of a port inside the wrapper, by port, and nothing outside it", () =>
    Effect.gen(function*() {
      const counter = makeCallCounter()
      const concept = { title: "t", text: "attention", keywords: ["attention"] }
      yield* Effect.flatMap(ArxivPort, (a) => a.search({ query: term("all", "x"), categories: [], maxResults: 1 }))
      yield* counter.counted(Effect.gen(function*() {
        const arxiv = yield* ArxivPort
        const openalex = yield* OpenAlexPort
        const judge = yield* LlmJudgePort
        const vault = yield* VaultPort
        yield* arxiv.search({ query: term("all", "x"), categories: [], maxResults: 1 })
        yield* arxiv.search({ query: term("all", "y"), categories: [], maxResults: 1 })
        yield* openalex.mostCitedArxivWorks({ phrases: ["x"], limit: 1 })
        yield* openalex.worksByArxivIds(["1706.03762"])
        yield* judge.judge(concept, [{ arxivId: "1706.03762", title: "Attention", abstract: "attention" }])
        if (judge.shortlist !== undefined) yield* judge.shortlist.rank(concept, [])
        const notes = yield* vault.listNotes()
        yield* vault.readNote(notes[0]!.path)
        yield* vault.writeNote("Note (related papers).md", "x")
        // an effect built but never run is not a call
        void arxiv.search({ query: term("all", "z"), categories: [], maxResults: 1 })
      }))
      assert.deepStrictEqual(counter.calls(), { arxiv: 2, openalex: 2, judge: 1, vault: 3 })
      // the counts are a snapshot: later calls outside the wrapper do not change them
      yield* Effect.flatMap(VaultPort, (v) => v.listNotes())
      assert.deepStrictEqual(counter.calls(), { arxiv: 2, openalex: 2, judge: 1, vault: 3 })
    }).pipe(Effect.provide(ports)))
})
