/**
 * The Streamable HTTP face's safety over real HTTP, with the MCP SDK's own
 * client: bearer token, Origin and Host checks, a session limit, idle
 * sessions expiring, oversized bodies refused. `serveHttp` in process (a
 * minimal McpServer: the face does not depend on the tools), and the built
 * bin for what a user starts (`--host 0.0.0.0`).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { type ChildProcess, spawn } from "node:child_process"
import { request } from "node:http"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "vitest"
import { z } from "zod"
import { type HttpBinding, type HttpOptions, serveHttp } from "../../src/mcp/http.js"
import { tempVault } from "./support.js"

const root = fileURLToPath(new URL("../..", import.meta.url))
const bin = join(root, "dist", "mcp.js")

const echoServer = () => {
  const server = new McpServer({ name: "echo", version: "0" })
  server.registerTool("echo", { inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: "text", text }] }))
  return server
}

const bindings: Array<HttpBinding> = []
const children: Array<ChildProcess> = []
afterAll(async () => {
  for (const c of children) c.kill()
  await Promise.all(bindings.map((b) => b.close()))
})

const serve = async (options: Partial<HttpOptions> = {}) => {
  const logs: Array<string> = []
  const binding = await serveHttp(echoServer, { port: 0, log: (l) => logs.push(l), ...options })
  bindings.push(binding)
  return { binding, url: binding.url.replace("0.0.0.0", "127.0.0.1"), logs }
}

const connectClient = async (url: string, headers: Record<string, string> = {}) => {
  const client = new Client({ name: "t", version: "0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
  return client
}

const rejects = async (promise: Promise<unknown>, pattern?: RegExp) => {
  try {
    await promise
  } catch (e) {
    if (pattern !== undefined) assert.match(String(e), pattern)
    return
  }
  assert.fail("expected a rejection")
}

const echo = async (client: Client, text: string) =>
  ((await client.callTool({ name: "echo", arguments: { text } })) as CallToolResult).content[0]

const initializeBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
})

/** One raw POST (node:http, so Host and Origin can be anything); the status and body. */
const post = (url: string, headers: Record<string, string>, body: string | Buffer = initializeBody) =>
  new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const u = new URL(url)
    const req = request({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }
    }, (res) => {
      let text = ""
      res.on("data", (d: Buffer) => (text += d.toString()))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }))
    })
    req.on("error", reject)
    req.end(body)
  })

describe("the HTTP face on loopback", () => {
  it("checks Origin (browsers) and Host (DNS rebinding); clients without Origin work", async () => {
    const { url } = await serve()
    const port = new URL(url).port
    assert.strictEqual((await post(url, { origin: "http://evil.example" })).status, 403)
    assert.strictEqual((await post(url, { origin: "null" })).status, 403)
    assert.strictEqual((await post(url, { origin: `http://127.0.0.1:${Number(port) + 1}` })).status, 403)
    assert.strictEqual((await post(url, { host: "evil.example" })).status, 403)
    assert.strictEqual((await post(url, { origin: `http://localhost:${port}` })).status, 200)
    const client = await connectClient(url)
    assert.deepStrictEqual(await echo(client, "hi"), { type: "text", text: "hi" })
    await client.close()
  })

  it("allows the origins it is told to", async () => {
    const { url } = await serve({ allowedOrigins: ["https://inspector.example"] })
    assert.strictEqual((await post(url, { origin: "https://inspector.example" })).status, 200)
    assert.strictEqual((await post(url, { origin: "https://other.example" })).status, 403)
  })

  it("answers 413 for an oversized body, whether announced or streamed", async () => {
    const { url } = await serve({ maxBodyBytes: 10_000 })
    const big = Buffer.alloc(20_000, " ")
    const announced = await post(url, { "content-length": String(big.length) }, big)
    assert.strictEqual(announced.status, 413)
    assert.include(announced.body, "10000")
    const streamed = await post(url, { "transfer-encoding": "chunked" }, big)
    assert.strictEqual(streamed.status, 413)
    // and the server still serves
    const client = await connectClient(url)
    assert.deepStrictEqual(await echo(client, "still here"), { type: "text", text: "still here" })
    await client.close()
  })

  it("limits sessions: one more initialize than allowed gets 503, a closed session frees its place", async () => {
    const { url } = await serve({ maxSessions: 2 })
    const a = await connectClient(url)
    const b = await connectClient(url)
    const refused = await post(url, {})
    assert.strictEqual(refused.status, 503)
    assert.match(refused.body, /too many sessions/i)
    await rejects(connectClient(url))
    // ending a session (DELETE) frees its place
    await (a.transport as StreamableHTTPClientTransport).terminateSession()
    await a.close()
    const c = await connectClient(url)
    assert.deepStrictEqual(await echo(c, "third"), { type: "text", text: "third" })
    await Promise.all([b.close(), c.close()])
  })

  it("expires idle sessions (clock injected), and an expired session must initialize again", async () => {
    let now = 1_000_000
    const { url } = await serve({ maxSessions: 1, sessionIdleMillis: 60_000, now: () => now })
    const a = await connectClient(url)
    assert.deepStrictEqual(await echo(a, "one"), { type: "text", text: "one" })
    now += 59_000
    assert.deepStrictEqual(await echo(a, "still active"), { type: "text", text: "still active" })
    now += 61_000
    // the idle session no longer holds the only place
    const b = await connectClient(url)
    assert.deepStrictEqual(await echo(b, "two"), { type: "text", text: "two" })
    await rejects(echo(a, "expired"), /404|not found/i)
    await Promise.all([a.close(), b.close()])
  })

  it("requires the bearer token when one is set, also on loopback", async () => {
    const { url } = await serve({ token: "s3cret-token-for-tests" })
    assert.strictEqual((await post(url, {})).status, 401)
    assert.strictEqual((await post(url, { authorization: "Bearer wrong" })).status, 401)
    const refused = await post(url, { authorization: "Bearer s3cret-token-for-testz" })
    assert.strictEqual(refused.status, 401)
    assert.match(String(refused.headers["www-authenticate"]), /^Bearer/)
    const client = await connectClient(url, { authorization: "Bearer s3cret-token-for-tests" })
    assert.deepStrictEqual(await echo(client, "ok"), { type: "text", text: "ok" })
    await client.close()
  })

  it("refuses to bind a non-loopback address without a token", async () => {
    await rejects(serveHttp(echoServer, { host: "0.0.0.0", port: 0 }), /token/)
  })
})

/** Start the bin over HTTP; resolve with its URL and what it said on stderr so far. */
const startBin = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const child = spawn(process.execPath, [bin, "--offline", "--http", "--port", "0", "--vault", tempVault(), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env }
  })
  children.push(child)
  let stderr = ""
  let stdout = ""
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
  const ready = new Promise<{ url: string; stderr: () => string; stdout: () => string }>((resolve, reject) => {
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(stderr)
      if (m !== null) resolve({ url: m[1]!, stderr: () => stderr, stdout: () => stdout })
    })
    child.on("exit", (code) => reject(new Error(`the bin exited (${code}): ${stderr}`)))
  })
  return ready
}

describe("the bin bound to a non-loopback address", () => {
  it("generates a bearer token, prints it once on stderr, warns, and refuses requests without it", async () => {
    const { stderr, stdout, url } = await startBin(["--host", "0.0.0.0"])
    assert.match(url, /^http:\/\/0\.0\.0\.0:\d+\/mcp$/)
    const said = stderr()
    assert.match(said, /warning.*0\.0\.0\.0/i)
    const tokens = [...said.matchAll(/Bearer ([A-Za-z0-9_-]{32,})/g)].map((m) => m[1])
    assert.strictEqual(tokens.length, 1, said)
    assert.strictEqual(stdout(), "")
    const local = url.replace("0.0.0.0", "127.0.0.1")
    assert.strictEqual((await post(local, {})).status, 401)
    await rejects(connectClient(local))
    const client = await connectClient(local, { authorization: `Bearer ${tokens[0]}` })
    const categories = (await client.callTool({ name: "list_categories", arguments: { group: "cs" } })) as CallToolResult
    assert.isNotTrue(categories.isError)
    await client.close()
  })

  it("takes the token from ARXIV_COMPANION_MCP_TOKEN and never prints it", async () => {
    const token = "given-token-0123456789-abcdefghijklmnop"
    const { stderr, url } = await startBin(["--host", "0.0.0.0"], { ARXIV_COMPANION_MCP_TOKEN: token })
    const local = url.replace("0.0.0.0", "127.0.0.1")
    assert.strictEqual((await post(local, { authorization: "Bearer nope" })).status, 401)
    const client = await connectClient(local, { authorization: `Bearer ${token}` })
    assert.isNotTrue(((await client.callTool({ name: "list_categories", arguments: {} })) as CallToolResult).isError)
    await client.close()
    assert.notInclude(stderr(), token)
    assert.match(stderr(), /warning/i)
  })
})
