/**
 * The built `arxiv-companion-mcp` bin over stdio, fed raw frames a careless or
 * hostile client could send: every malformed frame gets a JSON-RPC error (or
 * is dropped when it is a notification), and the server lives on. Offline.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "vitest"
import { tempVault } from "./support.js"

const root = fileURLToPath(new URL("../..", import.meta.url))
const bin = join(root, "dist", "mcp.js")

interface Reply {
  readonly id?: unknown
  readonly result?: Record<string, unknown>
  readonly error?: { readonly code: number; readonly message: string }
}

/** The bin over raw stdio: write lines, read the JSON lines it answers. */
const startBin = () => {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [bin, "--offline", "--vault", tempVault()], {
    stdio: ["pipe", "pipe", "pipe"]
  })
  const replies: Array<Reply> = []
  const stdoutLines: Array<string> = []
  let stderr = ""
  let buffer = ""
  const waiters: Array<() => void> = []
  child.stdout.on("data", (d: Buffer) => {
    buffer += d.toString()
    let nl: number
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl)
      buffer = buffer.slice(nl + 1)
      stdoutLines.push(line)
      replies.push(JSON.parse(line) as Reply)
      for (const w of waiters.splice(0)) w()
    }
  })
  child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const send = (...lines: ReadonlyArray<string>) => void child.stdin.write(lines.map((l) => `${l}\n`).join(""))
  /** The reply carrying `id` (waits up to 20 s). */
  const reply = async (id: unknown): Promise<Reply> => {
    const deadline = Date.now() + 20_000
    for (;;) {
      const found = replies.find((r) => JSON.stringify(r.id) === JSON.stringify(id) && r.id !== undefined)
      if (found !== undefined) return found
      if (Date.now() > deadline) throw new Error(`no reply with id ${JSON.stringify(id)}; stderr: ${stderr}`)
      await new Promise<void>((resolve) => {
        waiters.push(resolve)
        setTimeout(resolve, 200)
      })
    }
  }
  /** Replies with `id: null` (errors for frames without a usable id). */
  const nullReplies = () => replies.filter((r) => r.id === null)
  return { child, send, reply, nullReplies, replies, stdoutLines, exited, stderr: () => stderr }
}

const children: Array<ChildProcessWithoutNullStreams> = []
afterAll(() => {
  for (const c of children) c.kill()
})

const initialize = (id: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
  })

const malformed = [
  ["null", -32600],
  ["[1,2]", -32600],
  ["\"a string\"", -32600],
  ["42", -32600],
  ["{bad json", -32700],
  ["{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"ping\"}", -32600],
  ["{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", -32600]
] as const

describe("the stdio face under malformed frames", () => {
  it("answers every malformed frame with a JSON-RPC error and lives on (before and after the SDK is loaded)", async () => {
    const bin = startBin()
    children.push(bin.child)
    // before initialize and before the SDK has loaded
    bin.send(...malformed.map(([frame]) => frame), initialize(1))
    assert.strictEqual((await bin.reply(1)).result?.["protocolVersion"], "2025-06-18")
    bin.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
    // a real tool call: its answer proves the SDK server is connected
    bin.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_categories", arguments: { group: "cs" } } }))
    assert.isUndefined((await bin.reply(2)).error)
    // and again, now that the SDK handles the stream
    bin.send(...malformed.map(([frame]) => frame))
    bin.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }))
    assert.deepStrictEqual((await bin.reply(3)).result, {})
    const errors = bin.nullReplies().map((r) => r.error?.code)
    assert.deepStrictEqual(errors, [...malformed.map(([, code]) => code), ...malformed.map(([, code]) => code)])
    for (const r of bin.nullReplies()) assert.match(r.error!.message, /\w{6,}/)
    // stdout is protocol only
    for (const line of bin.stdoutLines) assert.strictEqual(JSON.parse(line).jsonrpc, "2.0")
    assert.isNull(bin.child.exitCode)
    bin.child.stdin.end()
    assert.strictEqual(await bin.exited, 0)
  }, 60_000)

  it("answers a request whose params are not an object with Invalid params, early and late", async () => {
    const bin = startBin()
    children.push(bin.child)
    bin.send(initialize(1), JSON.stringify({ jsonrpc: "2.0", id: "early", method: "tools/call", params: ["list_categories"] }))
    assert.strictEqual((await bin.reply("early")).error?.code, -32602)
    bin.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
    bin.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_categories", arguments: {} } }))
    assert.isUndefined((await bin.reply(2)).error)
    bin.send(
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: ["list_categories", {}] }),
      JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list", params: 7 }),
      // a notification with bad params has nobody to answer: dropped
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: [1] }),
      JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping" })
    )
    assert.strictEqual((await bin.reply(3)).error?.code, -32602)
    assert.strictEqual((await bin.reply(4)).error?.code, -32602)
    assert.deepStrictEqual((await bin.reply(5)).result, {})
    bin.child.stdin.end()
    assert.strictEqual(await bin.exited, 0)
  }, 60_000)

  it("refuses an oversized query with InvalidArgument before any work, and answers the next call", async () => {
    const bin = startBin()
    children.push(bin.child)
    bin.send(initialize(1), "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
    const query = Array.from({ length: 8000 }, (_, i) => `term${i}`).join(" ")
    bin.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "search_arxiv_papers", arguments: { query } } }))
    const refused = await bin.reply(2)
    const result = refused.result as { isError?: boolean; content: Array<{ text: string }> }
    assert.isTrue(result.isError)
    assert.match(result.content[0]!.text, /query.*too long.*2,000 characters/i)
    assert.notInclude(result.content[0]!.text, "Internal error")
    bin.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "search_arxiv_papers", arguments: { query: "sequence to sequence", max_results: 2 } }
    }))
    const ok = (await bin.reply(3)).result as { isError?: boolean; structuredContent: { papers: Array<unknown> } }
    assert.isNotTrue(ok.isError)
    assert.strictEqual(ok.structuredContent.papers.length, 2)
    assert.notInclude(bin.stderr(), "Maximum call stack")
    bin.child.stdin.end()
    assert.strictEqual(await bin.exited, 0)
  }, 60_000)

  it("refuses a frame over 4 MB in one line that says the limit, without reading it whole, and answers the next", async () => {
    const bin = startBin()
    children.push(bin.child)
    bin.send(initialize(1), "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
    await bin.reply(1)
    // a well-formed call, 6 MB long, sent in pieces as a pipe delivers it
    const frame = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "search_arxiv_papers", arguments: { query: "x".repeat(6_000_000) } }
    })
    for (let at = 0; at < frame.length; at += 1 << 20) bin.child.stdin.write(frame.slice(at, at + (1 << 20)))
    bin.send("", JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }))
    assert.deepStrictEqual((await bin.reply(3)).result, {})
    const refused = bin.nullReplies()
    assert.strictEqual(refused.length, 1)
    assert.strictEqual(refused[0]!.error?.code, -32600)
    assert.strictEqual(refused[0]!.error?.message, "Invalid Request: a message is at most 4,000,000 bytes; this one is longer")
    // the oversized call itself is never answered: it was not read
    assert.isUndefined(bin.replies.find((r) => r.id === 2))
    bin.child.stdin.end()
    assert.strictEqual(await bin.exited, 0)
  }, 60_000)

  it("refuses a prompt over 2,000 characters before any work, naming the limit, over the SDK's own stdio client", async () => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js")
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js")
    const vault = tempVault()
    const client = new Client({ name: "t", version: "0" })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, "--offline", "--vault", vault], stderr: "pipe" }))
    try {
      const prompt = `Find papers related to my 'Transformers Concept Note' ${"please ".repeat(150_000)}`
      const refused = (await client.callTool({ name: "run_companion", arguments: { prompt } })) as {
        isError?: boolean
        content: Array<{ text: string }>
      }
      assert.isTrue(refused.isError)
      assert.strictEqual(
        refused.content[0]!.text.split("\n")[0],
        `Invalid prompt: it is ${(prompt.length).toLocaleString("en-US")} characters long; at most 2,000 are accepted. ` +
          "Give a request naming your note, e.g. Find papers related to my 'Transformers' note"
      )
      const question = (await client.callTool({ name: "ask_arxiv", arguments: { question: "why? ".repeat(1000) } })) as {
        isError?: boolean
        content: Array<{ text: string }>
      }
      assert.isTrue(question.isError)
      assert.match(question.content[0]!.text, /^Invalid question: it is 5,000 characters long; at most 2,000 are accepted\./)
    } finally {
      await client.close()
    }
  }, 60_000)
})
