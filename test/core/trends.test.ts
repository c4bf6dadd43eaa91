import { assert, describe, it } from "@effect/vitest"
import { addDays, dailyCounts, topTitleTerms, windowStart } from "../../src/core/trends.js"

describe("trends", () => {
  it("computes windows and zero-filled daily counts", () => {
    assert.strictEqual(windowStart("2017-03-31", 7), "2017-03-25")
    assert.strictEqual(windowStart("2017-03-01", 1), "2017-03-01")
    assert.strictEqual(addDays("2016-02-28", 2), "2016-03-01")
    const counts = dailyCounts(["2017-03-30", "2017-03-30", "2017-03-28", "2017-01-01"], "2017-03-28", "2017-03-31")
    assert.deepStrictEqual(counts, [
      { date: "2017-03-28", count: 1 },
      { date: "2017-03-29", count: 0 },
      { date: "2017-03-30", count: 2 },
      { date: "2017-03-31", count: 0 }
    ])
  })

  it("counts title terms once per title, without stop words, and phrases seen twice", () => {
    const { phrases, terms } = topTitleTerms([
      "Generative Adversarial Networks",
      "Conditional Generative Adversarial Nets for the Win",
      "A Novel Approach to Generative Models",
      "Generative generative"
    ])
    assert.deepStrictEqual(terms[0], { term: "generative", count: 4 })
    assert.deepStrictEqual(terms[1], { term: "adversarial", count: 2 })
    assert.isUndefined(terms.find((t) => ["the", "for", "novel", "approach"].includes(t.term)))
    assert.deepStrictEqual(phrases, [{ term: "generative adversarial", count: 2 }])
  })
})
