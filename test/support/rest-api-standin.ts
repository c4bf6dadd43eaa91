/**
 * A loopback stand-in for the Obsidian Local REST API plugin, over a folder.
 *
 * It follows the plugin's documented HTTP interface (coddingtonbear/
 * obsidian-local-rest-api 5.x; see ../shared/OBSIDIAN.md):
 * - `GET /` status without auth: {status, service, authenticated, versions, manifest}
 * - bearer auth on everything else; errors as JSON {message, errorCode} with
 *   HTTP status = errorCode / 100 (401 → 40101, 404 → 40400)
 * - `GET /vault/{path}` raw Markdown, or NoteJson with
 *   `Accept: application/vnd.olrapi.note+json`; `HEAD` with Content-Length
 * - `PUT /vault/{path}` write (creates folders, 204); `POST /vault/{path}` append (204)
 * - `GET /vault/` and `GET /vault/{dir}/` → {files: ["a.md", "sub/"]}
 * - `POST /search/simple/?query=...&contextLength=100` → [{filename, score, matches}]
 * - `/mcp/`: the plugin's Streamable HTTP MCP endpoint (plugin ≥ 4.0), same
 *   bearer key, session per client, tools vault_list, vault_read, vault_write,
 *   search_simple answering as the plugin does (JSON text; a missing file is an
 *   error result "File not found: <path>").
 *
 * Only what the companion and the MCP servers it drives need; enough to run
 * obsidian-mcp-server 2.0.7 against it.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Http from "node:http"
import * as Https from "node:https"
import * as Path from "node:path"
import { z } from "zod"
import { listenOnFreshPort } from "./loopback.js"

/** Options of the stand-in. */
export interface StandInOptions {
  /** The vault folder it serves. */
  readonly root: string
  /** The key it accepts as `Authorization: Bearer <key>`. */
  readonly apiKey: string
  /** Serve HTTPS with this key and certificate (the plugin's default, self-signed) instead of HTTP. */
  readonly tls?: { readonly key: string; readonly cert: string }
  /**
   * Close the connection, unanswered, when the n-th MCP `tools/call` (1-based) arrives, as a server does when it
   * closes an idle keep-alive connection just as a request goes out on it.
   */
  readonly dropToolCall?: (n: number) => boolean
}

/** A running stand-in. */
export interface StandIn {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string
  /** The MCP endpoint, `${url}/mcp/`. */
  readonly mcpUrl: string
  /** "METHOD /path" of every request served, in order. */
  readonly requests: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

class HttpFailure extends Error {
  constructor(readonly errorCode: number, message: string) {
    super(message)
  }
}

const notFound = () => new HttpFailure(40400, "Not Found")

/** Vault operations over the folder, shared by the REST routes and the MCP tools. */
const vaultOps = (root: string) => {
  const resolve = (vaultPath: string): string => {
    const clean = vaultPath.replace(/^\/+/, "")
    const full = Path.resolve(root, clean)
    if (full !== root && !full.startsWith(root + Path.sep)) throw new HttpFailure(40000, "Path escapes the vault")
    return full
  }
  const isHidden = (name: string) => name.startsWith(".")
  return {
    resolve,
    async read(vaultPath: string): Promise<{ content: string; mtime: number; ctime: number; size: number }> {
      const file = resolve(vaultPath)
      const stat = await Fs.stat(file).catch(() => undefined)
      if (stat === undefined || !stat.isFile()) throw notFound()
      const content = await Fs.readFile(file, "utf8")
      return { content, mtime: stat.mtimeMs, ctime: stat.ctimeMs, size: stat.size }
    },
    async write(vaultPath: string, content: string): Promise<void> {
      const file = resolve(vaultPath)
      await Fs.mkdir(Path.dirname(file), { recursive: true })
      await Fs.writeFile(file, content, "utf8")
    },
    async append(vaultPath: string, content: string): Promise<void> {
      const file = resolve(vaultPath)
      await Fs.mkdir(Path.dirname(file), { recursive: true })
      await Fs.appendFile(file, content, "utf8")
    },
    async list(dir: string): Promise<Array<string>> {
      const folder = resolve(dir)
      const entries = await Fs.readdir(folder, { withFileTypes: true }).catch(() => undefined)
      if (entries === undefined) throw notFound()
      const names = entries
        .filter((e) => !isHidden(e.name))
        .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
        .sort()
      // like the plugin, a folder with nothing in it is "not found"
      if (names.length === 0 && dir.replace(/\/+$/, "") !== "") throw notFound()
      return names
    },
    async allFiles(): Promise<Array<string>> {
      const out: Array<string> = []
      const walk = async (dir: string, prefix: string) => {
        for (const e of await Fs.readdir(dir, { withFileTypes: true })) {
          if (isHidden(e.name)) continue
          const rel = prefix === "" ? e.name : `${prefix}/${e.name}`
          if (e.isDirectory()) await walk(Path.join(dir, e.name), rel)
          else out.push(rel)
        }
      }
      await walk(root, "")
      return out.sort()
    },
    async search(query: string, contextLength: number) {
      const needle = query.toLowerCase()
      const results: Array<{ filename: string; score: number; matches: Array<{ match: { start: number; end: number }; context: string }> }> = []
      for (const filename of await this.allFiles()) {
        if (!filename.endsWith(".md")) continue
        const text = await Fs.readFile(resolve(filename), "utf8")
        const lower = text.toLowerCase()
        const matches: Array<{ match: { start: number; end: number }; context: string }> = []
        for (let at = lower.indexOf(needle); at >= 0 && needle.length > 0; at = lower.indexOf(needle, at + needle.length)) {
          matches.push({
            match: { start: at, end: at + needle.length },
            context: text.slice(Math.max(0, at - contextLength), at + needle.length + contextLength)
          })
        }
        if (matches.length > 0) results.push({ filename, score: -matches.length, matches })
      }
      return results.sort((a, b) => a.score - b.score)
    }
  }
}

const frontmatterOf = (content: string): Record<string, string> => {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(content)
  const out: Record<string, string> = {}
  if (m === null) return out
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^([A-Za-z_][\w-]*):\s*(.*)$/.exec(line)
    if (kv !== null) out[kv[1]!] = kv[2]!
  }
  return out
}

/** Start the stand-in on 127.0.0.1, a free port. */
export const startRestApiStandIn = async (options: StandInOptions): Promise<StandIn> => {
  const root = await Fs.realpath(options.root)
  const ops = vaultOps(root)
  const requests: Array<string> = []
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  let toolCalls = 0

  const buildMcpServer = () => {
    const server = new McpServer({ name: "obsidian-local-rest-api", version: "1.0.0" })
    const text = (data: unknown) => ({
      content: [{ type: "text" as const, text: typeof data === "string" ? data : JSON.stringify(data, null, 2) }]
    })
    server.tool(
      "vault_list",
      "List files and subdirectories inside a vault directory.",
      { path: z.string().optional() },
      async ({ path }) => text({ files: await ops.list(path ?? "") })
    )
    server.tool("vault_read", "Read a vault file's content and metadata.", { path: z.string() }, async ({ path }) => {
      const note = await ops.read(path).catch((e) => {
        if (e instanceof HttpFailure && e.errorCode === 40400) throw new Error(`File not found: ${path}`)
        throw e
      })
      return text({
        content: note.content,
        path,
        tags: [],
        frontmatter: frontmatterOf(note.content),
        stat: { ctime: note.ctime, mtime: note.mtime, size: note.size },
        links: [],
        backlinks: []
      })
    })
    server.tool(
      "vault_write",
      "Create or overwrite a vault file with the given content.",
      { path: z.string(), content: z.string() },
      async ({ content, path }) => {
        await ops.write(path, content)
        return text({ message: "OK" })
      }
    )
    server.tool(
      "search_simple",
      "Search vault files using Obsidian's built-in simple search.",
      { query: z.string(), contextLength: z.number().optional() },
      async ({ contextLength, query }) => text(await ops.search(query, contextLength ?? 100))
    )
    return server
  }

  const sendError = (res: Http.ServerResponse, failure: HttpFailure) => {
    res.writeHead(Math.floor(failure.errorCode / 100), { "Content-Type": "application/json" })
    res.end(JSON.stringify({ message: failure.message, errorCode: failure.errorCode }))
  }

  const readBody = (req: Http.IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
      req.on("error", reject)
    })

  const authorized = (req: Http.IncomingMessage) => req.headers.authorization === `Bearer ${options.apiKey}`

  const handle = async (req: Http.IncomingMessage, res: Http.ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    const method = req.method ?? "GET"
    requests.push(`${method} ${url.pathname}`)
    if (url.pathname === "/" && method === "GET") {
      res.writeHead(200, { "Content-Type": "application/json" })
      res.end(JSON.stringify({
        status: "OK",
        service: "Obsidian Local REST API",
        authenticated: authorized(req),
        versions: { obsidian: "1.8.10", self: "5.1.0" },
        manifest: { id: "obsidian-local-rest-api", name: "Local REST API", version: "5.1.0" }
      }))
      return
    }
    if (!authorized(req)) return sendError(res, new HttpFailure(40101, "Authorization required"))

    if (url.pathname === "/mcp" || url.pathname === "/mcp/") {
      const sessionId = req.headers["mcp-session-id"]
      if (typeof sessionId === "string") {
        const transport = sessions.get(sessionId)
        if (transport === undefined) {
          res.writeHead(404, { "Content-Type": "application/json" })
          res.end(JSON.stringify({ error: "Session not found" }))
          return
        }
        if (options.dropToolCall !== undefined && req.method === "POST") {
          const chunks: Array<Buffer> = []
          for await (const chunk of req) chunks.push(chunk as Buffer)
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { method?: unknown }
          if (body.method === "tools/call" && options.dropToolCall(++toolCalls)) {
            req.socket.destroy()
            return
          }
          await transport.handleRequest(req, res, body)
          return
        }
        await transport.handleRequest(req, res)
        return
      }
      const server = buildMcpServer()
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, transport)
        }
      })
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
      }
      await server.connect(transport)
      await transport.handleRequest(req, res)
      return
    }

    if (url.pathname === "/search/simple/" && method === "POST") {
      const query = url.searchParams.get("query") ?? ""
      const contextLength = Number(url.searchParams.get("contextLength") ?? "100")
      const results = await ops.search(query, contextLength)
      res.writeHead(200, { "Content-Type": "application/json" })
      res.end(JSON.stringify(results))
      return
    }

    if (url.pathname.startsWith("/vault/")) {
      const raw = url.pathname.slice("/vault/".length)
      const vaultPath = raw.split("/").map((s) => decodeURIComponent(s)).join("/")
      if (vaultPath.split("/").some((s) => s === "..")) throw new HttpFailure(40000, "Path escapes the vault")
      if (vaultPath === "" || vaultPath.endsWith("/")) {
        if (method !== "GET") throw new HttpFailure(40500, "Method Not Allowed")
        const files = await ops.list(vaultPath)
        res.writeHead(200, { "Content-Type": "application/json" })
        res.end(JSON.stringify({ files }))
        return
      }
      switch (method) {
        case "GET":
        case "HEAD": {
          const note = await ops.read(vaultPath)
          const asJson = req.headers.accept === "application/vnd.olrapi.note+json"
          const body = asJson
            ? JSON.stringify({
              path: vaultPath,
              content: note.content,
              frontmatter: frontmatterOf(note.content),
              tags: [],
              stat: { ctime: note.ctime, mtime: note.mtime, size: note.size }
            })
            : note.content
          res.writeHead(200, {
            "Content-Type": asJson ? "application/vnd.olrapi.note+json" : "text/markdown; charset=utf-8",
            "Content-Length": Buffer.byteLength(body),
            "x-obsidian-mtime": String(note.mtime / 1000),
            "x-obsidian-ctime": String(note.ctime / 1000)
          })
          res.end(method === "HEAD" ? undefined : body)
          return
        }
        case "PUT":
          await ops.write(vaultPath, await readBody(req))
          res.writeHead(204).end()
          return
        case "POST":
          await ops.append(vaultPath, await readBody(req))
          res.writeHead(204).end()
          return
        default:
          throw new HttpFailure(40500, "Method Not Allowed")
      }
    }
    throw notFound()
  }

  const listener = (req: Http.IncomingMessage, res: Http.ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return res.end()
      sendError(res, error instanceof HttpFailure ? error : new HttpFailure(50000, String(error)))
    })
  }
  const server = options.tls === undefined
    ? Http.createServer(listener)
    : Https.createServer({ key: options.tls.key, cert: options.tls.cert }, listener)
  const port = await listenOnFreshPort(server)
  const url = `${options.tls === undefined ? "http" : "https"}://127.0.0.1:${port}`
  return {
    url,
    mcpUrl: `${url}/mcp/`,
    requests,
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => undefined)
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

/** The stand-in as a scoped resource: closed when the scope closes. */
export const restApiStandIn = (options: StandInOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => startRestApiStandIn(options)),
    (standIn) => Effect.promise(() => standIn.close())
  )
