import { assert, describe, it } from "@effect/vitest"
import { isCategoryCode } from "../../src/core/arxiv.js"
import {
  ARXIV_CATEGORIES,
  closestCategories,
  findCategory,
  normalizeCategories,
  unknownCategoriesMessage
} from "../../src/core/categories.js"

describe("categories", () => {
  it("lists unique, well-formed codes with names", () => {
    const codes = ARXIV_CATEGORIES.map((c) => c.code)
    assert.strictEqual(new Set(codes).size, codes.length)
    assert.isAbove(codes.length, 150)
    for (const c of ARXIV_CATEGORIES) {
      assert.isTrue(isCategoryCode(c.code), c.code)
      assert.isNotEmpty(c.name)
    }
    assert.strictEqual(findCategory("stat.ml")?.code, "stat.ML")
    assert.strictEqual(findCategory("cond-mat.stat-mech")?.name, "Statistical Mechanics")
    assert.isUndefined(findCategory("cs.XX"))
  })

  it("normalises lists and explains unknown codes", () => {
    assert.deepStrictEqual(normalizeCategories(["cs.lg", "cs.LG", "hep-th", "cs.ML"]), {
      valid: ["cs.LG", "hep-th"],
      unknown: ["cs.ML"]
    })
    assert.include(closestCategories("cs.ML"), "cs.LG")
    const message = unknownCategoriesMessage(["cs.ML"])
    assert.include(message, "\"cs.ML\" is not an arXiv category")
    assert.include(message, "list_categories")
  })
})
