/**
 * Child process for the kill-during-write test: writes NOTE through the
 * FileSystemVault over and over, alternating two large contents, and prints
 * "ready" after the first complete write. The parent SIGKILLs it mid-way.
 *
 * argv: <vault root> <note path> <size in bytes>
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Effect, Layer } from "effect"
import * as FileSystemVault from "../../src/adapters/vault/FileSystemVault.js"

const [root, note, size] = process.argv.slice(2) as [string, string, string]
const bytes = Number(size)
/** Content `which` repeated: a fragment of either is detectable. */
const contentOf = (which: "A" | "B", n: number) => `---\nversion: ${which}\n---\n${which.repeat(n)}\nend ${which}\n`

const program = Effect.gen(function*() {
  const vault = yield* FileSystemVault.make({ root })
  for (let i = 0; ; i++) {
    yield* vault.writeNote(note, contentOf(i % 2 === 0 ? "A" : "B", bytes))
    if (i === 0) process.stdout.write("ready\n")
  }
}).pipe(Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer)))

Effect.runPromise(program).catch((e) => {
  process.stderr.write(String(e))
  process.exit(1)
})
