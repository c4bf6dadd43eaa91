/**
 * Shared foundations and the reading order, over the real reference lists
 * recorded from OpenAlex (test/fixtures/recorded/openalex: 2007.14454,
 * 1806.03537, 1503.05702 and 1807.03977 cite works in common).
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { Judgement, Paper, ScoredPaper, Work } from "../../src/core/models.js"
import type { Foundations } from "../../src/core/models.js"
import { readingOrder } from "../../src/core/readingOrder.js"
import { sharedFoundations, sharedFoundationsGap } from "../../src/core/sharedFoundations.js"
import { loadPool } from "../support/openalex-standin.js"

const pool = loadPool()
const short = (id: string) => id.replace("https://openalex.org/", "")
const recordedRefs = (workId: string): ReadonlyArray<string> => ((pool.get(workId)?.["referenced_works"] as Array<string>) ?? []).map(short)
const works = new Map<string, Work>(
  [...pool.entries()].map(([id, r]) => [
    id,
    new Work({
      openalexId: id,
      title: String(r["display_name"] ?? r["title"] ?? ""),
      citedByCount: Number(r["cited_by_count"] ?? 0),
      ...(typeof r["publication_year"] === "number" ? { publicationYear: r["publication_year"] as number } : {})
    })
  ])
)

// the kept papers, with their recorded OpenAlex records
const news = { arxivId: "2007.14454", references: recordedRefs("W3045921891") }
const survey = { arxivId: "1806.03537", references: recordedRefs("W2807650837") }
const openAccess = { arxivId: "1503.05702", references: recordedRefs("W1996515099") }
const altmetrics = { arxivId: "1807.03977", references: recordedRefs("W2896826974") }

describe("sharedFoundations", () => {
  it("lists the works two kept papers cite, most shared then most cited, with who cites them", () => {
    const result = sharedFoundations([news, survey, openAccess, altmetrics], works)
    assert.strictEqual(result.status, "found")
    assert.strictEqual(result.withReferences, 4)
    assert.deepStrictEqual(
      result.foundations.map((f) => [f.openalexId, f.title, f.citedByCount, f.citedBy]),
      [
        ["W2250539671", "Glove: Global Vectors for Word Representation", 32760, ["2007.14454", "1806.03537"]],
        ["W2153579005", "Distributed representations of words and phrases and their compositionality", 18057, ["2007.14454", "1806.03537"]],
        ["W1572136682", "Value all research products", 405, ["2007.14454", "1503.05702"]],
        ["W2593028313", "Measuring scientific impact beyond academia: An assessment of existing impact metrics and proposed improvements", 183, ["2007.14454", "1807.03977"]],
        // cited by 1503.05702 and 1807.03977, but not in the recordings: listed by id, after the resolved ones
        ["W3130540911", undefined, undefined, ["1503.05702", "1807.03977"]]
      ]
    )
  })

  it("ranks by how many kept papers cite a work before its citation count", () => {
    const a = { arxivId: "a", references: ["W1", "W2"] }
    const b = { arxivId: "b", references: ["W1", "W2"] }
    const c = { arxivId: "c", references: ["W1"] }
    const counts = new Map([
      ["W1", new Work({ openalexId: "W1", title: "less cited, cited by all three", citedByCount: 10 })],
      ["W2", new Work({ openalexId: "W2", title: "more cited, cited by two", citedByCount: 99999 })]
    ])
    assert.deepStrictEqual(sharedFoundations([a, b, c], counts).foundations.map((f) => [f.openalexId, f.citedBy.length]), [["W1", 3], ["W2", 2]])
  })

  it("says plainly why there is nothing to show", () => {
    const none = sharedFoundations([{ arxivId: "x", references: undefined }, { arxivId: "y", references: [] }], works)
    assert.deepStrictEqual([none.status, none.withReferences, none.foundations.length], ["not-recorded", 0, 0])
    assert.strictEqual(sharedFoundationsGap(none, 2), "No reference list is recorded for any of the 2 kept papers, so shared foundations cannot be shown.")
    const one = sharedFoundations([news, { arxivId: "y", references: undefined }], works)
    assert.strictEqual(one.status, "one-list")
    assert.strictEqual(sharedFoundationsGap(one, 2), "Only one of the 2 kept papers has a recorded reference list; shared foundations need two.")
    // GNMT's and word2vec's recorded lists have no work in common
    const disjoint = sharedFoundations([{ arxivId: "1609.08144", references: recordedRefs("W2525778437") }, { arxivId: "1310.4546", references: recordedRefs("W2153579005") }], works)
    assert.strictEqual(disjoint.status, "none-shared")
    assert.strictEqual(sharedFoundationsGap(disjoint, 2), "The 2 kept papers with recorded reference lists cite no work in common.")
    assert.strictEqual(sharedFoundationsGap(sharedFoundations([news, survey], works), 2), undefined)
  })

  it.prop(
    "every listed work is cited by two or more papers, each named once, in the kept order",
    { lists: fc.array(fc.option(fc.array(fc.constantFrom("W1", "W2", "W3", "W4", "W5"), { maxLength: 6 }), { nil: undefined }), { maxLength: 6 }) },
    ({ lists }) => {
      const papers = lists.map((references, i) => ({ arxivId: `p${i}`, references }))
      const result = sharedFoundations(papers, new Map())
      for (const f of result.foundations) {
        assert.isAtLeast(f.citedBy.length, 2)
        assert.strictEqual(new Set(f.citedBy).size, f.citedBy.length)
        const order = f.citedBy.map((id) => Number(id.slice(1)))
        assert.deepStrictEqual(order, [...order].sort((x, y) => x - y))
        for (const id of f.citedBy) assert.include(papers.find((p) => p.arxivId === id)!.references!, f.openalexId)
      }
      const expected = new Set(["W1", "W2", "W3", "W4", "W5"].filter((w) => papers.filter((p) => p.references?.includes(w)).length >= 2))
      assert.deepStrictEqual(new Set(result.foundations.map((f) => f.openalexId)), expected)
    }
  )
})

const kept = (arxivId: string, title: string, published: string, relevance: number) =>
  new ScoredPaper({
    paper: new Paper({ arxivId, title, abstract: "", authors: [], published, categories: [] }),
    judgement: new Judgement({ arxivId, relevance, novelty: 0.5, rationale: "" }),
    impact: { status: "unknown", ageYears: 1, exempt: false, pass: true, asOf: "2026-01-01" },
    decision: { kept: true, kind: "kept", reasons: [] }
  })

describe("readingOrder", () => {
  const papers = [
    kept("2007.14454", "Measuring prominence of scientific work in online news as a proxy for impact", "2020-07-28", 0.9),
    kept("1806.03537", "Diachronic word embeddings and semantic shifts: a survey", "2018-06-09", 0.7)
  ]
  const shared = sharedFoundations([news, survey], works)
  const foundations: ReadonlyArray<Foundations> = [
    {
      arxivId: "2007.14454",
      status: "found",
      citations: [],
      unresolved: []
    },
    { arxivId: "1806.03537", status: "found", citations: [], unresolved: [] }
  ]

  it("puts the shared foundations first, oldest first, then the kept papers oldest first, each with a reason", () => {
    const steps = readingOrder(papers, shared, foundations)
    // word2vec's merged OpenAlex record says 2025, after the papers citing it: its year is left out
    assert.deepStrictEqual(steps.map((s) => [s.kind, s.id, s.year]), [
      ["foundation", "W2250539671", 2014],
      ["foundation", "W2153579005", undefined],
      ["paper", "1806.03537", 2018],
      ["paper", "2007.14454", 2020]
    ])
    assert.match(steps[0]!.why, /^The oldest foundation \(2014\): cited by 2 of the kept papers \(“Measuring prominence.*” and “Diachronic word embeddings.*”\); 32,760 citations in all\.$/)
    assert.strictEqual(
      steps[1]!.why,
      "A foundation: cited by 2 of the kept papers (“Measuring prominence of scientific work…” and “Diachronic word embeddings and semantic…”); 18,057 citations in all."
    )
    assert.strictEqual(steps[2]!.why, "The earliest kept paper (relevance 0.70); builds on steps 1 and 2.")
    assert.strictEqual(steps[3]!.why, "Next in time, the most relevant to your note (relevance 0.90); builds on steps 1 and 2.")
  })

  it("with no shared foundation, opens with each paper's most cited references", () => {
    const own: ReadonlyArray<Foundations> = [
      { arxivId: "2007.14454", status: "found", citations: [{ openalexId: "W9", title: "An old classic", citedByCount: 5000, publicationYear: 1990 } as never], unresolved: [] }
    ]
    const steps = readingOrder(papers, { status: "not-recorded", withReferences: 0, foundations: [] }, own)
    assert.deepStrictEqual(steps.map((s) => s.id), ["W9", "1806.03537", "2007.14454"])
    assert.match(steps[0]!.why, /^The oldest foundation \(1990\): cited by “Measuring prominence/)
    assert.strictEqual(steps[1]!.why, "The earliest kept paper (relevance 0.70).")
    assert.strictEqual(steps[2]!.why, "Next in time, the most relevant to your note (relevance 0.90); builds on step 1.")
  })

  it("says when a kept paper builds on a kept paper read before it", () => {
    const word2vec = kept("1310.4546", "Distributed Representations of Words and Phrases and their Compositionality", "2013-10-16", 0.8)
    const survey = papers[1]!
    const cites: ReadonlyArray<Foundations> = [{
      arxivId: survey.paper.arxivId,
      status: "found",
      // as recorded: OpenAlex spells the title in lower case
      citations: [{ openalexId: "W2153579005", title: "Distributed representations of words and phrases and their compositionality", citedByCount: 18057 } as never],
      unresolved: []
    }]
    const steps = readingOrder([word2vec, survey], { status: "not-recorded", withReferences: 0, foundations: [] }, cites)
    assert.deepStrictEqual(steps.map((s) => s.id), ["1310.4546", "1806.03537"])
    assert.strictEqual(steps[0]!.why, "The earliest kept paper, the most relevant to your note (relevance 0.80).")
    assert.strictEqual(steps[1]!.why, "Next in time (relevance 0.70); builds on step 1.")
  })

  it("reads kept papers oldest first, the more relevant first on the same day", () => {
    const a = kept("1406.2661", "Generative Adversarial Networks", "2014-06-10", 0.96)
    const b = kept("1611.02163", "Unrolled Generative Adversarial Networks", "2016-11-07", 0.99)
    const c = kept("1411.1784", "Conditional Generative Adversarial Nets", "2014-11-06", 0.84)
    const d = kept("1411.9999", "A paper of the same day", "2014-11-06", 0.9)
    // kept comes ordered by relevance
    const steps = readingOrder([b, a, d, c], { status: "not-recorded", withReferences: 0, foundations: [] }, [])
    assert.deepStrictEqual(steps.map((s) => s.id), ["1406.2661", "1411.9999", "1411.1784", "1611.02163"])
    assert.strictEqual(steps[3]!.why, "Next in time, the most relevant to your note (relevance 0.99).")
  })

  it("is empty without kept papers", () => {
    assert.deepStrictEqual(readingOrder([], { status: "not-recorded", withReferences: 0, foundations: [] }, []), [])
  })
})
