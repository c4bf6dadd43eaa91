/**
 * ArxivPort over a mirror's index (MirrorArxiv): the arXiv query the core
 * writes, evaluated by FTS5 with BM25 field weights, over real records (the
 * metadata rows of arXiv's server tests and recorded OAI-PMH pages, as the
 * stand-in renders and serves them).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { toFtsQuery, UnsupportedQuery } from "../../src/adapters/arxiv/mirror/ftsQuery.js"
import * as MirrorArxiv from "../../src/adapters/arxiv/mirror/MirrorArxiv.js"
import { MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"
import { parseOaiPage } from "../../src/adapters/arxiv/mirror/OaiPage.js"
import { parseQuery } from "../../src/adapters/query/queryParser.js"
import { ArxivPort, type ArxivSearch } from "../../src/core/ports/ArxivPort.js"
import { metadataRecords, recordedRecords } from "../support/oai-standin.js"
import { typedOrNone } from "../support/query.js"

const dir = mkdtempSync(join(tmpdir(), "arxiv-mirror-port-"))
{
  const records = [...metadataRecords(), ...recordedRecords("ListRecords_200_2018.xml"), ...recordedRecords("arxiv-physics-hep-th.xml")]
  const page = parseOaiPage(
    `<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>${records.map((r) => r.xml).join("\n")}</ListRecords></OAI-PMH>`
  )
  if (!("_tag" in page) || page._tag !== "Page") throw new Error("the test page does not parse")
  const index = MirrorIndex.open(dir, { create: true })
  index.commitPage(page.entries, () => true, { key: "all|", set: "all", categories: [], pages: 1, records: page.entries.length })
  index.close()
}

const req = (query: string, more: Partial<ArxivSearch> = {}): ArxivSearch => ({ query: typedOrNone(query), categories: [], maxResults: 50, ...more })
const run = <A, E>(f: (a: ArxivPort["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(ArxivPort, f).pipe(Effect.provide(MirrorArxiv.layer({ dir })))
const ids = (r: { readonly papers: ReadonlyArray<{ readonly arxivId: string }> }) => r.papers.map((p) => p.arxivId)
const failure = <A, E>(exit: Exit.Exit<A, E>) => {
  const e = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
  if (e === undefined || e._tag === "None") throw new Error("expected a typed failure")
  return e.value as { _tag: string; message: string }
}

describe("MirrorArxiv", () => {
  it.effect("finds a paper by title words, phrase and author, Porter-stemmed, title matches ranked first", () =>
    Effect.gen(function*() {
      const byTitle = yield* run((a) => a.search(req('ti:"channel capacity"')))
      assert.deepStrictEqual(ids(byTitle).sort(), ["0704.0046", "1101.2483"])
      assert.strictEqual(byTitle.total, 2)
      for (const p of byTitle.papers) assert.match(p.title, /channel capacity/i)
      const stemmed = yield* run((a) => a.search(req("ti:capacities AND au:Petz")))
      assert.deepStrictEqual(ids(stemmed), ["0704.0046"])
      const paper = stemmed.papers[0]!
      assert.deepStrictEqual(paper.authors, ["I. Csiszar", "F. Hiai", "D. Petz"])
      assert.strictEqual(paper.published, "2007-04-01")
      assert.deepStrictEqual(paper.categories, ["quant-ph", "cs.IT", "math.IT"])
      assert.strictEqual(paper.primaryCategory, "quant-ph")
      assert.strictEqual(paper.doi, "10.1063/1.2779138")
      // a word in the title outranks the same word in the abstract alone
      const entropy = yield* run((a) => a.search(req("all:entropy")))
      assert.isAbove(entropy.total, 1)
      assert.match(entropy.papers[0]!.title, /entrop/i)
    }))

  it.effect("the companion's query shape: an OR of terms and phrases, categories and since as filters, paged", () =>
    Effect.gen(function*() {
      const q = 'all:quantum OR all:"dark matter" OR all:superconductivity OR ti:entropy'
      const all = yield* run((a) => a.search(req(q, { maxResults: 200 })))
      assert.isAbove(all.total, 20)
      const quant = yield* run((a) => a.search(req(q, { categories: ["quant-ph"], maxResults: 200 })))
      assert.isBelow(quant.total, all.total)
      for (const p of quant.papers) assert.include(p.categories, "quant-ph")
      const recent = yield* run((a) => a.search(req(q, { since: "2011-01-01", maxResults: 200 })))
      for (const p of recent.papers) assert.isTrue(p.published >= "2011-01-01")
      assert.isBelow(recent.total, all.total)
      const second = yield* run((a) => a.search(req(q, { maxResults: 5, start: 5 })))
      assert.deepStrictEqual(ids(second), ids(all).slice(5, 10))
      const byDate = yield* run((a) => a.search(req(q, { sortBy: "submittedDate", sortOrder: "ascending", maxResults: 200 })))
      const dates = byDate.papers.map((p) => p.published)
      assert.deepStrictEqual(dates, [...dates].sort())
    }))

  it.effect("AND, ANDNOT, a leading minus, cat: and date ranges as arXiv reads them", () =>
    Effect.gen(function*() {
      const quantum = yield* run((a) => a.search(req("all:quantum", { maxResults: 200 })))
      const notCs = yield* run((a) => a.search(req("all:quantum ANDNOT cat:cs.IT", { maxResults: 200 })))
      const minus = yield* run((a) => a.search(req("all:quantum -cat:cs.IT", { maxResults: 200 })))
      assert.deepStrictEqual(ids(minus), ids(notCs))
      assert.isBelow(notCs.total, quantum.total)
      for (const p of notCs.papers) assert.notInclude(p.categories, "cs.IT")
      const ranged = yield* run((a) => a.search(req("all:quantum AND submittedDate:[201101010000 TO 201112312359]", { maxResults: 200 })))
      assert.isAbove(ranged.total, 0)
      for (const p of ranged.papers) assert.isTrue(p.published >= "2011-01-01" && p.published <= "2011-12-31")
      const categoryOnly = yield* run((a) => a.search(req("", { categories: ["hep-th"], maxResults: 200 })))
      assert.isAbove(categoryOnly.total, 10)
      for (const p of categoryOnly.papers) assert.include(p.categories, "hep-th")
    }))

  it.effect("looks papers up by id, old- and new-style, any version; reports the missing ones", () =>
    Effect.gen(function*() {
      const r = yield* run((a) => a.getPapers(["hep-th/9504118", "arXiv:1412.8544v2", "https://arxiv.org/abs/cs/0001024", "0808.05394"]))
      assert.deepStrictEqual(ids(r), ["hep-th/9504118", "1412.8544", "cs/0001024"])
      assert.deepStrictEqual(r.missing, ["0808.05394"])
      assert.strictEqual(r.papers[1]!.journalRef, "EPTCS 172, 2014, pp. 154-164")
    }))

  it.effect("refuses what it cannot evaluate, in one line that says how to write it; a bad id or size as every backend does", () =>
    Effect.gen(function*() {
      const alone = failure(yield* Effect.exit(run((a) => a.search(req("-all:quantum")))))
      assert.strictEqual(alone._tag, "InvalidArgument")
      assert.match(alone.message, /pair it with a term: a ANDNOT b/)
      const badId = failure(yield* Effect.exit(run((a) => a.getPapers(["abc"]))))
      assert.match(badId.message, /"abc" is not an arXiv id/)
      const tooMany = failure(yield* Effect.exit(run((a) => a.search(req("quantum", { maxResults: 0 })))))
      assert.match(tooMany.message, /0 is outside 1\.\.2000/)
    }))

  it.effect("a missing mirror says how to build one", () =>
    Effect.gen(function*() {
      const e = failure(yield* Effect.exit(
        Effect.flatMap(ArxivPort, (a) => a.search(req("quantum"))).pipe(Effect.provide(MirrorArxiv.layer({ dir: join(dir, "nothing") })))
      ))
      assert.match(e.message, /the arXiv mirror is unavailable: no mirror in .*nothing .*arxiv-companion mirror sync --categories/)
    }))

  it.live("a search while another process writes a page waits for the page, then answers", () =>
    Effect.gen(function*() {
      const { spawn } = yield* Effect.promise(() => import("node:child_process"))
      // another process holds a write transaction for a second, as a sync committing a page does
      const writer = spawn(process.execPath, ["-e", `
        const sqlite = require("node-sqlite3-wasm")
        const db = new sqlite.Database(${JSON.stringify(join(dir, "arxiv.sqlite"))})
        db.exec("BEGIN IMMEDIATE; UPDATE meta SET value = value WHERE key = 'schema'")
        process.stdout.write("writing\\n")
        setTimeout(() => { db.exec("COMMIT"); db.close() }, 1000)
      `], { cwd: join(import.meta.dirname, "..", ".."), stdio: ["ignore", "pipe", "inherit"] })
      yield* Effect.async<void>((resume) => void writer.stdout!.once("data", () => resume(Effect.void)))
      const started = Date.now()
      const r = yield* run((a) => a.search(req('ti:"channel capacity"')))
      assert.strictEqual(r.total, 2)
      assert.isAtLeast(Date.now() - started, 500, "it waited for the writer")
      yield* Effect.async<void>((resume) => void writer.once("exit", () => resume(Effect.void)))
    }), 30_000)

  it("translates the parser's tree to one MATCH expression with column filters", () => {
    const tree = (q: string) => {
      const p = parseQuery(q)
      if (p._tag === "Error") throw new Error(p.error.message)
      return p.query
    }
    const fts = toFtsQuery(tree('ti:"neural network" AND (au:del_maestro OR abs:atten*)'), ["cs.LG"])
    assert.notInstanceOf(fts, UnsupportedQuery)
    if (!(fts instanceof UnsupportedQuery)) {
      assert.strictEqual(
        fts.match,
        '(title : "neural network" AND (authors : NEAR("del" "maestro", 0) OR abstract : "atten" *)) AND categories : ("cslg")'
      )
    }
    assert.instanceOf(toFtsQuery(tree("a OR submittedDate:[202001010000 TO 202012312359]")), UnsupportedQuery)
  })
})

describe("MirrorArxiv on a larger mirror", () => {
  // the same records and 19 copies of them under new ids: ~20,000 papers
  const big = mkdtempSync(join(tmpdir(), "arxiv-mirror-big-"))
  {
    const records = [...metadataRecords(), ...recordedRecords("ListRecords_200_2018.xml"), ...recordedRecords("arxiv-physics-hep-th.xml")]
    const page = parseOaiPage(
      `<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>${records.map((r) => r.xml).join("\n")}</ListRecords></OAI-PMH>`
    )
    if (!("_tag" in page) || page._tag !== "Page") throw new Error("the test page does not parse")
    const index = MirrorIndex.open(big, { create: true })
    index.commitPage(page.entries, () => true, { key: "all|", set: "all", categories: [], pages: 1, records: page.entries.length })
    const base = index.status().records
    for (let round = 1; round < 20; round++) index.replicate(String(round), base)
    index.close()
  }
  const runBig = <A, E>(f: (a: ArxivPort["Type"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(ArxivPort, f).pipe(Effect.provide(MirrorArxiv.layer({ dir: big })))
  afterAll(() => rmSync(big, { recursive: true, force: true }))

  it.effect("a wide OR matching most of the mirror ranks the papers of its rarer alternatives, pages agreeing, its total estimated", () =>
    Effect.gen(function*() {
      // "the" and "of" are in nearly every abstract: they would make the OR match everything
      const q = 'all:the OR all:of OR all:quantum OR all:entropy OR all:superconductivity OR ti:entropy'
      const pool = yield* runBig((a) => a.search(req(q, { maxResults: 50 })))
      assert.strictEqual(pool.papers.length, 50)
      for (const p of pool.papers) assert.match(`${p.title} ${p.abstract}`, /quantum|entrop|superconduct/i, p.arxivId)
      const second = yield* runBig((a) => a.search(req(q, { maxResults: 10, start: 10 })))
      assert.deepStrictEqual(ids(second), ids(pool).slice(10, 20))
      // past the narrowed pages the whole OR is ranked, and its total counted exactly
      const deep = yield* runBig((a) => a.search(req(q, { maxResults: 10, start: 2000 })))
      assert.isAbove(deep.total, 8000)
      assert.approximately(pool.total, deep.total, deep.total * 0.1, "the narrowed search's total is an estimate within 10 %")
      assert.notStrictEqual(pool.total, deep.total, "estimated, not counted")
      // the index ranks the same OR whole when not told its alternatives: the narrowed pool's head is the whole ranking's
      const tree = parseQuery(q)
      if (tree._tag === "Error") throw new Error(tree.error.message)
      const fts = toFtsQuery(tree.query)
      if (fts instanceof UnsupportedQuery) throw new Error(fts.reason)
      assert.strictEqual(fts.alternatives?.length, 6)
      const index = MirrorIndex.open(big, { create: false })
      try {
        const whole = index.search({ match: fts.match, sortBy: "relevance", sortOrder: "descending", start: 0, limit: 50 })
        assert.strictEqual(whole.total, deep.total)
        const head = new Set(whole.rows.map((r) => r.id))
        const held = ids(pool).slice(0, 10).filter((id) => head.has(id))
        assert.isAtLeast(held.length, 9, `the narrowed top 10 within the whole top 50: ${held.length}`)
      } finally {
        index.close()
      }
    }), 120_000)
})

afterAll(() => {
  for (const index of MirrorArxiv.openedIndexes()) index.close()
  rmSync(dir, { recursive: true, force: true })
})
