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
