/**
 * `eval:retrieval` and `eval:precision` read the arXiv backend the CLI's `--arxiv` names (`mirror:DIR` for the
 * recorded corpus built into a mirror's index by `npm run mirror:corpus`): run as a user runs them (a child
 * process), a value that is no backend stops them in one line, and a mirror folder reaches every run (one that holds
 * no mirror makes each note's row say so).
 */
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { repoRoot } from "../../eval/retrieval-data.js"

const evaluate = (script: string, args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ["--import", "tsx", join(repoRoot, "eval", script), ...args],
      { cwd: repoRoot, timeout: 300_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LLM_BASE_URL: "", OPENROUTER_API_KEY: "" } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    )
  )

const empty = mkdtempSync(join(tmpdir(), "eval-arxiv-"))
afterAll(() => rmSync(empty, { recursive: true, force: true }))

describe("eval --arxiv", { timeout: 300_000 }, () => {
  it("refuses a value that is no arXiv backend, in one line, before any run", async () => {
    for (const [script, name] of [["retrieval.ts", "eval:retrieval"], ["precision.ts", "eval:precision"]] as const) {
      const r = await evaluate(script, ["--split", "tune3", "--arxiv", "elsewhere"])
      expect(r.code).toBe(2)
      expect(r.stderr.trim()).toBe(`${name}: --arxiv must be live, corpus, mirror, mirror:DIR or postgres://…, not "elsewhere"`)
      expect(r.stdout).toBe("")
    }
  })

  it("runs every note on the mirror it names: a folder without one makes each row say how to build it", async () => {
    const r = await evaluate("precision.ts", ["--split", "tune3", "--arxiv", `mirror:${empty}`, "--json"])
    expect(r.code, r.stderr).toBe(0)
    const rows = (JSON.parse(r.stdout) as { notes: ReadonlyArray<{ note: string; kept: number; error?: string }> }).notes
    expect(rows.length).toBeGreaterThan(10)
    for (const row of rows) {
      expect(row.kept).toBe(0)
      expect(row.error).toContain(`no mirror in ${empty}`)
    }
  })
})
