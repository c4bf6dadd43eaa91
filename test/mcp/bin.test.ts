/**
 * The built `arxiv-companion-mcp` bin (dist/mcp.js, built by the global setup
 * test/support/build.ts) over stdio and over Streamable HTTP, driven by the
 * SDK's own client transports, offline.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "vitest"
import { tempVault, text } from "./support.js"

const root = fileURLToPath(new URL("../..", import.meta.url))
const bin = join(root, "dist", "mcp.js")
const packageVersion = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version

const children: Array<ChildProcess> = []
afterAll(() => {
  for (const c of children) c.kill()
})

const exercise = async (client: Client) => {
  const tools = await client.listTools()
  assert.strictEqual(tools.tools.length, 15)
  assert.isAtMost(JSON.stringify(tools).length, 15_150) // test/mcp/server.test.ts says why
  const ok = (await client.callTool({ name: "get_paper", arguments: { arxiv_id: "1409.0473" } })) as CallToolResult
  assert.isNotTrue(ok.isError)
  assert.strictEqual((ok.structuredContent as { title: string }).title, "Neural Machine Translation by Jointly Learning to Align and Translate")
  const search = (await client.callTool({
    name: "search_arxiv_papers",
    arguments: { query: "sequence to sequence", max_results: 3 }
  })) as CallToolResult
  assert.strictEqual((search.structuredContent as { papers: Array<unknown> }).papers.length, 3)
  const bad = (await client.callTool({ name: "get_paper", arguments: { arxiv_id: "9999.99999" } })) as CallToolResult
  assert.isTrue(bad.isError)
  assert.match(text(bad), /no record of paper "9999\.99999"/)
  const card = await client.readResource({ uri: "arxiv://paper/1406.2661" })
  assert.include((card.contents[0] as { text: string }).text, "# Generative Adversarial Networks")
}

describe("the built bin", () => {
  it("is built", () => {
    assert.isTrue(existsSync(bin), "dist/mcp.js is missing: run npm run build")
  })

  it("serves MCP over stdio, with nothing but protocol on stdout", async () => {
    const stderrLines: Array<string> = []
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "--offline", "--vault", tempVault()],
      stderr: "pipe"
    })
    transport.stderr?.on("data", (d: Buffer) => stderrLines.push(d.toString()))
    const client = new Client({ name: "bin-test", version: "0.0.0" })
    const protocolErrors: Array<unknown> = []
    client.onerror = (e) => protocolErrors.push(e)
    await client.connect(transport)
    try {
      assert.deepStrictEqual(client.getServerVersion(), { name: "arxiv-companion", version: packageVersion })
      assert.include(client.getInstructions() ?? "", "OFFLINE MODE")
      await exercise(client)
      // a line on stdout that is not JSON-RPC would surface here as a parse error
      assert.deepEqual(protocolErrors, [])
    } finally {
      await client.close()
    }
  })

  it("over stdio, offline from the environment alone (no flag): initialize waits for the setup and says OFFLINE MODE", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin],
      env: { PATH: process.env["PATH"] ?? "", ARXIV_COMPANION_OFFLINE: "yes", ARXIV_COMPANION_VAULT: tempVault() },
      stderr: "pipe"
    })
    const client = new Client({ name: "bin-test", version: "0.0.0" })
    await client.connect(transport)
    try {
      assert.include(client.getInstructions() ?? "", "OFFLINE MODE")
      const ok = (await client.callTool({ name: "get_paper", arguments: { arxiv_id: "1409.0473" } })) as CallToolResult
      assert.isNotTrue(ok.isError)
    } finally {
      await client.close()
    }
  })

  it("serves Streamable HTTP on 127.0.0.1 with sessions", async () => {
    const child = spawn(process.execPath, [bin, "--offline", "--http", "--port", "0", "--vault", tempVault()], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    children.push(child)
    const url = await new Promise<string>((resolve, reject) => {
      let err = ""
      child.stderr.on("data", (d: Buffer) => {
        err += d.toString()
        const m = /listening on (http:\/\/\S+)/.exec(err)
        if (m !== null) resolve(m[1]!)
      })
      child.on("exit", (code) => reject(new Error(`the bin exited (${code}): ${err}`)))
    })
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const clients = [new Client({ name: "a", version: "0" }), new Client({ name: "b", version: "0" })]
    try {
      await Promise.all(clients.map((c) => c.connect(new StreamableHTTPClientTransport(new URL(url)))))
      await exercise(clients[0]!)
      const other = (await clients[1]!.callTool({ name: "list_categories", arguments: { group: "cs" } })) as CallToolResult
      assert.isNotTrue(other.isError)
      // a request without a session is refused
      const refused = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
      })
      assert.strictEqual(refused.status, 400)
      // a foreign Host header is refused (DNS-rebinding protection)
      const port = new URL(url).port
      const { request } = await import("node:http")
      const status = await new Promise<number>((resolve) => {
        const req = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { host: "evil.example", "content-type": "application/json", accept: "application/json, text/event-stream" } }, (res) => resolve(res.statusCode ?? 0))
        req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "0" } } }))
      })
      assert.strictEqual(status, 403)
    } finally {
      await Promise.all(clients.map((c) => c.close()))
      child.kill()
    }
  })
})
