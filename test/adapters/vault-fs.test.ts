import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import * as Esbuild from "esbuild"
import * as NodeChild from "node:child_process"
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

  it.live("a write sweeps away this note's temp files that a killed run left behind, not fresh ones", () =>
    Effect.gen(function*() {
      const root = yield* tempVault({ "Sub/A.md": "old", "Sub/.A.md.stale1.tmp": "fragment", "Sub/.A.md.fresh2.tmp": "in flight", "Sub/.B.md.stale3.tmp": "other note" })
      const hourAgo = new Date(Date.now() - 60 * 60 * 1000)
      NodeFs.utimesSync(NodePath.join(root, "Sub/.A.md.stale1.tmp"), hourAgo, hourAgo)
      NodeFs.utimesSync(NodePath.join(root, "Sub/.B.md.stale3.tmp"), hourAgo, hourAgo)
      const vault = yield* vaultAt(root)
      yield* vault.writeNote("Sub/A.md", "new")
      assert.deepStrictEqual(NodeFs.readdirSync(NodePath.join(root, "Sub")).sort(), [".A.md.fresh2.tmp", ".B.md.stale3.tmp", "A.md"])
    }).pipe(Effect.scoped))

  it.live("a note whose 40th character is an emoji: a killed run's temp file is swept like any other", () =>
    Effect.gen(function*() {
      // the 40-unit cut used to fall between the emoji's two UTF-16 units: the temp file was written as "…\uFFFD." on disk,
      // and the sweep, looking for the lone surrogate, never matched it again
      const name = `${"a".repeat(39)}😀 note.md`
      const stale = `.${"a".repeat(39)}😀.stale1.tmp`
      const root = yield* tempVault({ [name]: "old", [stale]: "fragment" })
      const hourAgo = new Date(Date.now() - 60 * 60 * 1000)
      NodeFs.utimesSync(NodePath.join(root, stale), hourAgo, hourAgo)
      const vault = yield* vaultAt(root)
      yield* vault.writeNote(name, "new")
      assert.deepStrictEqual(NodeFs.readdirSync(root), [name])
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, name), "utf8"), "new")
    }).pipe(Effect.scoped))

  it.scoped("a name too long to write is quoted in the refusal with whole characters", () =>
    Effect.gen(function*() {
      const root = yield* tempVault({})
      const vault = yield* vaultAt(root)
      const exit = yield* Effect.exit(vault.writeNote(`${"a".repeat(39)}${"😀".repeat(80)}.md`, "x"))
      assert.isTrue(Exit.isFailure(exit) && exit.cause._tag === "Fail")
      const message = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error.message : ""
      assert.include(message, `"${"a".repeat(39)}😀…" is longer than`)
      assert.notMatch(message, /\p{Cs}/u)
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

describe("FileSystemVault atomic writes", () => {
  it.live("writers killed mid-write (SIGKILL) leave the old or the new note whole, never a fragment", () =>
    Effect.gen(function*() {
      const root = yield* tempVault({ "Note.md": "original\n" })
      const size = 2 * 1024 * 1024
      const contentOf = (which: "A" | "B") => `---\nversion: ${which}\n---\n${which.repeat(size)}\nend ${which}\n`
      const whole = new Set([contentOf("A"), contentOf("B")])
      const writers = [0, 1, 2, 3]
      // the writer, bundled once (dependencies stay in node_modules) so plain node starts it quickly
      const script = NodePath.resolve("node_modules/.cache/arxiv-companion-test/vault-writer-child.mjs")
      yield* Effect.promise(() =>
        Esbuild.build({
          entryPoints: [NodePath.resolve("test/support/vault-writer-child.ts")],
          bundle: true,
          packages: "external",
          platform: "node",
          format: "esm",
          outfile: script,
          logLevel: "error"
        })
      )
      // started together, then killed at different moments
      const children = writers.map((i) =>
        NodeChild.spawn(process.execPath, [script, root, `Sub/Big note ${i}.md`, String(size)], {
          stdio: ["ignore", "pipe", "pipe"]
        })
      )
      yield* Effect.promise(() =>
        Promise.all(children.map((child) =>
          new Promise<void>((resolve, reject) => {
            child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve())
            child.on("exit", (code) => reject(new Error(`writer exited early (${code})`)))
          })
        ))
      )
      // kill each writer the moment its temp file appears, i.e. inside a write
      const sub = NodePath.join(root, "Sub")
      for (const [i, child] of children.entries()) {
        const prefix = `.Big note ${i}.md.`
        yield* Effect.promise(async () => {
          const seen = new Set(NodeFs.readdirSync(sub).filter((f) => f.startsWith(prefix)))
          for (let tries = 0; tries < 20_000; tries++) {
            if (NodeFs.readdirSync(sub).some((f) => f.startsWith(prefix) && !seen.has(f))) break
            await new Promise((r) => setImmediate(r))
          }
          child.kill("SIGKILL")
          await new Promise((resolve) => child.once("exit", resolve))
        })
      }
      const temps = NodeFs.readdirSync(NodePath.join(root, "Sub")).filter((f) => f.endsWith(".tmp"))
      for (const i of writers) {
        const text = NodeFs.readFileSync(NodePath.join(root, `Sub/Big note ${i}.md`), "utf8")
        assert.isTrue(whole.has(text), `writer ${i}: a ${text.length}-character fragment`)
      }
      assert.strictEqual(NodeFs.readFileSync(NodePath.join(root, "Note.md"), "utf8"), "original\n")
      // temp files a kill leaves behind are hidden: the vault lists exactly its notes
      const vault = yield* vaultAt(root)
      assert.deepStrictEqual(
        (yield* vault.listNotes()).map((n) => n.path),
        ["Note.md", ...writers.map((i) => `Sub/Big note ${i}.md`)]
      )
      // a temp file left behind is the proof a kill landed between the write's start and its rename
      assert.isAtLeast(temps.length, 1)
      // the next write of each note removes what its killed writer left, at once (not 10 minutes later)
      for (const i of writers) yield* vault.writeNote(`Sub/Big note ${i}.md`, `after ${i}\n`)
      assert.deepStrictEqual(NodeFs.readdirSync(sub).filter((f) => f.endsWith(".tmp")), [])
    }).pipe(Effect.scoped), 120_000)
})
