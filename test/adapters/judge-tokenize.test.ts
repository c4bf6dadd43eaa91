import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { gunzipSync } from "node:zlib"
import { bigrams, isStopWord, stem, stems, type Token, tokenize } from "../../src/adapters/judge/tokenize.js"
import { hostileText } from "../support/hostile.js"

/**
 * The tokeniser as the document-frequency table was built with (eval/build-df-table.ts): the text folded, then
 * read by one pattern. The judge's tokeniser scans character codes instead, and must read every text the same.
 */
const reference = (text: string): ReadonlyArray<Token | null> => {
  const out: Array<Token | null> = []
  const normal = text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
  for (const m of normal.matchAll(/[a-z0-9]+|[^a-z0-9\s]+/g)) {
    const w = m[0]
    if (!/^[a-z0-9]/.test(w)) {
      if (!/^['’-]$/.test(w)) out.push(null)
      continue
    }
    if (w.length < 2 || isStopWord(w) || !/[a-z]/.test(w)) {
      out.push(null)
      continue
    }
    out.push({ stem: stem(w), word: w })
  }
  return out
}

const plain = (tokens: ReadonlyArray<Token | null>) => tokens.map((t) => (t === null ? null : [t.stem, t.word]))

const same = (a: ReadonlyArray<Token | null>, b: ReadonlyArray<Token | null>): boolean =>
  a.length === b.length && a.every((t, i) => (t === null ? b[i] === null : t.stem === b[i]?.stem && t.word === b[i]?.word))

const agree = (text: string) => {
  const mine = tokenize(text)
  const theirs = reference(text)
  if (!same(mine, theirs)) assert.deepStrictEqual(plain(mine), plain(theirs), JSON.stringify(text))
}

/** The shipped corpus's records (the texts the table was built from), as "title<TAB>abstract" columns. */
const corpus = (): ReadonlyArray<readonly [string, string]> => {
  const lines = gunzipSync(readFileSync(fileURLToPath(new URL("../../fixtures/offline/arxiv-corpus.tsv.gz", import.meta.url))))
    .toString("utf8").split("\n")
  const header = lines[0]!.split("\t")
  const title = header.indexOf("title")
  const abstract = header.indexOf("abstract")
  return lines.slice(1).filter((l) => l !== "").map((l) => {
    const cols = l.split("\t")
    return [cols[title] ?? "", cols[abstract] ?? ""] as const
  })
}

describe("the local judge's tokeniser", () => {
  it("reads every title and abstract of the shipped corpus as the table's tokeniser does", () => {
    const records = corpus()
    assert.isAbove(records.length, 30_000)
    for (const [title, abstract] of records) {
      agree(title)
      agree(abstract)
    }
  }, 120_000)

  it("reads every UTF-16 code unit as the table's tokeniser does, between words and beside punctuation", () => {
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c)
      agree(`deep${ch}learning ${ch}networks${ch} -${ch}x ${ch}${ch}'`)
    }
  })

  it.prop("reads hostile text as the table's tokeniser does", [hostileText(120)], ([text]) => agree(text))

  it.prop(
    "reads words, punctuation and spaces of every kind as the table's tokeniser does",
    [fc.array(fc.constantFrom("Neural", "net's", "MCMC", "l2", "42", "ab", "a", "the", "-", "'", "’", "--", ".", ",", "(", " ", "\t", "\n", "\u00a0", "\u2009", "\u3000", "é", "É", "ß", "İ", "ﬁ", "²", "Ω", "\u0301", "😀"), { maxLength: 40 })],
    ([pieces]) => agree(pieces.join(""))
  )

  it("keeps hyphenated compounds and apostrophes as one phrase and breaks at other punctuation", () => {
    assert.deepStrictEqual(bigrams(tokenize("self-attention networks")), ["self attent", "attent network"])
    assert.deepStrictEqual(bigrams(tokenize("attention, networks")), [])
    assert.deepStrictEqual(stems("The Networks are learning"), ["network", "learn"])
  })

  it("gives the same word the same token in every text, and its own token to each word", () => {
    const [a] = tokenize("networks train")
    const [, b] = tokenize("deep networks")
    assert.strictEqual(a, b)
    assert.deepStrictEqual(a, { stem: "network", word: "networks" })
    assert.deepStrictEqual(tokenize("network")[0], { stem: "network", word: "network" })
  })
})
