/**
 * Request checks shared by the HTTP faces (the local page, the MCP HTTP face):
 * loopback binds, the `Host` header (DNS-rebinding protection), the `Origin`
 * header (no other site's page may call), and a bearer token compared in
 * constant time. Plain functions over header values, so any server can use them.
 *
 * @since 0.1.0
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import type { IncomingMessage } from "node:http"
import { MAX_REQUEST_BYTES, shownSize } from "../core/limits.js"

/**
 * The largest request body either HTTP face reads (4 MB, src/core/limits.ts):
 * a larger one gets 413 before it is read further, so a token holder cannot
 * fill the memory.
 */
export const MAX_BODY_BYTES = MAX_REQUEST_BYTES

/** A request body over the limit: answer 413 (with `connection: close`). */
export class BodyTooLarge extends Error {
  constructor(readonly max: number) {
    super(`Request body too large: at most ${shownSize(max)} bytes`)
  }
}

/** Whether a request announces a body over `max` bytes (`content-length`), before any of it is read. */
export const announcesTooLarge = (contentLength: string | undefined, max: number = MAX_BODY_BYTES): boolean =>
  Number(contentLength ?? "0") > max

/**
 * Read a request body as UTF-8 text, at most `max` bytes: past the limit,
 * reading stops (the request is paused, nothing more is kept) and the
 * promise rejects with {@link BodyTooLarge}.
 */
export const readBody = (req: IncomingMessage, max: number = MAX_BODY_BYTES): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    let done = false
    req.on("data", (c: Buffer) => {
      if (done) return
      size += c.length
      if (size > max) {
        done = true
        chunks.length = 0
        req.pause()
        reject(new BodyTooLarge(max))
      } else chunks.push(c)
    })
    req.on("end", () => {
      if (!done) resolve(Buffer.concat(chunks).toString("utf8"))
    })
    req.on("error", (e) => {
      if (!done) reject(e)
    })
  })

/** Whether `host` is a loopback address. */
export const isLoopback = (host: string): boolean =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host)

/** The `Host` header values a loopback server on `port` answers to. */
export const loopbackHosts = (host: string, port: number): ReadonlySet<string> =>
  new Set([`${host}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`].map((h) => h.toLowerCase()))

/** The origins of pages served by a loopback server on `port` (its own origin, by either name). */
export const loopbackOrigins = (host: string, port: number): ReadonlySet<string> =>
  new Set([...loopbackHosts(host, port)].map((h) => `http://${h}`))

/** A fresh random token (32 bytes, base64url): what a URL printed at start carries. */
export const newToken = (): string => randomBytes(32).toString("base64url")

const digest = (s: string): Buffer => createHash("sha256").update(s).digest()

/** Constant-time comparison of a presented token with the expected one. */
export const tokenMatches = (presented: string, expected: string): boolean =>
  timingSafeEqual(digest(presented), digest(expected))

/** The token of an `Authorization: Bearer <token>` header, if any. */
export const bearerToken = (authorization: string | undefined): string | undefined =>
  /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1]

/** Why a request is refused: the HTTP status and one line for the caller. */
export interface Refusal {
  readonly status: 401 | 403
  readonly reason: string
}

/** What a guarded server expects of every request. */
export interface GuardPolicy {
  /** `Host` header values accepted (lower case, with port); undefined accepts any. */
  readonly hosts?: ReadonlySet<string> | undefined
  /** Origins accepted when a request carries an `Origin` header (lower case). */
  readonly origins: ReadonlySet<string>
  /** The bearer token required, when one is set. */
  readonly token?: string | undefined
}

/** The headers a guard looks at (as sent, any may be absent). */
export interface GuardedRequest {
  readonly host?: string | undefined
  readonly origin?: string | undefined
  readonly authorization?: string | undefined
}

/**
 * Check a request against a policy: the Host first (a rebound DNS name never
 * reaches anything), then the Origin (a browser on another site), then the
 * token. Undefined when the request may go on.
 */
export const refuse = (request: GuardedRequest, policy: GuardPolicy, checkToken = true): Refusal | undefined => {
  if (policy.hosts !== undefined && !policy.hosts.has((request.host ?? "").toLowerCase())) {
    return { status: 403, reason: `Host ${JSON.stringify(request.host ?? "")} is not allowed (DNS-rebinding protection); use the address printed at start` }
  }
  if (request.origin !== undefined && !policy.origins.has(request.origin.toLowerCase())) {
    return { status: 403, reason: `Origin ${request.origin} is not allowed: only the page this server serves may call it` }
  }
  if (checkToken && policy.token !== undefined) {
    const presented = bearerToken(request.authorization)
    if (presented === undefined || !tokenMatches(presented, policy.token)) {
      return { status: 401, reason: "Missing or wrong token: open the address printed at start (it carries the token)" }
    }
  }
  return undefined
}
