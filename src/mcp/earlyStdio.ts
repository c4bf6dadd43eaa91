/**
 * A stdio transport that starts before the MCP SDK is loaded: it reads
 * stdin at once, answers `initialize` (a static result, the same the SDK
 * gives), `ping` and, when given one, `tools/list` (a static copy checked
 * against the server by a test) itself, and holds every other message until the SDK
 * server connects; then it replays what it held, the `initialize` request
 * included (so the server learns the client's capabilities) with the
 * server's duplicate answer dropped. The `initialize` result may come later
 * (a promise: the setup is still being read); what is written after it waits
 * for it, so answers keep their order. A frame over 4 MB is refused at once
 * and skipped, never held. Only `node:` and type imports (and the limits,
 * which import nothing): loading it costs nothing.
 *
 * @since 0.1.0
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { MAX_REQUEST_BYTES, shownSize } from "../core/limits.js"

type Message = JSONRPCMessage & { readonly id?: string | number; readonly method?: string; readonly params?: Record<string, unknown> }

/** Options of {@link earlyStdio}. */
export interface EarlyStdioOptions {
  /** The `initialize` result for the protocol version a client asks for (now, or when the setup is known). */
  readonly initialize: (requestedVersion: unknown) => Record<string, unknown> | Promise<Record<string, unknown>>
  /** A static `tools/list` result (unpaginated) to answer before the server connects. */
  readonly toolsList?: Record<string, unknown> | undefined
  readonly stdin?: NodeJS.ReadableStream | undefined
  readonly stdout?: NodeJS.WritableStream | undefined
}

const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600
const INVALID_PARAMS = -32602
const INTERNAL_ERROR = -32603

const errorReply = (id: string | number | null, code: number, message: string) => ({
  jsonrpc: "2.0" as const,
  id,
  error: { code, message }
})

const isId = (id: unknown): id is string | number => typeof id === "string" || (typeof id === "number" && Number.isFinite(id))

/**
 * What to do with one parsed frame: pass a well-formed message on, or answer
 * the JSON-RPC error it deserves (`reply` undefined: a notification, which
 * gets no answer, is dropped). Checked here, before the SDK sees anything, so
 * no frame can crash the reader or leave a request unanswered.
 */
const checkFrame = (
  value: unknown
): { readonly _tag: "Message"; readonly message: Message } | { readonly _tag: "Reject"; readonly reply?: unknown } => {
  const invalid = (reason: string, id: string | number | null = null) =>
    ({ _tag: "Reject", reply: errorReply(id, INVALID_REQUEST, `Invalid Request: ${reason}`) }) as const
  if (Array.isArray(value)) return invalid("batches are not supported; send one message per line")
  if (typeof value !== "object" || value === null) return invalid("a message must be a JSON object")
  const m = value as Record<string, unknown>
  const hasId = "id" in m
  if (hasId && !isId(m["id"])) return invalid("id must be a string or a number")
  const id = hasId ? (m["id"] as string | number) : null
  if (m["jsonrpc"] !== "2.0") return invalid("jsonrpc must be \"2.0\"", id)
  if ("method" in m) {
    if (typeof m["method"] !== "string" || m["method"] === "") return invalid("method must be a non-empty string", id)
    const params = m["params"]
    if ("params" in m && (typeof params !== "object" || params === null || Array.isArray(params))) {
      return hasId
        ? { _tag: "Reject", reply: errorReply(id, INVALID_PARAMS, "Invalid params: params must be an object of named parameters") }
        : { _tag: "Reject" }
    }
    return { _tag: "Message", message: m as unknown as Message }
  }
  // a response to one of the server's requests
  if (hasId && ("result" in m || "error" in m)) return { _tag: "Message", message: m as unknown as Message }
  return invalid("a message needs a method (request, notification) or a result/error (response)", id)
}

/** Start reading stdin now; connect an SDK server to the returned transport later. */
export const earlyStdio = (options: EarlyStdioOptions): Transport => {
  const stdin = options.stdin ?? process.stdin
  const stdout = options.stdout ?? process.stdout
  const held: Array<Message> = []
  const answered = new Set<string | number>()
  let connected = false
  // every write goes through this chain: nothing overtakes an initialize answer still being made
  let written: Promise<unknown> = Promise.resolve()
  const writeLater = (message: () => unknown | Promise<unknown>) => {
    written = written.then(async () => stdout.write(`${JSON.stringify(await message())}\n`))
    return written
  }
  const write = (message: unknown) => void writeLater(() => message)

  const transport: Transport = {
    start: async () => {
      connected = true
      for (const message of held.splice(0)) transport.onmessage?.(message)
    },
    send: async (message) => {
      const m = message as Message
      // the answer to an initialize we already answered
      if (m.id !== undefined && answered.has(m.id) && m.method === undefined) {
        answered.delete(m.id)
        return
      }
      await writeLater(() => message)
    },
    close: async () => {
      stdin.off("data", onData)
      stdin.pause()
      transport.onclose?.()
    }
  }

  const receive = (m: Message) => {
    if (connected) return void transport.onmessage?.(m)
    if (m.method === "ping" && m.id !== undefined) return void write({ jsonrpc: "2.0", id: m.id, result: {} })
    if (m.method === "tools/list" && m.id !== undefined && options.toolsList !== undefined && m.params?.["cursor"] === undefined) {
      return void write({ jsonrpc: "2.0", id: m.id, result: options.toolsList })
    }
    if (m.method === "initialize" && m.id !== undefined) {
      const id = m.id
      void writeLater(async () => {
        try {
          return { jsonrpc: "2.0", id, result: await options.initialize(m.params?.["protocolVersion"]) }
        } catch (e) {
          return errorReply(id, INTERNAL_ERROR, `Internal error: ${e instanceof Error ? e.message : String(e)}`)
        }
      })
      answered.add(id)
    }
    held.push(m)
  }

  const onLine = (line: string) => {
    if (line.trim() === "") return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      write(errorReply(null, PARSE_ERROR, "Parse error: each line must be one JSON-RPC 2.0 message"))
      return
    }
    const checked = checkFrame(value)
    if (checked._tag === "Message") receive(checked.message)
    else if (checked.reply !== undefined) write(checked.reply)
  }

  // the bytes of the line not yet ended, at most MAX_REQUEST_BYTES; past that the frame is refused at
  // once and the rest of it skipped up to its newline, never held
  let pending: Array<Buffer> = []
  let pendingBytes = 0
  let skipping = false
  const refuseTooLarge = () => {
    pending = []
    pendingBytes = 0
    write(errorReply(null, INVALID_REQUEST, `Invalid Request: a message is at most ${shownSize(MAX_REQUEST_BYTES)} bytes; this one is longer`))
  }
  const onData = (chunk: Buffer | string) => {
    let data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
    let nl: number
    while ((nl = data.indexOf(0x0a)) >= 0) {
      const end = data.subarray(0, nl)
      data = data.subarray(nl + 1)
      if (skipping) {
        skipping = false
        continue
      }
      if (pendingBytes + end.length > MAX_REQUEST_BYTES) {
        refuseTooLarge()
        continue
      }
      const line = (pending.length === 0 ? end : Buffer.concat([...pending, end])).toString("utf8")
      pending = []
      pendingBytes = 0
      onLine(line.replace(/\r$/, ""))
    }
    if (data.length === 0 || skipping) return
    if (pendingBytes + data.length > MAX_REQUEST_BYTES) {
      refuseTooLarge()
      skipping = true
      return
    }
    pending.push(data)
    pendingBytes += data.length
  }
  stdin.on("data", onData)
  return transport
}
