import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { type PackedDfTable, unpackDfTable } from "../../src/adapters/judge/dfTable.js"

/** The table's format read line by line, as it was written (eval/build-df-table.ts): the reading to match. */
const reference = (packed: string): Map<string, number> => {
  const m = new Map<string, number>()
  for (const line of packed.split("\n")) {
    const tab = line.indexOf("\t")
    if (tab > 0) m.set(line.slice(0, tab), Number(line.slice(tab + 1)))
  }
  return m
}

const table = (unigrams: string, bigrams = ""): PackedDfTable => ({
  source: "test",
  documents: 10,
  averageLength: 5,
  minUnigramDf: 1,
  minBigramDf: 1,
  unigrams,
  bigrams
})

const same = (a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>) => {
  assert.deepStrictEqual([...a.entries()], [...b.entries()])
}

describe("the judge's document-frequency table", () => {
  it("reads the shipped table's every stem and pair with the counts line-by-line reading gives", () => {
    const packed = JSON.parse(readFileSync(fileURLToPath(new URL("../../data/judge/df-table.json", import.meta.url)), "utf8")) as PackedDfTable
    const t = unpackDfTable(packed)
    assert.isAbove(t.unigrams.size, 10_000)
    same(t.unigrams, reference(packed.unigrams))
    same(t.bigrams, reference(packed.bigrams))
  })

  it("reads counts that are not plain digits, empty and odd lines as line-by-line reading does", () => {
    for (
      const text of [
        "a\t1\nb\t22\nc\t333",
        "a\t1\n",
        "\n\na\t7\n\n",
        "a\t007\nb\t1.5\nc\t-2\nd\t\ne\t1e3\nf\t 4\ng\t4 \nh\tx\ni\t12\r\nj\t9",
        "\tno key\nk\t5",
        "no tab\nk\t5\nlast",
        "dup\t1\ndup\t2",
        "a b\t3\nc d\t4",
        ""
      ]
    ) {
      same(unpackDfTable(table(text, text)).unigrams, reference(text))
      same(unpackDfTable(table(text, text)).bigrams, reference(text))
    }
  })
})
