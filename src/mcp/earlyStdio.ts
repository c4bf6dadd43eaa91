/**
 * A stdio transport that starts before the MCP SDK is loaded: it reads
 * stdin at once, answers `initialize` (a static result, the same the SDK
 * gives), `ping` and, when given one, `tools/list` (a static copy checked
 * against the server by a test) itself, and holds every other message until the SDK
 * server connects; then it replays what it held, the `initialize` request
 * included (so the server learns the client's capabilities) with the
 * server's duplicate answer dropped. Only `node:` and type imports: loading
 * it costs nothing.
 *
 * @since 0.1.0
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"

type Message = JSONRPCMessage & { readonly id?: string | number; readonly method?: string; readonly params?: Record<string, unknown> }

/** Options of {@link earlyStdio}. */
export interface EarlyStdioOptions {
  /** The `initialize` result for the protocol version a client asks for. */
  readonly initialize: (requestedVersion: unknown) => Record<string, unknown>
  /** A static `tools/list` result (unpaginated) to answer before the server connects. */
  readonly toolsList?: Record<string, unknown> | undefined
  readonly stdin?: NodeJS.ReadableStream | undefined
  readonly stdout?: NodeJS.WritableStream | undefined
}

/** Start reading stdin now; connect an SDK server to the returned transport later. */
export const earlyStdio = (options: EarlyStdioOptions): Transport => {
  const stdin = options.stdin ?? process.stdin
  const stdout = options.stdout ?? process.stdout
  const held: Array<Message> = []
  const answered = new Set<string | number>()
  let connected = false
  let buffer = ""
  const write = (message: unknown) => stdout.write(`${JSON.stringify(message)}\n`)

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
      write(message)
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
      write({ jsonrpc: "2.0", id: m.id, result: options.initialize(m.params?.["protocolVersion"]) })
      answered.add(m.id)
    }
    held.push(m)
  }

  const onData = (chunk: Buffer | string) => {
    buffer += chunk.toString()
    let nl: number
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, "")
      buffer = buffer.slice(nl + 1)
      if (line.trim() === "") continue
      let message: Message
      try {
        message = JSON.parse(line) as Message
      } catch (e) {
        transport.onerror?.(e instanceof Error ? e : new Error(String(e)))
        continue
      }
      receive(message)
    }
  }
  stdin.on("data", onData)
  return transport
}
