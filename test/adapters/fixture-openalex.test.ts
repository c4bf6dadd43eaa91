/**
 * The fixture OpenAlexPort: recorded citation counts (Semantic Scholar,
 * Google Scholar) and recorded OpenAlex records from fixtures/offline.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as FixtureOpenAlex from "../../src/adapters/fixture/FixtureOpenAlex.js"
import { rankFoundational } from "../../src/core/rules.js"
import { OpenAlexPort } from "../../src/core/ports/OpenAlexPort.js"

const port = (options: FixtureOpenAlex.FixtureOpenAlexOptions = {}) =>
  Layer.build(FixtureOpenAlex.layer(options).pipe(Layer.provide(NodeContext.layer))).pipe(
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

describe("FixtureOpenAlex.worksByArxivIds", () => {
  it.scoped("gives the recorded Semantic Scholar count with its source and recording date", () =>
    Effect.gen(function*() {
      const openalex = yield* port()
      const r = yield* openalex.worksByArxivIds(["1409.0473", "arXiv:1406.2661v1"])
      assert.deepStrictEqual(r.missing, [])
      assert.strictEqual(r.source.name, "Semantic Scholar")
      assert.strictEqual(r.source.recordedOn, "2024-02-15")
      const [bahdanau, gan] = r.impacts
      assert.strictEqual(bahdanau!.arxivId, "1409.0473")
      assert.strictEqual(bahdanau!.citationCount, 24423)
      assert.strictEqual(bahdanau!.source.recordedOn, "2024-02-15")
      assert.strictEqual(gan!.arxivId, "arXiv:1406.2661v1") // the caller's spelling, as the live adapter answers
      assert.strictEqual(gan!.citationCount, 38922)
      // no OpenAlex record of these papers was recorded: no reference list, not an empty one
      assert.isUndefined(bahdanau!.referencedWorks)
      assert.isUndefined(bahdanau!.openalexId)
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
      assert.strictEqual(empty.source.name, "Semantic Scholar")
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
      const openalex = yield* Layer.build(FixtureOpenAlex.layerConfig().pipe(Layer.provide(NodeContext.layer))).pipe(
        Effect.map(Context.get(OpenAlexPort)),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["ARXIV_COMPANION_OFFLINE_CITATIONS", "google-scholar"]])))
      )
      assert.strictEqual((yield* openalex.worksByArxivIds(["1409.3215"])).source.name, "Google Scholar")
      const bad = yield* Effect.exit(
        Layer.build(FixtureOpenAlex.layerConfig().pipe(Layer.provide(NodeContext.layer))).pipe(
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

describe("FixtureOpenAlex.worksByIds", () => {
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
