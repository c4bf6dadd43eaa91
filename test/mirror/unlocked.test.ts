/**
 * Reading a mirror without locks, and the searches a mirror keeps: a mirror
 * in a folder the process cannot write (a real read-only bind mount as root,
 * a folder without its write bits otherwise) and a sealed index (the recorded
 * corpus as `npm run mirror:corpus` builds it) are opened `immutable=1` and
 * searched with no lock folder made; a mirror the harvester writes keeps its
 * locking (the cross-process wait is tested in arxiv-port.test.ts). The
 * searches kept are forgotten when a page is committed, by this process or by
 * another one (a real child process writing the file).
 */
import { NodeContext } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { execFileSync } from "node:child_process"
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Mirror from "../../src/adapters/arxiv/mirror/Mirror.js"
import * as MirrorArxiv from "../../src/adapters/arxiv/mirror/MirrorArxiv.js"
import { type IndexQuery, MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"
import { type OaiEntry, parseOaiPage } from "../../src/adapters/arxiv/mirror/OaiPage.js"
import { ArxivPort } from "../../src/core/ports/ArxivPort.js"
import { metadataRecords, recordedRecords } from "../support/oai-standin.js"
import { typedQuery } from "../support/query.js"

const root = join(import.meta.dirname, "..", "..")
const isRoot = process.getuid?.() === 0
const scratch: Array<string> = []
const tempDir = (name: string) => {
  const d = mkdtempSync(join(tmpdir(), `arxiv-mirror-${name}-`))
  scratch.push(d)
  return d
}
afterAll(() => {
  for (const index of MirrorArxiv.openedIndexes()) index.close()
  for (const d of scratch) rmSync(d, { recursive: true, force: true })
})

const entries = (): ReadonlyArray<OaiEntry> => {
  const records = [...metadataRecords(), ...recordedRecords("ListRecords_200_2018.xml"), ...recordedRecords("arxiv-physics-hep-th.xml")]
  const page = parseOaiPage(
    `<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>${records.map((r) => r.xml).join("\n")}</ListRecords></OAI-PMH>`
  )
  if (!("_tag" in page) || page._tag !== "Page") throw new Error("the test page does not parse")
  return page.entries
}

/** A mirror of the recorded records in a new folder. */
const built = (name: string): string => {
  const dir = tempDir(name)
  const index = MirrorIndex.open(dir, { create: true })
  const all = entries()
  index.commitPage(all, () => true, { key: "all|", set: "all", categories: [], pages: 1, records: all.length })
  index.close()
  return dir
}

/** Delete `ids` from the mirror in `dir` as a sync of their deletions does (one committed page). */
const deleteThrough = (dir: string, ids: ReadonlyArray<string>) => {
  const index = MirrorIndex.open(dir, { create: true })
  try {
    index.commitPage(ids.map((id) => ({ _tag: "Deleted", id, datestamp: "2026-12-01" })), () => true, {
      key: "all|",
      set: "all",
      categories: [],
      pages: 2,
      records: 0
    })
  } finally {
    index.close()
  }
}

const canMount = (() => {
  if (!isRoot) return false
  const probe = mkdtempSync(join(tmpdir(), "arxiv-mirror-mount-"))
  const view = mkdtempSync(join(tmpdir(), "arxiv-mirror-mount-"))
  try {
    execFileSync("mount", ["--bind", "-o", "ro", probe, view], { stdio: "ignore" })
    execFileSync("umount", [view], { stdio: "ignore" })
    return true
  } catch {
    return false
  } finally {
    rmSync(probe, { recursive: true, force: true })
    rmSync(view, { recursive: true, force: true })
  }
})()

/**
 * `dir` seen through a folder this process cannot write (a read-only bind mount as root, else `dir` without its
 * write bits), and a way to write `dir` behind the reader's back, as its owner would.
 */
const readOnlyView = (dir: string) => {
  if (canMount) {
    const view = tempDir("ro")
    execFileSync("mount", ["--bind", "-o", "ro", dir, view])
    return {
      path: view,
      asOwner: (f: () => void) => f(),
      release: () => execFileSync("umount", [view])
    }
  }
  chmodSync(dir, 0o555)
  return {
    path: dir,
    asOwner: (f: () => void) => {
      chmodSync(dir, 0o755)
      try {
        f()
      } finally {
        chmodSync(dir, 0o555)
      }
    },
    release: () => chmodSync(dir, 0o755)
  }
}

const search = (dir: string, q: string, maxResults = 50) =>
  Effect.flatMap(ArxivPort, (a) => a.search({ query: typedQuery(q), categories: [], maxResults })).pipe(
    Effect.provide(MirrorArxiv.layer({ dir }))
  )
const ids = (r: { readonly papers: ReadonlyArray<{ readonly arxivId: string }> }) => r.papers.map((p) => p.arxivId)
const closeAll = () => {
  for (const index of MirrorArxiv.openedIndexes()) index.close()
}
const failureMessage = <A, E>(exit: Exit.Exit<A, E>): string => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const e = Cause.failureOption(exit.cause)
  if (e._tag === "None") throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return (e.value as { message: string }).message
}

describe("a mirror read without locks", () => {
  it.live.skipIf(isRoot && !canMount)("a read-only folder: search, ids and status answer, no lock folder is made; its owner's sync is seen", () => {
    const dir = built("readonly")
    const before = Effect.runSync(Effect.orDie(search(dir, "all:quantum", 200)))
    closeAll()
    const view = readOnlyView(dir)
    return Effect.gen(function*() {
      const found = yield* search(view.path, "all:quantum", 200)
      assert.deepStrictEqual(ids(found), ids(before), "the same search as through the writable folder")
      assert.isAbove(found.total, 5)
      const byId = yield* Effect.flatMap(ArxivPort, (a) => a.getPapers(["hep-th/9504118", "0704.0046"])).pipe(
        Effect.provide(MirrorArxiv.layer({ dir: view.path }))
      )
      assert.deepStrictEqual(ids(byId), ["hep-th/9504118", "0704.0046"])
      const status = yield* Mirror.status(view.path).pipe(Effect.provide(NodeContext.layer))
      assert.strictEqual(status.records, entries().filter((e) => e._tag === "Record").length)
      assert.deepStrictEqual(readdirSync(view.path), ["arxiv.sqlite"], "no lock folder, no journal")

      // its owner syncs a deletion behind the reader's back: the reader's next search opens the new file
      const gone = ids(found)[0]!
      view.asOwner(() => deleteThrough(dir, [gone]))
      const after = yield* search(view.path, "all:quantum", 200)
      assert.notInclude(ids(after), gone)
      assert.strictEqual(after.total, found.total - 1)
      assert.deepStrictEqual(readdirSync(view.path), ["arxiv.sqlite"])

      // a write in progress there (its lock folder): a reader that cannot take turns says so instead of reading it
      closeAll()
      view.asOwner(() => mkdirSync(join(dir, "arxiv.sqlite.lock")))
      const busy = failureMessage(yield* Effect.exit(search(view.path, "all:quantum")))
      assert.match(busy, /is being written \(.+arxiv\.sqlite\.lock\), and a read-only folder is read as unchanging; try again once the sync has ended/)
      assert.notInclude(busy, "\n")
      view.asOwner(() => rmdirSync(join(dir, "arxiv.sqlite.lock")))
      // a page left half-written (its journal): only a writer can roll it back, so the reader says who must
      view.asOwner(() => writeFileSync(join(dir, "arxiv.sqlite-journal"), Buffer.alloc(512)))
      const torn = failureMessage(yield* Effect.exit(search(view.path, "all:quantum")))
      assert.match(torn, /holds an interrupted write \(.+arxiv\.sqlite-journal\) that only a sync can undo, and its folder is read-only; run `arxiv-companion mirror sync --dir .+` as a user who can write it/)
      view.asOwner(() => rmSync(join(dir, "arxiv.sqlite-journal")))
      const again = yield* search(view.path, "all:quantum", 200)
      assert.strictEqual(again.total, after.total)
    }).pipe(Effect.ensuring(Effect.sync(() => {
      closeAll()
      view.release()
    })))
  }, 60_000)

  it.live("a sealed index: read without locks in a writable folder, the same results as before sealing, refused to a sync", () => {
    const dir = built("sealed")
    const query = 'all:quantum OR all:"dark matter" OR ti:entropy'
    return Effect.gen(function*() {
      const before = yield* search(dir, query, 200)
      closeAll()
      const writer = MirrorIndex.open(dir, { create: true })
      writer.seal()
      writer.close()
      // a lock folder beside it, as a locking reader or writer holds one: a reader taking turns would wait 15 s for it,
      // then fail saying the index is locked (the faults suite); one that takes no lock answers
      mkdirSync(join(dir, "arxiv.sqlite.lock"))
      const index = yield* MirrorArxiv.openIndex(dir)
      assert.isTrue(index.readsUnlocked)
      const after = yield* search(dir, query, 200)
      assert.deepStrictEqual(ids(after), ids(before), "merging and rewriting the file changed no ranking")
      assert.strictEqual(after.total, before.total)
      rmdirSync(join(dir, "arxiv.sqlite.lock"))
      assert.deepStrictEqual(readdirSync(dir), ["arxiv.sqlite"])
      closeAll()
      assert.throws(() => MirrorIndex.open(dir, { create: true }), /is sealed: built once for reading .*; sync into another folder \(--dir DIR\)/)
    }).pipe(Effect.ensuring(Effect.sync(closeAll)))
  }, 60_000)
})

describe("the searches a mirror keeps", () => {
  const q = (match: string, more: Partial<IndexQuery> = {}): IndexQuery => ({
    match,
    sortBy: "relevance",
    sortOrder: "descending",
    start: 0,
    limit: 100,
    ...more
  })

  it("the same search again is the kept result; another page, sort or filter is its own", () => {
    const dir = built("kept")
    const index = MirrorIndex.open(dir, { create: false })
    try {
      const first = index.search(q("quantum"))
      assert.isAbove(first.total, 5)
      assert.strictEqual(index.search(q("quantum")), first, "kept")
      const page = index.search(q("quantum", { start: 2, limit: 3 }))
      assert.deepStrictEqual(page.rows.map((r) => r.id), first.rows.slice(2, 5).map((r) => r.id))
      const since = index.search(q("quantum", { publishedFrom: "2011-01-01" }))
      assert.isBelow(since.total, first.total)
      assert.strictEqual(index.keptSearches, 3)
      // bounded: the least recently used go first
      for (let i = 0; i < 70; i++) index.search(q("quantum", { start: i, limit: 1 }))
      assert.strictEqual(index.keptSearches, 64)
      assert.notStrictEqual(index.search(q("quantum")), first, "dropped, and searched again")
    } finally {
      index.close()
    }
  })

  it("a page committed by another process is seen by the next search, not the kept one", () => {
    const dir = built("kept-other")
    const index = MirrorIndex.open(dir, { create: false })
    try {
      const first = index.search(q("quantum"))
      assert.strictEqual(index.search(q("quantum")), first)
      const gone = first.rows[0]!.id
      // a real second process commits a page deleting the first result, through the harvester's own call
      execFileSync(process.execPath, [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `import { MirrorIndex } from ${JSON.stringify(join(root, "src/adapters/arxiv/mirror/MirrorIndex.ts"))}
         const index = MirrorIndex.open(${JSON.stringify(dir)}, { create: true })
         index.commitPage([{ _tag: "Deleted", id: ${JSON.stringify(gone)}, datestamp: "2026-12-01" }], () => true,
           { key: "all|", set: "all", categories: [], pages: 2, records: 0 })
         index.close()`
      ], { cwd: root, stdio: ["ignore", "ignore", "inherit"], timeout: 60_000 })
      const after = index.search(q("quantum"))
      assert.notStrictEqual(after, first)
      assert.notInclude(after.rows.map((r) => r.id), gone)
      assert.strictEqual(after.total, first.total - 1)
    } finally {
      index.close()
    }
  }, 90_000)

  it("a page this connection commits is seen by its next search", () => {
    const dir = built("kept-own")
    const index = MirrorIndex.open(dir, { create: true })
    try {
      const first = index.search(q("quantum"))
      assert.strictEqual(index.search(q("quantum")), first)
      const gone = first.rows[1]!.id
      index.commitPage([{ _tag: "Deleted", id: gone, datestamp: "2026-12-01" }], () => true, {
        key: "all|",
        set: "all",
        categories: [],
        pages: 2,
        records: 0
      })
      const after = index.search(q("quantum"))
      assert.notInclude(after.rows.map((r) => r.id), gone)
      assert.strictEqual(after.total, first.total - 1)
    } finally {
      index.close()
    }
  })
})

describe("a search within published dates", () => {
  const q = (match: string, more: Partial<IndexQuery> = {}): IndexQuery => ({
    match,
    sortBy: "relevance",
    sortOrder: "descending",
    start: 0,
    limit: 1000,
    ...more
  })

  it("ranks the same papers in the same order as the whole search filtered by date, whatever the rows' order", () => {
    const dir = built("published-range")
    const index = MirrorIndex.open(dir, { create: false })
    try {
      const ranges: ReadonlyArray<{ readonly from?: string; readonly to?: string }> = [
        { from: "2011-01-01" },
        { to: "2010-12-31" },
        { from: "2008-01-01", to: "2012-12-31" }
      ]
      // matches outside a range whose row numbers lie among the range's: the date filter, not the rows, decides them
      let interleaved = 0
      for (const match of ["quantum", "learning OR network OR model"]) {
        const whole = index.search(q(match))
        for (const { from, to } of ranges) {
          const inRange = (p: { readonly published: string }) => (from === undefined || p.published >= from) && (to === undefined || p.published <= to)
          const expected = whole.rows.filter(inRange)
          assert.isAbove(expected.length, 1, `${match} ${from}–${to}`)
          const rows = index.numbersOf(whole.rows.map((p) => p.id))
          const ns = expected.map((p) => rows.get(p.id)!)
          const [lo, hi] = [Math.min(...ns), Math.max(...ns)]
          interleaved += whole.rows.filter((p) => !inRange(p) && rows.get(p.id)! > lo && rows.get(p.id)! < hi).length
          const ranged = index.search(q(match, { ...(from === undefined ? {} : { publishedFrom: from }), ...(to === undefined ? {} : { publishedTo: to }) }))
          assert.deepStrictEqual(ranged.rows.map((p) => p.id), expected.map((p) => p.id), `${match} ${from}–${to}`)
          assert.strictEqual(ranged.total, expected.length)
          // a page of it is the same slice
          const page = index.search(q(match, { ...(from === undefined ? {} : { publishedFrom: from }), ...(to === undefined ? {} : { publishedTo: to }), start: 1, limit: 2 }))
          assert.deepStrictEqual(page.rows.map((p) => p.id), expected.slice(1, 3).map((p) => p.id))
        }
      }
      assert.isAbove(interleaved, 0, "the harvest's order is not the dates'")
      // a range holding no paper finds nothing
      assert.strictEqual(index.search(q("quantum", { publishedFrom: "2090-01-01" })).total, 0)
    } finally {
      index.close()
    }
  })
})
