/**
 * The mirror's faults that the file system and the process cause, each
 * recovered or failed in one line that says what to do, the index never left
 * half-written: a 503 storm, a full disk (a real tmpfs of a few MiB), a
 * read-only folder (a real read-only bind mount as root, a folder without the
 * write bit otherwise), a sync killed in the middle of writing a page (a real
 * process killed with SIGKILL while its write transaction is open).
 *
 * Mounting needs root: without it the disk-full case is skipped (it says so).
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { execFileSync, spawn } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, rmSync, statfsSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { basename, dirname, join } from "node:path"
import * as Mirror from "../../src/adapters/arxiv/mirror/Mirror.js"
import * as MirrorArxiv from "../../src/adapters/arxiv/mirror/MirrorArxiv.js"
import { MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"
import { ArxivPort } from "../../src/core/ports/ArxivPort.js"
import { metadataRecords, type StandIn, startStandIn } from "../support/oai-standin.js"
import { typedQuery } from "../support/query.js"

const Node = Layer.mergeAll(NodeContext.layer, NodeHttpClient.layerUndici)
const root = join(import.meta.dirname, "..", "..")
const tempDir = () => mkdtempSync(join(tmpdir(), "arxiv-mirror-faults-"))
const isRoot = process.getuid?.() === 0

/** The records of set math: the real metadata rows. */
const mathRecords = () => metadataRecords().filter((r) => r.sets.includes("math"))

const withStandIn = <A, E>(records: Parameters<typeof startStandIn>[0], pageSize: number, body: (s: StandIn) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(Effect.promise(() => startStandIn(records, pageSize)), body, (s) => Effect.promise(() => s.close()))

const sync = (s: StandIn, dir: string, more: Partial<Mirror.SyncRequest> = {}) =>
  Mirror.sync({ dir, oaiUrl: s.url, minInterval: "20 millis", sets: ["math"], ...more }).pipe(Effect.provide(Node))

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

/**
 * A process writing a page into the index `file` as commitPage does (400 papers; with `rewriteTitles`, every held
 * paper's title rewritten first), a cache of 2 pages so its changes spill into the file before it commits, killed
 * with SIGKILL before it commits: its journal and its lock folder are left behind.
 */
const writeHalfAPageThenDie = (file: string, options: { readonly rewriteTitles: boolean }) =>
  Effect.gen(function*() {
    const writer = spawn(process.execPath, ["-e", `
      const sqlite = require("node-sqlite3-wasm")
      const db = new sqlite.Database(${JSON.stringify(file)})
      db.exec("PRAGMA cache_size = 2; BEGIN IMMEDIATE")
      ${options.rewriteTitles ? `db.run("UPDATE papers SET title = 'half-written ' || id")` : ""}
      for (let i = 0; i < 400; i++) {
        db.run("INSERT INTO papers(id, title, abstract, authors, published, categories, datestamp) VALUES (?, 'half a page', ?, '[]', '2020-01-01', 'math.CO', '2020-01-01')", ["9999." + i, "x ".repeat(2000)])
      }
      process.stdout.write("writing\\n")
      setInterval(() => {}, 1000)
    `], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
    yield* Effect.async<void>((resume) => void writer.stdout!.once("data", () => resume(Effect.void)))
    writer.kill("SIGKILL")
    yield* Effect.async<void>((resume) => void writer.once("exit", () => resume(Effect.void)))
  })

const canMount = (() => {
  if (!isRoot) return false
  const probe = mkdtempSync(join(tmpdir(), "arxiv-mirror-mount-"))
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], { stdio: "ignore" })
    execFileSync("umount", [probe], { stdio: "ignore" })
    return true
  } catch {
    return false
  } finally {
    rmSync(probe, { recursive: true, force: true })
  }
})()

/** `dir` as a folder the test process cannot write: a read-only bind mount (root), else without its write bits. */
const readOnlyView = (dir: string): { readonly path: string; readonly release: () => void } => {
  if (canMount) {
    const view = mkdtempSync(join(tmpdir(), "arxiv-mirror-ro-"))
    execFileSync("mount", ["--bind", "-o", "ro", dir, view])
    return {
      path: view,
      release: () => {
        execFileSync("umount", [view])
        rmSync(view, { recursive: true, force: true })
      }
    }
  }
  chmodSync(dir, 0o555)
  return { path: dir, release: () => chmodSync(dir, 0o755) }
}
const canMakeReadOnly = canMount || !isRoot

/**
 * A mirror folder (`dir`) on a real tmpfs of 8 MiB, unmounted after `body`: `fill` fills the rest of the disk but for
 * 32 KiB, `free` gives the room back.
 */
const onTinyDisk = <A, E>(body: (disk: { readonly dir: string; readonly fill: () => void; readonly free: () => void }) => Effect.Effect<A, E>) => {
  const disk = mkdtempSync(join(tmpdir(), "arxiv-mirror-tiny-"))
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", disk])
  const filler = join(disk, "filler")
  const fill = () => {
    const st = statfsSync(disk)
    writeFileSync(filler, Buffer.alloc(Math.max(0, st.bavail * st.bsize - 32 * 1024)))
  }
  return body({ dir: join(disk, "mirror"), fill, free: () => rmSync(filler) }).pipe(Effect.ensuring(Effect.sync(() => {
    execFileSync("umount", [disk])
    rmSync(disk, { recursive: true, force: true })
  })))
}

describe("mirror faults", () => {
  it.live("a 503 storm: the sync gives up after its retries in one line, the pages before kept whole; the next sync resumes", () => {
    const dir = tempDir()
    const records = mathRecords()
    return withStandIn(records, 20, (s) =>
      Effect.gen(function*() {
        // every request after the first page: arXiv's recorded 503 (Retry-After: 10)
        for (let n = 2; n <= 4; n++) s.faults.set(n, { kind: "503", recording: "2018" })
        const exit = yield* Effect.exit(sync(s, dir, { retry: { maxAttempts: 3, baseDelay: "10 millis", maxDelay: "20 millis" } }))
        const message = failureMessage(exit)
        assert.match(message, /503/)
        assert.match(message, /after 2 retries; run the sync again later: it resumes where it stopped/)
        assert.notInclude(message, "\n")
        assert.deepStrictEqual(s.received.map((r) => r.status), [200, 503, 503, 503])
        const gaps = s.received.slice(2).map((r, i) => r.at - s.received[i + 1]!.at)
        for (const gap of gaps) assert.isAtLeast(gap, 10_000, "each retry waited for the Retry-After")
        assert.strictEqual(heldIds(dir).length, 20, "the first page, whole")
        // the storm is over: the next sync goes on from page 2
        const outcome = yield* sync(s, dir)
        assert.strictEqual(outcome._tag, "Synced")
        assert.isNotNull(s.received[4]!.params.get("resumptionToken"), "resumed with the saved token, not from the start")
        assert.strictEqual(heldIds(dir).length, records.length)
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))))
  }, 90_000)

  it.live.skipIf(!canMount)("a full disk: the sync stops in one line saying so, the index as after its last whole page; with room it resumes", () => {
    const records = mathRecords()
    return onTinyDisk(({ dir, fill, free }) =>
      withStandIn(records, 25, (s) =>
        Effect.gen(function*() {
          // once the first page is written, the rest of the disk is filled but for 32 KiB
          const exit = yield* Effect.exit(sync(s, dir, { progress: (p) => (p.pages === 1 ? Effect.sync(fill) : Effect.void) }))
          const message = failureMessage(exit)
          assert.match(
            message,
            /^the arXiv mirror is unavailable: the disk holding .+ is full \([0-9.]+ MiB free\); free some space and run the sync again: nothing of page 2 of math was written/
          )
          assert.notInclude(message, "\n")
          assert.strictEqual(heldIds(dir).length, 25, "the first page, whole; nothing of the second")
          // with room again, the same mirror resumes at page 2 and completes
          free()
          const outcome = yield* sync(s, dir)
          assert.strictEqual(outcome._tag, "Synced")
          assert.strictEqual(heldIds(dir).length, records.length)
        })))
  }, 120_000)

  it.live.skipIf(!canMount)("a full disk when the sync merges its full-text index: the sync ends with every page and says the merge waits; with room the next sync merges", () => {
    const records = mathRecords()
    const notes: Array<string> = []
    return onTinyDisk(({ dir, fill, free }) => {
      // when the sync says it merges, the rest of the disk is filled but for 32 KiB
      const fillOnMerge = (p: Mirror.SyncProgress) =>
        Effect.sync(() => {
          if (p.note === undefined) return
          notes.push(p.note)
          if (p.note.startsWith("merging the full-text index's")) fill()
        })
      const segments = () => {
        const index = MirrorIndex.open(dir, { create: false })
        try {
          return index.fullTextSegments()
        } finally {
          index.close()
        }
      }
      // ten pages, ten segments of the full-text index
      return withStandIn(records, Math.ceil(records.length / 10), (s) =>
        Effect.gen(function*() {
          const outcome = yield* sync(s, dir, { progress: fillOnMerge })
          assert.strictEqual(outcome._tag, "Synced")
          assert.strictEqual(heldIds(dir).length, records.length, "every page, whole")
          assert.isTrue(notes.some((n) => /^the full-text index was not merged \(.*disk holding .+ is full.*\); searches work as before, and the next sync merges it$/.test(n)), notes.join(" | "))
          assert.isAtLeast(segments(), 8)
          // with room again, the next sync (nothing new) merges it
          free()
          const again = yield* sync(s, dir)
          assert.strictEqual(again._tag, "Synced")
          assert.strictEqual(segments(), 1)
          assert.strictEqual(heldIds(dir).length, records.length)
        }))
    })
  }, 120_000)

  it.live.skipIf(!canMakeReadOnly)("a read-only folder: a sync fails in one line that says what to do; status and search answer", () => {
    const empty = tempDir()
    const built = tempDir()
    return withStandIn(mathRecords(), 50, (s) =>
      Effect.gen(function*() {
        yield* sync(s, built)
        const ids = heldIds(built)
        const fresh = readOnlyView(empty)
        const ro = readOnlyView(built)
        try {
          const intoEmpty = failureMessage(yield* Effect.exit(sync(s, fresh.path)))
          assert.match(intoEmpty, /the mirror's folder .+ cannot be written \(read-only or not yours\); sync into a folder you can write \(--dir DIR\)/)
          assert.notInclude(intoEmpty, "\n")
          const intoBuilt = failureMessage(yield* Effect.exit(sync(s, ro.path)))
          assert.match(intoBuilt, /cannot be written/)
          // reading needs no lock: a read-only folder is read unlocked (test/mirror/unlocked.test.ts)
          const status = yield* Mirror.status(ro.path).pipe(Effect.provide(Node))
          assert.strictEqual(status.records, ids.length)
          const search = yield* Effect.flatMap(ArxivPort, (a) => a.search({ query: typedQuery("all:algebra"), categories: [], maxResults: 5 })).pipe(
            Effect.provide(MirrorArxiv.layer({ dir: ro.path }))
          )
          assert.isAbove(search.total, 0)
          assert.isFalse(existsSync(join(fresh.path, "arxiv.sqlite")), "nothing was written")
        } finally {
          for (const index of MirrorArxiv.openedIndexes()) index.close()
          fresh.release()
          ro.release()
        }
        assert.deepStrictEqual(heldIds(built), ids, "the mirror is as it was")
      }).pipe(Effect.ensuring(Effect.sync(() => {
        rmSync(empty, { recursive: true, force: true })
        rmSync(built, { recursive: true, force: true })
      }))))
  }, 120_000)

  it.live("a write killed mid-commit, its changed pages already in the file: rolled back from its journal before anything reads them, by a reader opening the mirror, by one already open, by another process naming the folder relatively, and by the next sync", () => {
    const dir = tempDir()
    return withStandIn(mathRecords(), 30, (s) =>
      Effect.gen(function*() {
        yield* sync(s, dir, { progress: (p) => (p.pages === 1 ? Effect.interrupt : Effect.void) }).pipe(Effect.exit)
        const ids = heldIds(dir)
        assert.strictEqual(ids.length, 30)
        const file = join(dir, "arxiv.sqlite")
        const titles = () => {
          const index = MirrorIndex.open(dir, { create: false })
          try {
            return index.byIds(ids).map((r) => r.title)
          } finally {
            index.close()
          }
        }
        const before = titles()
        // what a killed commit leaves: pages of its changes in the file, the journal holding what they were, the lock folder
        const killWriter = () =>
          Effect.gen(function*() {
            yield* writeHalfAPageThenDie(file, { rewriteTitles: true })
            assert.isAbove(statSync(`${file}-journal`).size, 0, "the killed writer left its journal")
            assert.isTrue(existsSync(`${file}.lock`), "the killed writer left its lock")
          })
        const integrity = () => {
          const db = new (createRequire(import.meta.url)("node-sqlite3-wasm").Database)(file, { readOnly: true, fileMustExist: true })
          try {
            return db.all("PRAGMA integrity_check").map((r: Record<string, unknown>) => String(r["integrity_check"]))
          } finally {
            db.close()
          }
        }

        // a reader opening the mirror once the lock is stale: the journal is rolled back first
        yield* killWriter()
        const past = new Date(Date.now() - 3 * 60_000)
        utimesSync(`${file}.lock`, past, past)
        assert.deepStrictEqual(titles(), before)
        assert.deepStrictEqual(integrity(), ["ok"])
        assert.isFalse(existsSync(`${file}-journal`), "rolled back: the journal is gone")

        // a reader open before the writer was killed: its next read rolls the journal back, then reads
        const open = MirrorIndex.open(dir, { create: false })
        try {
          assert.strictEqual(open.byIds(ids).length, 30)
          yield* killWriter()
          rmSync(`${file}.lock`, { recursive: true }) // what the locked index's message asks a person to do
          assert.deepStrictEqual(open.byIds(ids).map((r) => r.title), before)
        } finally {
          open.close()
        }
        assert.isFalse(existsSync(`${file}-journal`))
        assert.deepStrictEqual(integrity(), ["ok"])

        // another process, naming the mirror's folder from its working directory (`mirror status --dir NAME`)
        yield* killWriter()
        utimesSync(`${file}.lock`, past, past)
        const status = execFileSync(process.execPath, [join(root, "dist", "cli.js"), "mirror", "status", "--dir", basename(dir), "--json"], {
          cwd: dirname(dir),
          encoding: "utf8"
        })
        assert.strictEqual((JSON.parse(status) as { records: number }).records, 30)
        assert.isFalse(existsSync(`${file}-journal`), "rolled back by a process that named the folder relatively")
        assert.deepStrictEqual(integrity(), ["ok"])

        // the next sync, before any reader: it rolls the journal back before it writes, and commits whole pages on it
        yield* killWriter()
        utimesSync(`${file}.lock`, past, past)
        const outcome = yield* sync(s, dir)
        assert.strictEqual(outcome._tag, "Synced")
        assert.isFalse(existsSync(`${file}-journal`))
        assert.deepStrictEqual(integrity(), ["ok"])
        assert.deepStrictEqual(titles(), before)
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))))
  }, 120_000)

  it.live("a sync killed while writing a page: the page is not kept, a search says the index is locked and what to do; the lock, once stale, is taken over", () => {
    const dir = tempDir()
    const records = mathRecords()
    return withStandIn(records, 30, (s) =>
      Effect.gen(function*() {
        yield* sync(s, dir, { progress: (p) => (p.pages === 1 ? Effect.interrupt : Effect.void) }).pipe(Effect.exit)
        const before = heldIds(dir)
        assert.strictEqual(before.length, 30)
        const file = join(dir, "arxiv.sqlite")
        yield* writeHalfAPageThenDie(file, { rewriteTitles: false })
        assert.isTrue(existsSync(`${file}.lock`), "the killed writer left its lock")
        const search = (q: string) =>
          Effect.flatMap(ArxivPort, (a) => a.search({ query: typedQuery(q), categories: [], maxResults: 50 })).pipe(
            Effect.provide(MirrorArxiv.layer({ dir }))
          )
        const locked = failureMessage(yield* Effect.exit(search('ti:"half a page"')))
        assert.match(locked, /the index is locked since \d\d:\d\d:\d\d UTC \(.+arxiv\.sqlite\.lock\): a sync or a search is using it; if none is running, remove that folder/)
        assert.notInclude(locked, "\n")
        for (const index of MirrorArxiv.openedIndexes()) index.close()
        // three minutes later (the lock's time set back), the next open removes it; the half page was never kept
        const past = new Date(Date.now() - 3 * 60_000)
        utimesSync(`${file}.lock`, past, past)
        const found = yield* search('ti:"half a page"')
        assert.strictEqual(found.total, 0)
        for (const index of MirrorArxiv.openedIndexes()) index.close()
        assert.deepStrictEqual(heldIds(dir), before)
        const outcome = yield* sync(s, dir)
        assert.strictEqual(outcome._tag, "Synced")
        assert.strictEqual(heldIds(dir).length, records.length)
      }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))))
  }, 120_000)
})

