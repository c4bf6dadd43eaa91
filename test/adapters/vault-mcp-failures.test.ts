/**
 * McpVault: the three failure modes (server not running, wrong key, missing
 * note) as three distinct errors, server profiles (including replicas of the
 * servers that cannot run here), connection lifecycle and configuration.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option, Redacted, type Scope } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { z } from "zod"
import * as McpVault from "../../src/adapters/vault/McpVault.js"
import { parseTree } from "../../src/adapters/vault/McpVaultProfiles.js"
import { VaultPort, type VaultService } from "../../src/core/ports/VaultPort.js"
import { runCompanion } from "../../src/core/workflow.js"
import { restApiStandIn } from "../support/rest-api-standin.js"
import { STANDIN_TLS_CERT, STANDIN_TLS_KEY } from "../support/vault-standin-tls.js"
import { cyanheads3Replica, pythonMcpObsidianReplica } from "../support/vault-replica-servers.js"
import { closedPort, CYANHEADS2, EDGE, KEY, MCPVAULT, NODE, offlinePorts, read, seedVault, stdio } from "../support/vault-mcp-fixtures.js"

const OfflinePorts = await offlinePorts()

/** The three failure modes as the tags they fail with. */
const threeModes = (
  notRunning: Effect.Effect<VaultService, never, Scope.Scope>,
  wrongKey: Effect.Effect<VaultService, never, Scope.Scope>,
  working: Effect.Effect<VaultService, never, Scope.Scope>
) =>
  Effect.gen(function*() {
    const down = yield* Effect.flip(Effect.flatMap(notRunning, (v) => v.readNote("Transformers Concept Note.md")))
    const refused = yield* Effect.flip(Effect.flatMap(wrongKey, (v) => v.readNote("Transformers Concept Note.md")))
    const missing = yield* Effect.flip(Effect.flatMap(working, (v) => v.readNote("Not There.md")))
    return { down, refused, missing }
  })

describe("McpVault failure modes: server not running, wrong key, missing note", () => {
  it.live("Local REST API /mcp/ over Streamable HTTP", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const api = yield* restApiStandIn({ root, apiKey: KEY })
      const port = yield* closedPort
      const http = (url: string, key: string) =>
        McpVault.make({ connection: { _tag: "Http", url, apiKey: Redacted.make(key) } })
      const { down, missing, refused } = yield* threeModes(
        http(`http://127.0.0.1:${port}/mcp/`, KEY),
        http(api.mcpUrl, "wrong-key-123"),
        http(api.mcpUrl, KEY)
      )
      assert.strictEqual(down._tag, "VaultUnavailable")
      assert.strictEqual(refused._tag, "VaultUnauthorized")
      assert.strictEqual(missing._tag, "NoteNotFound")
      assert.include(refused.message, "OBSIDIAN_API_KEY")
      assert.notInclude(refused.message, "wrong-key-123")
      assert.include(down.message, `127.0.0.1:${port}`)
    }).pipe(Effect.scoped))

  it.live("obsidian-mcp-server 2.0.7 over stdio (the REST API checked before launch)", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const api = yield* restApiStandIn({ root, apiKey: KEY })
      const port = yield* closedPort
      const cyan = (baseUrl: string, key: string) =>
        McpVault.make({
          connection: stdio([CYANHEADS2], { OBSIDIAN_API_KEY: key, OBSIDIAN_BASE_URL: baseUrl, OBSIDIAN_ENABLE_CACHE: "false" }),
          restApi: { baseUrl, apiKey: Redacted.make(key) }
        })
      const { down, missing, refused } = yield* threeModes(
        cyan(`http://127.0.0.1:${port}`, KEY),
        cyan(api.url, "wrong-key-456"),
        cyan(api.url, KEY)
      )
      assert.strictEqual(down._tag, "VaultUnavailable")
      assert.include(down.message, "Local REST API")
      assert.strictEqual(refused._tag, "VaultUnauthorized")
      assert.notInclude(refused.message, "wrong-key-456")
      assert.strictEqual(missing._tag, "NoteNotFound")
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)), 60_000)

  it.live("Python mcp-obsidian (replica of its tools over the stand-in)", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const api = yield* restApiStandIn({ root, apiKey: KEY })
      const port = yield* closedPort
      const py = (baseUrl: string, apiKey: string) =>
        McpVault.make({
          connection: { _tag: "Transport", name: "mcp-obsidian", make: () => pythonMcpObsidianReplica({ baseUrl, apiKey }) }
        })
      const { down, missing, refused } = yield* threeModes(
        py(`http://127.0.0.1:${port}`, KEY),
        py(api.url, "nope"),
        py(api.url, KEY)
      )
      assert.deepStrictEqual([down._tag, refused._tag, missing._tag], ["VaultUnavailable", "VaultUnauthorized", "NoteNotFound"])
    }).pipe(Effect.scoped))

  it.live("a launch command that does not exist is VaultUnavailable naming OBSIDIAN_MCP_COMMAND", () =>
    Effect.gen(function*() {
      const vault = yield* McpVault.make({ connection: { _tag: "Stdio", command: "no-such-obsidian-mcp-server-xyz", args: [] } })
      const error = yield* Effect.flip(vault.listNotes())
      assert.strictEqual(error._tag, "VaultUnavailable")
      assert.include(error.message, "OBSIDIAN_MCP_COMMAND")
    }).pipe(Effect.scoped))

  it.live("a server that exits at once is VaultUnavailable with what it said", () =>
    Effect.gen(function*() {
      const vault = yield* McpVault.make({
        connection: stdio(["-e", "process.stderr.write('vault path missing: /nowhere\\n'); process.exit(3)"])
      })
      const error = yield* Effect.flip(vault.listNotes())
      assert.strictEqual(error._tag, "VaultUnavailable")
      assert.include(error.message, "vault path missing")
    }).pipe(Effect.scoped))
})

describe("McpVault over HTTPS with a self-signed certificate (the Local REST API's default)", () => {
  it.live("obsidian-mcp-server 2.0.7 with OBSIDIAN_VERIFY_SSL=false works: the REST preflight does not take the certificate for a stopped Obsidian", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const api = yield* restApiStandIn({ root, apiKey: KEY, tls: { key: STANDIN_TLS_KEY, cert: STANDIN_TLS_CERT } })
      assert.isTrue(api.url.startsWith("https://"))
      const vault = yield* McpVault.make({
        connection: stdio([CYANHEADS2], {
          OBSIDIAN_API_KEY: KEY,
          OBSIDIAN_BASE_URL: api.url,
          OBSIDIAN_VERIFY_SSL: "false",
          OBSIDIAN_ENABLE_CACHE: "false"
        }),
        restApi: { baseUrl: api.url, apiKey: Redacted.make(KEY) }
      })
      assert.strictEqual(yield* vault.readNote("Topics/Edge cases.md"), EDGE)
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)), 60_000)

  it.live("the /mcp/ endpoint over untrusted HTTPS is VaultUnavailable saying how to fix it, not 'not running'", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const api = yield* restApiStandIn({ root, apiKey: KEY, tls: { key: STANDIN_TLS_KEY, cert: STANDIN_TLS_CERT } })
      const vault = yield* McpVault.make({ connection: { _tag: "Http", url: api.mcpUrl, apiKey: Redacted.make(KEY) } })
      const error = yield* Effect.flip(vault.listNotes())
      assert.strictEqual(error._tag, "VaultUnavailable")
      assert.include(error.message, "certificate")
      assert.include(error.message, "NODE_EXTRA_CA_CERTS")
      assert.include(error.message, "27123")
    }).pipe(Effect.scoped))

  it.live("a connection the server closed as a call went out on it: the call is sent again, once", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const connect = (dropToolCall: (n: number) => boolean) =>
        Effect.flatMap(
          restApiStandIn({ root, apiKey: KEY, dropToolCall }),
          (api) => McpVault.make({ connection: { _tag: "Http", url: api.mcpUrl, apiKey: Redacted.make(KEY) } })
        )
      // the first call's connection is closed unanswered: the read still returns the note, byte for byte
      const once = yield* connect((n) => n === 1)
      assert.strictEqual(yield* once.readNote("Quick Idea.md"), "attention?\n")
      assert.strictEqual(yield* once.readNote("Transformers Concept Note.md"), NodeFs.readFileSync(NodePath.join(root, "Transformers Concept Note.md"), "utf8"))
      // every call's connection closed: one retry, then a typed error (no loop)
      const dropped: Array<number> = []
      const always = yield* connect((n) => dropped.push(n) > 0)
      const error = yield* Effect.flip(always.readNote("Quick Idea.md"))
      assert.strictEqual(error._tag, "VaultUnavailable")
      assert.deepStrictEqual(dropped, [1, 2])
    }).pipe(Effect.scoped), 60_000)
})

describe("McpVault profiles", () => {
  it.live("obsidian-mcp-server 3.x (replica): its error results break the SDK's callTool, the raw read still tells NoteNotFound", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const api = yield* restApiStandIn({ root, apiKey: KEY })
      // the trap, shown with the SDK's own client
      const client = new Client({ name: "probe", version: "0" })
      yield* Effect.promise(() => client.connect(cyanheads3Replica({ baseUrl: api.url, apiKey: KEY })))
      yield* Effect.promise(() => client.listTools())
      const thrown = yield* Effect.promise(() =>
        client.callTool({ name: "obsidian_get_note", arguments: { format: "content", target: { type: "path", path: "Nope.md" } } })
          .then(() => "resolved", (e: Error) => e.message)
      )
      yield* Effect.promise(() => client.close())
      assert.match(thrown, /structured content|output schema/i)

      const vault = yield* McpVault.make({
        connection: { _tag: "Transport", name: "obsidian-mcp-server 3", make: () => cyanheads3Replica({ baseUrl: api.url, apiKey: KEY }) }
      })
      assert.strictEqual((yield* Effect.flip(vault.readNote("Nope.md")))._tag, "NoteNotFound")
      assert.deepStrictEqual((yield* vault.listNotes()).map((n) => n.path), [
        "Quick Idea.md",
        "Topics/Deeper/Empty.md",
        "Topics/Edge cases.md",
        "Transformers Concept Note.md"
      ])
      assert.strictEqual(yield* vault.readNote("Topics/Edge cases.md"), EDGE)
      yield* vault.writeNote("Topics/Edge cases.md", "overwritten\n")
      assert.strictEqual(read(root, "Topics/Edge cases.md"), "overwritten\n")
      yield* vault.writeNote("Fresh/New note.md", EDGE)
      assert.strictEqual(read(root, "Fresh/New note.md"), EDGE)

      const wrong = yield* McpVault.make({
        connection: { _tag: "Transport", name: "obsidian-mcp-server 3", make: () => cyanheads3Replica({ baseUrl: api.url, apiKey: "bad" }) }
      })
      assert.strictEqual((yield* Effect.flip(wrong.readNote("Quick Idea.md")))._tag, "VaultUnauthorized")
    }).pipe(Effect.scoped))

  it.live("Python mcp-obsidian (replica): json.dumps'd contents decoded exactly, folders walked, writes whole", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const api = yield* restApiStandIn({ root, apiKey: KEY })
      const vault = yield* McpVault.make({
        connection: { _tag: "Transport", name: "mcp-obsidian", make: () => pythonMcpObsidianReplica({ baseUrl: api.url, apiKey: KEY }) }
      })
      assert.strictEqual(yield* vault.readNote("Topics/Edge cases.md"), EDGE)
      assert.strictEqual((yield* vault.listNotes()).length, 4)
      yield* vault.writeNote("New/Written.md", EDGE)
      assert.strictEqual(read(root, "New/Written.md"), EDGE)
    }).pipe(Effect.scoped))

  const customServer = () => {
    const server = new McpServer({ name: "renamed", version: "1" })
    const files = new Map<string, string>([["A.md", "alpha"], ["Sub/B.md", "beta"]])
    server.tool("my_list", "list", { path: z.string().optional() }, async ({ path }) => {
      const dir = path ?? ""
      const names = new Set<string>()
      for (const f of files.keys()) {
        if (dir !== "" && !f.startsWith(`${dir}/`)) continue
        const rest = dir === "" ? f : f.slice(dir.length + 1)
        names.add(rest.includes("/") ? `${rest.split("/")[0]}/` : rest)
      }
      return { content: [{ type: "text", text: JSON.stringify({ files: [...names] }) }] }
    })
    server.tool("my_read", "read", { path: z.string() }, async ({ path }) => {
      const text = files.get(path)
      if (text === undefined) throw new Error(`File not found: ${path}`)
      return { content: [{ type: "text", text: JSON.stringify({ content: text }) }] }
    })
    server.tool("my_write", "write", { path: z.string(), content: z.string() }, async ({ content, path }) => {
      files.set(path, content)
      return { content: [{ type: "text", text: "{\"message\":\"OK\"}" }] }
    })
    const [client, serverSide] = InMemoryTransport.createLinkedPair()
    void server.connect(serverSide)
    return { client, files }
  }

  it.live("an unknown tool set is VaultUnavailable saying how to map it; a profile and tool names from config make it work", () =>
    Effect.gen(function*() {
      const unknown = yield* McpVault.make({ connection: { _tag: "Transport", name: "renamed", make: () => customServer().client } })
      const error = yield* Effect.flip(unknown.listNotes())
      assert.strictEqual(error._tag, "VaultUnavailable")
      assert.include(error.message, "OBSIDIAN_MCP_PROFILE")
      assert.include(error.message, "my_read")

      const custom = customServer()
      const mapped = yield* McpVault.make({
        connection: { _tag: "Transport", name: "renamed", make: () => custom.client },
        profile: "local-rest-api",
        tools: { list: "my_list", read: "my_read", write: "my_write" }
      })
      assert.deepStrictEqual((yield* mapped.listNotes()).map((n) => n.path), ["A.md", "Sub/B.md"])
      assert.strictEqual(yield* mapped.readNote("Sub/B.md"), "beta")
      assert.strictEqual((yield* Effect.flip(mapped.readNote("C.md")))._tag, "NoteNotFound")
      yield* mapped.writeNote("Sub/C.md", "gamma")
      assert.strictEqual(custom.files.get("Sub/C.md"), "gamma")
    }).pipe(Effect.scoped))

  it("parses obsidian-mcp-server 2.x's listing tree into paths", () => {
    const tree = [
      "├── Papers/",
      "│   ├── 2014/",
      "│   │   └── Bahdanau.md",
      "│   └── Index.md",
      "├── Topics/",
      "│   └── Deeper/",
      "│       └── Empty.md",
      "└── Transformers Concept Note.md"
    ].join("\n")
    assert.deepStrictEqual(parseTree(tree), [
      "Papers/2014/Bahdanau.md",
      "Papers/Index.md",
      "Topics/Deeper/Empty.md",
      "Transformers Concept Note.md"
    ])
  })
})

describe("McpVault lifecycle", () => {
  it.live("nothing is dialled until the first call; the HTTP session ends with the scope", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const api = yield* restApiStandIn({ root, apiKey: KEY })
      yield* Effect.scoped(
        Effect.gen(function*() {
          const vault = yield* McpVault.make({ connection: { _tag: "Http", url: api.mcpUrl, apiKey: Redacted.make(KEY) } })
          assert.deepStrictEqual(api.requests.filter((r) => r.includes("/mcp")), [])
          yield* vault.listNotes()
          assert.isAbove(api.requests.filter((r) => r.startsWith("POST /mcp")).length, 0)
        })
      )
      assert.include(api.requests, "DELETE /mcp/")
    }).pipe(Effect.scoped))

  it.live("a prompt that names no note halts before the vault is dialled", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const api = yield* restApiStandIn({ root, apiKey: KEY })
      const vault = yield* McpVault.make({ connection: { _tag: "Http", url: api.mcpUrl, apiKey: Redacted.make(KEY) } })
      const error = yield* Effect.flip(
        runCompanion("What's a transformer?").pipe(Effect.provide(Layer.mergeAll(OfflinePorts, Layer.succeed(VaultPort, vault))))
      )
      assert.strictEqual(error._tag, "NotEnoughInformation")
      assert.deepStrictEqual(api.requests, [])
    }).pipe(Effect.scoped))

  it.live("a stdio server is started on first use, stopped with the scope, and restarted after it dies", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const pidFile = NodePath.join(root, "..", `${NodePath.basename(root)}.pid`)
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0)
          return true
        } catch {
          return false
        }
      }
      const pid = () => Number(NodeFs.readFileSync(pidFile, "utf8").trim())
      const waitDead = (p: number) =>
        Effect.promise(async () => {
          for (let i = 0; i < 100 && alive(p); i++) await new Promise((r) => setTimeout(r, 50))
          return !alive(p)
        })
      yield* Effect.scoped(
        Effect.gen(function*() {
          const vault = yield* McpVault.make({
            connection: { _tag: "Stdio", command: "sh", args: ["-c", `echo $$ > "${pidFile}"; exec "${NODE}" "${MCPVAULT}" "${root}"`] }
          })
          assert.isFalse(NodeFs.existsSync(pidFile))
          assert.strictEqual((yield* vault.listNotes()).length, 4)
          const first = pid()
          assert.isTrue(alive(first))
          process.kill(first, "SIGKILL")
          assert.isTrue(yield* waitDead(first))
          // the dropped connection is noticed and the next call starts a new server
          const again = yield* Effect.either(vault.listNotes())
          const second = again._tag === "Right" ? pid() : (yield* vault.listNotes(), pid())
          assert.notStrictEqual(second, first)
          assert.isTrue(alive(second))
        })
      )
      assert.isTrue(yield* waitDead(pid()))
      NodeFs.rmSync(pidFile, { force: true })
    }).pipe(Effect.scoped), 30_000)
})

describe("McpVault configuration", () => {
  const load = (env: Record<string, string>) =>
    Effect.withConfigProvider(McpVault.optionsConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))

  it.effect("OBSIDIAN_MCP_URL: Streamable HTTP with the bearer key", () =>
    Effect.gen(function*() {
      const options = yield* load({ OBSIDIAN_MCP_URL: "https://127.0.0.1:27124/mcp/", OBSIDIAN_API_KEY: "k" })
      assert.isTrue(Option.isSome(options))
      const c = Option.getOrThrow(options).connection
      assert.strictEqual(c._tag, "Http")
      if (c._tag === "Http") {
        assert.strictEqual(c.url, "https://127.0.0.1:27124/mcp/")
        assert.strictEqual(Redacted.value(c.apiKey!), "k")
        assert.notInclude(String(c.apiKey), "k\"")
      }
    }))

  it.effect("OBSIDIAN_MCP_COMMAND: argv split like a shell, key/base URL/known variables passed to the child, cache off", () =>
    Effect.gen(function*() {
      const options = Option.getOrThrow(
        yield* load({
          OBSIDIAN_MCP_COMMAND: `npx -y @bitbonsai/mcpvault "/Users/me/My Vault"`,
          OBSIDIAN_API_KEY: "secret",
          OBSIDIAN_BASE_URL: "http://127.0.0.1:27123",
          OBSIDIAN_VERIFY_SSL: "false",
          OBSIDIAN_MCP_PROFILE: "mcpvault",
          OBSIDIAN_MCP_TOOLS: "read=r, write=w",
          OBSIDIAN_MCP_TIMEOUT_MS: "5000"
        })
      )
      assert.deepStrictEqual(options.connection, {
        _tag: "Stdio",
        command: "npx",
        args: ["-y", "@bitbonsai/mcpvault", "/Users/me/My Vault"],
        env: {
          OBSIDIAN_ENABLE_CACHE: "false",
          OBSIDIAN_API_KEY: "secret",
          OBSIDIAN_BASE_URL: "http://127.0.0.1:27123",
          OBSIDIAN_VERIFY_SSL: "false"
        }
      })
      assert.strictEqual(options.profile, "mcpvault")
      assert.deepStrictEqual(options.tools, { read: "r", write: "w" })
      assert.strictEqual(options.restApi?.baseUrl, "http://127.0.0.1:27123")
    }))

  it.effect("neither set: None (the filesystem vault applies)", () =>
    Effect.gen(function*() {
      assert.isTrue(Option.isNone(yield* load({})))
      const error = yield* Effect.flip(
        Effect.provide(Effect.void, McpVault.layerConfig).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))
        )
      )
      assert.include(String(error), "OBSIDIAN_MCP_URL")
    }))

  it("splits command lines with quotes and escapes", () => {
    assert.deepStrictEqual(McpVault.splitCommand(`uvx mcp-obsidian`), ["uvx", "mcp-obsidian"])
    assert.deepStrictEqual(McpVault.splitCommand(`node 'a b/c.js' "d \\"e\\"" f\\ g ""`), ["node", "a b/c.js", "d \"e\"", "f g", ""])
  })
})
