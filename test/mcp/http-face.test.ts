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

/** Calls of the `wait` tool in flight, each ended by `release()`. */
const waiting = new Set<() => void>()
const release = () => {
  for (const end of waiting) end()
  waiting.clear()
}

const echoServer = () => {
  const server = new McpServer({ name: "echo", version: "0" })
  server.registerTool("echo", { inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: "text", text }] }))
  server.registerTool("wait", { inputSchema: {} }, () =>
    new Promise((resolve) => waiting.add(() => resolve({ content: [{ type: "text", text: "waited" }] }))))
  return server
}

/** A `wait` call that holds its session busy until `release()`. */
const hold = (client: Client) => client.callTool({ name: "wait", arguments: {} })

/** Resolve once `condition` holds (checked every 10 ms; the test's own timeout bounds it). */
const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((r) => setTimeout(r, 10))
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

const connectClient = async (url: string, headers: Record<string, string> = {}, name = "t") => {
  const client = new Client({ name, version: "0" })
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

const initializeAs = (name: string) => initializeBody.replace('"raw"', JSON.stringify(name))

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
    assert.include(announced.body, "at most 10,000 bytes")
    const streamed = await post(url, { "transfer-encoding": "chunked" }, big)
    assert.strictEqual(streamed.status, 413)
    // and the server still serves
    const client = await connectClient(url)
    assert.deepStrictEqual(await echo(client, "still here"), { type: "text", text: "still here" })
    await client.close()
  })

  it("limits sessions: when every place is taken, the oldest idle session makes room; a closed session frees its place", async () => {
    const { url } = await serve({ maxSessions: 2 })
    const a = await connectClient(url, {}, "a")
    assert.deepStrictEqual(await echo(a, "a"), { type: "text", text: "a" })
    const b = await connectClient(url, {}, "b")
    assert.deepStrictEqual(await echo(b, "b"), { type: "text", text: "b" })
    // a third client gets a place: a's session, idle the longest, is closed for it
    const c = await connectClient(url, {}, "c")
    assert.deepStrictEqual(await echo(c, "c"), { type: "text", text: "c" })
    await rejects(echo(a, "gone"), /404|not found/i)
    assert.deepStrictEqual(await echo(b, "b still"), { type: "text", text: "b still" })
    // ending a session (DELETE) frees its place
    await (b.transport as StreamableHTTPClientTransport).terminateSession()
    await b.close()
    const d = await connectClient(url, {}, "d")
    assert.deepStrictEqual(await echo(d, "d"), { type: "text", text: "d" })
    assert.deepStrictEqual(await echo(c, "c still"), { type: "text", text: "c still" })
    await Promise.all([a.close(), c.close(), d.close()])
  })

  it("answers 503 only when every session has a request in flight", async () => {
    const { url } = await serve({ maxSessions: 2 })
    const a = await connectClient(url, {}, "a")
    const b = await connectClient(url, {}, "b")
    const held = [hold(a), hold(b)]
    await until(() => waiting.size === 2)
    const refused = await post(url, {})
    assert.strictEqual(refused.status, 503)
    assert.match(refused.body, /too many sessions.*in flight/i)
    release()
    await Promise.all(held)
    // once the calls end, the sessions are idle and a new client gets a place
    const c = await connectClient(url, {}, "c")
    assert.deepStrictEqual(await echo(c, "c"), { type: "text", text: "c" })
    await Promise.all([a.close(), b.close(), c.close()])
  })

  it("with the default setup, 32 initialize calls from one process lock nobody out", async () => {
    const { url } = await serve()
    for (let i = 0; i < 32; i++) assert.strictEqual((await post(url, {})).status, 200)
    const client = await connectClient(url)
    assert.deepStrictEqual(await echo(client, "still served"), { type: "text", text: "still served" })
    await client.close()
  })

  it("closes a session that never made a call after a minute (clock injected), long before the idle limit", async () => {
    let now = 1_000_000
    const { url } = await serve({ now: () => now })
    const opened = await post(url, {})
    assert.strictEqual(opened.status, 200)
    const id = String(opened.headers["mcp-session-id"])
    const used = await connectClient(url)
    assert.deepStrictEqual(await echo(used, "used"), { type: "text", text: "used" })
    now += 61_000
    const call = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} })
    assert.strictEqual((await post(url, { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" }, call)).status, 404)
    // a session that made a call stays for the idle limit (30 minutes)
    assert.deepStrictEqual(await echo(used, "still"), { type: "text", text: "still" })
    await used.close()
  })

  it("one client cannot take every place: its own oldest idle session makes room for its next", async () => {
    let now = 1_000_000
    const { url } = await serve({ maxSessions: 4, now: () => now })
    const others = [await connectClient(url, {}, "host-a"), await connectClient(url, {}, "host-b")]
    for (const [i, o] of others.entries()) assert.deepStrictEqual(await echo(o, `other ${i}`), { type: "text", text: `other ${i}` })
    now += 1_000
    // a client that opens session after session: 1 place of 4 is its own, and each new one replaces its last
    for (let i = 0; i < 4; i++) {
      assert.strictEqual((await post(url, {}, initializeAs("greedy"))).status, 200)
      now += 1_000
    }
    for (const [i, o] of others.entries()) assert.deepStrictEqual(await echo(o, `other ${i} still`), { type: "text", text: `other ${i} still` })
    await Promise.all(others.map((o) => o.close()))
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
