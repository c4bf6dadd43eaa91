/**
 * The built CLI (dist/cli.js, built by test/support/build.ts) run as a user
 * runs it: a child process with its own environment, stdout and stderr apart.
 */
import { execFile } from "node:child_process"
import { join } from "node:path"

export const ROOT = join(import.meta.dirname, "..", "..")
export const CLI = join(ROOT, "dist", "cli.js")

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Run `arxiv-companion <args>`; `env` is added to the test's environment (an undefined value unsets it). */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}): Promise<CliResult> =>
  new Promise((resolve) => {
    const merged = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined))
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: ROOT, env: merged, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
        resolve({ code, stdout, stderr })
      }
    )
  })

/**
 * Run `arxiv-companion <args>` on a terminal: a pseudo-terminal from util-linux `script`, as
 * a user's shell gives it (stdout is a TTY; `TERM=xterm-256color` unless `env` says otherwise).
 * Its output has the terminal's line endings (\r\n).
 */
export const runCliInTerminal = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}): Promise<CliResult> => {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  const command = [process.execPath, CLI, ...args].map(quote).join(" ")
  return new Promise((resolve) => {
    execFile(
      "script",
      ["-qec", command, "/dev/null"],
      { cwd: ROOT, // CI unset: Node reports no colours under CI=true (as .ci/run sets), whatever the terminal
      env: { ...process.env, CI: undefined, TERM: "xterm-256color", ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
        resolve({ code, stdout, stderr })
      }
    )
  })
}
