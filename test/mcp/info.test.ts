/**
 * The bin answers `initialize` from static data before loading the SDK
 * (src/mcp/earlyStdio.ts); that data must be what the SDK server would say.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { PassThrough } from "node:stream"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "vitest"
import { earlyStdio } from "../../src/mcp/earlyStdio.js"
import { initializeResult, SUPPORTED_PROTOCOL_VERSIONS as OURS } from "../../src/mcp/info.js"
import { makeMcpServer } from "../../src/mcp/server.js"

const noRuntime = { runPromiseExit: () => Effect.runPromiseExit(Effect.die("unused")) }

/** The JSON-RPC messages written to `stream`, one per line, as they come. */
const jsonLines = (stream: PassThrough): Array<Record<string, unknown>> => {
  const lines: Array<Record<string, unknown>> = []
  stream.on("data", (d: Buffer) => {
    for (const l of d.toString().split("\n")) if (l.trim() !== "") lines.push(JSON.parse(l) as Record<string, unknown>)
  })
  return lines
}

/** Resolves once `ready()` holds, checking every few ms (a loaded machine answers late, never wrongly): at most 10 s. */
const until = async (ready: () => boolean): Promise<void> => {
  for (const started = Date.now(); !ready(); await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() - started > 10_000) throw new Error("timed out waiting for the answers")
  }
}

/** A moment for anything that should NOT be written to show up. */
const settle = () => new Promise((r) => setTimeout(r, 20))

describe("static initialize", () => {
  it("supports the SDK's protocol versions, newest first", () => {
    assert.deepEqual(OURS, SUPPORTED_PROTOCOL_VERSIONS)
    assert.strictEqual(OURS[0], LATEST_PROTOCOL_VERSION)
    assert.strictEqual(initializeResult("1999-01-01", false).protocolVersion, LATEST_PROTOCOL_VERSION)
    assert.strictEqual(initializeResult("2025-03-26", false).protocolVersion, "2025-03-26")
  })

  it("declares exactly the capabilities the SDK server reports once everything is registered", async () => {
    const server = makeMcpServer(noRuntime)
    const [a, b] = InMemoryTransport.createLinkedPair()
    const client = new Client({ name: "c", version: "0" })
    await Promise.all([server.connect(b), client.connect(a)])
    assert.deepEqual(client.getServerCapabilities(), initializeResult(undefined, false).capabilities)
    assert.strictEqual(client.getInstructions(), initializeResult(undefined, false).instructions)
    await client.close()
  })

  it("the static tools/list the bin answers early is exactly the server's (UPDATE_TOOLS_LIST=1 rewrites it)", async () => {
    const server = makeMcpServer(noRuntime)
    const [a, b] = InMemoryTransport.createLinkedPair()
    const client = new Client({ name: "c", version: "0" })
    await Promise.all([server.connect(b), client.connect(a)])
    const live = `${JSON.stringify(await client.listTools())}\n`
    await client.close()
    const file = fileURLToPath(new URL("../../src/mcp/tools-list.json", import.meta.url))
    if (process.env["UPDATE_TOOLS_LIST"] === "1") writeFileSync(file, live)
    assert.strictEqual(readFileSync(file, "utf8"), live, "src/mcp/tools-list.json is stale: UPDATE_TOOLS_LIST=1 npx vitest run test/mcp/info.test.ts")
  })

  it("earlyStdio answers initialize and ping at once, replays the rest after connect, drops the duplicate answer", async () => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const lines = jsonLines(stdout)
    const transport = earlyStdio({ initialize: (v) => initializeResult(v, true), stdin, stdout })
    stdin.write(JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "0" } }
    }) + "\n")
    stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n")
    stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) + "\n")
    stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }) + "\n")
    await until(() => lines.length >= 2)
    await settle() // tools/list must wait for the server
    assert.deepEqual(lines.map((l) => l["id"]), [1, 2])
    assert.strictEqual((lines[0]!["result"] as { protocolVersion: string }).protocolVersion, "2025-06-18")
    const server = makeMcpServer(noRuntime, { offline: true })
    await server.connect(transport)
    await until(() => lines.length >= 3)
    await settle() // and no second initialize answer follows
    // initialize answered once; tools/list answered by the SDK server after connecting
    assert.deepEqual(lines.map((l) => l["id"]), [1, 2, 3])
    assert.strictEqual(((lines[2]!["result"] as { tools: Array<unknown> }).tools).length, 15)
    assert.deepEqual(server.server.getClientVersion(), { name: "c", version: "0" })
    await server.close()
  })

  it("earlyStdio waits for an initialize result still being made, and keeps the answers in order", async () => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const lines = jsonLines(stdout)
    let setupRead: (offline: boolean) => void = () => undefined
    const setup = new Promise<boolean>((r) => (setupRead = r))
    const initialize = (v: unknown) => setup.then((offline) => initializeResult(v, offline))
    earlyStdio({ initialize, toolsList: { tools: [] }, stdin, stdout })
    const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
      stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n")
    request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "0" } })
    request(2, "ping")
    request(3, "tools/list")
    await settle()
    assert.deepEqual(lines, [], "nothing overtakes the initialize answer")
    setupRead(true)
    await until(() => lines.length >= 3)
    assert.deepEqual(lines.map((l) => l["id"]), [1, 2, 3])
    assert.include((lines[0]!["result"] as { instructions: string }).instructions, "OFFLINE MODE")

    // a setup that cannot be read: initialize gets an error, later messages their answers
    const out2 = new PassThrough()
    const in2 = new PassThrough()
    const lines2 = jsonLines(out2)
    earlyStdio({ initialize: () => Promise.reject(new Error("ARXIV_COMPANION_OFFLINE: expected true or false")), stdin: in2, stdout: out2 })
    in2.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }) + "\n")
    in2.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) + "\n")
    await until(() => lines2.length >= 2)
    assert.deepEqual(lines2, [
      { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error: ARXIV_COMPANION_OFFLINE: expected true or false" } },
      { jsonrpc: "2.0", id: 2, result: {} }
    ])
  })

  it("earlyStdio answers tools/list from the static copy when given one", async () => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    let out = ""
    stdout.on("data", (d: Buffer) => (out += d.toString()))
    earlyStdio({ initialize: (v) => initializeResult(v, false), toolsList: { tools: [{ name: "x" }] }, stdin, stdout })
    stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }) + "\n")
    await until(() => out.endsWith("\n"))
    assert.deepEqual(JSON.parse(out), { jsonrpc: "2.0", id: 7, result: { tools: [{ name: "x" }] } })
  })
})
