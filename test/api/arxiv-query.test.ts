/**
 * The structured query from the package root, as a library user writes one: built with the `ArxivQuery`
 * builders or read from typed arXiv syntax by the rules query builder, then sent to an arXiv backend.
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { Adapters, ArxivQuery } from "../../src/index.js"

describe("ArxivQuery from the package root", () => {
  it("a built query and the same query typed are one tree, and the recorded corpus answers it", async () => {
    const built = ArxivQuery.and(ArxivQuery.term("ti", "dropout"), ArxivQuery.phrase("abs", "neural networks"))
    const typed = await Effect.runPromise(Effect.either(Adapters.RuleQueryBuilder.makeWith().read!("ti:dropout AND abs:\"neural networks\"")))
    expect(Either.isRight(typed)).toBe(true)
    expect(Either.getOrThrow(typed)).toEqual(built)
    expect(ArxivQuery.render(built)).toBe("(ti:dropout) AND (abs:\"neural networks\")")

    const port = await Effect.runPromise(Effect.provide(Adapters.CorpusArxiv.make(), NodeContext.layer))
    const result = await Effect.runPromise(port.search({ query: built, categories: [], maxResults: 20 }))
    expect(result.papers.length).toBeGreaterThan(0)
    for (const paper of result.papers) {
      expect(paper.title.toLowerCase()).toContain("dropout")
      expect(paper.abstract.toLowerCase().replace(/\s+/g, " ")).toContain("neural network")
    }
  }, 60_000)
})
