/**
 * One behaviour suite for every ArxivPort adapter: the same tests run against
 * the recorded corpus (CorpusArxiv), the live adapter (LiveArxiv) on a
 * loopback stand-in for arXiv's API, a local mirror (MirrorArxiv) built
 * from recorded OAI-PMH records (the recorded corpus is one too, built by the
 * mirror's own code) and, where
 * PostgreSQL can be started (in CI it must be), a mirror on PostgreSQL
 * (PgArxiv) synced from the OAI-PMH records. Every search is the structured query the port takes
 * (src/core/arxivQuery.ts): the live adapter renders it, the local ones
 * evaluate it. A new arXiv backend joins by adding its layer and
 * a paper it holds to BACKENDS.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as CorpusArxiv from "../../src/adapters/arxiv/CorpusArxiv.js"
import * as LiveArxiv from "../../src/adapters/arxiv/LiveArxiv.js"
import * as Mirror from "../../src/adapters/arxiv/mirror/Mirror.js"
import * as MirrorArxiv from "../../src/adapters/arxiv/mirror/MirrorArxiv.js"
import { MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"
import { parseOaiPage } from "../../src/adapters/arxiv/mirror/OaiPage.js"
import * as PgArxiv from "../../src/adapters/arxiv/mirror/PgArxiv.js"
import * as ResponseCache from "../../src/adapters/http/ResponseCache.js"
import { firstVersionFromId } from "../../src/core/arxiv.js"
import { and, range, term } from "../../src/core/arxivQuery.js"
import { ArxivPort, type ArxivSearch, type ArxivService } from "../../src/core/ports/ArxivPort.js"
import { arxivStandIn } from "../support/arxiv-standin.js"
import { metadataRecords, recordedRecords, startStandIn } from "../support/oai-standin.js"
import { type PgServer, postgresUnavailable, requirePostgresInCi, startPostgres } from "../support/postgres.js"
import { typedOrNone } from "../support/query.js"

/** A paper the backend holds: its id, a word of its title, one of its categories. */
interface Held {
  readonly id: string
  readonly titleWord: string
  readonly category: string
}

interface Backend {
  readonly name: string
  readonly held: Held
  /** The port, living as long as the scope (a stand-in server included). */
  readonly port: Effect.Effect<ArxivService, never, import("effect").Scope.Scope>
}

const mirrorDir = mkdtempSync(join(tmpdir(), "arxiv-port-suite-mirror-"))
afterAll(() => rmSync(mirrorDir, { recursive: true, force: true }))
{
  const records = [...metadataRecords(), ...recordedRecords("ListRecords_200_2018.xml")]
  const page = parseOaiPage(
    `<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>${
      records.map((r) => r.xml).join("\n")
    }</ListRecords></OAI-PMH>`
  )
  if (!("_tag" in page) || page._tag !== "Page") throw new Error("the mirror's records do not parse")
  const index = MirrorIndex.open(mirrorDir, { create: true })
  index.commitPage(page.entries, () => true, { key: "all|", set: "all", categories: [], pages: 1, records: page.entries.length })
  index.close()
}

// a lab's mirror on PostgreSQL, when a server can be started here (in CI it must): the same records, synced
// through the mirror's own OAI-PMH harvester from a loopback stand-in, in one page
requirePostgresInCi()
const pgUnavailable = postgresUnavailable()
let pgServer: PgServer | undefined
let pgUrl = ""
beforeAll(async () => {
  if (pgUnavailable !== undefined) return
  pgServer = await startPostgres()
  pgUrl = pgServer.createDatabase("arxiv_port_suite")
  const records = [...metadataRecords(), ...recordedRecords("ListRecords_200_2018.xml")].filter((r) => r.sets.includes("cs"))
  const standIn = await startStandIn(records, records.length)
  try {
    const outcome = await Effect.runPromise(
      Mirror.sync({ to: pgUrl, oaiUrl: standIn.url, minInterval: "20 millis", sets: ["cs"] }).pipe(
        Effect.provide(Layer.mergeAll(NodeContext.layer, NodeHttpClient.layerUndici))
      )
    )
    if (outcome._tag !== "Synced") throw new Error(`the PostgreSQL mirror did not sync: ${outcome._tag}`)
  } finally {
    await standIn.close()
  }
}, 240_000)
afterAll(() => pgServer?.stop())

const portOf = <E>(layer: Layer.Layer<ArxivPort, E>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, ArxivPort)).pipe(Effect.orDie)

const GAN: Held = { id: "1406.2661", titleWord: "adversarial", category: "stat.ML" }

const BACKENDS: ReadonlyArray<Backend> = [
  {
    name: "CorpusArxiv (the recorded corpus, a sealed mirror index)",
    held: GAN,
    port: portOf(CorpusArxiv.layer().pipe(Layer.provide(NodeContext.layer)))
  },
  {
    name: "LiveArxiv (arXiv's API, on a loopback stand-in)",
    held: GAN,
    port: Effect.flatMap(arxivStandIn({ corpus: "landmarks" }), (standIn) =>
      portOf(
        LiveArxiv.layer({
          apiUrl: standIn.url,
          contact: "tests@example.org",
          minInterval: "5 millis",
          timeout: "10 seconds",
          retry: { baseDelay: "5 millis", maxDelay: "20 millis" }
        }).pipe(Layer.provide(Layer.mergeAll(NodeHttpClient.layer, ResponseCache.layerDisabled)))
      ))
  },
  {
    name: "MirrorArxiv (a local mirror)",
    held: { id: "0704.0046", titleWord: "capacity", category: "cs.IT" },
    port: portOf(MirrorArxiv.layer({ dir: mirrorDir }))
  },
  ...(pgUnavailable === undefined
    ? [{
      name: "PgArxiv (a mirror on PostgreSQL)",
      held: { id: "0704.0046", titleWord: "capacity", category: "cs.IT" },
      port: Effect.suspend(() => portOf(PgArxiv.layer({ url: pgUrl, connections: 1 })))
    }]
    : [])
]

/** An id of the right shape that no backend holds (a month after every recording). */
const NOT_HELD = "2512.99999"

const req = (query: string, more: Partial<ArxivSearch> = {}): ArxivSearch => ({ query: typedOrNone(query), categories: [], maxResults: 50, ...more })

const failureTag = <A, E>(exit: Exit.Exit<A, E>): string => {
  if (Exit.isSuccess(exit)) return "(succeeded)"
  const failure = Cause.failureOption(exit.cause)
  return failure._tag === "Some" ? String((failure.value as { _tag: string })._tag) : "(defect)"
}

for (const backend of BACKENDS) {
  const { held } = backend
  const withPort = <A, E>(f: (port: ArxivService) => Effect.Effect<A, E>) => Effect.scoped(Effect.flatMap(backend.port, f))

  describe(`ArxivPort: ${backend.name}`, { timeout: 120_000 }, () => {
    it.live("looks a held paper up by id, and lists an id it does not hold as missing", () =>
      withPort((port) =>
        Effect.gen(function*() {
          const found = yield* port.getPapers([held.id, NOT_HELD])
          assert.deepStrictEqual(found.papers.map((p) => p.arxivId), [held.id])
          assert.match(found.papers[0]!.title.toLowerCase(), new RegExp(held.titleWord))
          assert.include(found.papers[0]!.categories, held.category)
          assert.deepStrictEqual(found.missing, [NOT_HELD])
        })
      ))

    it.live("finds the held paper by a word of its title, in its category, every result in that category", () =>
      withPort((port) =>
        Effect.gen(function*() {
          const result = yield* port.search(req(`ti:${held.titleWord}`, { categories: [held.category] }))
          assert.include(result.papers.map((p) => p.arxivId), held.id)
          assert.isAtLeast(result.total, result.papers.length)
          assert.strictEqual(result.start, 0)
          for (const p of result.papers) assert.include(p.categories, held.category)
        })
      ))

    it.live("evaluates the structured query alike: a title word AND a submission range around the paper finds it, a range before it does not", () =>
      withPort((port) =>
        Effect.gen(function*() {
          const year = Number(firstVersionFromId(held.id)!.slice(0, 4))
          const around = and(term("ti", held.titleWord), range("submittedDate", `${year}01010000`, `${year}12312359`))
          const found = yield* port.search({ query: around, categories: [held.category], maxResults: 50 })
          assert.include(found.papers.map((p) => p.arxivId), held.id)
          for (const p of found.papers) assert.strictEqual(p.published.slice(0, 4), String(year), p.arxivId)
          const before = and(term("ti", held.titleWord), range("submittedDate", "199101010000", `${year - 1}12312359`))
          const earlier = yield* port.search({ query: before, categories: [held.category], maxResults: 50 })
          assert.notInclude(earlier.papers.map((p) => p.arxivId), held.id)
          for (const p of earlier.papers) assert.isBelow(Number(p.published.slice(0, 4)), year, p.arxivId)
        })
      ))

    it.live("refuses a request the API would refuse, with a typed InvalidArgument", () =>
      withPort((port) =>
        Effect.gen(function*() {
          for (const bad of [req("ti:x", { maxResults: 0 }), req("ti:x", { categories: ["not a category"] }), req("ti:x", { since: "2017-13-40" })]) {
            const exit = yield* Effect.exit(port.search(bad))
            assert.strictEqual(failureTag(exit), "InvalidArgument", JSON.stringify(bad))
          }
          const badId = yield* Effect.exit(port.getPapers(["not-an-id"]))
          assert.notStrictEqual(failureTag(badId), "(defect)")
        })
      ))
  })
}

/**
 * The offline mode's records through the mirror's engine (the recorded corpus is a sealed mirror index,
 * fixtures/offline/arxiv-corpus/): its papers field for field, and its matches for every kind of query. The totals
 * pinned here are those the offline mode's own engine gave before it was replaced by the mirror's (this suite
 * compared the two on these queries until then): a change in matching moves them.
 */
describe("ArxivPort: the recorded corpus through the mirror's engine", { timeout: 120_000 }, () => {
  const corpusPort = portOf(CorpusArxiv.layer().pipe(Layer.provide(NodeContext.layer)))
  const withCorpus = <A, E>(f: (port: ArxivService) => Effect.Effect<A, E>) => Effect.scoped(Effect.flatMap(corpusPort, f))

  it.live("holds the papers as recorded; an abstract that is another paper's is blank; no primary category is invented", () =>
    withCorpus((port) =>
      Effect.gen(function*() {
        // GAN; a record whose recorded abstract is another paper's (stored blank); the first record; one not held
        const found = yield* port.getPapers(["1406.2661", "1505.05561", "0704.0047", "1706.03762"])
        assert.deepStrictEqual(found.missing, ["1706.03762"])
        assert.deepStrictEqual(found.papers.map((p) => p.arxivId), ["1406.2661", "1505.05561", "0704.0047"])
        const gan = found.papers[0]!
        assert.strictEqual(gan.title, "Generative Adversarial Networks")
        assert.strictEqual(gan.published, "2014-06-10")
        assert.deepStrictEqual(gan.categories, ["cs.LG", "stat.ML"])
        // the corpus lists every paper's categories sorted (GAN's primary one is stat.ML): it names none
        for (const p of found.papers) assert.isUndefined(p.primaryCategory)
        assert.strictEqual(found.papers[1]!.abstract, "")
      })
    ))

  it.live("matches as the offline engine before it did, for every kind of query: stems, phrases, prefixes, fields, AND, OR, ANDNOT, -term, dates, categories", () =>
    withCorpus((port) =>
      Effect.gen(function*() {
        const queries: Array<[string, Partial<ArxivSearch>, number]> = [
          ["all:attentional", {}, 1411],
          ['all:"neural machine translation"', {}, 121],
          ['ti:"generative adversarial"', {}, 73],
          ["all:transformers", {}, 1860],
          ["ti:reinforcement AND abs:policy", {}, 175],
          ["all:dropout OR all:regularization", { categories: ["cs.LG", "stat.ML"] }, 1617],
          ["all:quantum ANDNOT cat:cs.LG", {}, 200],
          ["all:lstm -all:attention", { since: "2015-01-01" }, 373],
          ["abs:convolut*", {}, 2547],
          ["au:Hinton", {}, 18],
          ["co:ICML", {}, 429],
          ["jr:IEEE", {}, 512],
          ["all:gan AND submittedDate:[201601010000 TO 201612312359]", {}, 70],
          ["all:happiness", {}, 29],
          ["all:normalisation", {}, 47],
          ["all:q-learning", {}, 88]
        ]
        for (const [q, more, total] of queries) {
          const found = yield* port.search(req(q, { maxResults: 2000, ...more }))
          assert.strictEqual(found.total, total, q)
          assert.strictEqual(found.papers.length, Math.min(total, 2000), q)
        }
      })
    ))

  it.live("the companion's concept query (a wide OR, the ML categories, a pool of 1000) holds the attention-based translation landmarks", () =>
    withCorpus((port) =>
      Effect.gen(function*() {
        const concept = 'all:"attention mechanism" OR all:"machine translation" OR all:encoder OR all:decoder OR all:alignment OR ' +
          'all:recurrent OR all:bleu OR all:softmax OR all:sequence OR all:translation OR ti:attention OR ti:translation'
        const categories = ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"]
        const pool = yield* port.search(req(concept, { categories, maxResults: 1000 }))
        assert.strictEqual(pool.papers.length, 1000)
        for (const id of ["1409.0473", "1508.04025"]) assert.include(pool.papers.map((p) => p.arxivId), id)
      })
    ))
})
