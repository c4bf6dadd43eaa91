/**
 * One behaviour suite for every VaultPort adapter: the same tests run against
 * a folder on disk (FileSystemVault) and the in-memory vault (InMemoryVault).
 * A new vault backend joins by adding its layer to BACKENDS.
 */
import { NodeContext } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer, Option } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as FileSystemVault from "../../src/adapters/vault/FileSystemVault.js"
import * as InMemoryVault from "../../src/adapters/vault/InMemoryVault.js"
import { VaultPort, type VaultService } from "../../src/core/ports/VaultPort.js"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

const portOf = <E>(layer: Layer.Layer<VaultPort, E>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, VaultPort)).pipe(Effect.orDie)

const BACKENDS: ReadonlyArray<{ readonly name: string; readonly fresh: () => Effect.Effect<VaultService, never, import("effect").Scope.Scope> }> = [
  {
    name: "FileSystemVault (a folder)",
    fresh: () => {
      const root = mkdtempSync(join(tmpdir(), "vault-port-suite-"))
      roots.push(root)
      return portOf(FileSystemVault.layer({ root }).pipe(Layer.provide(NodeContext.layer)))
    }
  },
  { name: "InMemoryVault", fresh: () => portOf(InMemoryVault.layer()) }
]

const failureTag = <A, E>(exit: Exit.Exit<A, E>): string => {
  if (Exit.isSuccess(exit)) return "(succeeded)"
  const failure = Cause.failureOption(exit.cause)
  return failure._tag === "Some" ? String((failure.value as { _tag: string })._tag) : "(defect)"
}

for (const backend of BACKENDS) {
  const withVault = <A, E>(f: (vault: VaultService) => Effect.Effect<A, E>) => Effect.scoped(Effect.flatMap(backend.fresh(), f))

  describe(`VaultPort: ${backend.name}`, () => {
    it.live("a written note reads back as written, and is listed by its title and path", () =>
      withVault((vault) =>
        Effect.gen(function*() {
          const text = "# Attention\n\nScaled dot-product attention, ü and ß kept.\n"
          yield* vault.writeNote("Concepts/Attention.md", text)
          assert.strictEqual(yield* vault.readNote("Concepts/Attention.md"), text)
          assert.deepStrictEqual(yield* vault.readNoteIfExists("Concepts/Attention.md"), Option.some(text))
          const listed = (yield* vault.listNotes()).map((n) => ({ title: n.title, path: n.path }))
          assert.deepStrictEqual(listed, [{ title: "Attention", path: "Concepts/Attention.md" }])
        })
      ))

    it.live("a second write replaces the note", () =>
      withVault((vault) =>
        Effect.gen(function*() {
          yield* vault.writeNote("A.md", "first")
          yield* vault.writeNote("A.md", "second")
          assert.strictEqual(yield* vault.readNote("A.md"), "second")
          assert.strictEqual((yield* vault.listNotes()).length, 1)
        })
      ))

    it.live("a note that is not there: none from readNoteIfExists, NoteNotFound from readNote", () =>
      withVault((vault) =>
        Effect.gen(function*() {
          assert.deepStrictEqual(yield* vault.readNoteIfExists("Missing.md"), Option.none())
          assert.strictEqual(failureTag(yield* Effect.exit(vault.readNote("Missing.md"))), "NoteNotFound")
          assert.deepStrictEqual(yield* vault.listNotes(), [])
        })
      ))
  })
}
