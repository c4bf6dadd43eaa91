/**
 * The mirror on a real PostgreSQL server that the test starts on loopback
 * (test/support/postgres.ts), harvested from the loopback OAI-PMH stand-in
 * (real recorded arXiv answers and metadata rows): politeness, a page whole
 * or not at all, resumption after a kill, incremental syncs, deletions, the
 * advisory lock that lets one harvester write, concurrent readers that see
 * whole pages, and the search answering as the SQLite mirror does.
 * Without PostgreSQL's binaries the file is skipped with the reason, except
 * under CI=true, where it fails.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Mirror from "../../src/adapters/arxiv/mirror/Mirror.js"
import * as MirrorArxiv from "../../src/adapters/arxiv/mirror/MirrorArxiv.js"
import { MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"
import { parseOaiPage } from "../../src/adapters/arxiv/mirror/OaiPage.js"
import * as PgArxiv from "../../src/adapters/arxiv/mirror/PgArxiv.js"
import * as PgIndex from "../../src/adapters/arxiv/mirror/PgIndex.js"
import { ArxivPort, type ArxivSearch } from "../../src/core/ports/ArxivPort.js"
import { deletedRecord, metadataRecords, recordedRecords, revisedRecord, type StandIn, startStandIn } from "../support/oai-standin.js"
import { type PgServer, postgresUnavailable, requirePostgresInCi, startPostgres } from "../support/postgres.js"
import { typedOrNone } from "../support/query.js"

requirePostgresInCi()
const unavailable = postgresUnavailable()

const Node = Layer.mergeAll(NodeContext.layer, NodeHttpClient.layerUndici)

const csRecords = () => [
  ...metadataRecords().filter((r) => r.sets.includes("cs")),
  ...recordedRecords("ListRecords_200_2018.xml").filter((r) => r.sets.includes("cs"))
]
const allRecords = () => [
  ...metadataRecords(),
  ...recordedRecords("ListRecords_200_2018.xml"),
  ...recordedRecords("arxiv-physics-hep-th.xml"),
  ...recordedRecords("arxiv-physics-hep-ex.xml")
]

let server: PgServer
let databases = 0
/** A new, empty database on the test's server. */
const freshDatabase = () => server.createDatabase(`mirror_${++databases}`)

const withStandIn = <A, E>(records: Parameters<typeof startStandIn>[0], pageSize: number, body: (s: StandIn) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(Effect.promise(() => startStandIn(records, pageSize)), body, (s) => Effect.promise(() => s.close()))

const sync = (s: StandIn, to: string, more: Partial<Mirror.SyncRequest> = {}) =>
  Mirror.sync({ to, oaiUrl: s.url, minInterval: "20 millis", sets: ["cs"], ...more }).pipe(Effect.provide(Node))

/** Every paper: a date range with no bounds to speak of (an empty search is refused). */
const EVERYTHING = "submittedDate:[190001010000 TO 209912312359]"

const req = (query: string, more: Partial<ArxivSearch> = {}): ArxivSearch => ({ query: typedOrNone(query), categories: [], maxResults: 2000, ...more })
const onPg = <A, E>(url: string, f: (a: ArxivPort["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(ArxivPort, f).pipe(Effect.provide(PgArxiv.layer({ url })))

const heldIds = (url: string) =>
  onPg(url, (a) => a.search(req(EVERYTHING, { sortBy: "submittedDate", sortOrder: "ascending" }))).pipe(
    Effect.map((r) => r.papers.map((p) => p.arxivId).sort())
  )

const failureMessage = <A, E>(exit: Exit.Exit<A, E>): string => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const e = Cause.failureOption(exit.cause)
  if (e._tag === "None") throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return (e.value as { message: string }).message
}

describe.skipIf(unavailable !== undefined)(`the mirror on PostgreSQL${unavailable === undefined ? "" : ` (skipped: ${unavailable})`}`, () => {
  beforeAll(async () => {
    server = await startPostgres()
  }, 180_000)
  afterAll(() => server?.stop())

  it.live("a 3-page sync makes 3 requests and the retry arXiv's 503 asks for, each at least 3 s after the last", () => {
    const url = freshDatabase()
    const records = csRecords()
    return withStandIn(records, Math.ceil(records.length / 3), (s) =>
      Effect.gen(function*() {
        s.faults.set(1, { kind: "503", recording: "2018" })
        // the default politeness: the same limiter (and 3 s) as every arXiv request of the process
        const outcome = yield* Mirror.sync({ to: url, oaiUrl: s.url, sets: ["cs"] }).pipe(Effect.provide(Node))
        assert.strictEqual(outcome._tag, "Synced")
        assert.deepStrictEqual(s.received.map((r) => r.status), [503, 200, 200, 200])
        const gaps = s.received.slice(1).map((r, i) => r.at - s.received[i]!.at)
        assert.isAtLeast(gaps[0]!, 10_000, "the retry waits for the Retry-After")
        for (const gap of gaps) assert.isAtLeast(gap, 3_000)
        if (outcome._tag === "Synced") {
          assert.strictEqual(outcome.requests, 3)
          assert.strictEqual(outcome.sets[0]!.pages, 3)
          assert.strictEqual(outcome.records, records.length)
          assert.notInclude(outcome.dir, "@127.0.0.1:0")
        }
        const held = yield* heldIds(url)
        assert.deepStrictEqual(held, records.map((r) => r.id).sort())
        const status = yield* Mirror.status(url).pipe(Effect.provide(Node))
        assert.strictEqual(status.records, records.length)
        assert.strictEqual(status.newestDatestamp, records.map((r) => r.datestamp).sort().at(-1))
        assert.strictEqual(status.harvests[0]!.token, undefined)
        assert.isAbove(status.sizeBytes, 100_000)
      }))
  }, 90_000)

  it.live("a sync that wrote papers ends by vacuuming the papers table: no entry left pending in its GIN indexes, and it says so", () => {
    const url = freshDatabase()
    const database = `mirror_${databases}`
    const records = csRecords()
    const notes: Array<string> = []
    // the GIN indexes' pending lists, read with pgstattuple as the server's superuser
    const pending = () => {
      server.psql(database, "CREATE EXTENSION IF NOT EXISTS pgstattuple")
      return server.psql(
        database,
        "SELECT c.relname || '=' || (pgstatginindex(c.oid)).pending_tuples FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid " +
          "JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = 'arxiv_mirror.papers'::regclass AND a.amname = 'gin' ORDER BY 1"
      ).trim().split("\n")
    }
    return withStandIn(records, Math.ceil(records.length / 3), (s) =>
      Effect.gen(function*() {
        const outcome = yield* sync(s, url, { progress: (p) => Effect.sync(() => void (p.note !== undefined && notes.push(p.note))) })
        assert.strictEqual(outcome._tag, "Synced")
        const after = pending()
        assert.isAtLeast(after.length, 2, after.join(", "))
        for (const index of after) assert.match(index, /=0$/, after.join(", "))
        assert.isTrue(notes.some((n) => n.startsWith("vacuuming and analysing the mirror's papers table")), notes.join(" | "))
      }))
  }, 90_000)

  it.live("a page is committed whole or not at all: a write that fails mid-page leaves the pages before it and the position of the last", () => {
    const url = freshDatabase()
    const name = url.slice(url.lastIndexOf("/") + 1)
    const records = allRecords().filter((r) => r.sets.includes("math"))
    return withStandIn(allRecords(), 40, (s) =>
      Effect.gen(function*() {
        // the first sync creates the schema; then the server refuses one record of page 2 (a real trigger's error)
        const sorted = [...records].sort((a, b) => a.datestamp.localeCompare(b.datestamp) || a.id.localeCompare(b.id))
        const victim = sorted[60]!.id
        let pages = 0
        const first = yield* Effect.exit(sync(s, url, {
          sets: ["math"],
          progress: () =>
            Effect.sync(() => {
              if (++pages === 1) {
                server.psql(
                  name,
                  `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                     IF NEW.id = '${victim}' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$;
                   CREATE TRIGGER refuse BEFORE INSERT ON arxiv_mirror.papers FOR EACH ROW EXECUTE FUNCTION refuse();`
                )
              }
            })
        }))
        const message = failureMessage(first)
        assert.match(message, /^the arXiv mirror on PostgreSQL is unavailable: page 2 of math failed on postgres:\/\/.*refused by the test/)
        assert.notInclude(message, "\n")
        // page 1 whole, nothing of page 2 (39 other records were in the same statement)
        assert.strictEqual((yield* heldIds(url)).length, 40)
        const state = (yield* Mirror.status(url).pipe(Effect.provide(Node))).harvests[0]!
        assert.strictEqual(state.pages, 1)
        assert.strictEqual(state.token, "L1:40")
        server.psql(name, "DROP TRIGGER refuse ON arxiv_mirror.papers")
        const before = s.received.length
        yield* sync(s, url, { sets: ["math"] })
        assert.strictEqual(s.received[before]!.params.get("resumptionToken"), "L1:40", "resumed at page 2")
        assert.deepStrictEqual(yield* heldIds(url), records.map((r) => r.id).sort())
      }))
  }, 60_000)

  it.live("a sync killed after a committed page resumes at the next page, asking for no page twice", () => {
    const url = freshDatabase()
    return withStandIn(allRecords(), 50, (s) =>
      Effect.gen(function*() {
        const killed = yield* Effect.exit(sync(s, url, { sets: ["math"], progress: (p) => (p.pages === 2 ? Effect.interrupt : Effect.void) }))
        assert.isTrue(Exit.isInterrupted(killed))
        assert.strictEqual(s.received.length, 2)
        assert.strictEqual((yield* heldIds(url)).length, 100, "two pages committed whole")
        // the killed sync's connection is gone, and its lock with it
        const outcome = yield* sync(s, url, { sets: ["math"] })
        assert.strictEqual(outcome._tag, "Synced")
        assert.strictEqual(s.received[2]!.params.get("resumptionToken"), "L1:100")
        const tokens = s.received.map((r) => r.params.get("resumptionToken") ?? "list")
        assert.strictEqual(new Set(tokens).size, tokens.length, "no page asked for twice")
        assert.strictEqual((yield* heldIds(url)).length, allRecords().filter((r) => r.sets.includes("math")).length)
      }))
  }, 60_000)

  it.live("a second sync asks from the last datestamp: only what is new; a deleted record disappears, a new version replaces the old", () => {
    const url = freshDatabase()
    const records = csRecords()
    return withStandIn(records, 15, (s) =>
      Effect.gen(function*() {
        yield* sync(s, url)
        assert.strictEqual((yield* heldIds(url)).length, records.length)
        const newest = [...records].sort((a, b) => b.datestamp.localeCompare(a.datestamp))[0]!.datestamp
        const servedBefore = s.received.length
        const gone = records.find((r) => r.id === "cs/0001024")!
        const revised = records.find((r) => r.id === "1412.8544")!
        const added = recordedRecords("arxiv-physics-hep-th.xml").slice(0, 2).map((r) => ({ ...r, sets: [...r.sets, "cs"], datestamp: "2026-11-30" }))
        s.records = [
          ...records.filter((r) => r !== gone && r !== revised),
          deletedRecord(gone, "2026-11-30"),
          revisedRecord(revised, "2026-11-30", "A Kochen-Specker system has at least 22 vectors"),
          ...added
        ]
        const outcome = yield* sync(s, url)
        const second = s.received.slice(servedBefore)
        assert.strictEqual(second[0]!.params.get("from"), newest)
        const sameDay = records.filter((r) => r.datestamp === newest && r !== gone && r !== revised).length
        assert.strictEqual(second.reduce((n, r) => n + r.records, 0), 4 + sameDay, "the new and changed records, and the last day's again")
        const now = yield* heldIds(url)
        assert.notInclude(now, "cs/0001024")
        assert.includeMembers(now, added.map((r) => r.id))
        assert.strictEqual(now.length, records.length - 1 + 2)
        if (outcome._tag === "Synced") {
          assert.strictEqual(outcome.sets[0]!.deleted, 1)
          assert.strictEqual(outcome.sets[0]!.added, 2)
        }
        const lookup = yield* onPg(url, (a) => a.getPapers(["1412.8544v1", "cs/0001024"]))
        assert.strictEqual(lookup.papers[0]!.title, "A Kochen-Specker system has at least 22 vectors")
        assert.deepStrictEqual(lookup.missing, ["cs/0001024"])
        // the revised title is what the index searches now
        const byNewTitle = yield* onPg(url, (a) => a.search(req('ti:"at least 22 vectors"')))
        assert.deepStrictEqual(byNewTitle.papers.map((p) => p.arxivId), ["1412.8544"])
      }))
  }, 60_000)

  it.live("one harvester at a time: a second sync exits in one line naming the holder (application_name, pid, address) from pg_stat_activity", () => {
    const url = freshDatabase()
    const records = csRecords()
    return withStandIn(records, 10, (s) =>
      Effect.gen(function*() {
        const first = yield* Effect.fork(sync(s, url, { minInterval: "400 millis" }))
        while (s.received.length === 0) yield* Effect.sleep("50 millis")
        const second = yield* Effect.exit(sync(s, url))
        const message = failureMessage(second)
        assert.match(
          message,
          new RegExp(
            `^the arXiv mirror on PostgreSQL is unavailable: a sync holds the mirror's lock in postgres://postgres@127\\.0\\.0\\.1:${server.port}/mirror_\\d+ ` +
              `\\(application_name "arxiv-companion mirror sync on .+ pid ${process.pid}", server pid \\d+, from 127\\.0\\.0\\.1, as postgres, connected since \\d{4}-`
          )
        )
        assert.match(message, /one harvester at a time: wait for it to end, or stop it\.$/)
        assert.notInclude(message, "\n")
        const served = s.received.length
        yield* Fiber.join(first)
        assert.isAtLeast(served, 1)
        // the refused sync asked arXiv for nothing: every request was the first sync's, each page once
        const tokens = s.received.map((r) => r.params.get("resumptionToken") ?? "list")
        assert.strictEqual(new Set(tokens).size, tokens.length)
        assert.strictEqual((yield* sync(s, url))._tag, "Synced", "the lock is free once the first sync ends")
      }))
  }, 90_000)

  it.live("10 concurrent readers, each with its own connections, read while a sync writes: each sees whole pages only", () => {
    const url = freshDatabase()
    const math = allRecords().filter((r) => r.sets.includes("math")).length
    return withStandIn(allRecords(), 25, (s) =>
      Effect.gen(function*() {
        // the schema exists before the readers start: the first page, then the rest concurrently
        yield* Effect.exit(sync(s, url, { sets: ["math"], progress: (p) => (p.pages === 1 ? Effect.interrupt : Effect.void) }))
        const writer = yield* Effect.fork(sync(s, url, { sets: ["math"], minInterval: "150 millis" }))
        const seen: Array<number> = []
        const reader = (n: number) =>
          Effect.gen(function*() {
            const port = yield* ArxivPort
            let last = 0
            for (let i = 0; i < 12; i++) {
              const r = yield* port.search(req(EVERYTHING, { maxResults: 1 }))
              seen.push(r.total)
              assert.isAtLeast(r.total, last, `reader ${n} never sees records vanish`)
              last = r.total
              const q = yield* port.search(req("all:algebra OR all:group OR all:space", { maxResults: 5 }))
              assert.isAtMost(q.papers.length, 5)
              yield* Effect.sleep("100 millis")
            }
          }).pipe(Effect.provide(PgArxiv.layer({ url, connections: 2 })))
        yield* Effect.all(Array.from({ length: 10 }, (_, n) => reader(n)), { concurrency: "unbounded" })
        yield* Fiber.join(writer)
        assert.strictEqual(seen.length, 120)
        for (const total of seen) assert.isTrue(total % 25 === 0 || total === math, `${total} is not a whole number of pages`)
        assert.isAbove(new Set(seen).size, 1, "the readers read while pages were written")
      }))
  }, 120_000)

  it.live("the search answers as the SQLite mirror does on the same records: the same matches, filters and ids; a comparable ranking, the same in two steps as ranked whole; a wide OR narrowed to its rarest alternatives", () => {
    const url = freshDatabase()
    const dir = mkdtempSync(join(tmpdir(), "arxiv-mirror-pg-sqlite-"))
    const records = allRecords()
    return withStandIn(records, 1000, (s) =>
      Effect.gen(function*() {
        yield* sync(s, url, { sets: ["cs", "econ", "eess", "math", "physics", "q-bio", "q-fin", "stat"] })
        // the same records into a SQLite mirror, through the same parser
        const page = parseOaiPage(
          `<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>${records.map((r) => r.xml ?? "").join("\n")}</ListRecords></OAI-PMH>`
        )
        if (!("_tag" in page) || page._tag !== "Page") throw new Error("the records do not parse")
        const index = MirrorIndex.open(dir, { create: true })
        index.commitPage(page.entries, () => true, { key: "all|", set: "all", categories: [], pages: 1, records: page.entries.length })
        index.close()
        const pgCount = (yield* Mirror.status(url).pipe(Effect.provide(Node))).records
        const onSqlite = <A, E>(f: (a: ArxivPort["Type"]) => Effect.Effect<A, E>) =>
          Effect.flatMap(ArxivPort, f).pipe(Effect.provide(MirrorArxiv.layer({ dir })))
        assert.strictEqual(pgCount, (yield* onSqlite((a) => a.search(req(EVERYTHING, { maxResults: 1 })))).total)
        const queries: Array<[string, Partial<ArxivSearch>]> = [
          ['ti:"channel capacity"', {}],
          ["ti:capacities AND au:Petz", {}],
          ["all:entropy", {}],
          ['all:quantum OR all:"dark matter" OR all:superconductivity OR ti:entropy', {}],
          ['all:quantum OR all:"dark matter" OR all:superconductivity OR ti:entropy', { categories: ["quant-ph"] }],
          ["all:quantum ANDNOT cat:cs.IT", {}],
          ["all:quantum -cat:cs.IT", { since: "2011-01-01" }],
          ["all:quantum AND submittedDate:[201101010000 TO 201112312359]", {}],
          ["abs:neutrino* OR ti:detector", {}],
          ["all:string OR all:brane OR all:duality OR all:gauge OR all:supersymmetry", {}],
          ["", { categories: ["hep-th"] }]
        ]
        let overlap = 0
        for (const [q, more] of queries) {
          const a = yield* onPg(url, (p) => p.search(req(q, more)))
          const b = yield* onSqlite((p) => p.search(req(q, more)))
          assert.strictEqual(a.total, b.total, q)
          assert.deepStrictEqual(a.papers.map((p) => p.arxivId).sort(), b.papers.map((p) => p.arxivId).sort(), q)
          const top = Math.min(10, a.papers.length)
          const topA = a.papers.slice(0, top).map((p) => p.arxivId)
          const topB = new Set(b.papers.slice(0, top).map((p) => p.arxivId))
          overlap += top === 0 ? 1 : topA.filter((id) => topB.has(id)).length / top
        }
        // ts_rank_cd has no inverse document frequency, BM25 has: the orders differ, the top tens mostly agree
        assert.isAtLeast(overlap / queries.length, 0.6)
        // the two steps (ts_rank's pool, then ts_rank_cd over it): with fewer matches than the pool, the ranking
        // is ts_rank_cd's over every match, paper for paper; with a pool smaller than the matches, the same total
        // and a first page ts_rank_cd orders, mostly the whole ranking's
        const onPgRanked = <A, E>(rankPool: number, f: (a: ArxivPort["Type"]) => Effect.Effect<A, E>) =>
          Effect.flatMap(ArxivPort, f).pipe(Effect.provide(PgArxiv.layer({ url, rankPool })))
        let pooledOverlap = 0
        let wide = 0
        for (const [q, more] of queries) {
          const whole = yield* onPgRanked(0, (p) => p.search(req(q, more)))
          const pooled = yield* onPg(url, (p) => p.search(req(q, more)))
          assert.isAtMost(whole.total, Math.max(PgIndex.RANK_POOL, 4 * 2000), q)
          assert.deepStrictEqual(pooled.papers.map((p) => p.arxivId), whole.papers.map((p) => p.arxivId), q)
          assert.strictEqual(pooled.total, whole.total, q)
          if (whole.total <= 40) continue
          wide++
          const small = yield* onPgRanked(40, (p) => p.search(req(q, { ...more, maxResults: 10 })))
          assert.strictEqual(small.total, whole.total, q)
          assert.strictEqual(small.papers.length, 10, q)
          const first = new Set(whole.papers.slice(0, 10).map((p) => p.arxivId))
          pooledOverlap += small.papers.filter((p) => first.has(p.arxivId)).length / 10
        }
        assert.isAtLeast(wide, 3)
        assert.isAtLeast(pooledOverlap / wide, 0.8)
        // a wide OR narrowed to its rarest alternatives, by the server's statistics of the index (kept by ANALYZE):
        // the papers of the alternatives kept, every one of them, and none matching only those left out
        server.psql(url.slice(url.lastIndexOf("/") + 1), "ANALYZE arxiv_mirror.papers")
        const alternatives = ["all:string", "all:brane", "all:duality", "all:gauge", "all:supersymmetry", "all:quantum"]
        const wideOr = alternatives.join(" OR ")
        const idSet = (r: { readonly papers: ReadonlyArray<{ readonly arxivId: string }> }) => new Set(r.papers.map((p) => p.arxivId))
        const everyMatch = idSet(yield* onPgRanked(0, (p) => p.search(req(wideOr))))
        const narrowed = yield* Effect.flatMap(ArxivPort, (p) => p.search(req(wideOr))).pipe(
          Effect.provide(PgArxiv.layer({ url, narrowTo: 20 }))
        )
        const held = idSet(narrowed)
        assert.isBelow(held.size, everyMatch.size)
        for (const id of held) assert.isTrue(everyMatch.has(id), id)
        const each = new Map<string, Set<string>>()
        for (const a of alternatives) each.set(a, idSet(yield* onPg(url, (p) => p.search(req(a)))))
        const kept = alternatives.filter((a) => [...each.get(a)!].every((id) => held.has(id)))
        assert.isAbove(kept.length, 0)
        assert.isBelow(kept.length, alternatives.length)
        assert.deepStrictEqual([...held].sort(), [...new Set(kept.flatMap((a) => [...each.get(a)!]))].sort())
        // its total is an estimate of the whole OR's matches, never below what it ranked
        assert.isAtLeast(narrowed.total, held.size)
        // never narrowed: the whole OR
        const never = yield* Effect.flatMap(ArxivPort, (p) => p.search(req(wideOr))).pipe(Effect.provide(PgArxiv.layer({ url, narrowTo: 0 })))
        assert.deepStrictEqual(idSet(never), everyMatch)
        const ids = ["hep-th/9504118", "arXiv:1412.8544v2", "https://arxiv.org/abs/cs/0001024", "0808.05394"]
        const pgLookup = yield* onPg(url, (a) => a.getPapers(ids))
        const sqliteLookup = yield* onSqlite((a) => a.getPapers(ids))
        assert.deepStrictEqual(pgLookup, sqliteLookup)
        assert.deepStrictEqual(pgLookup.missing, ["0808.05394"])
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))))
  }, 60_000)

  it.live("a reader started before the first sync (an MCP server, say) finds the mirror once a sync has made it", () => {
    const url = freshDatabase()
    return withStandIn(csRecords(), 50, (s) =>
      Effect.gen(function*() {
        const port = yield* ArxivPort
        const before = failureMessage(yield* Effect.exit(port.getPapers(["1412.8544"])))
        assert.match(before, /no mirror in .* yet/)
        yield* sync(s, url)
        const after = yield* port.getPapers(["1412.8544"])
        assert.deepStrictEqual(after.papers.map((p) => p.arxivId), ["1412.8544"])
      }).pipe(Effect.provide(PgArxiv.layer({ url }))))
  }, 60_000)

  it.live("what it cannot evaluate, a database without a mirror and an unreachable server: one line each that says what to do", () => {
    const url = freshDatabase()
    return Effect.gen(function*() {
      const empty = failureMessage(yield* Effect.exit(onPg(url, (a) => a.search(req("quantum")))))
      assert.match(empty, /no mirror in postgres:\/\/postgres@127\.0\.0\.1:\d+\/mirror_\d+ yet; build one with `arxiv-companion mirror sync --categories cs\.LG --to postgres:/)
      const alone = failureMessage(yield* Effect.exit(onPg(url, (a) => a.search(req("-all:quantum")))))
      assert.match(alone, /pair it with a term: a ANDNOT b/)
      const down = failureMessage(yield* Effect.exit(onPg("postgres://someone:secret@127.0.0.1:1/lab", (a) => a.getPapers(["1412.8544"]))))
      assert.match(down, /cannot reach PostgreSQL at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/lab \(ECONNREFUSED\); check the host and port/)
      assert.notInclude(down, "secret")
      const notPg = failureMessage(yield* Effect.exit(Mirror.sync({ to: "/data/mirror", sets: ["cs"] }).pipe(Effect.provide(Node))))
      assert.match(notPg, /"\/data\/mirror" is not a PostgreSQL URL; use postgres:\/\/user@host:port\/database, or --dir DIR/)
    })
  }, 60_000)
})
