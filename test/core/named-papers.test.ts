/**
 * Papers a note already names (src/core/namedPapers.ts): ids, URLs, arXiv
 * DOIs, titles and [[links]], and what is not taken for one.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { findPaperMentions, matchNamedPapers, titleKey } from "../../src/core/namedPapers.js"
import { landmark, landmarks } from "./fixtures.js"

const ids = (note: string) => findPaperMentions(note).ids.map((m) => [m.arxivId, m.kind])

describe("findPaperMentions: ids", () => {
  it("finds arXiv ids, abs/pdf/html URLs and arXiv DOIs, versions folded, each paper once, in order", () => {
    const note = [
      "- Bahdanau: https://arxiv.org/abs/1409.0473v3 and again arxiv.org/pdf/1409.0473.pdf",
      "- seq2seq (arXiv:1409.3215)",
      "- GNMT https://doi.org/10.48550/arXiv.1609.08144",
      "- ResNet 1512.03385v1, old one hep-th/9901001, and https://export.arxiv.org/html/1706.03762",
      "- doi 10.48550/ARXIV.1301.3781"
    ].join("\n")
    assert.deepStrictEqual(ids(note), [
      ["1409.0473", "arxiv-url"],
      ["1409.3215", "arxiv-id"],
      ["1609.08144", "doi"],
      ["1512.03385", "arxiv-id"],
      ["hep-th/9901001", "arxiv-id"],
      ["1706.03762", "arxiv-url"],
      ["1301.3781", "doi"]
    ])
  })

  it("does not take numbers, versions, dates or other DOIs for arXiv ids", () => {
    const note = [
      "pi is 3.14159, the loss went from 1234.5678 to 2017.12345; lr 0.0001",
      "version 1.2.3, section 3.1, IP 192.168.1.1, 1409.04730 (six digits), 9913.0473 (month 13), 0612.1234 (before 2007-04)",
      "v1409.0473, 1409.0473a, x/1234567, foo/9901001, 10.1145/1234.5678, doi:10.1000/xyz1409.0473z",
      "1501.1234 (4 digits after 2014), 1412.12345 (5 digits before 2015)"
    ].join("\n")
    assert.deepStrictEqual(ids(note), [])
  })

  it("a mention keeps what the note wrote, on one line and bounded", () => {
    const m = findPaperMentions("see https://arxiv.org/abs/1409.0473\n").ids[0]!
    assert.strictEqual(m.text, "https://arxiv.org/abs/1409.0473")
  })

  it("survives hostile input: huge notes, unclosed brackets and quotes, control characters", () => {
    const hostile = [
      "\u0000\u202e1409.0473\u2028",
      "[".repeat(200_000),
      "[[".repeat(50_000) + "x",
      "\"".repeat(100_000),
      "*a".repeat(100_000),
      "[a](" + "x".repeat(300_000),
      "arxiv.org/abs/".repeat(20_000),
      "1409.0473".repeat(10_000),
      // past the first 1,000,000 characters nothing is read
      "1512.03385"
    ].join("\n")
    assert.isAbove(hostile.length, 1_000_000)
    const found = findPaperMentions(hostile)
    assert.deepStrictEqual(found.ids.map((m) => m.arxivId), ["1409.0473"])
    for (const t of found.titles) assert.isAtMost(t.text.length, 200)
  })

  it.prop("never throws, and every id it returns is a valid bare arXiv id", { note: fc.string({ maxLength: 400 }) }, ({ note }) => {
    for (const m of findPaperMentions(note).ids) {
      assert.match(m.arxivId, /^(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?\/\d{7})$/)
    }
  })
})

describe("findPaperMentions and matchNamedPapers: titles and links", () => {
  const papers = landmarks

  it("cuts a long quoted title between characters, never inside an emoji (the note quotes it)", () => {
    // 199 characters kept: an emoji at the cut used to be split into a lone surrogate, written to the note as "\uFFFD"
    const quoted = `${"word ".repeat(39)}abc😀 and the rest of a long title`
    const [mention] = findPaperMentions(`I read "${quoted}".`).titles
    assert.strictEqual(mention!.text, `${"word ".repeat(39)}abc😀…`)
  })

  it.prop(
    "a mention's text is whole characters, at most 200 of them",
    [fc.integer({ min: 180, max: 205 }), fc.string({ unit: "binary", maxLength: 20 })],
    ([at, tail]) => {
      const title = `${"ab ".repeat(at).slice(0, at)}${tail.replace(/["\n]/g, " ")}`.trim()
      const found = findPaperMentions(`"${title}"`).titles
      if (title.length <= 300) assert.lengthOf(found, 1, title)
      for (const m of found) {
        assert.notMatch(m.text, /\p{Cs}/u)
        assert.isAtMost([...m.text].length, 200)
      }
    }
  )

  it("matches a paper's exact title written as a title: quoted, italic, as a link text, or as a [[link]]", () => {
    const note = [
      "I read \"Sequence to Sequence Learning with Neural Networks\" last week.",
      "Also *Deep Residual Learning for Image Recognition* and",
      "[Efficient estimation of word representations in vector space](https://example.org/w2v)",
      "and my paper note [[Papers/Neural Machine Translation of Rare Words with Subword Units|BPE paper]].",
      "“Google’s Neural Machine Translation System: Bridging the Gap between Human and Machine Translation”"
    ].join("\n")
    const named = matchNamedPapers(findPaperMentions(note), papers)
    assert.deepStrictEqual(named.map((n) => [n.arxivId, n.mention.kind]), [
      ["1409.3215", "title"],
      ["1512.03385", "title"],
      ["1301.3781", "title"],
      ["1508.07909", "link"],
      ["1609.08144", "title"]
    ])
  })

  it("a title in plain prose, in bold, or shorter than three words is not taken for the paper", () => {
    const note = [
      "Generative adversarial networks train a generator against a discriminator.",
      "**Generative Adversarial Networks** are the topic of this note; see [[GANs]] and \"Deep Learning\".",
      "Sequence to sequence learning with neural networks is what this is about."
    ].join("\n")
    assert.deepStrictEqual(matchNamedPapers(findPaperMentions(note), papers), [])
  })

  it("a link or quote equal to the note's own title is the note, not a paper", () => {
    const note = "Back to [[Generative Adversarial Networks]]; \"Generative Adversarial Networks\" is this note."
    assert.deepStrictEqual(matchNamedPapers(findPaperMentions(note), papers, "Generative Adversarial Networks"), [])
    // in another note the same link names the paper
    assert.deepStrictEqual(
      matchNamedPapers(findPaperMentions(note), papers, "GAN Training").map((n) => n.arxivId),
      ["1406.2661"]
    )
  })

  it("ids come first and each paper is named once, whatever the ways it is named", () => {
    const note = `"Generative Adversarial Networks" (arXiv:1406.2661v1), again https://arxiv.org/abs/1406.2661 and 1409.0473`
    const named = matchNamedPapers(findPaperMentions(note), papers)
    assert.deepStrictEqual(named.map((n) => [n.arxivId, n.mention.kind]), [["1406.2661", "arxiv-id"], ["1409.0473", "arxiv-id"]])
  })

  it("an id the note gives is named even when no channel found the paper", () => {
    assert.deepStrictEqual(matchNamedPapers(findPaperMentions("see 1706.03762"), []).map((n) => n.arxivId), ["1706.03762"])
  })

  it("titles compare without case, accents or punctuation", () => {
    assert.strictEqual(titleKey("Google’s Neural Machine Translation — System!"), titleKey("google s neural machine translation system"))
    assert.strictEqual(titleKey(landmark("1409.0473").title), "neural machine translation by jointly learning to align and translate")
  })
})
