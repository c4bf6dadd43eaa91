/**
 * The merge of the candidate channels (src/core/channels.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { bareId, mergeChannels } from "../../src/core/channels.js"
import { Impact, Paper } from "../../src/core/models.js"
import { landmark, s2Impacts } from "./fixtures.js"

const s2 = (id: string) => s2Impacts.find((i) => i.arxivId === id)!

describe("mergeChannels", () => {
  it("keeps the search's order, adds what only the most-cited channel found, each paper once with both labels", () => {
    const searched = [landmark("1609.08144"), new Paper({ ...landmark("1409.0473"), arxivId: "1409.0473v1" }), landmark("1508.07909")]
    const cited = [
      { paper: new Paper({ ...landmark("1409.0473"), arxivId: "1409.0473v2", categories: [] }), impact: new Impact({ ...s2("1409.0473"), arxivId: "1409.0473v2" }) },
      { paper: landmark("1406.2661"), impact: s2("1406.2661") },
      { paper: landmark("1406.2661"), impact: s2("1406.2661") }
    ]
    const m = mergeChannels(searched, cited)
    assert.deepStrictEqual(m.papers.map((p) => p.arxivId), ["1609.08144", "1409.0473", "1508.07909", "1406.2661"])
    assert.deepStrictEqual(Object.fromEntries(m.channels), {
      "1609.08144": ["arxiv-search"],
      "1409.0473": ["arxiv-search", "most-cited"],
      "1508.07909": ["arxiv-search"],
      "1406.2661": ["most-cited"]
    })
    // a paper both found keeps the search's record (arXiv's categories), under its bare id
    assert.deepStrictEqual(m.papers[1]!.categories, landmark("1409.0473").categories)
    // the impacts the most-cited channel ranked by, under bare ids
    assert.deepStrictEqual([...m.impacts.keys()], ["1409.0473", "1406.2661"])
    assert.strictEqual(m.impacts.get("1409.0473")!.arxivId, "1409.0473")
    assert.strictEqual(m.impacts.get("1409.0473")!.citationCount, 24423)
  })

  it("puts the title search's new papers after the search's and before the most cited, labels in channel order", () => {
    const searched = [landmark("1609.08144"), landmark("1409.0473")]
    const titled = [new Paper({ ...landmark("1409.0473"), arxivId: "1409.0473v2" }), landmark("1508.07909"), landmark("1409.3215")]
    const cited = [
      { paper: landmark("1406.2661"), impact: s2("1406.2661") },
      { paper: landmark("1508.07909"), impact: new Impact({ ...s2("1406.2661"), arxivId: "1508.07909" }) }
    ]
    const m = mergeChannels(searched, cited, titled)
    assert.deepStrictEqual(m.papers.map((p) => p.arxivId), ["1609.08144", "1409.0473", "1508.07909", "1409.3215", "1406.2661"])
    assert.deepStrictEqual(Object.fromEntries(m.channels), {
      "1609.08144": ["arxiv-search"],
      "1409.0473": ["arxiv-search", "arxiv-title"],
      "1508.07909": ["arxiv-title", "most-cited"],
      "1409.3215": ["arxiv-title"],
      "1406.2661": ["most-cited"]
    })
    // the most-cited channel's count comes along for a paper the title search found first
    assert.strictEqual(m.impacts.get("1508.07909")!.arxivId, "1508.07909")
  })

  it("either channel may be empty", () => {
    assert.deepStrictEqual(mergeChannels([], []).papers, [])
    assert.deepStrictEqual(mergeChannels([], [{ paper: landmark("1406.2661"), impact: s2("1406.2661") }]).papers.map((p) => p.arxivId), ["1406.2661"])
  })

  it("bareId folds versions and prefixes", () => {
    assert.strictEqual(bareId("arXiv:1409.0473v3"), "1409.0473")
    assert.strictEqual(bareId("hep-th/9901001v2"), "hep-th/9901001")
  })
})
