import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as FileSystemVault from "../../src/adapters/vault/FileSystemVault.js"
import { VaultPort } from "../../src/core/ports/VaultPort.js"

/** A fresh temp vault folder holding `files` (vault-relative path → content). */
const tempVault = (files: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "vault-fs-"))
      for (const [rel, content] of Object.entries(files)) {
        const file = NodePath.join(root, rel)
        NodeFs.mkdirSync(NodePath.dirname(file), { recursive: true })
        NodeFs.writeFileSync(file, content)
      }
      return root
    }),
    (root) => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true }))
  )

const vaultAt = (root: string) => FileSystemVault.make({ root }).pipe(Effect.provide(NodeContext.layer))

const failureTag = <A, E extends { _tag: string }>(exit: Exit.Exit<A, E>): string | undefined =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error._tag : undefined

describe("FileSystemVault", () => {
  it.scoped("lists Markdown notes in every subfolder, skipping dot-folders and node_modules", () =>
    Effect.gen(function*() {
      const root = yield* tempVault({
        "Transformers Concept Note.md": "# T",
        "Topics/ML/Attention.md": "a",
        "Topics/readme.txt": "not a note",
        ".obsidian/workspace.md": "settings",
        ".trash/Old.md": "deleted",
        ".git/x.md": "git",
        "node_modules/pkg/README.md": "dep",
        "Ünïcode title.md": "u"
      })
      const vault = yield* vaultAt(root)
      const notes = yield* vault.listNotes()
      assert.deepStrictEqual(
        notes.map((n) => [n.title, n.path]),
        [
          ["Attention", "Topics/ML/Attention.md"],
          ["Transformers Concept Note", "Transformers Concept Note.md"],
          ["Ünïcode title", "Ünïcode title.md"]
        ]
      )
    }))

  it.scoped("reads a note, and a missing one is NoteNotFound / None — never an empty note", () =>
    Effect.gen(function*() {
      const root = yield* tempVault({ "Sub/Note.md": "hello\nworld" })
      const vault = yield* vaultAt(root)
      assert.strictEqual(yield* vault.readNote("Sub/Note.md"), "hello\nworld")
      assert.deepStrictEqual(yield* vault.readNoteIfExists("Sub/Note.md"), Option.some("hello\nworld"))
      assert.deepStrictEqual(yield* vault.readNoteIfExists("Sub/Missing.md"), Option.none())
      const missing = yield* Effect.flip(vault.readNote("Sub/Missing.md"))
      assert.strictEqual(missing._tag, "NoteNotFound")
      assert.strictEqual(missing._tag === "NoteNotFound" && missing.title, "Missing")
      // a path that leaves the vault reads as "not there", never the outside file
      assert.deepStrictEqual(yield* vault.readNoteIfExists("../outside.md"), Option.none())
    }))

  it.scoped("writes create parent folders and replace whole notes, leaving no temp files", () =>
    Effect.gen(function*() {
      const root = yield* tempVault({ "A.md": "old" })
      const vault = yield* vaultAt(root)
      yield* vault.writeNote("A.md", "new")
      yield* vault.writeNote("Deep/er/B — Related Papers.md", "b")
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "A.md"), "utf8"), "new")
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "Deep/er/B — Related Papers.md"), "utf8"), "b")
      assert.deepStrictEqual(NodeFs.readdirSync(root).sort(), ["A.md", "Deep"])
      assert.deepStrictEqual(NodeFs.readdirSync(NodePath.join(root, "Deep/er")), ["B — Related Papers.md"])
      const titles = (yield* vault.listNotes()).map((n) => n.title)
      assert.deepStrictEqual(titles, ["A", "B — Related Papers"])
    }))

  it.scoped("keeps the permissions of a replaced note", () =>
    Effect.gen(function*() {
      const root = yield* tempVault({ "A.md": "old" })
      NodeFs.chmodSync(NodePath.join(root, "A.md"), 0o600)
      const vault = yield* vaultAt(root)
      yield* vault.writeNote("A.md", "new")
      assert.strictEqual(NodeFs.statSync(NodePath.join(root, "A.md")).mode & 0o777, 0o600)
    }))

  it.scoped("refuses hostile paths with UnsafeWrite and touches nothing", () =>
    Effect.gen(function*() {
      const root = yield* tempVault({ "A.md": "a" })
      const vault = yield* vaultAt(root)
      const hostile = [
        "../escape.md",
        "Sub/../../escape.md",
        "/tmp/absolute.md",
        "C:/windows.md",
        "back\\slash.md",
        ".obsidian/plugins.md",
        "Sub/.hidden.md",
        "what?.md",
        "a:b.md",
        "pipe|.md",
        "star*.md",
        "quote\".md",
        "lt<gt>.md",
        "nul\u0000.md",
        "CON.md",
        "Folder./x.md",
        "Folder /x.md",
        `${"x".repeat(300)}.md`,
        "not-markdown.txt",
        "",
        "./A.md"
      ]
      for (const p of hostile) {
        const exit = yield* Effect.exit(vault.writeNote(p, "pwned"))
        assert.strictEqual(failureTag(exit), "UnsafeWrite", `path ${JSON.stringify(p)}`)
      }
      assert.deepStrictEqual(NodeFs.readdirSync(root), ["A.md"])
      assert.isFalse(NodeFs.existsSync(NodePath.join(NodePath.dirname(root), "escape.md")))
    }))

  it.scoped("refuses to write through a symlinked folder that leads outside the vault", () =>
    Effect.gen(function*() {
      const root = yield* tempVault({ "A.md": "a" })
      const outside = yield* tempVault({})
      NodeFs.symlinkSync(outside, NodePath.join(root, "Linked"), "dir")
      NodeFs.writeFileSync(NodePath.join(outside, "Secret.md"), "outside")
      const vault = yield* vaultAt(root)
      const exit = yield* Effect.exit(vault.writeNote("Linked/Evil.md", "pwned"))
      assert.strictEqual(failureTag(exit), "UnsafeWrite")
      const nested = yield* Effect.exit(vault.writeNote("Linked/new/Evil.md", "pwned"))
      assert.strictEqual(failureTag(nested), "UnsafeWrite")
      assert.deepStrictEqual(NodeFs.readdirSync(outside), ["Secret.md"])
      // nor are notes behind the link listed or read
      assert.deepStrictEqual((yield* vault.listNotes()).map((n) => n.path), ["A.md"])
      assert.deepStrictEqual(yield* vault.readNoteIfExists("Linked/Secret.md"), Option.none())
    }))

  it.scoped("a symlinked folder inside the vault is followed, a symlinked note is replaced, not its target", () =>
    Effect.gen(function*() {
      const root = yield* tempVault({ "Real/A.md": "a", "Target.md": "target" })
      NodeFs.symlinkSync(NodePath.join(root, "Real"), NodePath.join(root, "Alias"), "dir")
      NodeFs.symlinkSync(NodePath.join(root, "Target.md"), NodePath.join(root, "Link.md"))
      const vault = yield* vaultAt(root)
      yield* vault.writeNote("Alias/B.md", "b")
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "Real/B.md"), "utf8"), "b")
      yield* vault.writeNote("Link.md", "replaced")
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "Target.md"), "utf8"), "target")
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "Link.md"), "utf8"), "replaced")
    }))

  it.effect("a missing vault folder is VaultUnavailable naming the folder and the fix", () =>
    Effect.gen(function*() {
      const root = NodePath.join(NodeOs.tmpdir(), "no-such-vault-" + process.pid)
      const vault = yield* vaultAt(root)
      const calls: ReadonlyArray<Effect.Effect<unknown, { _tag: string; message: string }>> = [
        vault.listNotes(),
        vault.readNote("A.md"),
        vault.writeNote("A.md", "x")
      ]
      for (const call of calls) {
        const error = yield* Effect.flip(call)
        assert.strictEqual(error._tag, "VaultUnavailable")
        assert.include(error.message, root)
        assert.include(error.message, "--vault")
        assert.include(error.message, "ARXIV_COMPANION_VAULT")
      }
      assert.isFalse(NodeFs.existsSync(root))
    }))

  it.scoped("a vault path that is a file is VaultUnavailable", () =>
    Effect.gen(function*() {
      const root = yield* tempVault({ "file.md": "x" })
      const vault = yield* vaultAt(NodePath.join(root, "file.md"))
      const error = yield* Effect.flip(vault.listNotes())
      assert.strictEqual(error._tag, "VaultUnavailable")
      assert.include(error.message, "not a folder")
    }))

  it.scoped("layer provides the VaultPort from FileSystem and Path", () =>
    Effect.gen(function*() {
      const root = yield* tempVault({ "N.md": "n" })
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      yield* Effect.flatMap(VaultPort, (vault) => vault.writeNote("M.md", "m")).pipe(
        Effect.provide(FileSystemVault.layer({ root }))
      )
      assert.strictEqual(yield* fs.readFileString(path.join(root, "M.md")), "m")
    }).pipe(Effect.provide(NodeContext.layer)))
})
