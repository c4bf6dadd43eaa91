import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..")
const cli = join(root, "dist", "cli.js") // built by test/support/build.ts

const run = (args: ReadonlyArray<string>): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: root, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    })
  })

describe("arxiv-companion search / paper / bibtex (offline corpus)", () => {
  it("search honours arXiv field syntax and prints the matches", async () => {
    const r = await run(["search", "ti:\"generative adversarial\" AND au:goodfellow", "--offline", "--json"])
    expect(r.code).toBe(0)
    const result = JSON.parse(r.stdout)
    expect(result.papers.map((p: { arxiv_id: string }) => p.arxiv_id)).toContain("1406.2661")
    expect(result.total).toBe(result.papers.length)
    for (const p of result.papers) expect(p.authors.join(" ")).toMatch(/Goodfellow/)
  })

  it("search rejects an unknown category before searching, saying what to use", async () => {
    const r = await run(["search", "attention", "--offline", "--categories", "cs.ML"])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("cs.ML")
    expect(r.stderr).toContain("cs.LG")
  })

  it("search refuses an oversized query in one line, with no stack trace", async () => {
    const query = Array.from({ length: 8000 }, (_, i) => `term${i}`).join(" ")
    const r = await run(["search", query, "--offline"])
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).toMatch(/Invalid query: the query is too long \(\d[\d,]* characters; at most 2,000 characters\)/)
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/Maximum call stack|\n\s+at /)
  })

  it("paper shows metadata and lists ids the corpus does not have", async () => {
    const r = await run(["paper", "arXiv:1409.0473v7", "https://arxiv.org/abs/1406.2661", "1111.99999", "--offline"])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("Neural Machine Translation by Jointly Learning to Align and Translate")
    expect(r.stdout).toContain("Generative Adversarial Networks")
    expect(r.stdout).toContain("Not found on arXiv: 1111.99999")
  })

  it("bibtex prints stable keys and reports missing ids on stderr", async () => {
    const r = await run(["bibtex", "1409.0473", "1406.2661", "1111.99999", "--offline"])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("@misc{bahdanau2014neural,")
    expect(r.stdout).toContain("@misc{goodfellow2014generative,")
    expect(r.stderr).toContain("Not found on arXiv: 1111.99999")
  })
})
