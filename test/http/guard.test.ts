/**
 * The request checks of the HTTP faces: Host (DNS rebinding), Origin, token.
 */
import { describe, expect, it } from "@effect/vitest"
import { bearerToken, isLoopback, loopbackHosts, loopbackOrigins, newToken, refuse, tokenMatches } from "../../src/http/guard.js"

const policy = { hosts: loopbackHosts("127.0.0.1", 5178), origins: loopbackOrigins("127.0.0.1", 5178), token: "s3cret" }
const ok = { host: "127.0.0.1:5178", authorization: "Bearer s3cret" }

describe("HTTP face guard", () => {
  it("lets the server's own page through, by either loopback name, with or without an Origin", () => {
    expect(refuse(ok, policy)).toBeUndefined()
    expect(refuse({ ...ok, host: "localhost:5178", origin: "http://localhost:5178" }, policy)).toBeUndefined()
    expect(refuse({ ...ok, origin: "HTTP://127.0.0.1:5178" }, policy)).toBeUndefined()
  })

  it("refuses another Host first (a rebound name, another port, none), whatever else the request carries", () => {
    for (const host of ["evil.example:5178", "127.0.0.1:5179", "127.0.0.1", undefined]) {
      expect(refuse({ ...ok, host }, policy)?.status).toBe(403)
      expect(refuse({ ...ok, host }, policy)?.reason).toContain("DNS-rebinding")
    }
  })

  it("refuses a foreign Origin, even with the right token", () => {
    for (const origin of ["http://evil.example", "http://127.0.0.1:5179", "https://127.0.0.1:5178", "null"]) {
      expect(refuse({ ...ok, origin }, policy)).toEqual({ status: 403, reason: `Origin ${origin} is not allowed: only the page this server serves may call it` })
    }
  })

  it("refuses a missing or wrong token with 401, unless the path needs none", () => {
    expect(refuse({ host: ok.host }, policy)?.status).toBe(401)
    expect(refuse({ ...ok, authorization: "Bearer s3cre" }, policy)?.status).toBe(401)
    expect(refuse({ ...ok, authorization: "s3cret" }, policy)?.status).toBe(401)
    expect(refuse({ host: ok.host }, policy, false)).toBeUndefined()
  })

  it("reads tokens and addresses as they are written", () => {
    expect(bearerToken("bearer abc ")).toBe("abc")
    expect(bearerToken("Basic abc")).toBeUndefined()
    expect(tokenMatches("abc", "abc")).toBe(true)
    expect(tokenMatches("abc", "abcd")).toBe(false)
    const a = newToken()
    expect(a).toMatch(/^[\w-]{43}$/)
    expect(newToken()).not.toBe(a)
    expect(["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"].every(isLoopback)).toBe(true)
    expect(["0.0.0.0", "192.168.1.2", "example.org", "127.0.0.1.evil.example"].some(isLoopback)).toBe(false)
  })
})
