/**
 * The recorded OpenAlexPort: recorded citation counts (Semantic Scholar 2024,
 * Google Scholar 2025 via Paper Copilot, Google Scholar 2017; one source per
 * paper) and recorded OpenAlex records from fixtures/offline.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as RecordedOpenAlex from "../../src/adapters/openalex/RecordedOpenAlex.js"
import { rankFoundational } from "../../src/core/rules.js"
import { OpenAlexPort } from "../../src/core/ports/OpenAlexPort.js"

const port = (options: RecordedOpenAlex.RecordedOpenAlexOptions = {}) =>
  Layer.build(RecordedOpenAlex.layer(options).pipe(Layer.provide(NodeContext.layer))).pipe(
    Effect.map(Context.get(OpenAlexPort))
  )

const failure = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  if (exit.cause._tag !== "Fail") throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return exit.cause.error
}

/** The shipped OpenAlex records, read directly (to know what the seeds cite). */
const recorded = JSON.parse(fs.readFileSync(new URL("../../fixtures/offline/openalex-works.json", import.meta.url), "utf8")) as {
  works: Array<{ id: string; referencedWorks?: Array<string> }>
}

describe("RecordedOpenAlex.worksByArxivIds", () => {
  it.scoped("by default each paper takes its count from ONE source, the first that recorded it, named with its date", () =>
    Effect.gen(function*() {
      const openalex = yield* port()
      const r = yield* openalex.worksByArxivIds(["1409.0473", "arXiv:1406.2661v1", "1301.3781", "1606.03498", "1106.1887", "1202.3323"])
      assert.deepStrictEqual(r.missing, [])
      assert.strictEqual(r.source.name, "Recorded citation counts")
      // papers without a count are aged as of the day the offline corpus was recorded
      assert.strictEqual(r.asOf, "2017-04-06")
      const of = (id: string) => r.impacts.find((i) => i.arxivId === id)!
      const described = (id: string) => [of(id).citationCount, of(id).source.name, of(id).source.recordedOn]
      // Semantic Scholar first: the curated list of famous papers
      assert.deepStrictEqual(described("1409.0473"), [24423, "Semantic Scholar", "2024-02-15"])
      assert.strictEqual(of("arXiv:1406.2661v1").citationCount, 38922) // the caller's spelling, as the live adapter answers
      // Improved GAN training: Google Scholar 2017 recorded 2 (another version); Semantic Scholar's count wins
      assert.deepStrictEqual(described("1606.03498"), [7497, "Semantic Scholar", "2024-02-15"])
      // word2vec (ICLR 2013) only in the 2025 Google Scholar counts, with its own recording date
      assert.deepStrictEqual(described("1301.3781"), [47498, "Google Scholar via Paper Copilot", "2025-06-02"])
      // in both Google Scholar recordings: the newer one
      assert.deepStrictEqual(described("1202.3323"), [105, "Google Scholar via Paper Copilot", "2025-06-12"])
      // only in the 2017 Google Scholar counts
      assert.deepStrictEqual(described("1106.1887"), [18, "Google Scholar", "2017-06-25"])
      // no OpenAlex record of these papers was recorded: no reference list, not an empty one
      assert.isUndefined(of("1409.0473").referencedWorks)
      assert.isUndefined(of("1409.0473").openalexId)
    }))

  it.scoped("a named source is used alone, with its own recording date", () =>
    Effect.gen(function*() {
      const s2 = yield* (yield* port({ citations: "semantic-scholar" })).worksByArxivIds(["1409.0473", "1301.3781"])
      assert.strictEqual(s2.source.name, "Semantic Scholar")
      assert.strictEqual(s2.source.recordedOn, "2024-02-15")
      assert.deepStrictEqual(s2.impacts.map((i) => [i.arxivId, i.citationCount, i.source.recordedOn]), [["1409.0473", 24423, "2024-02-15"]])
      assert.deepStrictEqual(s2.missing, ["1301.3781"])
      const gs25 = yield* (yield* port({ citations: "google-scholar-2025" })).worksByArxivIds(["1409.0473", "1301.3781", "1512.03385"])
      assert.strictEqual(gs25.source.name, "Google Scholar via Paper Copilot")
      assert.deepStrictEqual(gs25.impacts.map((i) => [i.arxivId, i.citationCount, i.source.recordedOn]), [
        ["1301.3781", 47498, "2025-06-02"],
        ["1512.03385", 269257, "2025-06-12"]
      ])
      assert.deepStrictEqual(gs25.missing, ["1409.0473"]) // ICLR 2015 is not in Paper Copilot's lists
      assert.strictEqual(gs25.asOf, "2017-04-06")
    }))

  it.scoped("a paper without a recorded count is missing, never a made-up number", () =>
    Effect.gen(function*() {
      const openalex = yield* port()
      // 0704.0047 is in the corpus but in no citation list; 1706.03762 is not in the corpus at all
      const r = yield* openalex.worksByArxivIds(["1409.0473", "0704.0047", "1706.03762"])
      assert.deepStrictEqual(r.impacts.map((i) => i.arxivId), ["1409.0473"])
      assert.deepStrictEqual(r.missing, ["0704.0047", "1706.03762"])
      const empty = yield* openalex.worksByArxivIds([])
      assert.deepStrictEqual([empty.impacts, empty.missing], [[], []])
      assert.strictEqual(empty.source.name, "Recorded citation counts")
    }))

  it.scoped("one source per lookup: Google Scholar counts are recorded 2017-06-25 and cover other papers", () =>
    Effect.gen(function*() {
      const openalex = yield* port({ citations: "google-scholar" })
      const r = yield* openalex.worksByArxivIds(["1409.3215", "1409.0473", "1310.4546"])
      assert.strictEqual(r.source.name, "Google Scholar")
      assert.strictEqual(r.source.recordedOn, "2017-06-25")
      assert.deepStrictEqual(r.impacts.map((i) => [i.arxivId, i.citationCount]), [["1409.3215", 1697], ["1310.4546", 4070]])
      assert.deepStrictEqual(r.missing, ["1409.0473"])
      for (const i of r.impacts) assert.strictEqual(i.source.name, "Google Scholar")
    }))

  it.scoped("the citation source can be chosen through configuration", () =>
    Effect.gen(function*() {
      const configured = (value: string) =>
        Layer.build(RecordedOpenAlex.layerConfig().pipe(Layer.provide(NodeContext.layer))).pipe(
          Effect.map(Context.get(OpenAlexPort)),
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["ARXIV_COMPANION_OFFLINE_CITATIONS", value]])))
        )
      assert.strictEqual((yield* (yield* configured("google-scholar")).worksByArxivIds(["1409.3215"])).source.name, "Google Scholar")
      assert.strictEqual(
        (yield* (yield* configured("google-scholar-2025")).worksByArxivIds(["1409.3215"])).source.name,
        "Google Scholar via Paper Copilot"
      )
      assert.strictEqual((yield* (yield* configured("all")).worksByArxivIds(["1409.3215"])).source.name, "Recorded citation counts")
      const bad = yield* Effect.exit(
        Layer.build(RecordedOpenAlex.layerConfig().pipe(Layer.provide(NodeContext.layer))).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["ARXIV_COMPANION_OFFLINE_CITATIONS", "scopus"]])))
        )
      )
      assert.isTrue(Exit.isFailure(bad))
    }))

  it.scoped("GNMT's reference list comes from its recorded OpenAlex record", () =>
    Effect.gen(function*() {
      const openalex = yield* port()
      const r = yield* openalex.worksByArxivIds(["1609.08144"])
      const gnmt = r.impacts[0]!
      assert.strictEqual(gnmt.citationCount, 6033)
      assert.strictEqual(gnmt.openalexId, "W2525778437")
      assert.deepStrictEqual(gnmt.referencedWorks, ["W1968594024", "W2121879602", "W2964121744", "W2251743902"])
      // none of the four was recorded itself: they are reported, not invented
      const works = yield* openalex.worksByIds(gnmt.referencedWorks!)
      assert.deepStrictEqual(works.works, [])
      assert.deepStrictEqual(works.missing, gnmt.referencedWorks)
    }))

  it.scoped("rejects what is not an arXiv id", () =>
    Effect.gen(function*() {
      const openalex = yield* port()
      const e = failure(yield* Effect.exit(openalex.worksByArxivIds(["1409.0473", "attention"])))
      assert.strictEqual(e._tag, "InvalidArgument")
    }))
})

describe("RecordedOpenAlex.worksByIds", () => {
  it.scoped("resolves 38 of the 42 works the recorded seeds cite and reports the other 4", () =>
    Effect.gen(function*() {
      const openalex = yield* port()
      const seeds = recorded.works.filter((w) => w.id === "W3045921891" || w.id === "W3046863325")
      assert.strictEqual(seeds.length, 2)
      const refs = [...new Set(seeds.flatMap((w) => w.referencedWorks ?? []))]
      assert.strictEqual(refs.length, 42)
      const r = yield* openalex.worksByIds(refs)
      assert.strictEqual(r.works.length, 38)
      assert.strictEqual(r.missing.length, 4)
      const top = rankFoundational(r.works, 3)
      assert.deepStrictEqual(top.map((w) => [w.openalexId, w.citedByCount]), [
        ["W2250539671", 32760],
        ["W2963341956", 30214],
        ["W2153579005", 18057]
      ])
      assert.strictEqual(top[0]!.title, "Glove: Global Vectors for Word Representation")
      // BERT's record has an empty title: it gets a fallback, never an empty string
      assert.strictEqual(top[1]!.title, "Untitled work (OpenAlex W2963341956, doi:10.18653/v1/n19-1423)")
      const word2vec = r.works.find((w) => w.openalexId === "W2153579005")!
      assert.strictEqual(word2vec.arxivId, "1310.4546")
    }))

  it.scoped("accepts short and URL ids and answers with short ids", () =>
    Effect.gen(function*() {
      const openalex = yield* port()
      const r = yield* openalex.worksByIds(["https://openalex.org/W2525778437", "W2525778437", "w2741809807", "W1"])
      assert.deepStrictEqual(r.works.map((w) => w.openalexId), ["W2525778437", "W2741809807"])
      assert.deepStrictEqual(r.missing, ["W1"])
      const gnmt = r.works[0]!
      assert.strictEqual(gnmt.arxivId, "1609.08144")
      assert.strictEqual(gnmt.doi, "10.48550/arxiv.1609.08144")
      assert.strictEqual(gnmt.publicationYear, 2016)
      const e = failure(yield* Effect.exit(openalex.worksByIds(["W2525778437", "doi:10.1/x"])))
      assert.strictEqual(e._tag, "InvalidArgument")
    }))
})

describe("RecordedOpenAlex.mostCitedArxivWorks", () => {
  it.scoped("the corpus papers holding a phrase, most cited first, with their metadata and one source per count", () =>
    Effect.gen(function*() {
      const openalex = yield* port()
      const r = yield* openalex.mostCitedArxivWorks({ phrases: ["Generative Adversarial"], limit: 5 })
      assert.include(r.query, `"generative adversarial"`)
      assert.deepStrictEqual(r.papers.map((p) => p.paper.arxivId), ["1406.2661", "1511.06434", "1609.04802", "1411.1784", "1606.03498"])
      const counts = r.papers.map((p) => p.impact.citationCount)
      assert.deepStrictEqual(counts, [...counts].sort((a, b) => b - a))
      const gan = r.papers[0]!
      assert.strictEqual(gan.paper.title, "Generative Adversarial Networks")
      assert.strictEqual(gan.paper.published, "2014-06-10")
      assert.include(gan.paper.authors, "Ian J. Goodfellow")
      assert.isAbove(gan.paper.abstract.length, 100)
      assert.deepStrictEqual([gan.impact.citationCount, gan.impact.source.name, gan.impact.source.recordedOn], [38922, "Semantic Scholar", "2024-02-15"])
      for (const p of r.papers) assert.match(`${p.paper.title} ${p.paper.abstract}`.toLowerCase(), /generative adversarial/)
    }))

  it.scoped("any phrase matches (OR), in the title or the abstract, and the counts follow the chosen source", () =>
    Effect.gen(function*() {
      const all = yield* (yield* port()).mostCitedArxivWorks({ phrases: ["word embeddings", "word vectors"], limit: 3 })
      // word2vec is counted only by Google Scholar 2025 (Paper Copilot)
      assert.deepStrictEqual(all.papers.map((p) => [p.paper.arxivId, p.impact.source.name]), [
        ["1301.3781", "Google Scholar via Paper Copilot"],
        ["1408.5882", "Semantic Scholar"],
        ["1607.04606", "Semantic Scholar"]
      ])
      const s2 = yield* (yield* port({ citations: "semantic-scholar" })).mostCitedArxivWorks({ phrases: ["word embeddings", "word vectors"], limit: 3 })
      assert.notInclude(s2.papers.map((p) => p.paper.arxivId), "1301.3781")
      assert.isTrue(s2.papers.every((p) => p.impact.source.name === "Semantic Scholar"))
    }))

  it.scoped("no usable phrase finds nothing; a limit outside 1..100 is refused", () =>
    Effect.gen(function*() {
      const openalex = yield* port()
      assert.deepStrictEqual((yield* openalex.mostCitedArxivWorks({ phrases: [], limit: 5 })).papers, [])
      assert.deepStrictEqual((yield* openalex.mostCitedArxivWorks({ phrases: ["  ", "\"()*"], limit: 5 })).papers, [])
      assert.deepStrictEqual((yield* openalex.mostCitedArxivWorks({ phrases: ["qwxzqv plorb"], limit: 5 })).papers, [])
      const e = failure(yield* Effect.exit(openalex.mostCitedArxivWorks({ phrases: ["attention"], limit: 0 })))
      assert.strictEqual(e._tag, "InvalidArgument")
    }))
})
