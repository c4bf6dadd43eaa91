/**
 * digestVault in the library: the Promise form and the Effect form (Tools.digest over the offline
 * layers) give the same digest of a copy of the demo vault.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { digestVault, InvalidArgument, Layers, NotEnoughInformation, Tools } from "../../src/index.js"

const demo = fileURLToPath(new URL("../../examples/vault", import.meta.url))
const copy = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "digest-library-"))
  cpSync(demo, dir, { recursive: true })
  return dir
}

describe("digestVault", { timeout: 120_000 }, () => {
  it("Promise and Effect forms give the same digest; the Promise form writes it and reports progress", async () => {
    const vault = copy()
    try {
      const events: Array<string> = []
      const data = await digestVault({ vault, offline: true, since_date: "2016-06-01", notes: "Generative*", onProgress: (e) => void events.push(e._tag) })
      expect(data.notes.map((n) => n.note)).toEqual(["Generative Adversarial Networks.md"])
      expect(data.new_papers).toBeGreaterThan(0)
      expect(readFileSync(join(vault, data.digest_note), "utf8")).toContain("## [[Generative Adversarial Networks]]")
      expect(events).toEqual(["Planned", "NoteDone", "Written"])

      const dry = await Effect.runPromise(
        Tools.digest({ since_date: "2016-06-01", notes: "Generative*", dry_run: true }).pipe(
          Effect.map(Tools.summarizeDigest),
          Effect.provide(Layers.OfflineLayer({ vault: copy() }))
        )
      )
      expect(dry.dry_run).toBe(true)
      expect(dry.notes[0]!.papers.map((p) => p.arxiv_id)).toEqual(data.notes[0]!.papers.map((p) => p.arxiv_id))
    } finally {
      rmSync(vault, { recursive: true, force: true })
    }
  })

  it("rejects with the typed error, never a wrapper", async () => {
    const vault = copy()
    try {
      await expect(digestVault({ vault, offline: true, since_date: "soon" })).rejects.toBeInstanceOf(InvalidArgument)
      const empty = mkdtempSync(join(tmpdir(), "digest-library-empty-"))
      await expect(digestVault({ vault: empty, offline: true, since_date: "2016-06-01" })).rejects.toBeInstanceOf(NotEnoughInformation)
      rmSync(empty, { recursive: true, force: true })
    } finally {
      rmSync(vault, { recursive: true, force: true })
    }
  })
})
