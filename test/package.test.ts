/**
 * What `npm pack` publishes: the built code, the judge's tables as data files
 * (not compiled into the code or repeated in its source maps), and the
 * offline data as its prebuilt index (the recorded corpus as a sealed mirror index), not the TSV it was built from.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "..")

describe("the published package", () => {
  it("ships the judge's tables and the corpus index as data, and no generated data in the code or its maps", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" })
    const files = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path)
    for (const f of ["data/judge/df-table.json", "data/judge/term-vectors.json", "data/judge/concept-variants.json", "data/judge/ranker.json", "fixtures/offline/arxiv-corpus/arxiv.sqlite", "fixtures/offline/manifest.json", "dist/index.js", "dist/cli.js", "dist/mcp.js"]) {
      assert.include(files, f)
    }
    assert.notInclude(files, "fixtures/offline/arxiv-corpus.tsv.gz")
    assert.isFalse(files.some((f) => f.endsWith(".idx")), "the index of the engine before the mirror's is not shipped")
    // a stretch of each table, as it sits in its file
    const df = JSON.parse(readFileSync(join(root, "data", "judge", "df-table.json"), "utf8")) as { unigrams: string }
    const tv = JSON.parse(readFileSync(join(root, "data", "judge", "term-vectors.json"), "utf8")) as { int8Base64: string }
    const needles = [df.unigrams.slice(1000, 1060), tv.int8Base64.slice(5000, 5060)]
    for (const file of readdirSync(join(root, "dist"), { recursive: true, encoding: "utf8" })) {
      if (!/\.(js|map|d\.ts)$/.test(file)) continue
      const text = readFileSync(join(root, "dist", file), "utf8")
      for (const needle of needles) assert.notInclude(text, needle, `dist/${file} holds the judge's data`)
    }
  }, 300_000) // npm pack compresses ~110 MB
})
