/**
 * McpVault against real Obsidian MCP servers (no mocks of them):
 * - @modelcontextprotocol/server-filesystem and @bitbonsai/mcpvault over a temp vault (stdio);
 * - obsidian-mcp-server 2.0.7 (stdio) against the Local REST API stand-in;
 * - the stand-in's own /mcp/ endpoint (Streamable HTTP), as the plugin ≥ 4.0 serves it.
 * Each proves list/read/write byte for byte, the three failure modes as three
 * distinct errors, and a whole companion run writing the Related Papers note.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Option, Redacted, type Scope } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { z } from "zod"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import * as McpVault from "../../src/adapters/vault/McpVault.js"
import { parseTree } from "../../src/adapters/vault/McpVaultProfiles.js"
import { CompanionOptions } from "../../src/core/models.js"
import { VaultPort, type VaultService } from "../../src/core/ports/VaultPort.js"
import { runCompanion } from "../../src/core/workflow.js"
import { restApiStandIn } from "../support/rest-api-standin.js"
import { cyanheads3Replica, pythonMcpObsidianReplica } from "../support/vault-replica-servers.js"
import { RecordedArxivLayer, RecordedImpactLayer } from "../support/vault-recorded-ports.js"

const NODE = process.execPath
const FS_SERVER = NodePath.resolve("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
const MCPVAULT = NodePath.resolve("node_modules/@bitbonsai/mcpvault/dist/server.js")
const CYANHEADS2 = NodePath.resolve("node_modules/obsidian-mcp-server/dist/index.js")
const KEY = "test-key-5f2b9c"
const CONCEPT = NodeFs.readFileSync(NodePath.resolve("examples/vault/Transformers Concept Note.md"), "utf8")

/** Notes whose bytes must survive a round trip exactly. */
const EDGE = "---\ntags: [edge]\nkey: \"value: with colon\"\n---\n# Édge cäses — ünïcode 🚀\r\nCRLF line\r\ntrailing spaces  \n%% comment %%\n\n> [!note] callout\nno final newline"

const seedVault = () =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "vault-mcp-")))
      const files: Record<string, string> = {
        "Transformers Concept Note.md": CONCEPT,
        "Topics/Edge cases.md": EDGE,
        "Topics/Deeper/Empty.md": "",
        "Quick Idea.md": "attention?\n",
        ".obsidian/workspace.md": "settings, not a note",
        "image.png": "not a note"
      }
      for (const [rel, content] of Object.entries(files)) {
        NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, rel)), { recursive: true })
        NodeFs.writeFileSync(NodePath.join(root, rel), content)
      }
      return root
    }),
    (root) => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true }))
  )

interface ServerCase {
  readonly name: string
  readonly profile: string
  readonly options: (root: string) => Effect.Effect<McpVault.McpVaultOptions, never, Scope.Scope>
}

const stdio = (args: ReadonlyArray<string>, env: Record<string, string> = {}): McpVault.McpConnection => ({
  _tag: "Stdio",
  command: NODE,
  args,
  env
})

const SERVERS: ReadonlyArray<ServerCase> = [
  {
    name: "@modelcontextprotocol/server-filesystem (stdio)",
    profile: "server-filesystem",
    options: (root) => Effect.succeed({ connection: stdio([FS_SERVER, root]) })
  },
  {
    name: "@bitbonsai/mcpvault (stdio)",
    profile: "mcpvault",
    options: (root) => Effect.succeed({ connection: stdio([MCPVAULT, root]) })
  },
  {
    name: "obsidian-mcp-server 2.0.7 (stdio) over the Local REST API stand-in",
    profile: "obsidian-mcp-server-2",
    options: (root) =>
      Effect.map(restApiStandIn({ root, apiKey: KEY }), (api) => ({
        connection: stdio([CYANHEADS2], { OBSIDIAN_API_KEY: KEY, OBSIDIAN_BASE_URL: api.url, OBSIDIAN_ENABLE_CACHE: "false" }),
        restApi: { baseUrl: api.url, apiKey: Redacted.make(KEY) }
      }))
  },
  {
    name: "Local REST API stand-in /mcp/ (Streamable HTTP)",
    profile: "local-rest-api",
    options: (root) =>
      Effect.map(restApiStandIn({ root, apiKey: KEY }), (api) => ({
        connection: { _tag: "Http", url: api.mcpUrl, apiKey: Redacted.make(KEY) }
      }))
  }
]

const read = (root: string, rel: string) => NodeFs.readFileSync(NodePath.join(root, rel), "utf8")

const errorOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined

const PROMPT = "Find papers related to my 'Transformers Concept Note'"
const RELATED = "Transformers Concept Note — Related Papers.md"

const companion = (vault: VaultService, options = new CompanionOptions({})) =>
  runCompanion(PROMPT, options).pipe(
    Effect.provide(Layer.mergeAll(
      RecordedArxivLayer,
      RecordedImpactLayer,
      LocalJudge.layer,
      Layer.succeed(VaultPort, vault)
    ))
  )

describe("McpVault against real servers", () => {
  for (const server of SERVERS) {
    describe(server.name, () => {
      it.live("lists, reads byte for byte, tells a missing note apart, writes whole notes, refuses hostile paths", () =>
        Effect.gen(function*() {
          const root = yield* seedVault()
          const vault = yield* McpVault.make(yield* server.options(root))

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
        }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)), 60_000)

      it.live("runs the whole companion: reads the concept note, writes the Related Papers note, then leaves it alone", () =>
        Effect.gen(function*() {
          const root = yield* seedVault()
          const vault = yield* McpVault.make(yield* server.options(root))

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
