import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { parseArxivId } from "../../src/core/arxiv.js"
import { parseFeed } from "../../src/adapters/arxiv/atom.js"
import { SHARED_DATA } from "../support/arxiv-standin.js"

interface ManifestRow {
  readonly path: string
  readonly entries: number
  readonly totalResults: string
  readonly ids: ReadonlyArray<string>
}

const manifest = (JSON.parse(fs.readFileSync(path.join(SHARED_DATA, "manifest.json"), "utf8")) as Array<ManifestRow>)
  .filter((row) => row.path.startsWith("arxiv/") && row.path.endsWith(".xml"))

const read = (file: string) => fs.readFileSync(path.join(SHARED_DATA, file), "utf8")
const feedOf = (file: string) => Either.getOrThrow(parseFeed(read(file)))

describe("arXiv Atom parser", () => {
  it("has recordings of both feed formats to check against", () => {
    assert.isAtLeast(manifest.length, 30)
    assert.isTrue(manifest.some((r) => r.path.includes("legacy-2016")))
    assert.isTrue(manifest.some((r) => r.path.includes("arxiv.py/xml")))
  })

  for (const row of manifest) {
    it(`decodes ${row.path} as manifest.json records it`, () => {
      const feed = feedOf(row.path)
      assert.strictEqual(feed.entries.length + feed.errors.length, row.entries)
      assert.strictEqual(feed.total, Number(row.totalResults))
      const expected = row.ids.map((id) => (id.includes("/api/errors") ? id : parseArxivId(id)!.id))
      const actual = [...feed.entries.map((e) => e.paper.arxivId), ...feed.errors.map((e) => e.id)]
      assert.deepStrictEqual(actual, expected)
      for (const e of feed.entries) {
        assert.match(e.paper.published, /^\d{4}-\d{2}-\d{2}$/)
        assert.isAbove(e.paper.title.length, 0)
        assert.notInclude(e.paper.title, "\n")
      }
    })
  }

  it.effect("reads the pre-2020 format: per-element namespaces, DOI, journal ref, primary category", () =>
    Effect.sync(() => {
      const feed = feedOf("arxiv/arxiv.py/legacy-2016/id_list=1111.2011v2.xml")
      const { paper, version } = feed.entries[0]!
      assert.strictEqual(paper.arxivId, "1111.2011")
      assert.strictEqual(version, "v2")
      assert.strictEqual(
        paper.title,
        "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit"
      )
      assert.deepStrictEqual(paper.authors, ["James M. Murray", "Adrian Del Maestro", "Zlatko Tesanovic"])
      assert.strictEqual(paper.published, "2011-11-08")
      assert.strictEqual(paper.updated, "2012-04-02")
      assert.strictEqual(paper.doi, "10.1103/PhysRevB.85.115117")
      assert.strictEqual(paper.journalRef, "Phys. Rev. B 85, 115117 (2012)")
      assert.strictEqual(paper.primaryCategory, "cond-mat.str-el")
      assert.deepStrictEqual(paper.categories, ["cond-mat.str-el", "cond-mat.stat-mech"])
      assert.isTrue(paper.abstract.startsWith("Theoretical description of anisotropic systems"))
      assert.strictEqual(feed.start, 0)
      assert.strictEqual(feed.itemsPerPage, 10)
    }))

  it.effect("reads today's format, legacy ids and UTF-8 names", () =>
    Effect.sync(() => {
      const legacy = feedOf("arxiv/arxiv.py/xml/id_astro-ph_0601001_s0_m100_3150dca9dc76.xml").entries[0]!
      assert.strictEqual(legacy.paper.arxivId, "astro-ph/0601001")
      const all = manifest.flatMap((r) => feedOf(r.path).entries.flatMap((e) => e.paper.authors))
      // the recorder's Latin-1 mojibake is gone in xml/, and must not come back
      assert.isFalse(all.some((a) => /Ã.|Â./.test(a)))
      assert.isTrue(all.some((a) => /[^\x00-\x7f]/.test(a)))
      const modern = feedOf("arxiv/arxiv.py/xml/id_1707.08567_s0_m100_6a1afebfc6a3.xml").entries[0]!.paper
      assert.strictEqual(modern.primaryCategory, "cs.IT")
      assert.strictEqual(modern.comment, "44 pages, editors for the proceedings: Yanling Chen and A. J. Han Vinck")
    }))

  it.effect("reads arXiv's error entry as an error, not as a paper", () =>
    Effect.sync(() => {
      const feed = feedOf("arxiv/arxiv.py/xml/id_abc_s0_m100_b79c8dcf6bc3.xml")
      assert.deepStrictEqual(feed.entries, [])
      assert.deepStrictEqual(feed.errors, [{
        id: "https://arxiv.org/api/errors#incorrect_id_format_for_abc",
        message: "incorrect id format for abc"
      }])
    }))

  it.effect("refuses what is not a feed: plain text, HTML, truncated XML, an empty body", () =>
    Effect.sync(() => {
      const body = read("arxiv/arxiv.py/xml/q_testing_s0_m10_bc5a6c384fe9.xml")
      for (const bad of ["Rate exceeded.", "<html><body>503</body></html>", body.slice(0, body.length / 2), ""]) {
        const result = parseFeed(bad)
        assert.isTrue(Either.isLeft(result), bad.slice(0, 30))
      }
      assert.include(Either.getLeft(parseFeed("Rate exceeded.")).pipe((o) => o._tag === "Some" ? o.value.message : ""), "Rate exceeded.")
      // the body is quoted by its first 60 characters: an emoji on the cut is kept whole, not split into a lone surrogate
      const quoted = Either.getLeft(parseFeed(`${"x".repeat(59)}😀 is no feed`)).pipe((o) => o._tag === "Some" ? o.value.message : "")
      assert.include(quoted, `"${"x".repeat(59)}😀"`)
    }))

  it.effect("a feed with no entries is an empty page, not an error", () =>
    Effect.sync(() => {
      const feed = feedOf("arxiv/arxiv.py/xml/id_0000.0000_s0_m100_8b51d9633a68.xml")
      assert.strictEqual(feed.total, 0)
      assert.deepStrictEqual(feed.entries, [])
    }))
})
