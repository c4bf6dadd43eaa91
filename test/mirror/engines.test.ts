/**
 * The index's two read engines (src/adapters/arxiv/mirror/sqliteDriver.ts): WebAssembly (node-sqlite3-wasm, a
 * dependency) and native (libsql, an optional dependency). Reads go through native when it loads, else through
 * wasm, silently; `ARXIV_COMPANION_SQLITE=wasm|native` forces one. Both answer the same: the recorded corpus's
 * searches give the same papers, in the same order, with the same totals. Every other file that reads an index runs
 * once per engine (vitest.config.ts: the default engine, then "wasm reads").
 */
import { assert, describe, it } from "@effect/vitest"
import { createRequire } from "node:module"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { toFtsQuery, UnsupportedQuery } from "../../src/adapters/arxiv/mirror/ftsQuery.js"
import { type IndexQuery, MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"
import { parseOaiPage } from "../../src/adapters/arxiv/mirror/OaiPage.js"
import { parseQuery } from "../../src/adapters/query/queryParser.js"
import { ROOT, runCli } from "../support/cli.js"
import { metadataRecords } from "../support/oai-standin.js"

const CORPUS = join(ROOT, "fixtures", "offline", "arxiv-corpus")
const HIDE_LIBSQL = join(ROOT, "test", "support", "hide-libsql.cjs")
const nativeInstalled = (() => {
  try {
    createRequire(import.meta.url).resolve("libsql")
    return true
  } catch {
    return false
  }
})()
const asked = process.env["ARXIV_COMPANION_SQLITE"]

/** `f` with ARXIV_COMPANION_SQLITE set to `engine` (undefined: unset), restored after. */
const withEngine = <A>(engine: string | undefined, f: () => A): A => {
  const before = process.env["ARXIV_COMPANION_SQLITE"]
  if (engine === undefined) delete process.env["ARXIV_COMPANION_SQLITE"]
  else process.env["ARXIV_COMPANION_SQLITE"] = engine
  try {
    return f()
  } finally {
    if (before === undefined) delete process.env["ARXIV_COMPANION_SQLITE"]
    else process.env["ARXIV_COMPANION_SQLITE"] = before
  }
}

const ML = ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"]
/** Searches of every kind the port takes: words, stems, phrases, prefixes, fields, operators, dates, categories, sorts, pages. */
const SEARCHES: ReadonlyArray<{ readonly q: string; readonly categories?: ReadonlyArray<string>; readonly more?: Partial<IndexQuery> }> = [
  { q: "all:attention" },
  { q: "ti:networks" },
  { q: 'ti:"generative adversarial"' },
  { q: "abs:convolut*" },
  { q: "au:bengio_y" },
  { q: "all:dropout AND ti:neural" },
  { q: "all:reinforcement ANDNOT all:deep" },
  { q: "all:lstm OR all:gru" },
  { q: "cat:stat.ML AND all:bayesian" },
  { q: "all:translation AND submittedDate:[201501010000 TO 201612312359]" },
  { q: "all:graph", more: { publishedFrom: "2016-01-01" } },
  { q: "all:kernel", more: { sortBy: "submittedDate", sortOrder: "ascending" } },
  { q: "all:kernel", more: { sortBy: "lastUpdatedDate", sortOrder: "descending", start: 20, limit: 30 } },
  { q: "all:learning", more: { start: 500, limit: 100 } },
  {
    q: '(all:"attention mechanism" OR all:transformer OR all:"self attention" OR all:encoder OR all:decoder OR all:"machine translation" ' +
      'OR all:sequence OR all:recurrent OR all:"neural network" OR all:bleu OR all:alignment OR all:softmax OR all:embedding ' +
      'OR all:"multi head" OR all:positional OR all:layer OR all:residual OR all:convolutional OR all:language OR all:model ' +
      "OR ti:attention OR ti:transformer)",
    categories: ML
  },
  // the same OR, narrowed to a pool of 300 papers (as on a mirror where it matches more than that)
  { q: "all:the OR all:of OR all:quantum OR all:entropy OR ti:entropy", more: { narrowTo: 300 } }
]

const queryOf = (s: (typeof SEARCHES)[number]): IndexQuery => {
  const tree = parseQuery(s.q)
  if (tree._tag === "Error") throw new Error(tree.error.message)
  const fts = toFtsQuery(tree.query, s.categories ?? [])
  if (fts instanceof UnsupportedQuery) throw new Error(fts.reason)
  return { ...fts, sortBy: "relevance", sortOrder: "descending", start: 0, limit: 1000, ...s.more }
}

/** Every search's answer through `engine` from a fresh open of `dir`, and the engine the index was read through. */
const answers = (dir: string, engine: string) =>
  withEngine(engine, () => {
    const index = MirrorIndex.open(dir, { create: false })
    try {
      const found = SEARCHES.map((s) => index.search(queryOf(s)))
      // the first search's papers and an id not held, in an order of their own
      const ids = [...found[0]!.rows.slice(0, 50).map((r) => r.id).reverse(), "2512.99999"]
      return { engine: index.engine, found, byIds: index.byIds(ids) }
    } finally {
      index.close()
    }
  })

describe("the index's read engines", () => {
  it("reads through native where libsql is installed unless ARXIV_COMPANION_SQLITE says wasm; writes through wasm", () => {
    const dir = mkdtempSync(join(tmpdir(), "arxiv-mirror-engines-"))
    try {
      const page = parseOaiPage(
        `<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>${
          metadataRecords().map((r) => r.xml).join("\n")
        }</ListRecords></OAI-PMH>`
      )
      if (!("_tag" in page) || page._tag !== "Page") throw new Error("the test page does not parse")
      const writer = MirrorIndex.open(dir, { create: true })
      assert.strictEqual(writer.engine, "wasm", "a writer writes through WebAssembly")
      writer.commitPage(page.entries, () => true, { key: "all|", set: "all", categories: [], pages: 1, records: page.entries.length })
      writer.close()
      const reader = MirrorIndex.open(dir, { create: false })
      try {
        assert.strictEqual(reader.engine, asked === "wasm" ? "wasm" : nativeInstalled ? "native" : "wasm")
        // in CI the optional dependency is installed: the default run reads natively
        if (process.env["CI"] !== undefined && asked === undefined) assert.strictEqual(reader.engine, "native")
      } finally {
        reader.close()
      }
      assert.throws(
        () => withEngine("sqlite4", () => MirrorIndex.open(dir, { create: false })),
        /^ARXIV_COMPANION_SQLITE is "sqlite4": set it to wasm or native, or unset it$/
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it.skipIf(!nativeInstalled)("the recorded corpus answers every kind of search the same through both: papers, order, totals", () => {
    const wasm = answers(CORPUS, "wasm")
    const native = answers(CORPUS, "native")
    assert.strictEqual(wasm.engine, "wasm")
    assert.strictEqual(native.engine, "native")
    SEARCHES.forEach((s, i) => {
      const w = wasm.found[i]!
      const n = native.found[i]!
      assert.strictEqual(n.total, w.total, s.q)
      assert.isAbove(w.rows.length, 0, s.q)
      assert.deepStrictEqual(n.rows, w.rows, s.q)
    })
    assert.strictEqual(wasm.byIds.length, 50)
    assert.deepStrictEqual(native.byIds, wasm.byIds)
  }, 120_000)

  it("without the native engine a search answers through WebAssembly; ARXIV_COMPANION_SQLITE=native then says what to do", async () => {
    const env = { ARXIV_COMPANION_OFFLINE: "yes", ARXIV_API_URL: "http://127.0.0.1:9/", NODE_OPTIONS: `--require ${HIDE_LIBSQL}` }
    const quiet = await runCli(["search", 'ti:"generative adversarial" AND ti:nets', "--json"], { ...env, ARXIV_COMPANION_SQLITE: undefined })
    assert.strictEqual(quiet.code, 0, quiet.stderr)
    assert.include(quiet.stdout, "1411.1784")
    assert.notMatch(quiet.stderr, /libsql|native/i, "the fallback is silent")
    const forced = await runCli(["search", 'ti:"generative adversarial" AND ti:nets', "--json"], { ...env, ARXIV_COMPANION_SQLITE: "native" })
    assert.notStrictEqual(forced.code, 0)
    assert.match(
      forced.stderr,
      /ARXIV_COMPANION_SQLITE=native, but the optional package libsql could not be loaded \(Cannot find module 'libsql'\); install it \(npm install libsql\) or unset ARXIV_COMPANION_SQLITE to read through WebAssembly/
    )
  }, 120_000)
})
