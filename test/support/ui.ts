/**
 * `arxiv-companion ui` as a user starts it: the built CLI (dist/cli.js) in a
 * child process; the address it prints on stdout is read back, and the
 * server is stopped with a signal as Ctrl-C would.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as http from "node:http"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..")
const cli = join(root, "dist", "cli.js") // built by test/support/build.ts

/** A running page server. */
export interface UiProcess {
  /** The printed address, token included. */
  readonly url: string
  /** http://127.0.0.1:<port> */
  readonly origin: string
  readonly token: string
  readonly child: ChildProcess
  /** Everything printed on stderr so far. */
  readonly stderr: () => string
  /** Send a signal and wait for the exit: the exit code (or the signal's name) and stderr. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<{ readonly code: number | string; readonly stderr: string }>
}

/** Start `arxiv-companion ui <args>` and wait for its address. */
export const startUi = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<UiProcess> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "ui", "--port", "0", ...args], {
      cwd: root,
      env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? root, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    const exited = new Promise<number | string>((done) => child.on("exit", (code, signal) => done(code ?? signal ?? "unknown")))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`arxiv-companion ui printed no address within 60 s. stderr:\n${stderr}`))
    }, 60_000)
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`arxiv-companion ui exited with ${code} before printing its address. stderr:\n${stderr}`))
    })
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString()
      const match = /^(http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+)$/m.exec(stdout)
      if (match === null) return
      clearTimeout(timer)
      resolve({
        url: match[0],
        origin: match[1]!,
        token: match[2]!,
        child,
        stderr: () => stderr,
        stop: async (signal = "SIGINT") => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal)
          const code = await Promise.race([
            exited,
            new Promise<string>((done) => setTimeout(() => done("timeout"), 15_000))
          ])
          if (code === "timeout") child.kill("SIGKILL")
          return { code, stderr }
        }
      })
    })
  })

/** A raw HTTP request with exactly the headers given (fetch would add or forbid some). */
export const request = (
  url: string,
  options: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: string } = {}
): Promise<{ readonly status: number; readonly body: string }> =>
  new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? "GET", headers: options.headers ?? {} }, (res) => {
      let body = ""
      res.on("data", (c: Buffer) => (body += c.toString()))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", reject)
    req.end(options.body)
  })
