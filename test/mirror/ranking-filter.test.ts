/**
 * A relevance search with a category filter over the recorded corpus (the
 * offline mode's index) is ranked without the filter and its papers are
 * filtered as they are read (MirrorIndex `rankedThenFiltered`): the papers, their
 * order and the total must be those of ranking with the filter inside FTS5's
 * MATCH, for narrowed concept queries (wide ORs) and plain searches (titles,
 * phrases, ANDNOT, authors), with filters that keep all of the corpus or two
 * thirds of it (the fast path), a third or less (ranked as before), a category
 * written so that only stemming matches it, a short page (the total counted),
 * a page past the first, and a date range beside the filter.
 */
import { afterAll, describe, expect, it } from "vitest"
import { join } from "node:path"
import { toFtsQuery } from "../../src/adapters/arxiv/mirror/ftsQuery.js"
import { type IndexQuery, MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"
import { parseQuery } from "../../src/adapters/query/queryParser.js"

const index = MirrorIndex.open(join(import.meta.dirname, "..", "..", "fixtures", "offline", "arxiv-corpus"), { create: false })
afterAll(() => index.close())

const or = (terms: ReadonlyArray<string>) => `(${terms.map((t) => (t.includes(" ") ? `all:"${t}"` : `all:${t}`)).join(" OR ")})`
const CONCEPTS = [
  or(["attention mechanism", "transformer", "encoder", "decoder", "machine translation", "sequence", "recurrent", "neural network",
    "bleu", "alignment", "softmax", "embedding", "layer", "residual", "convolutional", "language", "model", "translation", "attention",
    "source"]),
  or(["dropout", "regularization", "overfitting", "neural network", "deep", "training", "units", "weights", "generalization", "noise",
    "ensemble", "bayesian", "variational", "approximation", "layers", "hidden", "fully connected", "benchmark", "error", "learning"]),
  or(["graph", "node", "edge", "convolution", "spectral", "laplacian", "embedding", "network", "neighbourhood", "semi supervised",
    "classification", "citation", "message passing", "representation", "signal", "filter", "learning", "structure", "label", "vertex"]),
  or(["reinforcement learning", "policy", "reward", "agent", "q learning", "value function", "actor critic", "exploration", "atari",
    "environment", "markov decision", "gradient", "control", "deep", "replay", "action", "state", "game", "return", "learning"]),
  // symbolic AI: its papers are mostly outside cs.CV and cs.LG, so the first papers ranked cannot fill a page in those
  // two categories, and the search is ranked again with the filter
  or(["planning", "logic", "knowledge representation", "constraint", "satisfiability", "reasoning", "ontology", "argumentation",
    "answer set", "belief", "agent", "description logic", "semantics", "inference", "theorem", "solver", "search", "heuristic",
    "domain", "rules"])
]
const ML = ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"]

const search = (concept: string, categories: ReadonlyArray<string>, extra: Partial<IndexQuery>) => {
  const parsed = parseQuery(concept)
  if (parsed._tag === "Error") throw new Error(parsed.error.message)
  const fts = toFtsQuery(parsed.query, categories)
  if ("reason" in fts) throw new Error(fts.reason)
  // a pool of 1000 narrowed to 2,000 papers, so every concept is narrowed on a corpus of 36,421
  const q: IndexQuery = { ...fts, narrowTo: 2_000, sortBy: "relevance", sortOrder: "descending", start: 0, limit: 1000, ...extra }
  const filtered = index.search(q)
  const inRanking = index.search({ ...q, filterInRanking: true })
  return { filtered, inRanking }
}

describe("a narrowed concept query filtered by category after its ranking", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, Partial<IndexQuery>]> = [
    ["the ML categories (most of the corpus)", ML, {}],
    ["cs.CV and cs.LG (about two thirds of the newest papers)", ["cs.CV", "cs.LG"], {}],
    ["cs.CV alone (a third: ranked as before)", ["cs.CV"], {}],
    ["cs.IR alone (few papers: ranked as before)", ["cs.IR"], {}],
    ["a category matched only through stemming (cs.LGs)", ["cs.LGs", "cs.CV"], {}],
    ["the ML categories and a page past the first", ML, { start: 150, limit: 100 }],
    ["the ML categories from 2015 on", ML, { publishedFrom: "2015-01-01" }],
    ["cs.CV and cs.LG, narrowed to 8,000", ["cs.CV", "cs.LG"], { narrowTo: 8_000 }]
  ]
  for (const [name, categories, extra] of cases) {
    it(`gives the papers, order and total of ranking with the filter: ${name}`, () => {
      for (const concept of CONCEPTS) {
        const { filtered, inRanking } = search(concept, categories, extra)
        expect(filtered.rows.map((r) => r.id)).toEqual(inRanking.rows.map((r) => r.id))
        expect(filtered.total).toBe(inRanking.total)
      }
    })
  }

  it("keeps only papers in the filter, and a full page where the corpus has one", () => {
    for (const concept of CONCEPTS) {
      const { filtered } = search(concept, ["cs.CV", "cs.LG"], {})
      expect(filtered.rows.length).toBeGreaterThan(100)
      for (const row of filtered.rows) expect(row.categories.split(" ").some((c) => c === "cs.CV" || c === "cs.LG")).toBe(true)
      const ml = search(concept, ML, {}).filtered
      expect(ml.rows.length).toBe(1000)
      for (const row of ml.rows) expect(row.categories.split(" ").some((c) => ML.includes(c))).toBe(true)
    }
  })
})

const SEARCHES = [
  "ti:attention AND ti:translation",
  "all:dropout",
  'abs:"generative adversarial"',
  "(ti:graph OR ti:graphs) ANDNOT ti:convolutional",
  "au:bengio",
  "all:learning"
]

describe("a plain relevance search filtered by category after its ranking", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, Partial<IndexQuery>]> = [
    ["the ML categories, a pool of 1000", ML, {}],
    ["cs.CV and cs.LG, a pool of 1000", ["cs.CV", "cs.LG"], {}],
    ["cs.CV and cs.LG, a page of 10 (the total counted)", ["cs.CV", "cs.LG"], { limit: 10 }],
    ["cs.LGs and cs.CV, the third page of 10", ["cs.LGs", "cs.CV"], { start: 20, limit: 10 }],
    ["cs.CL alone (ranked as before)", ["cs.CL"], { limit: 50 }],
    ["the ML categories in 2016", ML, { publishedFrom: "2016-01-01", publishedTo: "2016-12-31", limit: 100 }]
  ]
  for (const [name, categories, extra] of cases) {
    it(`gives the papers, order and total of ranking with the filter: ${name}`, () => {
      for (const query of SEARCHES) {
        const { filtered, inRanking } = search(query, categories, { narrowTo: 0, ...extra })
        expect(filtered.rows.map((r) => r.id)).toEqual(inRanking.rows.map((r) => r.id))
        expect(filtered.total).toBe(inRanking.total)
      }
    })
  }
})

describe("a filter the categories alone cannot answer", () => {
  it("is left inside the ranking: the same papers as with it there", () => {
    // a query of the index's own (not the arXiv port's): its `within` names the abstract column, and matches most
    // papers (so the search would take the path that filters after the ranking)
    const within = 'abstract : "the"'
    const text = '("neural network" OR "deep" OR "model")'
    const q: IndexQuery = {
      match: `${text} AND ${within}`,
      text,
      within,
      narrowTo: 0,
      sortBy: "relevance",
      sortOrder: "descending",
      start: 0,
      limit: 200
    }
    const filtered = index.search(q)
    const inRanking = index.search({ ...q, filterInRanking: true })
    expect(filtered.rows.length).toBe(200)
    for (const row of filtered.rows) expect(row.abstract.toLowerCase()).toMatch(/\bthe\b/)
    expect(filtered.rows.map((r) => r.id)).toEqual(inRanking.rows.map((r) => r.id))
    expect(filtered.total).toBe(inRanking.total)
  })
})
