/**
 * `arxiv-companion ui` start-up failures, as a user meets them: one line that
 * says what to fix, exit code 1, nothing left listening.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..")
const cli = join(root, "dist", "cli.js") // built by test/support/build.ts

const run = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [cli, "ui", ...args], { cwd: root, env: { PATH: process.env["PATH"] ?? "", HOME: root }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    })
  })

describe("arxiv-companion ui, refusing to start", () => {
  it("names the port in use and how to pick another", async () => {
    const taken = http.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const { port } = taken.address() as AddressInfo
    try {
      const r = await run(["--port", String(port), "--offline", "--vault", join(root, "examples", "vault")])
      expect(r.code).toBe(1)
      expect(r.stdout).toBe("")
      expect(r.stderr.trim()).toBe(`The page could not start: port ${port} on 127.0.0.1 is in use. Pass --port N (--port 0 picks a free port).`)
    } finally {
      taken.close()
    }
  })

  it("rejects a port out of range, and a missing vault, with the CLI's messages", async () => {
    const bad = await run(["--port", "70000", "--offline", "--vault", join(root, "examples", "vault")])
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim()).toBe("Invalid --port: got 70000; use an integer from 0 to 65535 (0 picks a free one).")
    const noVault = await run(["--port", "0", "--offline"])
    expect(noVault.code).toBe(1)
    expect(noVault.stderr.trim()).toMatch(/^Invalid vault: no vault configured\. Pass --vault DIR/)
  })
})

/** A POST of `bytes` bytes of JSON-ish text, announced (content-length) or streamed (chunked); the answer. */
const postLarge = (url: string, token: string, bytes: number, announced: boolean) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, " ")
    const req = http.request(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        ...(announced ? { "content-length": String(bytes) } : { "transfer-encoding": "chunked" })
      }
    }, (res) => {
      let body = ""
      res.on("data", (c: Buffer) => (body += c.toString()))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
    })
    // the server may stop reading and close the connection once it has answered
    req.on("error", (e) => (answered ? undefined : reject(e)))
    let answered = false
    req.on("response", () => (answered = true))
    let sent = 0
    const pump = () => {
      while (sent < bytes && !answered) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once("drain", pump)
      }
      req.end()
    }
    pump()
  })

describe("arxiv-companion ui, bodies it reads", () => {
  it("refuses a body over 4 MB with 413 and one line that says the limit, announced or streamed, and serves on", async () => {
    const { startUi } = await import("../support/ui.js")
    const ui = await startUi(["--offline", "--vault", join(root, "examples", "vault")])
    try {
      for (const announced of [true, false]) {
        const r = await postLarge(`${ui.origin}/api/runs`, ui.token, 6_000_000, announced)
        expect(r.status).toBe(413)
        expect(JSON.parse(r.body).error).toEqual({ tag: "RequestTooLarge", message: "Request body too large: at most 4,000,000 bytes" })
      }
      const notes = await new Promise<number>((resolve, reject) => {
        http.get(`${ui.origin}/api/notes`, { headers: { authorization: `Bearer ${ui.token}` } }, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        }).on("error", reject)
      })
      expect(notes).toBe(200)
    } finally {
      await ui.stop("SIGKILL")
    }
  }, 120_000)
})
