/**
 * The core's structured arXiv query (src/core/arxivQuery.ts): built with its
 * constructors, rendered in arXiv's syntax, and read back by the parser of
 * typed queries into the same tree (the round trip over generated trees is
 * in test/adapters/query-parser.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { and, andNot, not, or, phrase, range, render, term } from "../../src/core/arxivQuery.js"
import { parseQuery } from "../../src/adapters/query/queryParser.js"

describe("ArxivQuery", () => {
  const query = and(
    or(term("ti", "gan"), phrase("abs", "dark matter"), term("all", "translat", true)),
    andNot(term("cat", "cs.LG"), term("au", "Hinton")),
    range("submittedDate", "201401010000", "201712312359")
  )

  it("renders in arXiv's syntax, every combination parenthesised, left to right", () => {
    assert.strictEqual(
      render(query),
      '((((ti:gan OR abs:"dark matter") OR all:translat*) AND (cat:cs.LG ANDNOT au:Hinton)) AND submittedDate:[201401010000 TO 201712312359])'
    )
    assert.strictEqual(render(not(term("ti", "survey"))), "-ti:survey")
    assert.strictEqual(render(and(term("ti", "a"))), "ti:a")
  })

  it("the parser of typed queries reads the rendered text back into the same tree", () => {
    const parsed = parseQuery(render(query))
    assert.strictEqual(parsed._tag, "Ok")
    if (parsed._tag === "Ok") assert.deepStrictEqual(parsed.query, query)
  })
})
