/**
 * The teaching sections in the written note — reading order, summaries,
 * shared foundations, the Mermaid map — with vault links and keyword tags,
 * over real recorded papers and reference lists; and whole notes built from
 * hostile titles, abstracts, keywords and model text, which must keep their
 * structure, parse as Mermaid and merge idempotently.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { composeBlock, composeNote, findBlock, mergeNote, type RelatedNoteInput } from "../../src/core/compose.js"
import { splitFrontmatter } from "../../src/core/keywords.js"
import {
  CompanionOptions,
  type Foundations,
  Impact,
  ImpactSource,
  Judgement,
  NoteRef,
  Paper,
  PaperSummary,
  ScoredPaper,
  Work
} from "../../src/core/models.js"
import { assessImpact, decide, rankFoundational } from "../../src/core/rules.js"
import { abstractSummary, teaching } from "../../src/core/teaching.js"
import { vaultIndex } from "../../src/core/vaultLinks.js"
import { propertyRuns } from "../support/fast-check.js"
import { hostileText } from "../support/hostile.js"
import { parseFlowchart } from "../support/mermaid.js"
import { loadPool } from "../support/openalex-standin.js"

// ---------------------------------------------------------------------------
// Kept papers with their real OpenAlex records (test/fixtures/recorded/openalex, CC0)
// ---------------------------------------------------------------------------

const pool = loadPool()
const short = (id: string) => id.replace("https://openalex.org/", "")
type Json = Record<string, unknown>

/** A paper as the arXiv port would give it, read from its recorded OpenAlex record. */
const paperOf = (workId: string, arxivId: string): Paper => {
  const r = pool.get(workId)!
  const index = (r["abstract_inverted_index"] ?? {}) as Record<string, Array<number>>
  const words: Array<string> = []
  for (const [word, at] of Object.entries(index)) for (const i of at) words[i] = word
  return new Paper({
    arxivId,
    title: String(r["display_name"]),
    abstract: words.join(" "),
    authors: ((r["authorships"] ?? []) as Array<Json>).map((a) => String((a["author"] as Json)["display_name"])),
    published: String(r["publication_date"]),
    categories: []
  })
}
const works = new Map([...pool.entries()].map(([id, r]) => [
  id,
  new Work({
    openalexId: id,
    title: String(r["display_name"] ?? ""),
    citedByCount: Number(r["cited_by_count"] ?? 0),
    ...(typeof r["publication_year"] === "number" ? { publicationYear: r["publication_year"] as number } : {})
  })
]))
const referencesOf = (workId: string) => ((pool.get(workId)!["referenced_works"] ?? []) as Array<string>).map(short)

const options = new CompanionOptions({ citationsPerYearThreshold: 0 })
const source = new ImpactSource({ name: "OpenAlex", recordedOn: "2025-11-17" })
const keptPaper = (workId: string, arxivId: string, relevance: number): ScoredPaper => {
  const paper = paperOf(workId, arxivId)
  const judgement = new Judgement({ arxivId, relevance, novelty: 0.5, rationale: "Shares the note's keywords." })
  const count = Number(pool.get(workId)!["cited_by_count"])
  const impact = assessImpact(paper.published, new Impact({ arxivId, openalexId: workId, citationCount: count, source }), "2026-11-29", options)
  return new ScoredPaper({ paper, judgement, impact, decision: decide(judgement, impact, options) })
}
const kept = [
  keptPaper("W2807650837", "1806.03537", 0.9), // Diachronic word embeddings and semantic shifts: a survey
  keptPaper("W3045921891", "2007.14454", 0.8), // Measuring prominence of scientific work in online news
  keptPaper("W2153579005", "1310.4546", 0.7) // word2vec (merged record)
]
const ids = { "1806.03537": "W2807650837", "2007.14454": "W3045921891", "1310.4546": "W2153579005" } as const
const references = new Map(kept.map((k) => [k.paper.arxivId, referencesOf(ids[k.paper.arxivId as keyof typeof ids])]))
const impacts = new Map(kept.map((k) => [k.paper.arxivId, new Impact({ arxivId: k.paper.arxivId, openalexId: ids[k.paper.arxivId as keyof typeof ids], citationCount: 1, source })]))
const foundations: ReadonlyArray<Foundations> = kept.map((k) => {
  const refs = references.get(k.paper.arxivId)!
  const resolved = refs.flatMap((id) => works.get(id) ?? [])
  return { arxivId: k.paper.arxivId, status: "found", citations: rankFoundational(resolved, 3), unresolved: refs.filter((id) => !works.has(id)) }
})
const keywords = ["word embeddings", "semantic shift", "skip-gram"]
const summaries = kept.map((k) => abstractSummary(k, keywords))
const taught = teaching({ sourceTitle: "Word Embeddings", kept, references, works, impacts, foundations, summaries })

const input: RelatedNoteInput = {
  source: new NoteRef({ title: "Word Embeddings", path: "Papers/Word Embeddings.md" }),
  keywords,
  query: "all:\"word embeddings\"",
  options,
  judge: "test-judge",
  impactSource: source,
  candidates: kept,
  survivors: kept,
  foundations,
  teaching: taught,
  vault: vaultIndex([{ title: "Word Embeddings" }, { title: "GloVe Global Vectors for Word Representation" }, { title: "Skip-gram" }], [
    "Word Embeddings — Related Papers"
  ])
}
const NOW = "2026-11-29T12:00:00Z"
const mermaidOf = (note: string): string => /```mermaid\n([\s\S]*?)\n```/.exec(note)![1]!

describe("the note's teaching sections", () => {
  const note = composeNote(input, NOW)
  const lines = note.split("\n")
  const at = (heading: string) => lines.indexOf(heading)

  it("come in order: reading order, kept papers, shared foundations, citation map", () => {
    const order = ["## Reading order", "## Kept papers", "## Shared foundations", "## Citation map"].map(at)
    assert.isTrue(order.every((i) => i > 0), JSON.stringify(order))
    assert.deepStrictEqual(order, [...order].sort((a, b) => a - b))
  })

  it("summarise each kept paper in whole sentences of its abstract, with the key figure when there is one", () => {
    for (const k of kept) {
      const line = lines.find((l) => l.startsWith("- Summary (sentences of the abstract): ") && lines.indexOf(l) > lines.findIndex((x) => x.includes(`(https://arxiv.org/abs/${k.paper.arxivId})`) && x.startsWith("###")))
      assert.isDefined(line, k.paper.arxivId)
    }
    const summary = summaries[0]!
    assert.isAbove(summary.text.length, 0)
    for (const sentence of abstractSummary(kept[0]!, keywords).text.split(/(?<=[.!?]) /)) assert.include(kept[0]!.paper.abstract, sentence)
  })

  it("list the shared foundations from the real reference lists, with who cites them, and link a vault note", () => {
    const section = lines.slice(at("## Shared foundations"), at("## Citation map")).join("\n")
    // GloVe and word2vec are cited by both the survey and the news paper; word2vec is also kept
    assert.include(section, "- [[GloVe Global Vectors for Word Representation|Glove: Global Vectors for Word Representation]] (2014) — 32,760 citations · OpenAlex W2250539671")
    assert.include(section, "  - cited by 2 kept papers: Diachronic word embeddings and semantic shifts: a survey (1806.03537); Measuring prominence of scientific work in online news as a… (2007.14454)")
    assert.include(section, "Distributed representations of words and phrases and their compositionality")
  })

  it("open with a reading order: foundations first, then the kept papers oldest first, each with why", () => {
    const section = lines.slice(at("## Reading order") + 2, at("## Kept papers") - 1)
    assert.match(section[0]!, /^1\. \[\[GloVe Global Vectors for Word Representation\|Glove: Global Vectors for Word Representation\]\] \(2014\) — The oldest foundation \(2014\): cited by 2 of the kept papers/)
    const papers = section.filter((l) => l.includes("https://arxiv.org/abs/"))
    assert.deepStrictEqual(papers.map((l) => /abs\/([\d.]+)\)/.exec(l)![1]), ["1806.03537", "2007.14454", "1310.4546"])
    assert.include(papers[0]!, "— The earliest kept paper, the most relevant to your note (relevance 0.90); builds on")
    assert.include(papers[1]!, "— Next in time (relevance 0.80)")
  })

  it.effect("draw a map Mermaid parses: the note, the kept papers, a kept paper citing another, shared foundations highlighted", () =>
    Effect.promise(async () => {
      const parsed = await parseFlowchart(mermaidOf(note))
      const node = (prefix: string) => parsed.nodes.find((n) => n.label.startsWith(prefix))!
      const survey = node("Diachronic word embeddings")
      const word2vec = node("Distributed representations of words")
      const glove = node("Glove")
      assert.deepStrictEqual(node("Word Embeddings").classes, ["source"])
      assert.deepStrictEqual(word2vec.classes, ["paper"])
      assert.deepStrictEqual(glove.classes, ["shared"])
      const edges = parsed.edges.map((e) => `${e.from}->${e.to}`)
      assert.include(edges, `${survey.id}->${word2vec.id}`)
      assert.include(edges, `${survey.id}->${glove.id}`)
      assert.isAtMost(parsed.nodes.length, 30)
    }))

  it("link keywords and papers that have a vault note, and make the keywords tags", () => {
    assert.include(note, "> Keywords taken from [[Word Embeddings]]: [[Word Embeddings|word embeddings]], semantic shift, [[Skip-gram|skip-gram]]")
    const fm = splitFrontmatter(note).frontmatter!
    assert.match(fm, /^tags: \[arxiv-companion, related-papers, word-embeddings, semantic-shift, skip-gram\]$/m)
  })

  it("makes tags of the first eight keywords only; a rerun drops the tags of keywords it no longer has, even past the eighth", () => {
    const many = Array.from({ length: 20 }, (_, i) => `keyword ${String.fromCharCode(97 + i)}`)
    const written = composeNote({ ...input, keywords: many }, NOW)
    const tags = /^tags: \[(.*)\]$/m.exec(splitFrontmatter(written).frontmatter!)![1]!.split(", ")
    assert.deepStrictEqual(tags, ["arxiv-companion", "related-papers", ...many.slice(0, 8).map((k) => k.replace(" ", "-"))])
    // an older note tagged with all twenty: the next run keeps none of the twelve beyond the eighth
    const older = written.replace(/^tags: \[(.*)\]$/m, `tags: [arxiv-companion, related-papers, ${many.map((k) => k.replace(" ", "-")).join(", ")}, to-read]`)
    const merged = mergeNote(older, { ...input, keywords: many.slice(0, 10) }, NOW)
    const fm = merged._tag === "Update" ? splitFrontmatter(merged.content).frontmatter! : ""
    assert.match(fm, new RegExp(`^tags: \\[arxiv-companion, related-papers, ${many.slice(0, 8).map((k) => k.replace(" ", "-")).join(", ")}, to-read\\]$`, "m"))
  })

  it("lists five unresolved references of a paper and counts the rest (the report has them all)", () => {
    const survey = foundations.find((f) => f.arxivId === "1806.03537")!
    assert.isAbove(survey.unresolved.length, 5)
    assert.include(note, `  - unresolved references: ${survey.unresolved.slice(0, 5).join(", ")} and ${survey.unresolved.length - 5} more`)
  })

  it("says plainly when no reference list is recorded", () => {
    const none = teaching({ ...{ sourceTitle: "Word Embeddings", kept, impacts, foundations, summaries }, references: new Map(), works })
    const text = composeNote({ ...input, teaching: none }, NOW)
    assert.include(text, "_No reference list is recorded for any of the 3 kept papers, so shared foundations cannot be shown._")
  })

  it("shows a model's summary as the model's", () => {
    const written = new PaperSummary({ arxivId: "1806.03537", text: "A survey of how word meanings shift, *measured* with embeddings.", source: "model" })
    const text = composeNote({ ...input, judge: "openai/gpt-4o-mini", teaching: { ...taught, summaries: [written] } }, NOW)
    assert.include(text, "- Summary (written by openai/gpt-4o-mini from the abstract): A survey of how word meanings shift, \\*measured\\* with embeddings.")
  })

  it("rerun with the same result is Unchanged; changed keywords replace their tags and keep the user's", () => {
    assert.deepStrictEqual(mergeNote(note, input, "2027-01-01T00:00:00Z"), { _tag: "Unchanged" })
    const withUserTag = note.replace(/^tags: \[(.*)\]$/m, "tags: [$1, to-read]")
    const merged = mergeNote(withUserTag, { ...input, keywords: ["word embeddings", "distributional semantics"] }, NOW)
    assert.strictEqual(merged._tag, "Update")
    const fm = merged._tag === "Update" ? splitFrontmatter(merged.content).frontmatter! : ""
    assert.match(fm, /^tags: \[arxiv-companion, related-papers, word-embeddings, distributional-semantics, to-read\]$/m)
  })
})

// ---------------------------------------------------------------------------
// Hostile text everywhere
// ---------------------------------------------------------------------------

const hostile = hostileText(40)

const hostileInput = fc.record({
  sourceTitle: hostile,
  titles: fc.array(hostile, { minLength: 1, maxLength: 3 }),
  abstracts: fc.array(hostile, { minLength: 3, maxLength: 3 }),
  keywords: fc.array(hostile, { maxLength: 4 }),
  summary: hostile,
  foundation: hostile
}).map((r): RelatedNoteInput => {
  const papers = r.titles.map((title, i) => {
    const arxivId = `1601.0000${i}`
    const paper = new Paper({ arxivId, title, abstract: r.abstracts[i]!, authors: [r.foundation], published: "2016-01-01", categories: [] })
    const judgement = new Judgement({ arxivId, relevance: 0.9, novelty: 0.5, rationale: r.summary })
    const impact = assessImpact(paper.published, new Impact({ arxivId, citationCount: 100, source }), "2026-11-29", options)
    return new ScoredPaper({ paper, judgement, impact, decision: decide(judgement, impact, options) })
  })
  const base = new Work({ openalexId: "W1", title: r.foundation, citedByCount: 5, publicationYear: 1999 })
  const refs = new Map(papers.map((p) => [p.paper.arxivId, ["W1"]]))
  const found: ReadonlyArray<Foundations> = papers.map((p) => ({ arxivId: p.paper.arxivId, status: "found", citations: rankFoundational([base], 3), unresolved: [] }))
  const sums = papers.map((p, i) => i === 0 ? new PaperSummary({ arxivId: p.paper.arxivId, text: r.summary, source: "model" }) : abstractSummary(p, r.keywords))
  return {
    source: new NoteRef({ title: r.sourceTitle, path: "Notes/source.md" }),
    keywords: r.keywords,
    query: "q",
    options,
    judge: r.foundation,
    impactSource: source,
    candidates: papers,
    survivors: papers,
    foundations: found,
    teaching: teaching({ sourceTitle: r.sourceTitle, kept: papers, references: refs, works: new Map([["W1", base]]), impacts: new Map(), foundations: found, summaries: sums }),
    vault: vaultIndex([{ title: r.foundation }, { title: r.titles[0]! }])
  }
})

describe("hostile text in the note", () => {
  it.effect.prop(
    "cannot break the block, the frontmatter, the sections or the map, and a rerun is Unchanged",
    { input: hostileInput },
    ({ input }) =>
      Effect.promise(async () => {
        const note = composeNote(input, NOW)
        // one block, found intact: no marker line forged from the data
        const found = findBlock(note)!
        assert.strictEqual(found.block, composeBlock(input))
        assert.isFalse(found.editedByUser)
        assert.strictEqual(note.split("\n").filter((l) => l.startsWith("%% arxiv-companion:")).length, 2)
        assert.deepStrictEqual(mergeNote(note, input, "2030-01-01T00:00:00Z"), { _tag: "Unchanged" })
        // frontmatter: the managed keys once each, tags valid
        const fm = splitFrontmatter(note).frontmatter!
        const keys = fm.split("\n").map((l) => /^([a-z_]+):/.exec(l)?.[1]).filter((k) => k !== undefined)
        assert.deepStrictEqual(keys, [...new Set(keys)])
        // no Obsidian comment, heading or fence opened by data inside the block
        const body = found.block.split("\n")
        const fences = body.filter((l) => l.startsWith("```"))
        assert.deepStrictEqual(fences, ["```mermaid", "```"])
        const outsideFence = body.filter((_, i) => i < body.indexOf("```mermaid") || i > body.lastIndexOf("```"))
        for (const l of outsideFence) {
          assert.notInclude(l, "%%", l)
          if (l.startsWith("#")) assert.match(l, /^(# .* — Related Papers|## (Reading order|Kept papers|Shared foundations|Citation map|Also cleared both bars|Relevant, impact not recorded|Dropped candidates)|### \d+\. \[)/, l)
        }
        // the map parses and draws every kept paper
        const parsed = await parseFlowchart(mermaidOf(note))
        assert.deepStrictEqual(parsed.config, {})
        assert.strictEqual(parsed.nodes.filter((n) => /^P\d+$/.test(n.id)).length, input.survivors.length)
      }),
    { fastCheck: { numRuns: propertyRuns(40) } }
  )
})
