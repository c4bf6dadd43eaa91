/**
 * Vitest global setup: make sure dist/ holds a build of the current sources,
 * so tests that spawn the real bins (CLI, MCP server) run what a user installs.
 * Builds only when dist is missing or older than a source file.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..")

const newestSource = (dir: string): number => {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestSource(p) : statSync(p).mtimeMs)
  }
  return newest
}

export default function setup(): void {
  const bins = ["cli.js", "mcp.js", "index.js"].map((f) => join(root, "dist", f))
  const built = bins.every(existsSync) ? Math.min(...bins.map((b) => statSync(b).mtimeMs)) : 0
  const sources = Math.max(newestSource(join(root, "src")), statSync(join(root, "tsup.config.ts")).mtimeMs)
  if (built > sources) return
  execFileSync(process.execPath, [join(root, "node_modules", "tsup", "dist", "cli-default.js")], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"]
  })
}
