/**
 * `npm run mirror:corpus` (scripts/build-corpus-mirror.ts) as a user runs it: without `--dir`, or over an index
 * already there (without `--force`), it stops in one line saying what to do, and writes nothing; it builds the
 * recorded corpus's TSV into a sealed index in the folder named, the same index the offline mode reads
 * (fixtures/offline/arxiv-corpus/, which the ArxivPort suite searches).
 */
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { SOURCE_KEY } from "../../src/adapters/arxiv/mirror/corpusMirror.js"
import { MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"

const root = join(import.meta.dirname, "..", "..")
const script = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, ["--import", "tsx", join(root, "scripts", "build-corpus-mirror.ts"), ...args], { cwd: root, timeout: 300_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
  )

const dir = mkdtempSync(join(tmpdir(), "corpus-mirror-script-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("npm run mirror:corpus", { timeout: 120_000 }, () => {
  it("needs --dir", async () => {
    const r = await script([])
    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toBe("mirror:corpus: --dir DIR is required: the folder to build the mirror's index in")
  })

  it("leaves an index already in the folder as it is, unless --force", async () => {
    const file = join(dir, "arxiv.sqlite")
    writeFileSync(file, "not ours to overwrite")
    const r = await script(["--dir", dir])
    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toBe(`mirror:corpus: ${file} exists; pass --force to build it anew`)
    expect(readFileSync(file, "utf8")).toBe("not ours to overwrite")
  })

  it("builds the corpus TSV of a data folder into a sealed index that holds every record and says what it was built from", async () => {
    const data = mkdtempSync(join(tmpdir(), "corpus-mirror-data-"))
    const out = mkdtempSync(join(tmpdir(), "corpus-mirror-out-"))
    try {
      copyFileSync(join(root, "fixtures", "offline", "arxiv-corpus.tsv.gz"), join(data, "arxiv-corpus.tsv.gz"))
      const r = await script(["--dir", out, "--data", data])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toContain(`mirror:corpus: 36,421 records of the corpus in ${data}`)
      const index = MirrorIndex.open(out, { create: false })
      try {
        expect(index.status().records).toBe(36_421)
        expect(index.byIds(["1406.2661"])[0]?.title).toBe("Generative Adversarial Networks")
        expect(index.readsUnlocked).toBe(true)
        expect(index.readMeta(SOURCE_KEY)).toBe(createHash("sha1").update(readFileSync(join(data, "arxiv-corpus.tsv.gz"))).digest("hex"))
      } finally {
        index.close()
      }
    } finally {
      rmSync(data, { recursive: true, force: true })
      rmSync(out, { recursive: true, force: true })
    }
  }, 330_000)
})
