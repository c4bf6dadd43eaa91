/**
 * The recorded corpus's index (a sealed mirror index, src/adapters/arxiv/mirror/corpusMirror.ts): the one
 * `npm run build` wrote names the TSV the manifest lists; a data directory's index is opened once per process
 * and shared; one built from another TSV is never read (it is built anew from the TSV there, or refused in one
 * line when the TSV is not there); a directory without one has it built on first use.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import * as CorpusArxiv from "../../src/adapters/arxiv/CorpusArxiv.js"
import { buildCorpusIndexIn, SOURCE_KEY } from "../../src/adapters/arxiv/mirror/corpusMirror.js"
import { INDEX_FILE, MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"
import { ArxivPort } from "../../src/core/ports/ArxivPort.js"
import { typedQuery } from "../support/query.js"

const OFFLINE = fileURLToPath(new URL("../../fixtures/offline/", import.meta.url))
const HEADER = "id\tpublished\tupdated\tcategories\tdoi\tjournalRef\tcomment\tauthors\ttitle\tabstract"
const ROWS = [
  "9901.00001\t2016-01-01\t\tcs.LG\t\t\t\tA. Author\tUpper bounds on learning\tWe bound what is learned.",
  "9901.00002\t2016-02-02\t2016-03-03\tcs.CL stat.ML\t10.1/x\tJ. Things 1\tICML\tB. Author; C. Author\tParsing with grammars\tA parser.",
  "9901.00003\t2016-04-04\t\tcs.AI\t\t\t\t\tEmpty authors\tNobody wrote this."
]
const tsv = (rows: ReadonlyArray<string>) => [HEADER, ...rows].join("\n") + "\n"

const sha1Of = (dir: string) => (JSON.parse(fs.readFileSync(nodePath.join(dir, "manifest.json"), "utf8")) as Record<string, { sha1: string }>)[CorpusArxiv.CORPUS_FILE]!.sha1

/** A data directory holding ROWS; its index: built from them, built from other records (stale), or none. */
const dataDir = (index: "current" | "stale" | "none") => {
  const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "corpus-index-"))
  if (index === "stale") {
    // an index built from another TSV (one record of it), then the TSV replaced: using it would show
    fs.writeFileSync(nodePath.join(dir, CorpusArxiv.CORPUS_FILE), gzipSync(tsv(ROWS.slice(0, 1))))
    buildCorpusIndexIn(dir)
  }
  const gz = gzipSync(tsv(ROWS))
  fs.writeFileSync(nodePath.join(dir, CorpusArxiv.CORPUS_FILE), gz)
  fs.writeFileSync(nodePath.join(dir, "manifest.json"), JSON.stringify({ [CorpusArxiv.CORPUS_FILE]: { sha1: createHash("sha1").update(gz).digest("hex") } }))
  if (index === "current") buildCorpusIndexIn(dir)
  return dir
}
const indexFile = (dir: string) => nodePath.join(dir, CorpusArxiv.CORPUS_INDEX_DIR, INDEX_FILE)
const port = (dir: string) =>
  Layer.build(CorpusArxiv.layer({ dataDir: dir }).pipe(Layer.provide(NodeContext.layer))).pipe(Effect.map(Context.get(ArxivPort)))
const titles = (dir: string) =>
  Effect.scoped(Effect.flatMap(port(dir), (a) => a.search({ query: typedQuery("all:a OR all:author OR ti:empty"), categories: [], maxResults: 10 }))).pipe(
    Effect.map((r) => r.papers.map((p) => p.title).sort())
  )

describe("the recorded corpus's index", { timeout: 120_000 }, () => {
  it("the index `npm run build` wrote was built from the corpus the manifest lists, sealed, and holds every record", () => {
    const index = MirrorIndex.open(nodePath.join(OFFLINE, CorpusArxiv.CORPUS_INDEX_DIR), { create: false })
    try {
      assert.strictEqual(index.readMeta(SOURCE_KEY), sha1Of(OFFLINE))
      assert.strictEqual(index.status().records, 36421)
      assert.isTrue(index.readsUnlocked)
    } finally {
      index.close()
    }
  })

  it.effect("opened once per process: every call and every layer share it; a second data directory is another index", () =>
    Effect.gen(function*() {
      const dir = dataDir("current")
      const a = yield* CorpusArxiv.openCorpusIndex(dir)
      const b = yield* CorpusArxiv.openCorpusIndex(dir)
      assert.strictEqual(a.index, b.index)
      assert.notStrictEqual((yield* CorpusArxiv.openCorpusIndex(dataDir("current"))).index, a.index)
      const built = fs.statSync(indexFile(dir)).mtimeMs
      assert.deepStrictEqual(yield* titles(dir), ["Empty authors", "Parsing with grammars", "Upper bounds on learning"])
      // a current index is read as it is, not built again
      assert.strictEqual(fs.statSync(indexFile(dir)).mtimeMs, built)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("an index built from another TSV is never read: it is built anew from the TSV there; none at all is built", () =>
    Effect.gen(function*() {
      const stale = dataDir("stale")
      assert.notStrictEqual(MirrorIndex.open(nodePath.join(stale, CorpusArxiv.CORPUS_INDEX_DIR), { create: false }).readMeta(SOURCE_KEY), sha1Of(stale))
      assert.deepStrictEqual(yield* titles(stale), ["Empty authors", "Parsing with grammars", "Upper bounds on learning"])
      const none = dataDir("none")
      assert.isFalse(fs.existsSync(indexFile(none)))
      assert.deepStrictEqual(yield* titles(none), ["Empty authors", "Parsing with grammars", "Upper bounds on learning"])
      const rebuilt = MirrorIndex.open(nodePath.join(none, CorpusArxiv.CORPUS_INDEX_DIR), { create: false })
      assert.strictEqual(rebuilt.readMeta(SOURCE_KEY), sha1Of(none))
      assert.isTrue(rebuilt.readsUnlocked)
      rebuilt.close()
      // nothing is left of the build but the index
      assert.deepStrictEqual(fs.readdirSync(none).sort(), [CorpusArxiv.CORPUS_INDEX_DIR, CorpusArxiv.CORPUS_FILE, "manifest.json"].sort())
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("an index built from another TSV, the TSV gone (an installed package): one line that says what to do", () =>
    Effect.gen(function*() {
      const dir = dataDir("stale")
      fs.rmSync(nodePath.join(dir, CorpusArxiv.CORPUS_FILE))
      const exit = yield* Effect.exit(titles(dir))
      assert.isTrue(Exit.isFailure(exit))
      const message = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? (exit.cause.error as { message: string }).message : ""
      assert.include(message, "was not built from the corpus manifest.json lists")
      assert.include(message, "npm run build")
    }).pipe(Effect.provide(NodeContext.layer)))
})
