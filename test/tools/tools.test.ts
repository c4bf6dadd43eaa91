/**
 * The library-level tool functions over small in-memory ports: argument
 * checks, paging, and what they ask the ports for.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, FastCheck as fc, Layer, Option, TestClock } from "effect"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import * as RuleQueryBuilder from "../../src/adapters/query/RuleQueryBuilder.js"
import { term } from "../../src/core/arxivQuery.js"
import { UpstreamUnavailable } from "../../src/core/errors.js"
import { Paper } from "../../src/core/models.js"
import { OpenAlexPort } from "../../src/core/ports/OpenAlexPort.js"
import { ArxivPort, type ArxivSearch } from "../../src/core/ports/ArxivPort.js"
import * as Render from "../../src/mcp/render.js"
import * as Tools from "../../src/tools/index.js"

const paper = (i: number, published: string, title = `Paper ${i} about graph networks`) =>
  new Paper({ arxivId: `1703.${String(10000 + i)}`, title, abstract: "An abstract. ".repeat(30), authors: ["Ada Lovelace"], published, categories: ["cs.LG"] })

/** An ArxivPort over `papers`, newest first, that records each search (and the query port that reads typed queries). */
const arxivOver = (papers: ReadonlyArray<Paper>, searches: Array<ArxivSearch>) =>
  Layer.merge(RuleQueryBuilder.layer, Layer.succeed(ArxivPort, {
    search: (request) =>
      Effect.sync(() => {
        searches.push(request)
        const matching = papers
          .filter((p) => request.since === undefined || p.published >= request.since)
          .sort((a, b) => b.published.localeCompare(a.published))
        const start = request.start ?? 0
        return { papers: matching.slice(start, start + request.maxResults), total: matching.length, start }
      }),
    getPapers: (ids) =>
      Effect.succeed({ papers: papers.filter((p) => ids.includes(p.arxivId)), missing: ids.filter((id) => !papers.some((p) => p.arxivId === id)) })
  }))

/** The message of a failed exit's typed error. */
const messageOf = <A, E>(exit: Exit.Exit<A, E>): string =>
  Exit.isFailure(exit)
    ? Option.match(Cause.failureOption(exit.cause), { onNone: () => "(no failure)", onSome: (e) => (e as { message: string }).message })
    : "(success)"

describe("tool functions", () => {
  it.effect("category_trends pages through the sample 50 at a time and counts days in the window", () => {
    const searches: Array<ArxivSearch> = []
    const papers = Array.from({ length: 130 }, (_, i) => paper(i, `2017-03-${String(1 + (i % 28)).padStart(2, "0")}`))
    return Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2017-03-28T12:00:00Z"))
      const r = yield* Tools.categoryTrends({ category: "cs.lg", window_days: 28, sample_size: 120 })
      assert.strictEqual(r.category, "cs.LG")
      assert.strictEqual(r.from, "2017-03-01")
      assert.strictEqual(r.to, "2017-03-28")
      assert.strictEqual(r.sampled, 120)
      assert.strictEqual(r.total, 130)
      assert.deepEqual(searches.map((s) => [s.start, s.maxResults]), [[0, 50], [50, 50], [100, 20]])
      assert.isTrue(searches.every((s) => s.sortBy === "submittedDate" && s.since === "2017-03-01"))
      assert.strictEqual(r.daily_counts.reduce((n, d) => n + d.count, 0), 120)
      assert.deepEqual(r.top_phrases[0], { term: "graph networks", count: 120 })
    }).pipe(Effect.provide(arxivOver(papers, searches)))
  })

  it.effect("search_arxiv_papers checks arguments before asking arXiv", () => {
    const searches: Array<ArxivSearch> = []
    return Effect.gen(function*() {
      const bad = yield* Effect.exit(Tools.searchPapers({ query: "gnn", max_results: 0 }))
      assert.strictEqual(messageOf(bad), "Invalid max_results: 0 is out of range; use an integer from 1 to 50")
      const badCat = yield* Effect.exit(Tools.searchPapers({ query: "gnn", categories: ["cs.XX"] }))
      assert.match(messageOf(badCat), /"cs\.XX" is not an arXiv category/)
      // a query that does not parse is refused by the query port, saying where, before any backend is asked
      const unparsed = yield* Effect.exit(Tools.searchPapers({ query: "(gan OR" }))
      assert.strictEqual(messageOf(unparsed), "Invalid query: the query ends where a term was expected (at character 8); the query was: (gan OR")
      assert.strictEqual(searches.length, 0)
      const ok = yield* Tools.searchPapers({ query: " gnn ", categories: ["CS.lg"], abstract_max_chars: 40, sort_by: "submitted" })
      assert.deepEqual(searches[0]!.categories, ["cs.LG"])
      assert.strictEqual(searches[0]!.sortBy, "submittedDate")
      assert.deepStrictEqual(searches[0]!.query, term("all", "gnn"))
      assert.strictEqual(ok.query, "(all:gnn) AND (cat:cs.LG)")
      assert.isTrue(ok.papers.every((p) => p.abstract.length <= 41 && p.abstract.endsWith("…")))
    }).pipe(Effect.provide(arxivOver([paper(1, "2017-03-01")], searches)))
  })

  it.effect("get_papers and export_bibtex keep the order asked, drop duplicates and list missing ids", () =>
    Effect.gen(function*() {
      const r = yield* Tools.getPapers({ arxiv_ids: ["1703.10002", "arXiv:1703.10001v2", "1703.10002", "1703.99999"] })
      assert.deepEqual(r.papers.map((p) => p.arxiv_id), ["1703.10002", "1703.10001"])
      assert.deepEqual(r.missing, ["1703.99999"])
      const b = yield* Tools.exportBibtex({ arxiv_ids: ["1703.10001", "1703.10002"] })
      assert.deepEqual(b.entries.map((e) => e.key), ["lovelace2017paper", "lovelace2017papera"])
      const none = yield* Effect.exit(Tools.exportBibtex({ arxiv_ids: ["1703.99999"] }))
      assert.match(messageOf(none), /arXiv has no record of paper "1703\.99999"/)
    }).pipe(Effect.provide(arxivOver([paper(1, "2017-03-01"), paper(2, "2017-03-02")], []))))

  it.effect("score_paper_relevance still scores relevance when the citation index is unreachable", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-11-29T12:00:00Z"))
      const r = yield* Tools.scorePaperRelevance({
        concept_summary: "Graph neural networks pass messages between nodes of a graph.",
        paper: { arxiv_id: "1703.10001", title: "Paper 1 about graph networks", abstract: "Message passing on graph networks." }
      })
      assert.isAbove(r.relevance, 0)
      assert.isNull(r.citation_count)
      assert.isFalse(r.impact_pass)
      assert.strictEqual(r.publication_year, 2017)
      assert.include(r.rationale, "OpenAlex is unavailable")
    }).pipe(
      Effect.provide(LocalJudge.layer),
      Effect.provide(Layer.succeed(OpenAlexPort, {
        worksByArxivIds: () => Effect.fail(new UpstreamUnavailable({ service: "OpenAlex", reason: "no API key", status: 401 })),
        worksByIds: () => Effect.die("not called"),
        mostCitedArxivWorks: () => Effect.die("not called")
      }))
    ))

  it.effect("score_paper_relevance passes a new paper as exempt without any citation count", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2017-04-06T12:00:00Z"))
      const r = yield* Tools.scorePaperRelevance({
        concept_summary: "Graph neural networks pass messages between nodes of a graph.",
        paper: { arxiv_id: "1703.10001", title: "Paper 1 about graph networks", abstract: "Message passing on graph networks." }
      })
      assert.isNull(r.citation_count)
      assert.isTrue(r.impact_pass)
      assert.include(r.rationale, "new paper (0.1 y as of 2017-04-06): impact exempt, no citation count needed")
    }).pipe(
      Effect.provide(LocalJudge.layer),
      Effect.provide(Layer.succeed(OpenAlexPort, {
        worksByArxivIds: () => Effect.fail(new UpstreamUnavailable({ service: "OpenAlex", reason: "no API key", status: 401 })),
        worksByIds: () => Effect.die("not called"),
        mostCitedArxivWorks: () => Effect.die("not called")
      }))
    ))

  it("firstVersionFromId reads the month from modern and legacy ids", () => {
    assert.strictEqual(Tools.firstVersionFromId("1706.03762"), "2017-06-01")
    assert.strictEqual(Tools.firstVersionFromId("hep-th/9901001"), "1999-01-01")
    assert.strictEqual(Tools.firstVersionFromId("math/0211159"), "2002-11-01")
    assert.isUndefined(Tools.firstVersionFromId("garbage"))
  })
})

describe("abstracts capped on request", () => {
  const loneSurrogate = /\p{Cs}/u

  it.effect("abstract_max_chars cuts between characters, never inside an emoji", () => {
    const searches: Array<ArxivSearch> = []
    // the 40-unit cut used to fall between the emoji's two UTF-16 units: the JSON answer carried "\ud83d"
    const withEmoji = new Paper({ ...paper(1, "2017-03-01"), abstract: `${"x".repeat(39)}😀😀 and more words after it` })
    return Effect.gen(function*() {
      const r = yield* Tools.searchPapers({ query: "gnn", abstract_max_chars: 40 })
      assert.strictEqual(r.papers[0]!.abstract, `${"x".repeat(39)}😀…`)
      // 40 emoji are 80 UTF-16 units but 40 characters: not cut
      assert.strictEqual(Tools.capText("😀".repeat(40), 40), "😀".repeat(40))
    }).pipe(Effect.provide(arxivOver([withEmoji], searches)))
  })

  it.prop(
    "the capped abstract and its text rendering are whole characters, at most the limit and a \"…\"",
    [fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 40 }), fc.string({ unit: "binary", maxLength: 40 })],
    ([filler, max, tail]) => {
      const abstract = `${"ab ".repeat(filler).slice(0, filler)}${tail}`
      const capped = Tools.capText(abstract, max)
      assert.notMatch(capped, loneSurrogate)
      assert.isAtMost([...capped.replace(/…$/, "")].length, max)
      assert.isTrue(abstract.startsWith(capped.replace(/…$/, "")))
      const shown = Render.paperList([{ arxiv_id: "1703.10001", title: "T", abstract, authors: [], published_date: "2017-03-01", categories: [] }], max)
      assert.notMatch(shown, loneSurrogate)
    }
  )
})
