/**
 * Streamable HTTP for the MCP server: one session per client (each with its
 * own McpServer instance), all sessions on the same runtime. Binds 127.0.0.1
 * unless told otherwise, and checks the Host header against the bound
 * address (DNS-rebinding protection) on loopback.
 *
 * @since 0.1.0
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"

/** Options of {@link serveHttp}. */
export interface HttpOptions {
  /** Default 127.0.0.1. */
  readonly host?: string | undefined
  /** 0 picks a free port. */
  readonly port: number
  /** The endpoint path, default /mcp. */
  readonly path?: string | undefined
  /** Largest request body accepted, default 4 MB. */
  readonly maxBodyBytes?: number | undefined
  readonly log?: ((line: string) => void) | undefined
}

/** A running HTTP binding. */
export interface HttpBinding {
  readonly server: Server
  readonly url: string
  readonly close: () => Promise<void>
}

const readBody = (req: IncomingMessage, max: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (c: Buffer) => {
      size += c.length
      if (size > max) {
        reject(new Error("body too large"))
        req.destroy()
      } else chunks.push(c)
    })
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const jsonError = (res: ServerResponse, status: number, code: number, message: string) => {
  if (res.headersSent) return
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }))
}

const isLoopback = (host: string) => host === "127.0.0.1" || host === "localhost" || host === "::1"

/**
 * Serve MCP over Streamable HTTP at `http://host:port/mcp`. `makeServer` is
 * called once per session; it should close over one shared runtime.
 */
export const serveHttp = (makeServer: () => McpServer, options: HttpOptions): Promise<HttpBinding> => {
  const host = options.host ?? "127.0.0.1"
  const path = options.path ?? "/mcp"
  const max = options.maxBodyBytes ?? 4_000_000
  const log = options.log ?? (() => undefined)
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>()
  let allowedHosts: Array<string> | undefined

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    if (url.pathname !== path) {
      res.writeHead(404, { "content-type": "text/plain" }).end(`Not found. The MCP endpoint is ${path}.`)
      return
    }
    const sessionId = req.headers["mcp-session-id"]
    const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined
    if (req.method === "POST") {
      let body: unknown
      try {
        body = JSON.parse(await readBody(req, max))
      } catch {
        return jsonError(res, 400, -32700, "Parse error: the body must be JSON-RPC")
      }
      if (existing !== undefined) return existing.transport.handleRequest(req, res, body)
      if (sessionId !== undefined) return jsonError(res, 404, -32001, "Session not found: initialize again")
      if (!isInitializeRequest(body)) return jsonError(res, 400, -32000, "Bad Request: no session; send initialize first")
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, server })
        },
        ...(allowedHosts === undefined ? {} : { enableDnsRebindingProtection: true, allowedHosts })
      })
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
      }
      const server = makeServer()
      await server.connect(transport)
      return transport.handleRequest(req, res, body)
    }
    if (req.method === "GET" || req.method === "DELETE") {
      if (existing === undefined) return jsonError(res, 400, -32000, "Bad Request: unknown or missing mcp-session-id")
      return existing.transport.handleRequest(req, res)
    }
    res.writeHead(405, { allow: "GET, POST, DELETE" }).end()
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log(`HTTP request failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`)
      jsonError(res, 500, -32603, "Internal error")
    })
  })

  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port, host, () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : options.port
      if (isLoopback(host)) allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]
      const shownHost = host.includes(":") ? `[${host}]` : host
      resolve({
        server,
        url: `http://${shownHost}:${port}${path}`,
        close: async () => {
          await Promise.all([...sessions.values()].map((s) => s.server.close().catch(() => undefined)))
          sessions.clear()
          await new Promise<void>((r) => server.close(() => r()))
        }
      })
    })
  })
}
