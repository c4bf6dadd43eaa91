/**
 * Obsidian-native links and tags, and untrusted text as inline Markdown.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { mdInline } from "../../src/core/markdown.js"
import { keywordTag, matchingNote, vaultIndex, wikiLink } from "../../src/core/vaultLinks.js"

// the example vault's titles, plus a few a user might have
const index = vaultIndex(
  [
    { title: "Transformers Concept Note" },
    { title: "Word Embeddings" },
    { title: "Generative Adversarial Networks" },
    { title: "Attention" },
    { title: "Neural Machine Translation by Jointly Learning to Align and Translate" },
    { title: "C# [draft]" },
    { title: "Transformers Concept Note — Related Papers" }
  ],
  ["Transformers Concept Note — Related Papers"]
)

describe("vault links", () => {
  it("links a paper, keyword or foundation to the vault note of the same title, case-, diacritic- and plural-insensitively", () => {
    assert.strictEqual(wikiLink(index, "word embedding"), "[[Word Embeddings|word embedding]]")
    assert.strictEqual(wikiLink(index, "ATTENTION"), "[[Attention|ATTENTION]]")
    assert.strictEqual(wikiLink(index, "Attention"), "[[Attention]]")
    assert.strictEqual(
      wikiLink(index, "Neural machine translation by jointly learning to align and translate"),
      "[[Neural Machine Translation by Jointly Learning to Align and Translate|Neural machine translation by jointly learning to align and translate]]"
    )
    assert.strictEqual(matchingNote(index, "Générative adversarial network"), "Generative Adversarial Networks")
    assert.strictEqual(wikiLink(index, "self-attention"), undefined)
    assert.strictEqual(wikiLink(index, "neural machine translation"), undefined)
  })

  it("never links the generated note itself, nor a title a link cannot hold", () => {
    assert.strictEqual(wikiLink(index, "Transformers Concept Note — Related Papers"), undefined)
    assert.strictEqual(wikiLink(index, "C# draft"), undefined)
    assert.strictEqual(wikiLink(index, "C"), undefined)
  })

  it("keeps the alias to text a link can carry", () => {
    assert.strictEqual(wikiLink(index, "Attention", "Attention | ]] [[x"), "[[Attention|Attention x]]")
  })

  it("does not depend on the order the vault lists its notes", () => {
    const a = vaultIndex([{ title: "Attention" }, { title: "attention" }])
    const b = vaultIndex([{ title: "attention" }, { title: "Attention" }])
    assert.strictEqual(matchingNote(a, "ATTENTION"), matchingNote(b, "ATTENTION"))
  })
})

describe("keywordTag", () => {
  it("makes keywords valid Obsidian tags", () => {
    assert.strictEqual(keywordTag("neural machine translation"), "neural-machine-translation")
    assert.strictEqual(keywordTag("self-attention"), "self-attention")
    assert.strictEqual(keywordTag("Ünïcode Wörds"), "ünïcode-wörds")
    assert.strictEqual(keywordTag("C++ / #tags, [x]"), "c-tags-x")
    assert.strictEqual(keywordTag("2017"), undefined)
    assert.strictEqual(keywordTag("  --  "), undefined)
  })

  it("cuts at 60 letters, never inside a letter written as two UTF-16 units", () => {
    // 59 letters, then a mathematical bold A (U+1D400, a surrogate pair): cut by units it would leave half of it
    assert.strictEqual(keywordTag(`${"a".repeat(59)}\u{1D400}b`), `${"a".repeat(59)}\u{1D400}`)
    assert.strictEqual(keywordTag(`${"a".repeat(58)} \u{1D400}`), `${"a".repeat(58)}-\u{1D400}`)
  })

  it.prop("only ever gives letters, digits, _ and -, with a non-digit, no leading or trailing dash", { k: fc.string({ unit: "binary", maxLength: 80 }) }, ({ k }) => {
    const tag = keywordTag(k)
    if (tag === undefined) return
    assert.match(tag, /^[\p{L}\p{N}_-]{1,60}$/u)
    assert.notMatch(tag, /^[-_]|[-_]$/)
    assert.notMatch(tag, /^[\p{N}_-]+$/u)
  })
})

describe("mdInline", () => {
  it("escapes what Markdown or Obsidian would read as syntax, and nothing else", () => {
    assert.strictEqual(mdInline("Attention Is All You Need"), "Attention Is All You Need")
    assert.strictEqual(mdInline("3.57% error, 4.9% top-5"), "3.57% error, 4.9% top-5")
    assert.strictEqual(mdInline("**bold** [[link]] #tag <b>x</b> $x$ a|b ==h== ~~s~~ ^ref `c`"),
      "\\*\\*bold\\*\\* \\[\\[link\\]\\] \\#tag \\<b\\>x\\</b\\> \\$x\\$ a\\|b \\=\\=h\\=\\= \\~\\~s\\~\\~ \\^ref \\`c\\`")
    assert.strictEqual(mdInline("a\nb\r\nc\u2028d"), "a b c d")
    assert.strictEqual(mdInline("%% arxiv-companion:end %%"), "%\\% arxiv-companion:end %\\%")
  })

  it.prop("gives one line with no comment opener and no unescaped syntax character", { s: fc.string({ unit: "binary", maxLength: 120 }) }, ({ s }) => {
    const out = mdInline(s)
    assert.notMatch(out, /[\r\n\u2028\u2029]/)
    assert.notInclude(out, "%%")
    // every syntax character is preceded by an escaping backslash
    for (const m of out.matchAll(/[`*_[\]<>|#$=~^]/g)) {
      let backslashes = 0
      for (let i = m.index - 1; i >= 0 && out[i] === "\\"; i--) backslashes++
      assert.strictEqual(backslashes % 2, 1, `unescaped ${m[0]} in ${JSON.stringify(out)}`)
    }
  })
})
