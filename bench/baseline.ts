/**
 * A built copy of another commit of this repository, to measure or compare against in the same run
 * (footprint.bench.ts, same-judgements.ts).
 *
 * `builtBaseline(commit)` extracts the commit with `git archive` into a cache directory named by its hash under
 * the temp directory, links this checkout's node_modules in, builds the corpus index and the speech model with the
 * commit's own scripts (as `npm run build` does: both are in the package) and runs its own `tsup`, once; a later
 * call finds it built.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

export const git = (...args: ReadonlyArray<string>): string => {
  const r = spawnSync("git", args, { cwd: ROOT, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.trim()}`)
  return r.stdout.trim()
}

/**
 * A built copy of `commit`, cached by its hash under the temp directory: the sources from `git archive`,
 * this checkout's node_modules linked in, the corpus index built by its own script, and its own `tsup` run.
 */
export const builtBaseline = (commit: string): string => {
  const sha = git("rev-parse", "--verify", `${commit}^{commit}`)
  const dir = path.join(os.tmpdir(), `arxiv-companion-baseline-${sha.slice(0, 12)}`)
  const build = (args: ReadonlyArray<string>) => {
    const r = spawnSync(process.execPath, args, { cwd: dir, stdio: ["ignore", "ignore", "inherit"] })
    if (r.status !== 0) throw new Error(`baseline build: node ${args.join(" ")} exited ${r.status}`)
  }
  // the speech model `npm run build` writes too (shipped in the package), for a commit that has its script
  const speech = () => {
    const script = path.join("scripts", "build-speech-model.ts")
    if (fs.existsSync(path.join(dir, script)) && !fs.existsSync(path.join(dir, "data", "speech", "field.lm"))) {
      build(["--import", "tsx", script])
    }
  }
  if (fs.existsSync(path.join(dir, "dist", "cli.js"))) {
    speech()
    return dir
  }
  console.log(`building the baseline ${sha.slice(0, 12)} in ${dir} (once; a minute or more)`)
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  const archive = spawnSync("git", ["archive", "--format=tar", sha], { cwd: ROOT, maxBuffer: 1 << 30 })
  if (archive.status !== 0) throw new Error(`git archive ${sha} failed`)
  const untar = spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout })
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`)
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir")
  // the corpus's index as the baseline's own build writes it (the engine it reads may not be this one's)
  build(["--import", "tsx", "scripts/build-corpus-index.ts"])
  speech()
  build([path.join(dir, "node_modules", "tsup", "dist", "cli-default.js")])
  return dir
}

/** A built checkout: a directory as it is, or a commit built once (`builtBaseline`). */
export const builtTree = (spec: string): string =>
  fs.existsSync(spec) && fs.statSync(spec).isDirectory() ? path.resolve(spec) : builtBaseline(spec)
