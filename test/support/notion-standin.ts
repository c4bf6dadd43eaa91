/**
 * A loopback stand-in for the Notion API endpoints `ask --notion` uses, with
 * the request and answer shapes of Notion's API reference:
 * - `POST /v1/pages` (create a page under `parent.page_id`, with up to 100
 *   `children`) → a page object (`object: "page"`, `id`, `url`, `in_trash`);
 * - `PATCH /v1/blocks/{id}/children` (append up to 100 blocks) → a list
 *   object (`object: "list"`, `results`, `next_cursor`, `has_more`);
 * - `PATCH /v1/pages/{id}` with `in_trash` (or its deprecated alias
 *   `archived`) → the page object.
 * Every request needs `Authorization: Bearer <token>` and a `Notion-Version`
 * header. Errors are Notion's `{object: "error", status, code, message}`:
 * 401 `unauthorized`, 404 `object_not_found` (unknown parent or page), 400
 * `validation_error` (more than 100 children, rich text over 2,000
 * characters, unknown block type), 429 `rate_limited` with Retry-After, 5xx.
 *
 * Faults are queued with `failNext` and consumed by the next matching
 * request. The stand-in keeps every page's blocks, so a test can see what a
 * user would see.
 */
import * as http from "node:http"
import { randomUUID } from "node:crypto"
import { listenOnFreshPort } from "./loopback.js"

/** A fault for the next request of a kind ("create", "append", "update", or any). */
export interface NotionFault {
  readonly on?: "create" | "append" | "update" | undefined
  readonly status: number
  readonly code: string
  readonly message: string
  readonly retryAfter?: string | undefined
}

/** Ready-made faults. */
export const NotionFault = {
  rateLimited: (retryAfter = "0", on?: NotionFault["on"]): NotionFault => ({
    on,
    status: 429,
    code: "rate_limited",
    message: "You have been rate limited. Please try again in a few minutes.",
    retryAfter
  }),
  unavailable: (on?: NotionFault["on"]): NotionFault => ({ on, status: 503, code: "service_unavailable", message: "Notion is unavailable, please try again later." }),
  internal: (on?: NotionFault["on"]): NotionFault => ({ on, status: 500, code: "internal_server_error", message: "Unexpected error occurred." }),
  validation: (message: string, on?: NotionFault["on"]): NotionFault => ({ on, status: 400, code: "validation_error", message })
} as const

/** A page as the stand-in holds it. */
export interface StoredPage {
  readonly id: string
  readonly parent: string
  readonly title: string
  readonly blocks: Array<{ readonly type: string; readonly text: string; readonly links: ReadonlyArray<string> }>
  inTrash: boolean
}

/** A request as the stand-in saw it. */
export interface NotionRequest {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: Record<string, unknown>
  status?: number
}

/** A running stand-in. */
export interface NotionStandIn {
  /** The base URL to give the client (`baseUrl`), e.g. http://127.0.0.1:34567 */
  readonly url: string
  readonly token: string
  /** A page the integration can write under. */
  readonly parentPageId: string
  readonly pages: Map<string, StoredPage>
  readonly requests: Array<NotionRequest>
  readonly failNext: (...faults: ReadonlyArray<NotionFault>) => void
  readonly close: () => Promise<void>
}

const BLOCK_TYPES = new Set(["paragraph", "heading_1", "heading_2", "heading_3", "bulleted_list_item", "numbered_list_item", "quote", "callout", "divider", "code"])

const plainOf = (rich: unknown): { text: string; links: Array<string> } | string => {
  if (!Array.isArray(rich)) return "rich_text should be an array"
  if (rich.length > 100) return `rich_text.length should be ≤ \`100\`, instead was \`${rich.length}\`.`
  let text = ""
  const links: Array<string> = []
  for (const r of rich as Array<{ type?: string; text?: { content?: unknown; link?: { url?: string } | null } }>) {
    const content = r.text?.content
    if (typeof content !== "string") return "rich_text[].text.content should be defined"
    if (content.length > 2000) return `rich_text[].text.content.length should be ≤ \`2000\`, instead was \`${content.length}\`.`
    text += content
    if (r.text?.link?.url !== undefined) links.push(r.text.link.url)
  }
  return { text, links }
}

/** Validate blocks as Notion does; the message of the first problem, or the stored blocks. */
const readBlocks = (children: unknown): StoredPage["blocks"] | string => {
  if (!Array.isArray(children)) return "body.children should be an array"
  if (children.length > 100) return `body.children.length should be ≤ \`100\`, instead was \`${children.length}\`.`
  const out: Array<StoredPage["blocks"][number]> = []
  for (const [i, b] of (children as Array<Record<string, unknown>>).entries()) {
    const type = b["type"]
    if (typeof type !== "string" || !BLOCK_TYPES.has(type)) return `body.children[${i}].type should be a known block type, instead was \`${String(type)}\`.`
    const plain = plainOf((b[type] as { rich_text?: unknown } | undefined)?.rich_text)
    if (typeof plain === "string") return `body.children[${i}].${type}.${plain}`
    out.push({ type, text: plain.text, links: plain.links })
  }
  return out
}

/** Start the stand-in on 127.0.0.1 with an OS-chosen port. */
export const startNotionStandIn = async (token = "secret_standin_token_0123456789abcdef"): Promise<NotionStandIn> => {
  const pages = new Map<string, StoredPage>()
  const parentPageId = randomUUID()
  const requests: Array<NotionRequest> = []
  const faults: Array<NotionFault> = []

  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname
      let body: Record<string, unknown> = {}
      try {
        body = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        body = { invalid: true }
      }
      const entry: NotionRequest = { method: req.method ?? "", path, headers: req.headers, body }
      requests.push(entry)
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        entry.status = status
        res.writeHead(status, { "content-type": "application/json", ...headers })
        res.end(JSON.stringify(payload))
      }
      const error = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
        send(status, { object: "error", status, code, message, request_id: randomUUID() }, headers)

      if (req.headers["authorization"] !== `Bearer ${token}`) return error(401, "unauthorized", "API token is invalid.")
      if (typeof req.headers["notion-version"] !== "string") return error(400, "missing_version", "Notion-Version header failed validation.")
      const kind = req.method === "POST" && path === "/v1/pages"
        ? "create"
        : req.method === "PATCH" && /^\/v1\/blocks\/[^/]+\/children$/.test(path)
        ? "append"
        : req.method === "PATCH" && /^\/v1\/pages\/[^/]+$/.test(path)
        ? "update"
        : undefined
      if (kind === undefined) return error(400, "invalid_request_url", "Invalid request URL.")
      const at = faults.findIndex((f) => f.on === undefined || f.on === kind)
      if (at >= 0) {
        const f = faults.splice(at, 1)[0]!
        return error(f.status, f.code, f.message, f.retryAfter === undefined ? {} : { "retry-after": f.retryAfter })
      }
      const pageObject = (p: StoredPage) => ({
        object: "page",
        id: p.id,
        created_time: "2026-11-30T12:00:00.000Z",
        last_edited_time: "2026-11-30T12:00:00.000Z",
        in_trash: p.inTrash,
        archived: p.inTrash,
        parent: { type: "page_id", page_id: p.parent },
        properties: { title: { id: "title", type: "title", title: [{ type: "text", text: { content: p.title, link: null }, plain_text: p.title }] } },
        url: `https://www.notion.so/${p.title.replace(/[^A-Za-z0-9]+/g, "-")}-${p.id.replace(/-/g, "")}`
      })
      if (kind === "create") {
        const parent = (body["parent"] as { page_id?: string } | undefined)?.page_id
        if (parent !== parentPageId) {
          return error(404, "object_not_found", `Could not find page with ID: ${parent}. Make sure the relevant pages and databases are shared with your integration.`)
        }
        const title = plainOf((body["properties"] as { title?: { title?: unknown } } | undefined)?.title?.title)
        if (typeof title === "string") return error(400, "validation_error", `body.properties.title.title.${title}`)
        const blocks = readBlocks(body["children"] ?? [])
        if (typeof blocks === "string") return error(400, "validation_error", blocks)
        const page: StoredPage = { id: randomUUID(), parent, title: title.text, blocks: [...blocks], inTrash: false }
        pages.set(page.id, page)
        return send(200, pageObject(page))
      }
      const id = path.split("/")[3]!
      const page = pages.get(id)
      if (page === undefined) return error(404, "object_not_found", `Could not find block with ID: ${id}.`)
      if (kind === "append") {
        if (page.inTrash) return error(400, "validation_error", "Can't edit block that is archived. You must unarchive the block before editing.")
        const blocks = readBlocks(body["children"])
        if (typeof blocks === "string") return error(400, "validation_error", blocks)
        page.blocks.push(...blocks)
        return send(200, {
          object: "list",
          results: blocks.map((b) => ({ object: "block", id: randomUUID(), type: b.type })),
          next_cursor: null,
          has_more: false,
          type: "block",
          block: {}
        })
      }
      if (body["in_trash"] === true || body["archived"] === true) page.inTrash = true
      return send(200, pageObject(page))
    })
  })
  const port = await listenOnFreshPort(server)
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    parentPageId,
    pages,
    requests,
    failNext: (...more) => void faults.push(...more),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
