/**
 * Cutting text for display (src/core/text.ts): by characters (code points),
 * never inside a surrogate pair, so what is cut survives a UTF-8 file, a JSON
 * body or a URL unchanged.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { clip, clipLine, firstChars, fitTo } from "../../src/core/text.js"

const loneSurrogate = /\p{Cs}/u

describe("cutting text by characters", () => {
  it("keeps an emoji on the cut whole, and counts it as one character", () => {
    assert.strictEqual(firstChars("ab😀c", 3), "ab😀")
    assert.strictEqual(clip("ab😀cd", 3), "ab😀…")
    assert.strictEqual(clip("😀😀😀", 3), "😀😀😀")
    assert.strictEqual(fitTo("ab😀cd", 4), "ab😀…")
    assert.strictEqual(fitTo("ab😀c", 4), "ab😀c")
    assert.strictEqual(clipLine(" a\n\tb😀  c ", 3), "a b…")
  })

  it.prop(
    "gives whole characters: a prefix of the text, within the limit, marked when cut",
    [fc.string({ unit: "binary", maxLength: 40 }), fc.integer({ min: 1, max: 45 })],
    ([text, max]) => {
      for (const [out, kept] of [[clip(text, max), max], [fitTo(text, max), max], [firstChars(text, max), max]] as const) {
        assert.notMatch(out, loneSurrogate)
        const body = out === text ? out : out.replace(/…$/, "")
        assert.isTrue(text.startsWith(body))
        assert.isAtMost([...out].length, out === text ? [...text].length : kept + 1)
      }
      assert.isAtMost([...fitTo(text, max)].length, max)
      assert.strictEqual(clip(text, max) === text, [...text].length <= max)
    }
  )
})
