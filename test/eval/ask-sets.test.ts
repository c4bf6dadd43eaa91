/**
 * `npm run eval:ask -- --set NAME`: any eval/ask/questions-NAME.jsonl is a set (a new held-out set needs no change to
 * the eval), several joined by commas are read in turn, a missing file or a malformed name is refused before any run.
 * Run as a user runs it (a child process), with two one-question files written here and removed after.
 */
import { execFile } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { repoRoot } from "../../eval/retrieval-data.js"

const evaluate = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ["--import", "tsx", join(repoRoot, "eval", "ask.ts"), ...args],
      { cwd: repoRoot, timeout: 300_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LLM_BASE_URL: "", OPENROUTER_API_KEY: "" } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    )
  )

const one = `zz-sets-a-${process.pid}`
const two = `zz-sets-b-${process.pid}`
const fileOf = (name: string) => join(repoRoot, "eval", "ask", `questions-${name}.jsonl`)

beforeAll(() => {
  // Faster R-CNN and YOLO are in the offline corpus; the second file's paper id is in no corpus (never found)
  writeFileSync(fileOf(one), `${JSON.stringify({ question: "object detection with region proposal networks in real time", expected: ["1506.01497"] })}\n`)
  writeFileSync(fileOf(two), `${JSON.stringify({ question: "real-time object detection in a single network", expected: ["0000.00000"] })}\n`)
})
afterAll(() => {
  rmSync(fileOf(one), { force: true })
  rmSync(fileOf(two), { force: true })
})

describe("eval:ask --set", { timeout: 300_000 }, () => {
  it("refuses a set whose questions file is not there, naming the file", async () => {
    const r = await evaluate(["--set", `${one},nosuch-${process.pid}`])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`eval/ask/questions-nosuch-${process.pid}.jsonl, which is not there`)
    expect(r.stdout).toBe("")
  })

  it("refuses a malformed set name before reading anything", async () => {
    const r = await evaluate(["--set", "../questions"])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("--set takes tuning, all, or the name of an eval/ask/questions-<name>.jsonl")
  })

  it("reads any questions-<name>.jsonl, and several joined by commas in turn", async () => {
    const r = await evaluate(["--set", `${one},${two}`, "--rules-only", "--json"])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout) as {
      summary: Record<string, { questions: number }>
      runs: { rules: ReadonlyArray<{ question: string; at10: number; missing: ReadonlyArray<string> }> }
    }
    expect(Object.keys(out.summary)).toEqual(["rules"])
    expect(out.runs.rules.map((q) => q.question)).toEqual([
      "object detection with region proposal networks in real time",
      "real-time object detection in a single network"
    ])
    expect(out.runs.rules[0]!.at10).toBe(1)
    expect(out.runs.rules[1]!.missing).toEqual(["0000.00000 (not a candidate)"])
  })
})
