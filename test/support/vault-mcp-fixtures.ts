/**
 * Shared set-up of the McpVault tests: the real servers' entry points, a seeded
 * temp vault whose notes must survive round trips byte for byte, and the
 * offline ports (recorded corpus + local judge) for whole companion runs.
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as CorpusArxiv from "../../src/adapters/arxiv/CorpusArxiv.js"
import * as RecordedOpenAlex from "../../src/adapters/openalex/RecordedOpenAlex.js"
import * as ArxivTermStats from "../../src/adapters/judge/ArxivTermStats.js"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import type * as McpVault from "../../src/adapters/vault/McpVault.js"
import type { ArxivPort } from "../../src/core/ports/ArxivPort.js"
import type { LlmJudgePort } from "../../src/core/ports/LlmJudgePort.js"
import type { OpenAlexPort } from "../../src/core/ports/OpenAlexPort.js"
import type { TermStatsPort } from "../../src/core/ports/TermStatsPort.js"

export const NODE = process.execPath
export const FS_SERVER = NodePath.resolve("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
export const MCPVAULT = NodePath.resolve("node_modules/@bitbonsai/mcpvault/dist/server.js")
export const CYANHEADS2 = NodePath.resolve("node_modules/obsidian-mcp-server/dist/index.js")
export const KEY = "test-key-5f2b9c"
export const CONCEPT = NodeFs.readFileSync(NodePath.resolve("examples/vault/Transformers Concept Note.md"), "utf8")

/** Notes whose bytes must survive a round trip exactly. */
export const EDGE = "---\ntags: [edge]\nkey: \"value: with colon\"\n---\n# Édge cäses — ünïcode 🚀\r\nCRLF line\r\ntrailing spaces  \n%% comment %%\n\n> [!note] callout\nno final newline"

export const seedVault = () =>
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

export const stdio = (args: ReadonlyArray<string>, env: Record<string, string> = {}): McpVault.McpConnection => ({
  _tag: "Stdio",
  command: NODE,
  args,
  env
})

export const read = (root: string, rel: string) => NodeFs.readFileSync(NodePath.join(root, rel), "utf8")

/**
 * The offline corpus (real recorded arXiv and citation data) and the local judge,
 * built once per test file: the offline services load the corpus on first use and keep it.
 */
let built: Promise<Layer.Layer<ArxivPort | OpenAlexPort | LlmJudgePort | TermStatsPort>> | undefined
export const offlinePorts = (): Promise<Layer.Layer<ArxivPort | OpenAlexPort | LlmJudgePort | TermStatsPort>> =>
  built ??= Effect.runPromise(
    Effect.scoped(Layer.build(
      Layer.mergeAll(CorpusArxiv.layer(), RecordedOpenAlex.layer(), LocalJudge.layer, ArxivTermStats.layer).pipe(
        Layer.provide(NodeContext.layer)
      )
    ))
  ).then((context) => Layer.succeedContext(context))

/** A TCP port nothing listens on: take a free one and close it. */
export const closedPort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const server = NodeNet.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })
)
