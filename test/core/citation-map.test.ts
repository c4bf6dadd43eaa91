/**
 * The citation map, read back by Mermaid's own parser (mermaid 11, over a
 * happy-dom window): structure, highlighting, the node budget, and hostile
 * titles that must neither break the diagram nor inject syntax.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { citationMap, MAP_LABEL_CHARS, MAP_MAX_NODES, type MapPaper, mermaidText, UNTITLED } from "../../src/core/citationMap.js"
import { shorten as shortenTo } from "../../src/core/text.js"

const shorten = (title: string) => shortenTo(title, MAP_LABEL_CHARS)
import { FoundationalCitation, SharedFoundation } from "../../src/core/models.js"
import { propertyRuns } from "../support/fast-check.js"
import { hostileText } from "../support/hostile.js"
import { parseFlowchart } from "../support/mermaid.js"

const citation = (id: string, title: string, citedByCount: number, publicationYear?: number) =>
  new FoundationalCitation({ openalexId: id, title, citedByCount, ...(publicationYear === undefined ? {} : { publicationYear }) })

// real titles and counts from the recorded OpenAlex records (test/fixtures/recorded/openalex)
const glove = citation("W2250539671", "Glove: Global Vectors for Word Representation", 32760, 2014)
const word2vec = citation("W2153579005", "Distributed representations of words and phrases and their compositionality", 18057, 2013)
const valueAll = citation("W1572136682", "Value all research products", 405, 2013)

const papers: ReadonlyArray<MapPaper> = [
  {
    arxivId: "2007.14454",
    openalexId: "W3045921891",
    title: "Measuring prominence of scientific work in online news as a proxy for impact",
    year: 2020,
    references: ["W2250539671", "W2153579005", "W1572136682"],
    foundational: [glove, word2vec, valueAll]
  },
  {
    arxivId: "1806.03537",
    openalexId: "W2807650837",
    title: "Diachronic word embeddings and semantic shifts: a survey",
    year: 2018,
    references: ["W2250539671", "W2153579005"],
    foundational: [glove, word2vec]
  }
]
const shared = [
  new SharedFoundation({ openalexId: glove.openalexId, title: glove.title, citedByCount: glove.citedByCount, publicationYear: 2014, citedBy: ["2007.14454", "1806.03537"] }),
  new SharedFoundation({ openalexId: word2vec.openalexId, title: word2vec.title, citedByCount: word2vec.citedByCount, publicationYear: 2013, citedBy: ["2007.14454", "1806.03537"] })
]

describe("citationMap", () => {
  it.effect("draws the note → kept papers → foundations, with shared foundations highlighted", () =>
    Effect.promise(async () => {
      const map = citationMap({ sourceTitle: "Word Embeddings", papers, shared })
      const parsed = await parseFlowchart(map.mermaid)
      assert.strictEqual(parsed.type, "flowchart-v2")
      assert.deepStrictEqual(parsed.config, {})
      const byLabel = new Map(parsed.nodes.map((n) => [n.label, n]))
      assert.deepStrictEqual(byLabel.get("Word Embeddings")?.classes, ["source"])
      assert.deepStrictEqual(byLabel.get("Glove: Global Vectors for Word Representation (2014)")?.classes, ["shared"])
      assert.deepStrictEqual(byLabel.get("Value all research products (2013)")?.classes, ["foundation"])
      assert.deepStrictEqual(
        byLabel.get("Measuring prominence of scientific work in online news as a… (2020)")?.classes,
        ["paper"]
      )
      const id = (label: string) => byLabel.get(label)!.id
      const edges = parsed.edges.map((e) => `${e.from}->${e.to}`)
      const gloveId = id("Glove: Global Vectors for Word Representation (2014)")
      const survey = id("Diachronic word embeddings and semantic shifts: a survey (2018)")
      assert.include(edges, `S->${survey}`)
      assert.include(edges, `${survey}->${gloveId}`)
      assert.notInclude(edges, `${survey}->${id("Value all research products (2013)")}`)
      assert.strictEqual(map.nodes, parsed.nodes.length)
      assert.strictEqual(map.edges, parsed.edges.length)
    }))

  it.effect("points a kept paper at another kept paper it cites, not at a copy", () =>
    Effect.promise(async () => {
      const citingSurvey: MapPaper = { ...papers[0]!, references: [...papers[0]!.references!, "W2807650837"] }
      const map = citationMap({ sourceTitle: "Note", papers: [citingSurvey, papers[1]!], shared })
      const parsed = await parseFlowchart(map.mermaid)
      assert.include(parsed.edges.map((e) => `${e.from}->${e.to}`), "P1->P2")
      assert.strictEqual(parsed.nodes.filter((n) => n.label.startsWith("Diachronic")).length, 1)
    }))

  it.effect("draws a shared work OpenAlex could not resolve, by its id", () =>
    Effect.promise(async () => {
      const unresolved = new SharedFoundation({ openalexId: "W1662133657", citedBy: ["2007.14454", "1806.03537"] })
      const withUnresolved = papers.map((p) => ({ ...p, references: [...p.references!, "W1662133657"] }))
      const parsed = await parseFlowchart(citationMap({ sourceTitle: "Note", papers: withUnresolved, shared: [...shared, unresolved] }).mermaid)
      const node = parsed.nodes.find((n) => n.label === "OpenAlex W1662133657 (title not recorded)")!
      assert.deepStrictEqual(node.classes, ["shared"])
      assert.strictEqual(parsed.edges.filter((e) => e.to === node.id).length, 2)
    }))

  it.effect("keeps to the node budget: the source, the kept papers, then the most cited foundations", () =>
    Effect.promise(async () => {
      const many: Array<MapPaper> = Array.from({ length: 12 }, (_, p) => ({
        arxivId: `1601.${String(10000 + p)}`,
        title: `Paper ${p}`,
        foundational: [0, 1, 2].map((k) => citation(`W${p * 10 + k + 1}`, `Work ${p}-${k}`, 1000 * (p + 1) + k))
      }))
      const map = citationMap({ sourceTitle: "Big", papers: many, shared: [] })
      const parsed = await parseFlowchart(map.mermaid)
      assert.strictEqual(parsed.nodes.length, MAP_MAX_NODES)
      assert.strictEqual(map.omittedFoundations, 36 - (MAP_MAX_NODES - 13))
      const drawn = parsed.nodes.filter((n) => n.label.startsWith("Work")).map((n) => n.label)
      // the most cited foundations are the ones drawn (paper 11's, then paper 10's, ...)
      assert.include(drawn, "Work 11-2")
      assert.notInclude(drawn, "Work 0-0")
    }))

  it("writes only safe characters raw; everything else as an entity code", () => {
    assert.strictEqual(mermaidText("Attention Is All You Need"), "Attention Is All You Need")
    assert.strictEqual(mermaidText("a \"b\" --> c; %%{init}%%"), "a #34;b#34; --#62; c#59; #37;#37;#123;init#125;#37;#37;")
    assert.strictEqual(mermaidText("Glove: Global"), "Glove#58; Global")
    assert.strictEqual(mermaidText("Über Ω\n😀"), "Über Ω #128512;")
    assert.strictEqual(shortenTo("one two three four", 9), "one two…")
  })

  const hostile = hostileText()

  it.effect.prop(
    "hostile titles parse, keep their words as labels, and add no node, edge, class or directive",
    {
      source: hostile,
      titles: fc.array(hostile, { minLength: 1, maxLength: 4 }),
      foundation: hostile
    },
    ({ source, titles, foundation }) => Effect.promise(async () => {
      const base = citation("W1", foundation, 10, 2001)
      const input = {
        sourceTitle: source,
        papers: titles.map((title, i): MapPaper => ({ arxivId: `1601.0000${i}`, title, year: 2016, references: ["W1"], foundational: [base] })),
        shared: titles.length >= 2
          ? [new SharedFoundation({ openalexId: "W1", title: foundation, citedByCount: 10, publicationYear: 2001, citedBy: titles.map((_, i) => `1601.0000${i}`) })]
          : []
      }
      const map = citationMap(input)
      assert.notInclude(map.mermaid, "```")
      assert.notInclude(map.mermaid, "%%")
      // inside the labels, once the entity codes are taken out, no character with a meaning is left
      const labelText = map.mermaid.split("\n").flatMap((l) => /^ {2}[SPF]\d*\["(.*)"\]$/.exec(l)?.[1] ?? [])
      assert.strictEqual(labelText.length, 1 + titles.length + 1)
      for (const text of labelText) assert.notMatch(text.replace(/#\d+;/g, ""), /[<>"`;&#%[\]{}|\\\n]/)
      const parsed = await parseFlowchart(map.mermaid)
      assert.deepStrictEqual(parsed.config, {})
      assert.strictEqual(parsed.nodes.length, 1 + titles.length + 1)
      assert.strictEqual(parsed.edges.length, titles.length * 2)
      const shown = (s: string) => shorten(s.replace(/\s+/gu, " ").trim()) || UNTITLED
      const labels = parsed.nodes.map((n) => n.label)
      assert.include(labels, shown(source))
      for (const title of titles) assert.include(labels, `${shown(title)} (2016)`)
      for (const n of parsed.nodes) {
        assert.isTrue(/^(S|P\d+|F\d+)$/.test(n.id), n.id)
        assert.isTrue(n.classes.every((c) => ["source", "paper", "foundation", "shared"].includes(c)))
      }
    }),
    { fastCheck: { numRuns: propertyRuns(60) } }
  )
})

