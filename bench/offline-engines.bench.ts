/**
 * `npm run bench -- offline-engines`: the recorded corpus through today's
 * offline index (fixtures/offline/arxiv-corpus.idx) and through the mirror's
 * engine (SQLite FTS5 in WebAssembly, built from the same records by
 * src/adapters/arxiv/mirror/corpusMirror.ts), A/B in one run, in turn, so
 * both see the same load (`npm run build` first: the demo runs the built CLI):
 *
 * - the demo `run` of the Quick start (the Transformers note, `--offline`, and
 *   `--offline --arxiv mirror:DIR`) in a fresh process each: wall, CPU
 *   (user + system) and peak RSS, medians of OFFLINE_ENGINES_RUNS (default 7)
 *   after one warm-up each;
 * - the footprint bench's corpus queries (first lookup, six queries of new
 *   terms, the same again) in a fresh process each, medians;
 * - what each engine's file weighs, and gzipped (what `npm pack` would add).
 *
 * The load average is printed beside every figure. OFFLINE_ENGINES_DIR keeps
 * the mirror's index there (and reuses one already built).
 */
import { execFileSync, spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { buildCorpusMirror } from "../src/adapters/arxiv/mirror/corpusMirror.js"

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
const spawnTimed = (command: ReadonlyArray<string>): Timed => {
  const r = spawnSync("/usr/bin/time", ["-f", "TIMED %e %U %S %M", ...command], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] })
  const line = r.stderr.split("\n").reverse().find((l) => l.startsWith("TIMED "))
  if (r.status !== 0 || line === undefined) throw new Error(`${command.join(" ")} failed (${r.status}): ${r.stderr.slice(-400)}`)
  const [wall, user, system, rssKiB] = line.slice("TIMED ".length).split(" ").map(Number) as [number, number, number, number]
  return { wallMs: wall * 1000, cpuMs: (user + system) * 1000, rssMiB: rssKiB / 1024 }
}

export default async () => {
  if (!existsSync(join(root, "dist", "cli.js"))) throw new Error("dist/cli.js is missing: npm run build first")
  console.log(`load average (1 min) at the start: ${load()} on ${cpus().length} cores`)
  const keep = process.env["OFFLINE_ENGINES_DIR"]
  const dir = keep ?? mkdtempSync(join(tmpdir(), "offline-engines-"))
  const scratch = mkdtempSync(join(tmpdir(), "offline-engines-vaults-"))
  try {
    const corpusIndex = join(root, "fixtures", "offline", "arxiv-corpus.idx")
    const mirrorFile = join(dir, "arxiv.sqlite")
    if (!existsSync(mirrorFile)) {
      const t = performance.now()
      const c = process.cpuUsage()
      const records = buildCorpusMirror(join(root, "fixtures", "offline"), dir)
      const u = process.cpuUsage(c)
      console.log(
        `the mirror's index built from the corpus: ${records.toLocaleString("en-US")} records in ${((performance.now() - t) / 1000).toFixed(1)} s ` +
          `(CPU ${((u.user + u.system) / 1e6).toFixed(1)} s; load ${load()})`
      )
    }
    for (const [name, file] of [["today's index (arxiv-corpus.idx)", corpusIndex], ["the mirror's index (arxiv.sqlite)", mirrorFile]] as const) {
      console.log(`${name}: ${mb(statSync(file).size)} on disk, ${mb(gzipSync(readFileSync(file), { level: 6 }).length)} gzipped`)
    }
    const vaults = { corpus: join(scratch, "corpus"), mirror: join(scratch, "mirror") }
    for (const v of Object.values(vaults)) cpSync(join(root, "examples", "vault"), v, { recursive: true })
    const engines = {
      corpus: { vault: vaults.corpus, extra: [] as ReadonlyArray<string>, child: ["corpus"] },
      mirror: { vault: vaults.mirror, extra: ["--arxiv", `mirror:${dir}`], child: ["mirror", dir] }
    }
    // the demo: one warm-up each, then RUNS rounds, the order swapped every round
    const timings: Record<keyof typeof engines, Array<Timed & { load: string }>> = { corpus: [], mirror: [] }
    const once = (engine: keyof typeof engines): Timed & { load: string } => {
      const e = engines[engine]
      const before = load()
      const res = spawnTimed([process.execPath, join(root, "dist", "cli.js"), "run", PROMPT, "--vault", e.vault, "--offline", ...e.extra])
      return { ...res, load: `${before}→${load()}` }
    }
    once("corpus")
    once("mirror")
    for (let i = 0; i < RUNS; i++) {
      for (const engine of i % 2 === 0 ? (["corpus", "mirror"] as const) : (["mirror", "corpus"] as const)) timings[engine].push(once(engine))
    }
    for (const engine of ["corpus", "mirror"] as const) {
      const t = timings[engine]
      console.log(
        `demo run through ${engine === "corpus" ? "today's index" : "the mirror's engine"}: wall median ${ms(median(t.map((x) => x.wallMs)))}, ` +
          `CPU median ${ms(median(t.map((x) => x.cpuMs)))}, peak RSS median ${median(t.map((x) => x.rssMiB)).toFixed(0)} MiB ` +
          `(n=${t.length}; load ${t.map((x) => x.load).join(", ")})`
      )
    }
    // the corpus queries, in turn
    const queries: Record<keyof typeof engines, Array<{ loadMs: number; newMs: number; newCpuMs: number; repeatedMs: number; load: string }>> = { corpus: [], mirror: [] }
    const child = join(import.meta.dirname, "offline-engines-child.ts")
    for (let i = 0; i < 5; i++) {
      for (const engine of i % 2 === 0 ? (["corpus", "mirror"] as const) : (["mirror", "corpus"] as const)) {
        const before = load()
        const r = JSON.parse(execFileSync(process.execPath, ["--import", "tsx", child, ...engines[engine].child], { encoding: "utf8", cwd: root })) as {
          loadMs: number
          newMs: Array<number>
          newCpuMs: Array<number>
          repeatedMs: Array<number>
        }
        queries[engine].push({ loadMs: r.loadMs, newMs: median(r.newMs), newCpuMs: median(r.newCpuMs), repeatedMs: median(r.repeatedMs), load: `${before}→${load()}` })
      }
    }
    for (const engine of ["corpus", "mirror"] as const) {
      const q = queries[engine]
      console.log(
        `corpus queries through ${engine === "corpus" ? "today's index" : "the mirror's engine"} (medians of ${q.length} processes): ` +
          `first lookup ${ms(median(q.map((x) => x.loadMs)))}, a query of new terms ${ms(median(q.map((x) => x.newMs)))} ` +
          `(CPU ${ms(median(q.map((x) => x.newCpuMs)))}; goal ≤ 20 ms), the same again ${ms(median(q.map((x) => x.repeatedMs)))} (goal ≤ 2 ms) ` +
          `(load ${q.map((x) => x.load).join(", ")})`
      )
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
    if (keep === undefined) rmSync(dir, { recursive: true, force: true })
  }
}
