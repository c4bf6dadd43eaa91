/**
 * `npm run eval:retrieval -- --reader llm`: the notes in other languages read by the LLM reader against the scripted
 * stand-in, which answers each note's reading request with the reading recorded for it (--readings DIR). Run as a
 * user runs it (a child process), on the 9 tuning notes, with readings made up here for the purpose: one off-topic
 * term each (so the keywords show the recorded answer was what the run searched on, not the offline reading), and
 * one answer that is not JSON (sent back once, then the offline reading, and the row says so). A note without a
 * reading stops the evaluation before any run.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readMultilingual, repoRoot } from "../../eval/retrieval-data.js"

const evaluate = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ["--import", "tsx", join(repoRoot, "eval", "retrieval.ts"), ...args],
      { cwd: repoRoot, timeout: 300_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LLM_BASE_URL: "", OPENROUTER_API_KEY: "" } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    )
  )

const tuning = readMultilingual().filter((n) => n.split === "multilingual-tune")
const MALFORMED = "tune-nas-uk"

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "eval-readings-"))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("eval:retrieval --reader llm", { timeout: 300_000 }, () => {
  it("stops before any run, naming the notes, when a reading is missing", async () => {
    const r = await evaluate(["--split", "multilingual-tune", "--reader", "llm", "--readings", dir])
    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toMatch(
      new RegExp(`^eval:retrieval: --reader llm: no recorded reading for 9 of 9 notes in ${dir} \\(tune-a3c-ru, .*\\); see eval/retrieval/multilingual/readings/README\\.md$`)
    )
    expect(r.stdout).not.toContain("Landmark recall")
  })

  it("searches each note on its recorded reading; a malformed one is sent back once, then read offline", async () => {
    expect(tuning.length).toBe(9)
    for (const note of tuning) {
      writeFileSync(
        join(dir, `${note.note}.json`),
        note.note === MALFORMED
          ? "Neural architecture search, I think."
          : JSON.stringify({ language: "xx", terms: ["quantum annealing", "spin glass", "Ising model"] })
      )
    }
    const r = await evaluate(["--split", "multilingual-tune", "--reader", "llm", "--readings", dir, "--json"])
    expect(r.code, r.stderr).toBe(0)
    const rows = (JSON.parse(r.stdout) as { notes: ReadonlyArray<{ note: string; reader?: string; readingNotes?: ReadonlyArray<string>; keywords?: ReadonlyArray<string> }> }).notes
    expect(rows.map((n) => n.note).sort()).toEqual(tuning.map((n) => n.note).sort())
    for (const row of rows) {
      if (row.note === MALFORMED) {
        expect(row.reader).toBe("offline")
        expect(row.readingNotes).toEqual([
          "The model's answer 1 was unusable: it is not valid JSON; The model's answer 2 was unusable: it is not valid JSON; the note was read offline."
        ])
        expect(row.keywords).not.toContain("quantum annealing")
      } else {
        expect(row.reader, row.note).toBe("scripted stand-in (recorded readings)")
        expect(row.readingNotes, row.note).toEqual([])
        expect(row.keywords, row.note).toContain("quantum annealing")
      }
    }
  })
})
