import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as InMemoryVault from "../../src/adapters/vault/InMemoryVault.js"
import { VaultPort } from "../../src/core/ports/VaultPort.js"

describe("InMemoryVault", () => {
  it.effect("lists notes like a folder vault: titles without .md, dot-folders and non-notes skipped", () =>
    Effect.gen(function*() {
      const vault = yield* InMemoryVault.make({
        "Z.md": "z",
        "Topics/Attention.md": "a",
        ".obsidian/app.md": "settings",
        "node_modules/x/README.md": "dep",
        "image.png": "binary"
      })
      const notes = yield* vault.listNotes()
      assert.deepStrictEqual(notes.map((n) => [n.title, n.path]), [["Attention", "Topics/Attention.md"], ["Z", "Z.md"]])
    }))

  it.effect("reads notes; missing ones are NoteNotFound / None", () =>
    Effect.gen(function*() {
      const vault = yield* InMemoryVault.make({ "A.md": "a" })
      assert.strictEqual(yield* vault.readNote("A.md"), "a")
      assert.deepStrictEqual(yield* vault.readNoteIfExists("B.md"), Option.none())
      const error = yield* Effect.flip(vault.readNote("Sub/B.md"))
      assert.strictEqual(error._tag, "NoteNotFound")
      assert.include(error.message, "\"B\"")
    }))

  it.effect("writes are visible through snapshot and writes, through the layer's two tags", () =>
    Effect.gen(function*() {
      const vault = yield* VaultPort
      const memory = yield* InMemoryVault.InMemoryVault
      yield* vault.writeNote("Sub/New.md", "new")
      yield* vault.writeNote("A.md", "changed")
      assert.deepStrictEqual(yield* memory.snapshot, { "A.md": "changed", "Sub/New.md": "new" })
      assert.deepStrictEqual(yield* memory.writes, ["Sub/New.md", "A.md"])
      assert.strictEqual(yield* vault.readNote("Sub/New.md"), "new")
    }).pipe(Effect.provide(InMemoryVault.layer({ "A.md": "a" }))))

  it.effect("refuses hostile paths with UnsafeWrite and stores nothing", () =>
    Effect.gen(function*() {
      const vault = yield* InMemoryVault.make({ "A.md": "a" })
      for (const p of ["../x.md", "/abs.md", "a/../../x.md", ".obsidian/x.md", "a:b.md", "q?.md", `${"y".repeat(300)}.md`, "x.txt"]) {
        const error = yield* Effect.flip(vault.writeNote(p, "pwned"))
        assert.strictEqual(error._tag, "UnsafeWrite", p)
      }
      assert.deepStrictEqual(yield* vault.snapshot, { "A.md": "a" })
      assert.deepStrictEqual(yield* vault.writes, [])
    }))

  it.effect("each layer build is a fresh vault", () =>
    Effect.gen(function*() {
      const write = Effect.flatMap(VaultPort, (v) => v.writeNote("N.md", "n"))
      const read = Effect.flatMap(InMemoryVault.InMemoryVault, (v) => v.snapshot)
      yield* write.pipe(Effect.provide(InMemoryVault.layer()))
      assert.deepStrictEqual(yield* read.pipe(Effect.provide(InMemoryVault.layer())), {})
    }))
})
