/**
 * The built CLI (`dist/cli.js`, built by test/support/build.ts) with its vault
 * over MCP, configured only through the environment, as the README tells a
 * user to: OBSIDIAN_MCP_COMMAND at each tested server, OBSIDIAN_MCP_URL at the
 * Local REST API stand-in's /mcp/.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { restApiStandIn } from "../support/rest-api-standin.js"
import { closedPort, CONCEPT, CYANHEADS2, KEY, MCPVAULT, NODE, read, seedVault } from "../support/vault-mcp-fixtures.js"

const CLI = NodePath.resolve("dist/cli.js")
const PROMPT = "Find papers related to my 'Transformers Concept Note'"
const RELATED = "Transformers Concept Note — Related Papers.md"

/** The CLI in a child process, with only the given vault variables set. */
const cli = (env: Record<string, string>) =>
  Effect.promise(() =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const base = { ...process.env }
      for (const k of Object.keys(base)) if (k.startsWith("OBSIDIAN_") || k === "ARXIV_COMPANION_VAULT") delete base[k]
      execFile(NODE, [CLI, "run", PROMPT, "--offline"], { env: { ...base, ...env }, timeout: 120_000 }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
    })
  )

const q = (s: string) => `"${s}"`

describe("arxiv-companion run with the vault over MCP (environment only)", () => {
  // (the MCP filesystem server goes through the same path; vault-mcp.test.ts covers it from the environment)
  it.live("OBSIDIAN_MCP_COMMAND at MCPVault: the note is written, a re-run leaves it alone", () =>
    Effect.gen(function*() {
      for (const server of [MCPVAULT]) {
        const root = yield* seedVault()
        const env = { OBSIDIAN_MCP_COMMAND: [NODE, server, root].map(q).join(" ") }
        const first = yield* cli(env)
        assert.strictEqual(first.code, 0, first.stderr)
        const written = read(root, RELATED)
        assert.include(written, "[[Transformers Concept Note]]")
        const mtime = NodeFs.statSync(NodePath.join(root, RELATED)).mtimeMs
        const second = yield* cli(env)
        assert.strictEqual(second.code, 0, second.stderr)
        assert.strictEqual(read(root, RELATED), written)
        assert.strictEqual(NodeFs.statSync(NodePath.join(root, RELATED)).mtimeMs, mtime)
        assert.strictEqual(read(root, "Transformers Concept Note.md"), CONCEPT)
      }
    }).pipe(Effect.scoped), 120_000)

  it.live("OBSIDIAN_MCP_URL at the Local REST API's /mcp/ and OBSIDIAN_MCP_COMMAND at obsidian-mcp-server 2.0.7", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const api = yield* restApiStandIn({ root, apiKey: KEY })
      const overHttp = yield* cli({ OBSIDIAN_MCP_URL: api.mcpUrl, OBSIDIAN_API_KEY: KEY })
      assert.strictEqual(overHttp.code, 0, overHttp.stderr)
      assert.include(read(root, RELATED), "[[Transformers Concept Note]]")

      NodeFs.rmSync(NodePath.join(root, RELATED))
      const overStdio = yield* cli({
        OBSIDIAN_MCP_COMMAND: [NODE, CYANHEADS2].map(q).join(" "),
        OBSIDIAN_API_KEY: KEY,
        OBSIDIAN_BASE_URL: api.url
      })
      assert.strictEqual(overStdio.code, 0, overStdio.stderr)
      assert.include(read(root, RELATED), "[[Transformers Concept Note]]")
      assert.strictEqual(read(root, "Transformers Concept Note.md"), CONCEPT)
    }).pipe(Effect.scoped), 120_000)

  it.live("a wrong key and a stopped Obsidian exit 1 with different messages, and write nothing", () =>
    Effect.gen(function*() {
      const root = yield* seedVault()
      const api = yield* restApiStandIn({ root, apiKey: KEY })
      const wrong = yield* cli({ OBSIDIAN_MCP_URL: api.mcpUrl, OBSIDIAN_API_KEY: "not-the-key" })
      assert.strictEqual(wrong.code, 1)
      assert.include(wrong.stderr + wrong.stdout, "OBSIDIAN_API_KEY")
      assert.notInclude(wrong.stderr + wrong.stdout, "not-the-key")
      const port = yield* closedPort
      const down = yield* cli({ OBSIDIAN_MCP_URL: `http://127.0.0.1:${port}/mcp/`, OBSIDIAN_API_KEY: KEY })
      assert.strictEqual(down.code, 1)
      assert.include(down.stderr + down.stdout, "Local REST API")
      assert.notStrictEqual(down.stderr, wrong.stderr)
      assert.isFalse(NodeFs.existsSync(NodePath.join(root, RELATED)))
    }).pipe(Effect.scoped), 120_000)
})
