/**
 * `npm run bench -- offline-engines`: the offline mode's demo and corpus
 * queries of this build, A/B against another build in one run, in turn, so
 * both see the same load (`npm run build` first, here and there: the demo
 * runs each one's built CLI). OFFLINE_ENGINES_OTHER names the other checkout
 * (e.g. a worktree of main, built); without it this build alone is measured.
 *
 * - the demo `run` of the Quick start (the Transformers note, `--offline`) in
 *   a fresh process each: wall, CPU (user + system) and peak RSS, medians of
 *   OFFLINE_ENGINES_RUNS (default 7) after one warm-up each;
 * - the footprint bench's corpus queries (first lookup, six queries of new
 *   terms, the same again) in a fresh process each (each checkout's own
 *   bench/offline-engines-child.ts `corpus`), medians;
 * - what each build's offline search index weighs, and gzipped (what `npm
 *   pack` adds for it).
 *
 * The load average is printed beside every figure.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { gzipSync } from "node:zlib"

const root = join(import.meta.dirname, "..")
const RUNS = Number(process.env["OFFLINE_ENGINES_RUNS"] ?? 7)
const PROMPT = "Find papers related to my 'Transformers Concept Note'"
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const load = () => loadavg()[0]!.toFixed(1)
const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`

interface Timed {
  readonly wallMs: number
  readonly cpuMs: number
  readonly rssMiB: number
}

/** A command in a fresh process, timed by /usr/bin/time: wall, CPU (user + system), peak RSS. Throws when it fails. */
const spawnTimed = (command: ReadonlyArray<string>, cwd: string): Timed => {
  const r = spawnSync("/usr/bin/time", ["-f", "TIMED %e %U %S %M", ...command], { cwd, encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] })
  const line = r.stderr.split("\n").reverse().find((l) => l.startsWith("TIMED "))
  if (r.status !== 0 || line === undefined) throw new Error(`${command.join(" ")} failed (${r.status}): ${r.stderr.slice(-400)}`)
  const [wall, user, system, rssKiB] = line.slice("TIMED ".length).split(" ").map(Number) as [number, number, number, number]
  return { wallMs: wall * 1000, cpuMs: (user + system) * 1000, rssMiB: rssKiB / 1024 }
}

/** The offline search index a build reads: the mirror's (this engine) or the one before it. */
const indexOf = (checkout: string): string | undefined =>
  [join(checkout, "fixtures", "offline", "arxiv-corpus", "arxiv.sqlite"), join(checkout, "fixtures", "offline", "arxiv-corpus.idx")].find(existsSync)

export default async () => {
  console.log(`load average (1 min) at the start: ${load()} on ${cpus().length} cores`)
  const other = process.env["OFFLINE_ENGINES_OTHER"]
  const builds: Record<string, string> = { "this build": root, ...(other === undefined ? {} : { [`the build in ${other}`]: resolve(other) }) }
  const names = Object.keys(builds)
  for (const [name, checkout] of Object.entries(builds)) {
    if (!existsSync(join(checkout, "dist", "cli.js"))) throw new Error(`${checkout}/dist/cli.js is missing: npm run build there first`)
    const index = indexOf(checkout)
    if (index === undefined) throw new Error(`${checkout} has no offline search index: npm run build there first`)
    console.log(`${name}: its offline index ${index.slice(checkout.length + 1)}: ${mb(statSync(index).size)} on disk, ${mb(gzipSync(readFileSync(index), { level: 6 }).length)} gzipped`)
  }
  const scratch = mkdtempSync(join(tmpdir(), "offline-engines-vaults-"))
  try {
    const vaults = Object.fromEntries(names.map((name, i) => {
      const v = join(scratch, String(i))
      cpSync(join(root, "examples", "vault"), v, { recursive: true })
      return [name, v]
    }))
    const timings: Record<string, Array<Timed & { load: string }>> = Object.fromEntries(names.map((n) => [n, []]))
    const once = (name: string): Timed & { load: string } => {
      const before = load()
      const res = spawnTimed([process.execPath, join(builds[name]!, "dist", "cli.js"), "run", PROMPT, "--vault", vaults[name]!, "--offline"], builds[name]!)
      return { ...res, load: `${before}→${load()}` }
    }
    for (const name of names) once(name)
    for (let i = 0; i < RUNS; i++) {
      for (const name of i % 2 === 0 ? names : [...names].reverse()) timings[name]!.push(once(name))
    }
    for (const name of names) {
      const t = timings[name]!
      console.log(
        `demo run, ${name}: wall median ${ms(median(t.map((x) => x.wallMs)))}, CPU median ${ms(median(t.map((x) => x.cpuMs)))}, ` +
          `peak RSS median ${median(t.map((x) => x.rssMiB)).toFixed(0)} MiB (max ${Math.max(...t.map((x) => x.rssMiB)).toFixed(0)}) ` +
          `(n=${t.length}; load ${t.map((x) => x.load).join(", ")})`
      )
    }
    const queries: Record<string, Array<{ loadMs: number; newMs: number; newCpuMs: number; repeatedMs: number; load: string }>> = Object.fromEntries(
      names.map((n) => [n, []])
    )
    for (let i = 0; i < 5; i++) {
      for (const name of i % 2 === 0 ? names : [...names].reverse()) {
        const before = load()
        const r = JSON.parse(
          execFileSync(process.execPath, ["--import", "tsx", join(builds[name]!, "bench", "offline-engines-child.ts"), "corpus"], {
            encoding: "utf8",
            cwd: builds[name]!
          })
        ) as { loadMs: number; newMs: Array<number>; newCpuMs: Array<number>; repeatedMs: Array<number> }
        queries[name]!.push({ loadMs: r.loadMs, newMs: median(r.newMs), newCpuMs: median(r.newCpuMs), repeatedMs: median(r.repeatedMs), load: `${before}→${load()}` })
      }
    }
    for (const name of names) {
      const q = queries[name]!
      console.log(
        `corpus queries, ${name} (medians of ${q.length} processes): first lookup ${ms(median(q.map((x) => x.loadMs)))}, ` +
          `a query of new terms ${ms(median(q.map((x) => x.newMs)))} (CPU ${ms(median(q.map((x) => x.newCpuMs)))}; goal ≤ 20 ms), ` +
          `the same again ${ms(median(q.map((x) => x.repeatedMs)))} (goal ≤ 2 ms) (load ${q.map((x) => x.load).join(", ")})`
      )
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}
