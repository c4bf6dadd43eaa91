/**
 * First come, first served from the very start: searches sent to the built
 * MCP server (stdio, the SDK's client) before its layers are built reach
 * arXiv in the order they were asked, not last-first.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as fs from "node:fs"
import * as os from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { type ArxivStandIn, startArxivStandIn } from "../support/arxiv-standin.js"

const bin = join(fileURLToPath(new URL("../..", import.meta.url)), "dist", "mcp.js")

let standIn: ArxivStandIn
let client: Client
beforeAll(async () => {
  standIn = await startArxivStandIn({ padSearches: true, corpus: "landmarks" })
  const home = fs.mkdtempSync(join(os.tmpdir(), "arxiv-companion-mcp-order-"))
  client = new Client({ name: "order-test", version: "0.0.0" })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, "--no-cache"],
      env: {
        PATH: process.env["PATH"] ?? "",
        HOME: home,
        ARXIV_API_URL: standIn.url,
        ARXIV_MIN_INTERVAL: "100 millis",
        ARXIV_COMPANION_LEASE_DIR: join(home, "leases"),
        OPENALEX_API_URL: "http://127.0.0.1:9/"
      },
      stderr: "pipe"
    })
  )
}, 120_000)
afterAll(async () => {
  await client.close()
  await standIn.close()
})

describe("the MCP server at start-up", { timeout: 120_000 }, () => {
  it("serves 12 concurrent searches sent before its layers are built first come, first served", async () => {
    const queries = Array.from({ length: 12 }, (_, i) => `all:network AND all:o${i}z`)
    const calls = queries.map((query) =>
      client.callTool({ name: "search_arxiv_papers", arguments: { query, max_results: 3, categories: [] } }, undefined, {
        timeout: 120_000
      }) as Promise<CallToolResult>
    )
    const results = await Promise.all(calls)
    for (const r of results) assert.isNotTrue(r.isError)
    const asked = standIn.requests.map((r) => decodeURIComponent(r.params["search_query"] ?? ""))
    assert.deepStrictEqual(asked.map((q) => queries.findIndex((w) => q.includes(w.slice("all:network AND ".length)))), queries.map((_, i) => i))
  })
})
