/**
 * A fresh checkout packs what the package promises: `npm pack` in a copy of
 * the sources without dist/ builds it first (prepack) and ships the built
 * code and every file `files` names.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile, execFileSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { promisify } from "node:util"

const root = join(import.meta.dirname, "..")

describe("npm pack from a fresh checkout", () => {
  it("builds dist/ and ships it with every file `files` names", async () => {
    const copy = mkdtempSync(join(tmpdir(), "companion-pack-"))
    try {
      // the sources as a clone has them: tracked and new files, nothing ignored (no dist/)
      const sources = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: root, encoding: "utf8" })
        .split("\0").filter((f) => f !== "")
      for (const file of sources) {
        try {
          mkdirSync(dirname(join(copy, file)), { recursive: true })
          cpSync(join(root, file), join(copy, file))
        } catch {
          // a tracked file deleted in the working tree
        }
      }
      symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir")
      // the corpus's index is a build output of these sources (checked against their TSV); reusing it saves the build ~15 s
      cpSync(join(root, "fixtures", "offline", "arxiv-corpus"), join(copy, "fixtures", "offline", "arxiv-corpus"), { recursive: true })
      // asynchronously: the build takes minutes, and the test worker must keep answering vitest meanwhile
      const { stdout: out } = await promisify(execFile)("npm", ["pack", "--dry-run", "--json"], { cwd: copy, maxBuffer: 64 * 1024 * 1024 })
      // the build (prepack) prints to the same stdout before npm's JSON
      const json = out.slice(Math.max(0, out.search(/^\[\s*\{/m)))
      const packed = new Set((JSON.parse(json) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path))
      for (const f of ["dist/index.js", "dist/index.d.ts", "dist/cli.js", "dist/mcp.js"]) assert.isTrue(packed.has(f), `${f} is not packed`)
      const files = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { files: Array<string> }).files
      for (const entry of files.filter((f) => /\.\w+$/.test(f) && !f.includes("*"))) {
        assert.isTrue(packed.has(entry), `package.json lists ${entry} in "files", but the package does not contain it`)
      }
    } finally {
      rmSync(copy, { recursive: true, force: true })
    }
  }, 900_000) // a whole build (tsup with declarations) and npm pack of ~30 MB
})
