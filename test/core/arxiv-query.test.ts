/**
 * The core's structured arXiv query (src/core/arxivQuery.ts): built with its
 * constructors, rendered in arXiv's syntax, and read back by the parser of
 * typed queries into the same tree (the round trip over generated trees is
 * in test/adapters/query-parser.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { and, andNot, not, or, phrase, range, render, show, term } from "../../src/core/arxivQuery.js"
import { parseQuery } from "../../src/adapters/query/queryParser.js"

describe("ArxivQuery", () => {
  const query = and(
    or(term("ti", "gan"), phrase("abs", "dark matter"), term("all", "translat", true)),
    andNot(term("cat", "cs.LG"), term("au", "Hinton")),
    range("submittedDate", "201401010000", "201712312359")
  )

  it("renders in arXiv's syntax: a chain of ORs flat, every operand of an AND or ANDNOT in parentheses", () => {
    assert.strictEqual(
      render(query),
      '(ti:gan OR abs:"dark matter" OR all:translat*) AND ((cat:cs.LG) ANDNOT (au:Hinton)) AND (submittedDate:[201401010000 TO 201712312359])'
    )
    assert.strictEqual(render(not(term("ti", "survey"))), "-ti:survey")
    assert.strictEqual(render(not(or(term("ti", "a"), term("ti", "b")))), "-(ti:a OR ti:b)")
    assert.strictEqual(render(and(term("ti", "a"))), "ti:a")
    // an OR nested on the right, or an AND inside an OR, keeps its parentheses
    assert.strictEqual(render(or(term("ti", "a"), or(term("ti", "b"), term("ti", "c")))), "ti:a OR (ti:b OR ti:c)")
    assert.strictEqual(render(or(and(term("ti", "a"), term("all", "b")), term("all", "c"))), "((ti:a) AND (all:b)) OR all:c")
  })

  it("shows the tree with every combination parenthesised, left to right", () => {
    assert.strictEqual(
      show(query),
      '((((ti:gan OR abs:"dark matter") OR all:translat*) AND (cat:cs.LG ANDNOT au:Hinton)) AND submittedDate:[201401010000 TO 201712312359])'
    )
  })

  it("the parser of typed queries reads the rendered text back into the same tree", () => {
    const parsed = parseQuery(render(query))
    assert.strictEqual(parsed._tag, "Ok")
    if (parsed._tag === "Ok") assert.deepStrictEqual(parsed.query, query)
  })
})
