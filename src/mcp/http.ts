/**
 * Streamable HTTP for the MCP server: one session per client (each with its
 * own McpServer instance), all sessions on the same runtime.
 *
 * Safe by default: binds 127.0.0.1; checks the Host header on loopback (DNS
 * rebinding) and the Origin header always (a browser page may only call from
 * the server's own origin or one allowed explicitly; clients that send no
 * Origin are not browsers); requires `Authorization: Bearer <token>` whenever
 * a token is set, and refuses to bind anything but loopback without one;
 * limits the number of sessions so that nobody can lock the others out: a
 * session that never made a call after `initialize` expires after a minute,
 * a new client takes the place of the oldest idle session when all are
 * taken, and one client (its address and `clientInfo.name`) holds at most a
 * quarter of the places, its own oldest idle session making room for its
 * next; closes idle ones, and answers 413 for a body over the limit.
 *
 * @since 0.1.0
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { announcesTooLarge, BodyTooLarge, bearerToken, isLoopback, MAX_BODY_BYTES, readBody, tokenMatches } from "../http/guard.js"

/** Options of {@link serveHttp}. */
export interface HttpOptions {
  /** Default 127.0.0.1. Any other address needs a `token`. */
  readonly host?: string | undefined
  /** 0 picks a free port. */
  readonly port: number
  /** The endpoint path, default /mcp. */
  readonly path?: string | undefined
  /** Largest request body accepted, default 4 MB; larger ones get 413. */
  readonly maxBodyBytes?: number | undefined
  /**
   * The bearer token every request must carry (`Authorization: Bearer <token>`).
   * Required when `host` is not a loopback address.
   */
  readonly token?: string | undefined
  /**
   * Origins a browser may call from, besides the server's own
   * (`http://127.0.0.1:<port>`, `http://localhost:<port>`, ...).
   */
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
  /**
   * Sessions open at once, default 32. When all are taken, a new `initialize`
   * closes the oldest idle session (one never used first); only when every
   * session has a request in flight does it get 503.
   */
  readonly maxSessions?: number | undefined
  /** Sessions one client (remote address and `clientInfo.name`) holds at once, default a quarter of `maxSessions`. */
  readonly maxSessionsPerClient?: number | undefined
  /** A session without a request for this long is closed, default 30 minutes. */
  readonly sessionIdleMillis?: number | undefined
  /** A session that made no call after `initialize` is closed after this long, default 60 s. */
  readonly unusedSessionMillis?: number | undefined
  /** The clock sessions age by (milliseconds), default Date.now. */
  readonly now?: (() => number) | undefined
  readonly log?: ((line: string) => void) | undefined
}

/** A running HTTP binding. */
export interface HttpBinding {
  readonly server: Server
  readonly url: string
  readonly close: () => Promise<void>
}

const jsonError = (res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}) => {
  if (res.headersSent) return
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }))
}

const isInitializedNotification = (body: unknown): boolean =>
  typeof body === "object" && body !== null && (body as { method?: unknown }).method === "notifications/initialized"

/** The client's name as its `initialize` gives it (`clientInfo.name`), at most 100 characters. */
const clientName = (body: unknown): string => {
  const name = (body as { params?: { clientInfo?: { name?: unknown } } }).params?.clientInfo?.name
  return typeof name === "string" ? name.slice(0, 100) : ""
}

/** Whether `host` is a loopback address (the only binds allowed without a token). */
export { isLoopback }

/**
 * Serve MCP over Streamable HTTP at `http://host:port/mcp`. `makeServer` is
 * called once per session; it should close over one shared runtime.
 * Rejects when `host` is not loopback and no `token` is given.
 */
export const serveHttp = (makeServer: () => McpServer, options: HttpOptions): Promise<HttpBinding> => {
  const host = options.host ?? "127.0.0.1"
  const path = options.path ?? "/mcp"
  const max = options.maxBodyBytes ?? MAX_BODY_BYTES
  const maxSessions = Math.max(1, options.maxSessions ?? 32)
  const perClient = Math.max(1, Math.min(maxSessions, options.maxSessionsPerClient ?? Math.floor(maxSessions / 4)))
  const idleMillis = options.sessionIdleMillis ?? 30 * 60_000
  const unusedMillis = Math.min(idleMillis, options.unusedSessionMillis ?? 60_000)
  const now = options.now ?? Date.now
  const log = options.log ?? (() => undefined)
  const token = options.token === undefined || options.token === "" ? undefined : options.token
  const loopback = isLoopback(host)
  if (!loopback && token === undefined) {
    return Promise.reject(new Error(`binding ${host} (not loopback) needs a bearer token`))
  }
  interface Session {
    readonly transport: StreamableHTTPServerTransport
    readonly server: McpServer
    /** Who opened it: the remote address and the client's name, as `initialize` gave it. */
    readonly client: string
    lastSeen: number
    active: number
    /** Whether a request other than `initialize` (and its `initialized` notification) came. */
    used: boolean
  }
  const sessions = new Map<string, Session>()
  let pending = 0
  let allowedHosts: ReadonlySet<string> = new Set()
  let allowedOrigins: ReadonlySet<string> = new Set(options.allowedOrigins ?? [])

  const closeSession = (id: string, session: Session) => {
    sessions.delete(id)
    void session.server.close().catch(() => undefined)
  }

  /**
   * Close sessions without a request for longer than allowed (a session with a
   * request in flight is never idle; an open GET stream does not count). A
   * client of a closed session gets 404 and, as the MCP spec asks, initializes again.
   */
  const sweep = () => {
    const t = now()
    for (const [id, session] of sessions) {
      const limit = session.used ? idleMillis : unusedMillis
      if (session.active === 0 && t - session.lastSeen > limit) {
        log(`closed session ${id.slice(0, 8)}… after ${Math.round((t - session.lastSeen) / 1000)} s ${session.used ? "idle" : "unused"}`)
        closeSession(id, session)
      }
    }
  }

  /**
   * Make room for a new session of `client`: at its own limit, its oldest idle
   * session goes; when every place is taken, the oldest idle session of
   * anyone (one never used before one in use). Otherwise why not: every
   * candidate has a request in flight.
   */
  const makeRoom = (client: string): string | undefined => {
    const idle = (of?: string) =>
      [...sessions].filter(([, s]) => s.active === 0 && (of === undefined || s.client === of))
        .sort(([, a], [, b]) => Number(a.used) - Number(b.used) || a.lastSeen - b.lastSeen)[0]
    const own = [...sessions.values()].filter((s) => s.client === client).length
    if (own >= perClient) {
      const oldest = idle(client)
      if (oldest === undefined) return `Too many sessions for this client (${perClient}, each with a request in flight): try again when one ends`
      log(`closed session ${oldest[0].slice(0, 8)}…: its client opened another (at most ${perClient} per client)`)
      closeSession(...oldest)
    }
    if (sessions.size + pending >= maxSessions) {
      const oldest = idle()
      if (oldest === undefined) return `Too many sessions (${maxSessions} open, each with a request in flight): try again when one ends`
      log(`closed session ${oldest[0].slice(0, 8)}… (${oldest[1].used ? "idle" : "unused"}) to make room for a new client`)
      closeSession(...oldest)
    }
    return sessions.size + pending < maxSessions ? undefined : `Too many sessions (${maxSessions} open): try again when one ends`
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    if (url.pathname !== path) {
      res.writeHead(404, { "content-type": "text/plain" }).end(`Not found. The MCP endpoint is ${path}.`)
      return
    }
    if (loopback && !allowedHosts.has((req.headers.host ?? "").toLowerCase())) {
      return jsonError(res, 403, -32000, "Forbidden: Host header not allowed (DNS-rebinding protection)")
    }
    const origin = req.headers.origin
    if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase())) {
      return jsonError(res, 403, -32000, `Forbidden: Origin ${origin} is not allowed`)
    }
    if (token !== undefined) {
      const presented = bearerToken(req.headers.authorization)
      if (presented === undefined || !tokenMatches(presented, token)) {
        return jsonError(res, 401, -32001, "Unauthorized: send Authorization: Bearer <token>", {
          "www-authenticate": "Bearer realm=\"arxiv-companion-mcp\""
        })
      }
    }
    sweep()
    const sessionId = req.headers["mcp-session-id"]
    const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined
    if (existing !== undefined) existing.lastSeen = now()
    // a request in flight (a long tool call) keeps its session; an open GET stream alone does not
    if (existing !== undefined && req.method !== "GET") {
      existing.active++
      res.on("close", () => {
        existing.active--
        existing.lastSeen = now()
      })
    }
    if (req.method === "POST") {
      const tooLarge = () => jsonError(res, 413, -32600, new BodyTooLarge(max).message, { connection: "close" })
      if (announcesTooLarge(req.headers["content-length"], max)) return tooLarge()
      let body: unknown
      try {
        body = JSON.parse(await readBody(req, max))
      } catch (e) {
        if (e instanceof BodyTooLarge) return tooLarge()
        return jsonError(res, 400, -32700, "Parse error: the body must be JSON-RPC")
      }
      if (existing !== undefined) {
        if (!isInitializedNotification(body)) existing.used = true
        return existing.transport.handleRequest(req, res, body)
      }
      if (sessionId !== undefined) return jsonError(res, 404, -32001, "Session not found: initialize again")
      if (!isInitializeRequest(body)) return jsonError(res, 400, -32000, "Bad Request: no session; send initialize first")
      const client = `${req.socket.remoteAddress ?? ""} ${clientName(body)}`
      const full = makeRoom(client)
      if (full !== undefined) return jsonError(res, 503, -32000, full, { "retry-after": "10" })
      pending++
      let counted = true
      const uncount = () => {
        if (counted) pending--
        counted = false
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          uncount()
          sessions.set(id, { transport, server, client, lastSeen: now(), active: 0, used: false })
        }
      })
      transport.onclose = () => {
        uncount()
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
      }
      const server = makeServer()
      try {
        await server.connect(transport)
        await transport.handleRequest(req, res, body)
      } finally {
        uncount()
      }
      return
    }
    if (req.method === "GET" || req.method === "DELETE") {
      if (existing === undefined) {
        return typeof sessionId === "string"
          ? jsonError(res, 404, -32001, "Session not found: initialize again")
          : jsonError(res, 400, -32000, "Bad Request: missing mcp-session-id")
      }
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
  const sweeper = setInterval(sweep, Math.max(1000, Math.min(60_000, Math.floor(idleMillis / 2))))
  sweeper.unref()

  return new Promise((resolve, reject) => {
    server.once("error", (e) => {
      clearInterval(sweeper)
      reject(e)
    })
    server.listen(options.port, host, () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : options.port
      const names = ["127.0.0.1", "localhost", "[::1]"]
      const shownHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host
      if (!names.includes(shownHost)) names.push(shownHost)
      allowedHosts = new Set(names.map((n) => `${n}:${port}`.toLowerCase()))
      allowedOrigins = new Set([
        ...allowedOrigins,
        ...names.flatMap((n) => [`http://${n}:${port}`, `https://${n}:${port}`])
      ].map((o) => o.toLowerCase().replace(/\/+$/, "")))
      resolve({
        server,
        url: `http://${shownHost}:${port}${path}`,
        close: async () => {
          clearInterval(sweeper)
          await Promise.all([...sessions.values()].map((s) => s.server.close().catch(() => undefined)))
          sessions.clear()
          server.closeAllConnections()
          await new Promise<void>((r) => server.close(() => r()))
        }
      })
    })
  })
}
