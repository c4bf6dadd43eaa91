/**
 * McpVault against real Obsidian MCP servers (no mocks of them):
 * - @modelcontextprotocol/server-filesystem and @bitbonsai/mcpvault over a temp vault (stdio);
 * - obsidian-mcp-server 2.0.7 (stdio) against the Local REST API stand-in;
 * - the stand-in's own /mcp/ endpoint (Streamable HTTP), as the plugin ≥ 4.0 serves it.
 * Each is connected through the environment as a user would (OBSIDIAN_MCP_COMMAND /
 * OBSIDIAN_MCP_URL, OBSIDIAN_API_KEY, OBSIDIAN_BASE_URL) and proves list/read/write
 * byte for byte, hostile paths refused, and a whole companion run writing the
 * Related Papers note. Failure modes, profiles,
 * lifecycle and configuration: vault-mcp-failures.test.ts.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option, type Scope } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as McpVault from "../../src/adapters/vault/McpVault.js"
import { relatedNotePath } from "../../src/core/compose.js"
import { CompanionOptions, NoteRef } from "../../src/core/models.js"
import { VaultPort, type VaultService } from "../../src/core/ports/VaultPort.js"
import { runCompanion } from "../../src/core/workflow.js"
import { restApiStandIn } from "../support/rest-api-standin.js"
import { CONCEPT, CYANHEADS2, EDGE, FS_SERVER, KEY, MCPVAULT, NODE, offlinePorts, read, seedVault } from "../support/vault-mcp-fixtures.js"

const OfflinePorts = await offlinePorts()

/** A server as a user connects it: through the environment (the CLI's path). */
interface ServerCase {
  readonly name: string
  readonly env: (root: string) => Effect.Effect<Record<string, string>, never, Scope.Scope>
}

const q = (s: string) => `"${s}"`

const SERVERS: ReadonlyArray<ServerCase> = [
  {
    name: "@modelcontextprotocol/server-filesystem (stdio)",
    env: (root) => Effect.succeed({ OBSIDIAN_MCP_COMMAND: [NODE, FS_SERVER, root].map(q).join(" ") })
  },
  {
    name: "@bitbonsai/mcpvault (stdio)",
    env: (root) => Effect.succeed({ OBSIDIAN_MCP_COMMAND: [NODE, MCPVAULT, root].map(q).join(" ") })
  },
  {
    name: "obsidian-mcp-server 2.0.7 (stdio) over the Local REST API stand-in",
    env: (root) =>
      Effect.map(restApiStandIn({ root, apiKey: KEY }), (api) => ({
        OBSIDIAN_MCP_COMMAND: [NODE, CYANHEADS2].map(q).join(" "),
        OBSIDIAN_API_KEY: KEY,
        OBSIDIAN_BASE_URL: api.url
      }))
  },
  {
    name: "Local REST API stand-in /mcp/ (Streamable HTTP)",
    env: (root) =>
      Effect.map(restApiStandIn({ root, apiKey: KEY }), (api) => ({ OBSIDIAN_MCP_URL: api.mcpUrl, OBSIDIAN_API_KEY: KEY }))
  }
]

/** The vault a user gets from these variables (McpVault.optionsConfig, as the CLI reads it). */
const vaultFromEnv = (env: Record<string, string>) =>
  McpVault.optionsConfig.pipe(
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
    Effect.map(Option.getOrThrow),
    Effect.orDie,
    Effect.flatMap(McpVault.make)
  )

const PROMPT = "Find papers related to my 'Transformers Concept Note'"
const RELATED = "Transformers Concept Note — Related Papers.md"

const companion = (vault: VaultService, options = new CompanionOptions({})) =>
  runCompanion(PROMPT, options).pipe(
    Effect.provide(Layer.mergeAll(
      OfflinePorts,
      Layer.succeed(VaultPort, vault)
    ))
  )

describe("McpVault against real servers", () => {
  for (const server of SERVERS) {
    describe(server.name, () => {
      it.live("lists, reads byte for byte, tells a missing note apart, writes whole notes, refuses hostile paths", () =>
        Effect.gen(function*() {
          const root = yield* seedVault()
          const vault = yield* vaultFromEnv(yield* server.env(root))

          const notes = yield* vault.listNotes()
          assert.deepStrictEqual(notes.map((n) => n.path), [
            "Quick Idea.md",
            "Topics/Deeper/Empty.md",
            "Topics/Edge cases.md",
            "Transformers Concept Note.md"
          ])
          assert.strictEqual(notes.find((n) => n.path === "Topics/Edge cases.md")?.title, "Edge cases")

          assert.strictEqual(yield* vault.readNote("Topics/Edge cases.md"), EDGE)
          assert.strictEqual(yield* vault.readNote("Transformers Concept Note.md"), CONCEPT)
          assert.strictEqual(yield* vault.readNote("Topics/Deeper/Empty.md"), "")

          const missing = yield* Effect.flip(vault.readNote("Topics/Nope.md"))
          assert.strictEqual(missing._tag, "NoteNotFound")
          assert.deepStrictEqual(yield* vault.readNoteIfExists("Nowhere/Nope.md"), Option.none())

          yield* vault.writeNote("New/Deeper/Round trip.md", EDGE)
          assert.strictEqual(read(root, "New/Deeper/Round trip.md"), EDGE)
          assert.strictEqual(yield* vault.readNote("New/Deeper/Round trip.md"), EDGE)
          yield* vault.writeNote("New/Deeper/Round trip.md", "shorter\n")
          assert.strictEqual(read(root, "New/Deeper/Round trip.md"), "shorter\n")

          for (const hostile of ["../escape.md", "/etc/evil.md", "a/../../escape.md", ".obsidian/x.md", "bad:name.md", "CON.md"]) {
            const error = yield* Effect.flip(vault.writeNote(hostile, "pwned"))
            assert.strictEqual(error._tag, "UnsafeWrite", hostile)
          }
          assert.isFalse(NodeFs.existsSync(NodePath.join(NodePath.dirname(root), "escape.md")))
          assert.isFalse(NodeFs.existsSync(NodePath.join(root, ".obsidian/x.md")))

          // hostile note titles become safe names beside the source note, and each server writes them there
          for (const title of ["../../escape", "/etc/passwd", "what? <a|b> \"q\" *x*: y", "..", "名".repeat(200)]) {
            const target = relatedNotePath(new NoteRef({ title, path: "Topics/Edge cases.md" }))!
            yield* vault.writeNote(target, `# ${title}\n`)
            assert.strictEqual(read(root, target), `# ${title}\n`)
            assert.strictEqual(NodePath.dirname(NodePath.join(root, target)), NodePath.join(root, "Topics"))
          }
          assert.deepStrictEqual(NodeFs.readdirSync(NodePath.dirname(root)).filter((f) => f.includes("escape") || f === "passwd"), [])
        }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)), 60_000)

      it.live("runs the whole companion: reads the concept note, writes the Related Papers note, then leaves it alone", () =>
        Effect.gen(function*() {
          const root = yield* seedVault()
          const vault = yield* vaultFromEnv(yield* server.env(root))

          const first = yield* companion(vault)
          assert.strictEqual(first.written.status, "created")
          assert.strictEqual(first.written.path, RELATED)
          assert.strictEqual(first.note.path, "Transformers Concept Note.md")
          const written = read(root, RELATED)
          assert.include(written, "[[Transformers Concept Note]]")
          assert.include(written, "%% arxiv-companion:begin")
          assert.isAbove(first.candidates.length, 0)
          for (const id of first.survivors) assert.include(written, `https://arxiv.org/abs/${id}`)
          assert.strictEqual(read(root, "Transformers Concept Note.md"), CONCEPT)

          const mtime = NodeFs.statSync(NodePath.join(root, RELATED)).mtimeMs
          const second = yield* companion(vault)
          assert.strictEqual(second.written.status, "unchanged")
          assert.strictEqual(read(root, RELATED), written)
          assert.strictEqual(NodeFs.statSync(NodePath.join(root, RELATED)).mtimeMs, mtime)

          // the user adds a property and a paragraph outside the block; a changed result keeps both
          const edited = written.replace(/^---\n/, "---\nmy_rating: 5\n") + "\n## My notes\nRead Bahdanau first.  \n"
          NodeFs.writeFileSync(NodePath.join(root, RELATED), edited)
          const third = yield* companion(vault, new CompanionOptions({ relevanceThreshold: 0.05 }))
          assert.strictEqual(third.written.status, "updated")
          const after = read(root, RELATED)
          assert.include(after, "my_rating: 5\n")
          assert.isTrue(after.endsWith("\n## My notes\nRead Bahdanau first.  \n"))
          assert.strictEqual(read(root, "Transformers Concept Note.md"), CONCEPT)
        }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)), 90_000)
    })
  }
})
