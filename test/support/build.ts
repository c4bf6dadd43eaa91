/**
 * Vitest global setup: make sure dist/ holds a build of the current sources,
 * so tests that spawn the real bins (CLI, MCP server) run what a user installs,
 * and that the offline corpus's index is built (what `npm run build` does).
 * Builds only what is missing or older than its sources.
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

/** Build fixtures/offline/arxiv-corpus/arxiv.sqlite (the corpus as a sealed mirror index) when it is missing or stale; the script checks. */
const buildCorpusIndex = (): void => {
  execFileSync(process.execPath, ["--import", "tsx", join(root, "scripts", "build-corpus-index.ts"), "--quiet"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"]
  })
}

/** Build data/speech/field.lm (the offline recogniser's language model) when it is missing or stale; the script checks. */
const buildSpeechModel = (): void => {
  execFileSync(process.execPath, ["--import", "tsx", join(root, "scripts", "build-speech-model.ts"), "--quiet"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"]
  })
}

export default function setup(): void {
  buildCorpusIndex()
  buildSpeechModel()
  const bins = ["cli.js", "mcp.js", "index.js"].map((f) => join(root, "dist", f))
  const built = bins.every(existsSync) ? Math.min(...bins.map((b) => statSync(b).mtimeMs)) : 0
  const sources = Math.max(newestSource(join(root, "src")), statSync(join(root, "tsup.config.ts")).mtimeMs)
  if (built > sources) return
  execFileSync(process.execPath, [join(root, "node_modules", "tsup", "dist", "cli-default.js")], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"]
  })
}
