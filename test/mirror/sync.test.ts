/**
 * `mirror sync` against a loopback OAI-PMH stand-in (test/support/oai-standin.ts)
 * serving real recorded arXiv answers and real metadata rows: politeness
 * (3 s between requests, arXiv's recorded 503 + Retry-After honoured),
 * resumption after a kill, incremental syncs, deletions, new versions, and
 * the OAI-PMH errors and faults, each recovered or failed in one line.
 * Real time, no upper bound on it.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Mirror from "../../src/adapters/arxiv/mirror/Mirror.js"
import * as MirrorArxiv from "../../src/adapters/arxiv/mirror/MirrorArxiv.js"
import { MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"
import { ArxivPort } from "../../src/core/ports/ArxivPort.js"
import {
  deletedRecord,
  metadataRecords,
  recordedRecords,
  revisedRecord,
  type StandIn,
  startStandIn
} from "../support/oai-standin.js"

const Node = Layer.mergeAll(NodeContext.layer, NodeHttpClient.layerUndici)

const tempDir = () => mkdtempSync(join(tmpdir(), "arxiv-mirror-"))

/** The cs records: the real metadata rows of set cs and the recorded 1412.8544. */
const csRecords = () => [
  ...metadataRecords().filter((r) => r.sets.includes("cs")),
  ...recordedRecords("ListRecords_200_2018.xml").filter((r) => r.sets.includes("cs"))
]

/** Every record: the metadata rows, the recorded pages of 2018 (cs, hep-th) and hepcrawl's hep-th and hep-ex pages. */
const allRecords = () => [
  ...metadataRecords(),
  ...recordedRecords("ListRecords_200_2018.xml"),
  ...recordedRecords("arxiv-physics-hep-th.xml"),
  ...recordedRecords("arxiv-physics-hep-ex.xml")
]

const withStandIn = <A, E>(records: Parameters<typeof startStandIn>[0], pageSize: number, body: (s: StandIn) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(Effect.promise(() => startStandIn(records, pageSize)), body, (s) => Effect.promise(() => s.close()))

const sync = (s: StandIn, dir: string, more: Partial<Mirror.SyncRequest> = {}) =>
  Mirror.sync({ dir, oaiUrl: s.url, minInterval: "20 millis", sets: ["cs"], ...more }).pipe(Effect.provide(Node))

const heldIds = (dir: string): Array<string> => {
  const index = MirrorIndex.open(dir, { create: false })
  try {
    return index.search({ sortBy: "submittedDate", sortOrder: "ascending", start: 0, limit: 10_000 }).rows.map((r) => r.id).sort()
  } finally {
    index.close()
  }
}

const failureMessage = <A, E>(exit: Exit.Exit<A, E>): string => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const e = Cause.failureOption(exit.cause)
  if (e._tag === "None") throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return (e.value as { message: string }).message
}

describe("mirror sync over OAI-PMH", () => {
  it.live("a 3-page sync makes 3 requests and the retry arXiv's 503 asks for, each at least 3 s after the last", () => {
    const dir = tempDir()
    const records = csRecords()
    return withStandIn(records, Math.ceil(records.length / 3), (s) =>
      Effect.gen(function*() {
        // arXiv's recorded 503 (Retry-After: 10) answers the first request
        s.faults.set(1, { kind: "503", recording: "2018" })
        const outcome = yield* Mirror.sync({ dir, oaiUrl: s.url, sets: ["cs"] }).pipe(Effect.provide(Node))
        assert.strictEqual(outcome._tag, "Synced")
        assert.deepStrictEqual(s.received.map((r) => r.status), [503, 200, 200, 200])
        const gaps = s.received.slice(1).map((r, i) => r.at - s.received[i]!.at)
        assert.isAtLeast(gaps[0]!, 10_000, "the retry waits for the Retry-After")
        for (const gap of gaps) assert.isAtLeast(gap, 3_000)
        // the first request and its retry are the same list request; then the tokens
        assert.strictEqual(s.received[0]!.params.get("set"), "cs")
        assert.strictEqual(s.received[1]!.params.get("set"), "cs")
        assert.isNotNull(s.received[2]!.params.get("resumptionToken"))
        assert.match(s.received[3]!.params.get("resumptionToken") ?? "", /:\d+$/)
        if (outcome._tag === "Synced") {
          assert.strictEqual(outcome.requests, 3)
          assert.strictEqual(outcome.sets[0]!.pages, 3)
        }
        assert.includeMembers(heldIds(dir), ["1412.8544", "cs/0001024"])
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))))
  }, 60_000)

  it.live("a sync killed after a committed page resumes at the next page, asking for no page twice", () => {
    const dir = tempDir()
    return withStandIn(allRecords(), 50, (s) =>
      Effect.gen(function*() {
        const killed = yield* Effect.exit(sync(s, dir, {
          sets: ["math"],
          progress: (p) => (p.pages === 2 ? Effect.interrupt : Effect.void)
        }))
        assert.isTrue(Exit.isInterrupted(killed))
        const beforeResume = s.received.length
        assert.strictEqual(beforeResume, 2)
        const held = heldIds(dir).length
        assert.strictEqual(held, 100, "two pages committed whole")
        const outcome = yield* sync(s, dir, { sets: ["math"] })
        assert.strictEqual(outcome._tag, "Synced")
        // the resumed sync starts with the token of page 3
        const resumed = s.received.slice(beforeResume)
        assert.strictEqual(resumed[0]!.params.get("resumptionToken"), "L1:100")
        const tokens = s.received.map((r) => r.params.get("resumptionToken") ?? "list")
        assert.strictEqual(new Set(tokens).size, tokens.length, "no page asked for twice")
        const math = allRecords().filter((r) => r.sets.includes("math")).length
        assert.strictEqual(heldIds(dir).length, math)
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))))
  })

  it.live("a second sync asks from the last datestamp: only what is new; a deleted record disappears, a new version replaces the old", () => {
    const dir = tempDir()
    const records = csRecords()
    return withStandIn(records, 15, (s) =>
      Effect.gen(function*() {
        yield* sync(s, dir)
        const first = heldIds(dir)
        assert.strictEqual(first.length, records.length)
        const newest = [...records].sort((a, b) => b.datestamp.localeCompare(a.datestamp))[0]!.datestamp
        const servedBefore = s.received.length
        // arXiv, later: one paper withdrawn from the repository, one revised, two new (from the physics pages)
        const gone = records.find((r) => r.id === "cs/0001024")!
        const revised = records.find((r) => r.id === "1412.8544")!
        const added = recordedRecords("arxiv-physics-hep-th.xml").slice(0, 2).map((r) => ({ ...r, sets: [...r.sets, "cs"], datestamp: "2026-11-30" }))
        s.records = [
          ...records.filter((r) => r !== gone && r !== revised),
          deletedRecord(gone, "2026-11-30"),
          revisedRecord(revised, "2026-11-30", "A Kochen-Specker system has at least 22 vectors"),
          ...added
        ]
        const outcome = yield* sync(s, dir)
        const second = s.received.slice(servedBefore)
        assert.strictEqual(second[0]!.params.get("from"), newest)
        const served = second.reduce((n, r) => n + r.records, 0)
        const sameDay = records.filter((r) => r.datestamp === newest && r !== gone && r !== revised).length
        assert.strictEqual(served, 4 + sameDay, "the new and changed records, and the last day's again")
        const now = heldIds(dir)
        assert.notInclude(now, "cs/0001024")
        assert.includeMembers(now, added.map((r) => r.id))
        if (outcome._tag === "Synced") assert.strictEqual(outcome.sets[0]!.deleted, 1)
        const lookup = yield* Effect.flatMap(ArxivPort, (a) => a.getPapers(["1412.8544", "cs/0001024"])).pipe(
          Effect.provide(MirrorArxiv.layer({ dir }))
        )
        assert.strictEqual(lookup.papers[0]!.title, "A Kochen-Specker system has at least 22 vectors")
        assert.deepStrictEqual(lookup.missing, ["cs/0001024"])
        // the categories the mirror reports are those of the papers it holds: the withdrawn paper's are gone with it
        const held = (yield* Effect.flatMap(ArxivPort, (a) => a.getPapers(now)).pipe(Effect.provide(MirrorArxiv.layer({ dir })))).papers
        const expected = new Map<string, number>()
        for (const p of held) for (const c of new Set(p.categories)) expected.set(c, (expected.get(c) ?? 0) + 1)
        const reported = (yield* Mirror.status(dir).pipe(Effect.provide(Node))).categories
        assert.deepStrictEqual(
          Object.fromEntries(reported.map((c) => [c.category, c.records])),
          Object.fromEntries([...expected].sort(([a], [b]) => a.localeCompare(b)))
        )
        assert.strictEqual(held.length, now.length)
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))))
  })

  it.live("an expired token (badResumptionToken) restarts the list from where it started, and completes", () => {
    const dir = tempDir()
    return withStandIn(allRecords(), 40, (s) =>
      Effect.gen(function*() {
        const killed = yield* Effect.exit(sync(s, dir, { sets: ["math"], progress: (p) => (p.pages === 1 ? Effect.interrupt : Effect.void) }))
        assert.isTrue(Exit.isInterrupted(killed))
        s.expireTokens()
        const notes: Array<string> = []
        const outcome = yield* sync(s, dir, { sets: ["math"], progress: (p) => Effect.sync(() => p.note && notes.push(p.note)) })
        assert.strictEqual(outcome._tag, "Synced")
        assert.match(notes.join("\n"), /no longer accepts the saved resumption token \(badResumptionToken\); starting the list again/)
        assert.strictEqual(heldIds(dir).length, allRecords().filter((r) => r.sets.includes("math")).length)
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))))
  })

  it.live("noRecordsMatch is a sync with nothing new; badArgument fails in one line", () => {
    const dir = tempDir()
    return withStandIn(allRecords(), 40, (s) =>
      Effect.gen(function*() {
        const empty = yield* sync(s, dir, { sets: ["econ"] })
        assert.strictEqual(empty._tag, "Synced")
        if (empty._tag === "Synced") assert.strictEqual(empty.records, 0)
        s.faults.set(s.received.length + 1, { kind: "error", code: "badArgument", message: "Illegal argument from" })
        const refused = yield* Effect.exit(sync(s, dir, { sets: ["stat"] }))
        const message = failureMessage(refused)
        assert.match(message, /^arXiv OAI-PMH is unavailable: arXiv refused the request \(badArgument: Illegal argument from\); check --from/)
        assert.notInclude(message, "\n")
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))))
  })

  it.live("a page cut off in transfer is asked for again; one cut off every time fails in one line, the pages before it kept whole", () => {
    const dir = tempDir()
    const records = csRecords()
    return withStandIn(records, 15, (s) =>
      Effect.gen(function*() {
        s.faults.set(2, { kind: "truncate" })
        yield* sync(s, dir)
        assert.deepStrictEqual(s.received.length, 4, "3 pages and one retry")
        assert.strictEqual(heldIds(dir).length, records.length)

        const dir2 = tempDir()
        const before = s.received.length
        for (let n = before + 2; n < before + 12; n++) s.faults.set(n, { kind: "truncate" })
        const exit = yield* Effect.exit(sync(s, dir2, { retry: { maxAttempts: 3, baseDelay: "10 millis", maxDelay: "20 millis" } }))
        const message = failureMessage(exit)
        assert.match(message, /the page was unreadable: the page is not well-formed XML/)
        assert.match(message, /after 2 retries; run the sync again later: it resumes where it stopped/)
        assert.notInclude(message, "\n")
        assert.strictEqual(heldIds(dir2).length, 15, "the first page, whole; nothing of the second")
        rmSync(dir2, { recursive: true, force: true })
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))))
  })

  it.live("two syncs at once on one directory: the second exits naming the first; a dead holder's lock is taken over", () => {
    const dir = tempDir()
    const records = csRecords()
    return withStandIn(records, 10, (s) =>
      Effect.gen(function*() {
        const first = yield* Effect.fork(sync(s, dir, { minInterval: "300 millis" }))
        yield* Effect.sleep("200 millis")
        const same = yield* Effect.exit(sync(s, dir))
        assert.match(failureMessage(same), /another sync \(process \d+, since [0-9T:.-]+Z\) is harvesting into/)
        yield* Fiber.join(first)
        // a lock left by a live process of someone else (the parent stands in for it), then by a dead one
        writeFileSync(join(dir, "sync.lock"), JSON.stringify({ pid: process.ppid, since: "2026-12-01T12:00:00Z" }))
        assert.match(failureMessage(yield* Effect.exit(sync(s, dir))), /process \d+, since 2026-12-01T12:00:00Z/)
        writeFileSync(join(dir, "sync.lock"), JSON.stringify({ pid: 2 ** 22 + 12345, since: "2026-12-01T12:00:00Z" }))
        assert.strictEqual((yield* sync(s, dir))._tag, "Synced", "a lock whose process is gone is taken over")
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))))
  })

  it.live("--dry-run says what it would fetch and fetches nothing", () => {
    const dir = tempDir()
    return withStandIn(csRecords(), 10, (s) =>
      Effect.gen(function*() {
        const outcome = yield* sync(s, dir, { categories: ["cs.LG", "stat.ML"], sets: undefined, dryRun: true })
        assert.strictEqual(s.received.length, 0)
        assert.strictEqual(outcome._tag, "Plan")
        if (outcome._tag === "Plan") {
          assert.deepStrictEqual(outcome.plan.map((p) => [p.set, p.categories, p.action]), [["cs", ["cs.LG"], "list"], ["stat", ["stat.ML"], "list"]])
        }
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))))
  })
})
