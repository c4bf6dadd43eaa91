/**
 * The full-text index merged into one segment after a harvest: FTS5 writes a
 * segment per committed page, and a search reads each word's list once per
 * segment. A mirror built page by page from real records (metadata rows and
 * recorded arXiv pages) is merged by `compact`: the same papers, order and
 * totals for every kind of search before and after, SQLite's and FTS5's
 * integrity checks pass, and a merge interrupted between its steps leaves an
 * index that the next one finishes. `mirror sync` over many small pages of the
 * OAI-PMH stand-in ends merged, and says so.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createRequire } from "node:module"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { toFtsQuery } from "../../src/adapters/arxiv/mirror/ftsQuery.js"
import * as Mirror from "../../src/adapters/arxiv/mirror/Mirror.js"
import { COMPACT_AT, type IndexQuery, MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"
import { type OaiEntry, parseOaiPage } from "../../src/adapters/arxiv/mirror/OaiPage.js"
import { parseQuery } from "../../src/adapters/query/queryParser.js"
import { metadataRecords, recordedRecords, startStandIn } from "../support/oai-standin.js"

const scratch: Array<string> = []
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "arxiv-mirror-compaction-"))
  scratch.push(d)
  return d
}
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true })
})

const records = () => [...metadataRecords(), ...recordedRecords("ListRecords_200_2018.xml"), ...recordedRecords("arxiv-physics-hep-th.xml")]

const entries = (): ReadonlyArray<OaiEntry> => {
  const page = parseOaiPage(
    `<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>${
      records().map((r) => r.xml).join("\n")
    }</ListRecords></OAI-PMH>`
  )
  if (!("_tag" in page) || page._tag !== "Page") throw new Error("the test page does not parse")
  return page.entries
}

/**
 * A mirror built as a harvest builds one, a page a transaction (FTS5 writes a segment for each and merges them when
 * 16 pile up), until its full-text index holds COMPACT_AT segments; the rest of the records in one last page.
 */
const builtPageByPage = (): string => {
  const dir = tempDir()
  const index = MirrorIndex.open(dir, { create: true })
  const all = entries()
  let at = 0
  for (let page = 1; index.fullTextSegments() < COMPACT_AT; page++, at += 5) {
    index.commitPage(all.slice(at, at + 5), () => true, { key: "all|", set: "all", categories: [], pages: page, records: at + 5 })
  }
  index.commitPage(all.slice(at), () => true, { key: "all|", set: "all", categories: [], pages: 99, records: all.length })
  index.close()
  return dir
}

const ML = ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "stat.ML"]
const SEARCHES: ReadonlyArray<readonly [string, ReadonlyArray<string>, Partial<IndexQuery>]> = [
  ["(all:learning OR all:neural OR all:network OR all:model OR all:quantum OR all:gauge OR all:string OR all:data)", ML, { narrowTo: 50 }],
  ["(all:learning OR all:neural OR all:network OR all:model OR all:quantum OR all:gauge OR all:string OR all:data)", [], {}],
  ["ti:learning AND all:network", ML, {}],
  ['abs:"neural network"', [], { limit: 20 }],
  ["all:gauge ANDNOT all:string", [], { sortBy: "submittedDate" }],
  ["au:wang", [], {}]
]

const answers = (dir: string) => {
  const index = MirrorIndex.open(dir, { create: false })
  try {
    return SEARCHES.map(([query, categories, extra]) => {
      const parsed = parseQuery(query)
      if (parsed._tag === "Error") throw new Error(parsed.error.message)
      const fts = toFtsQuery(parsed.query, categories)
      if ("reason" in fts) throw new Error(fts.reason)
      const found = index.search({ ...fts, sortBy: "relevance", sortOrder: "descending", start: 0, limit: 500, ...extra })
      return { query, ids: found.rows.map((r) => r.id), total: found.total }
    })
  } finally {
    index.close()
  }
}

/** SQLite's and FTS5's own checks of the file. */
const integrity = (dir: string): string => {
  const sqlite = createRequire(import.meta.url)("node-sqlite3-wasm") as typeof import("node-sqlite3-wasm")
  const db = new sqlite.Database(join(dir, "arxiv.sqlite"))
  try {
    db.exec("INSERT INTO papers_fts(papers_fts) VALUES ('integrity-check')") // throws on a corrupt full-text index
    return String((db.get("PRAGMA integrity_check") as { integrity_check: string }).integrity_check)
  } finally {
    db.close()
  }
}

const segments = (dir: string): number => {
  const index = MirrorIndex.open(dir, { create: false })
  try {
    return index.fullTextSegments()
  } finally {
    index.close()
  }
}

describe("the mirror's full-text index merged into one segment", () => {
  it("gives the same answers after the merge, and the file passes the integrity checks", () => {
    const dir = builtPageByPage()
    const before = answers(dir)
    assert.isAtLeast(before.filter((a) => a.ids.length > 0).length, 5, "the searches find papers")
    const index = MirrorIndex.open(dir, { create: true })
    const merged = index.compact()
    index.close()
    assert.isAtLeast(merged.before, COMPACT_AT, "a page a transaction leaves many segments")
    assert.strictEqual(merged.after, 1)
    assert.strictEqual(segments(dir), 1)
    assert.deepStrictEqual(answers(dir), before)
    assert.strictEqual(integrity(dir), "ok")
  })

  it("leaves an index of fewer segments than the bar as it is", () => {
    const dir = tempDir()
    const index = MirrorIndex.open(dir, { create: true })
    const all = entries()
    for (let page = 1; page <= 3; page++) {
      index.commitPage(all.slice(page * 100, page * 100 + 100), () => true, { key: "all|", set: "all", categories: [], pages: page, records: 0 })
    }
    const kept = index.compact()
    index.close()
    assert.isBelow(kept.before, COMPACT_AT)
    assert.strictEqual(kept.after, kept.before)
  })

  it("a merge stopped between its steps leaves a whole index that the next merge finishes", () => {
    const dir = builtPageByPage()
    const before = answers(dir)
    // one step of a few pages, as a merge killed after its first committed step leaves the file
    const sqlite = createRequire(import.meta.url)("node-sqlite3-wasm") as typeof import("node-sqlite3-wasm")
    const db = new sqlite.Database(join(dir, "arxiv.sqlite"))
    db.run("INSERT INTO papers_fts(papers_fts, rank) VALUES ('merge', -4)")
    db.close()
    assert.strictEqual(integrity(dir), "ok")
    assert.deepStrictEqual(answers(dir), before)
    // in steps of 2 pages: many steps, each its own transaction, until one writes nothing
    const index = MirrorIndex.open(dir, { create: true })
    const merged = index.compact(2, 2)
    index.close()
    assert.strictEqual(merged.after, 1)
    assert.deepStrictEqual(answers(dir), before)
  })
})

describe("mirror sync and the merge", () => {
  const Node = Layer.mergeAll(NodeContext.layer, NodeHttpClient.layerUndici)
  it.live("a sync over many small pages ends with one segment, after a note that says so", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const cs = records().filter((r) => r.sets.includes("cs"))
      const notes: Array<string> = []
      // 40 cs records in pages of 4: ten pages, ten segments
      const s = yield* Effect.promise(() => startStandIn(cs, 4))
      const outcome = yield* Mirror.sync({
        dir,
        oaiUrl: s.url,
        minInterval: "20 millis",
        sets: ["cs"],
        progress: (p) => Effect.sync(() => void (p.note !== undefined && notes.push(p.note)))
      }).pipe(Effect.provide(Node), Effect.ensuring(Effect.promise(() => s.close())))
      assert.strictEqual(outcome._tag, "Synced")
      assert.strictEqual(s.received.length, 10, "ten pages")
      const note = notes.find((n) => n.startsWith("merging the full-text index's"))
      assert.isDefined(note, `notes: ${notes.join(" | ")}`)
      assert.match(note!, /^merging the full-text index's \d+ segments into one/)
      assert.strictEqual(segments(dir), 1)
      assert.strictEqual(integrity(dir), "ok")
    }))
})
