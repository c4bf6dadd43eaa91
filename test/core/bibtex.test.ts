import { assert, describe, it } from "@effect/vitest"
import { bibtexEntry, bibtexFile, citationKeyBase, citationKeys, escapeLatex, familyName } from "../../src/core/bibtex.js"
import { Paper } from "../../src/core/models.js"

const paper = (over: Partial<ConstructorParameters<typeof Paper>[0]> = {}) =>
  new Paper({
    arxivId: "1409.0473",
    title: "Neural Machine Translation by Jointly Learning to Align and Translate",
    abstract: "...",
    authors: ["Dzmitry Bahdanau", "Kyunghyun Cho", "Yoshua Bengio"],
    published: "2014-09-01",
    categories: ["cs.CL", "cs.LG", "stat.ML"],
    ...over
  })

/** Braces balance when escaped ones (\{ \}) are ignored. */
const balanced = (s: string) => {
  let d = 0
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "\\") { i++; continue }
    if (s[i] === "{") d++
    if (s[i] === "}" && --d < 0) return false
  }
  return d === 0
}

describe("bibtex", () => {
  it("escapes LaTeX specials and keeps balanced inline math", () => {
    assert.strictEqual(escapeLatex("Q&A: 100% of #1 in R_2 {x}"), "Q\\&A: 100\\% of \\#1 in R\\_2 \\{x\\}")
    assert.strictEqual(escapeLatex("Sorting in $O(n \\log n)$ time"), "Sorting in $O(n \\log n)$ time")
    assert.strictEqual(escapeLatex("a \\ b ^ ~"), "a \\textbackslash{} b \\^{} \\~{}")
    assert.strictEqual(escapeLatex("costs $5"), "costs \\$5")
    assert.strictEqual(escapeLatex("unbalanced $x}$"), "unbalanced \\$x\\}\\$")
  })

  it("writes accented letters as TeX accents", () => {
    assert.strictEqual(escapeLatex("Ramírez"), "Ram{\\'\\i}rez")
    assert.strictEqual(escapeLatex("Schölkopf and Ø"), "Sch{\\\"o}lkopf and {\\O}")
    assert.strictEqual(escapeLatex("Dvořák – ß"), "Dvo{\\v r}{\\'a}k -- {\\ss}")
  })

  it("makes stable keys and disambiguates collisions in order", () => {
    assert.strictEqual(citationKeyBase(paper()), "bahdanau2014neural")
    assert.strictEqual(familyName("Bengio, Yoshua"), "Bengio")
    assert.strictEqual(citationKeyBase(paper({ authors: ["José Ramírez"], title: "On the $\\alpha$ of A" })), "ramirez2014alpha")
    assert.strictEqual(citationKeyBase(paper({ authors: [] })), "anon2014neural")
    // the key's word is the title's first word that is not a function word, as Google Scholar writes it: what the
    // keyword rules skip in notes ("don", "everything", "lecture") still starts a key
    assert.strictEqual(
      citationKeyBase(paper({ authors: ["Samuel L. Smith"], title: "Don't Decay the Learning Rate, Increase the Batch Size" })),
      "smith2014don"
    )
    assert.strictEqual(citationKeyBase(paper({ authors: ["A. Vaswani"], title: "Everything Is Attention" })), "vaswani2014everything")
    assert.strictEqual(citationKeyBase(paper({ authors: ["A. Ng"], title: "Lecture Notes on Learning" })), "ng2014lecture")
    const keys = citationKeys([paper(), paper({ arxivId: "1409.0474" }), paper({ arxivId: "1409.0475" })])
    assert.deepStrictEqual(keys, ["bahdanau2014neural", "bahdanau2014neurala", "bahdanau2014neuralb"])
  })

  it("renders an @misc entry in arXiv's style with balanced braces", () => {
    const entry = bibtexEntry(paper({ doi: "10.1000/x_y", journalRef: "ICLR 2015 & more" }), "k")
    assert.match(entry, /^@misc\{k,\n/)
    assert.include(entry, "title         = {{Neural Machine Translation by Jointly Learning to Align and Translate}}")
    assert.include(entry, "author        = {Dzmitry Bahdanau and Kyunghyun Cho and Yoshua Bengio}")
    assert.include(entry, "eprint        = {1409.0473}")
    assert.include(entry, "archivePrefix = {arXiv}")
    assert.include(entry, "primaryClass  = {cs.CL}")
    assert.include(entry, "doi           = {10.1000/x\\_y}")
    assert.include(entry, "note          = {ICLR 2015 \\& more}")
    assert.include(entry, "url           = {https://arxiv.org/abs/1409.0473}")
    assert.isTrue(balanced(entry))
    const hostile = bibtexEntry(paper({ title: "}{ \\end{document} $}$ %", authors: ["{Evil}"] }), "k")
    assert.isTrue(balanced(hostile))
  })

  it("builds a file with one entry per paper", () => {
    const file = bibtexFile([paper(), paper({ arxivId: "hep-th/9901001", authors: ["A. Einstein"], published: "1999-01-04" })])
    assert.deepStrictEqual(file.keys, ["bahdanau2014neural", "einstein1999neural"])
    assert.strictEqual(file.text.match(/@misc\{/g)?.length, 2)
    assert.strictEqual(bibtexFile([]).text, "")
  })
})
