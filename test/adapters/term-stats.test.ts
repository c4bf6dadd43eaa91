/**
 * ArxivTermStats: the TermStatsPort over the shipped document-frequency table
 * (36,421 CC0 arXiv abstracts), through the port.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ArxivTermStats from "../../src/adapters/judge/ArxivTermStats.js"
import { TermStatsPort } from "../../src/core/ports/TermStatsPort.js"

const lookup = (terms: ReadonlyArray<string>) =>
  Effect.flatMap(TermStatsPort, (s) => s.lookup(terms)).pipe(Effect.provide(ArxivTermStats.layer))

describe("ArxivTermStats", () => {
  it.effect("answers every term in order, against the whole corpus", () =>
    Effect.gen(function*() {
      const r = yield* lookup(["dropout", "residual networks", "attention"])
      assert.strictEqual(r.documents, 36421)
      assert.deepStrictEqual(r.stats.map((s) => s.term), ["dropout", "residual networks", "attention"])
      for (const s of r.stats) {
        assert.strictEqual(s.count, "exact")
        assert.isFalse(s.ignored)
        assert.isAbove(s.documentFrequency, 0)
        assert.isBelow(s.documentFrequency, r.documents)
      }
    }))

  it.effect("hides the stemming: a word's forms and cases share one count", () =>
    Effect.gen(function*() {
      const r = yield* lookup(["network", "networks", "Networks", "networking", "residual network", "Residual Networks"])
      const df = r.stats.map((s) => s.documentFrequency)
      assert.strictEqual(df[0], df[1])
      assert.strictEqual(df[0], df[2])
      assert.strictEqual(df[4], df[5])
    }))

  it.effect("a phrase is no more common than its rarest word, and words written together count as a phrase", () =>
    Effect.gen(function*() {
      const r = yield* lookup(["neural machine translation", "machine translation", "translation", "encoder-decoder", "encoder decoder"])
      const [nmt, mt, translation, hyphen, spaced] = r.stats.map((s) => s.documentFrequency)
      assert.isAtMost(nmt!, mt!)
      assert.isBelow(mt!, translation!)
      assert.strictEqual(hyphen, spaced)
    }))

  it.effect("ignores function and boilerplate words, and a phrase built on one", () =>
    Effect.gen(function*() {
      const r = yield* lookup(["novel", "approach", "the", "novel approach", "dropout"])
      assert.deepStrictEqual(r.stats.map((s) => s.ignored), [true, true, true, true, false])
      for (const s of r.stats.slice(0, 4)) assert.strictEqual(s.documentFrequency, r.documents)
    }))

  it.effect("marks what it cannot count: words below its floor, compounds holding a piece it skips", () =>
    Effect.gen(function*() {
      const r = yield* lookup(["zqxwvkj", "dropout zqxwvkj", "q-learning", "bag-of-words"])
      const [word, phrase, q, bag] = r.stats
      assert.strictEqual(word!.count, "below")
      assert.strictEqual(phrase!.count, "below")
      assert.strictEqual(q!.count, "unknown")
      assert.strictEqual(bag!.count, "unknown")
      for (const s of r.stats) assert.isFalse(s.ignored)
    }))
})
