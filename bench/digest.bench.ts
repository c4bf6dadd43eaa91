/**
 * The vault digest on a vault of the retrieval eval's concept notes (eval/retrieval/notes, every note: 136 written as
 * a student would, each under its title in eval/retrieval/landmarks.json), offline, `--since 2016-06-01` (the recorded corpus ends in April 2017): wall time and peak
 * memory of the built CLI's process (goal: ≤ 30 s and ≤ 300 MiB on this machine class), CPU time beside the
 * wall time (the machine is shared), and the new papers per note.
 *
 * `npm run bench -- digest` (after `npm run build`); BENCH_RUNS=n runs it n times (medians; default 1). The last
 * run's result is written to bench/results/digest.json (the digest's papers per note, for the grading sheets of
 * eval/digest/sheets.ts).
 *
 * BENCH_BASELINE=<commit>|<built dir> (default none) runs that build too, in turn with this one (which goes first
 * alternates each run, each on a fresh vault), prints the same figures for it, and whether every run's digest
 * (`--json`) is the one this build's first run printed, to the byte but its count of vault calls: the digest
 * records the notes it has finished every 2 s of searching, so that count follows the machine's pace, not the code.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { builtTree } from "./baseline.js"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const NOTES = path.join(ROOT, "eval", "retrieval", "notes")
const RESULTS = path.join(ROOT, "bench", "results", "digest.json")
const SINCE = "2016-06-01"
const LANDMARKS = path.join(ROOT, "eval", "retrieval", "landmarks.json")

interface Digest {
  readonly notes_covered: number
  readonly new_papers: number
  readonly notes: ReadonlyArray<{ readonly note: string; readonly papers: ReadonlyArray<unknown> }>
  readonly not_searched: ReadonlyArray<{ readonly note: string; readonly reason: string }>
  readonly calls: Record<string, number>
}

/** What the results file keeps of a digest: the counts, and each note's papers by id (the grading sheets need no more). */
const compact = (d: Digest) => ({
  notes_covered: d.notes_covered,
  new_papers: d.new_papers,
  not_searched: d.not_searched,
  calls: d.calls,
  notes: d.notes.map((n) => ({ note: n.note, papers: n.papers.map((p) => ({ arxiv_id: (p as { arxiv_id: string }).arxiv_id })) }))
})

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** The digest as it is compared between runs and builds: the printed JSON but its count of vault calls. */
const comparable = (stdout: string): string => {
  const d = JSON.parse(stdout) as { calls?: Record<string, unknown> }
  if (d.calls !== undefined) delete d.calls["vault"]
  return JSON.stringify(d)
}

const once = (
  tree: string,
  vault: string,
  rssFile: string
): Promise<{ wallMs: number; cpuMs: number; maxRssKb: number; result: Digest; printed: string }> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [
      "--import", path.join(ROOT, "bench", "peak-rss.mjs"),
      path.join(tree, "dist", "cli.js"), "digest", "--vault", vault, "--offline", "--since", SINCE, "--json"
    ], { cwd: tree, env: { ...process.env, BENCH_RSS_FILE: rssFile }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    child.on("exit", (code) => {
      const wallMs = performance.now() - started
      if (code !== 0) return reject(new Error(`digest exited ${code}: ${stderr.slice(-2000)}`))
      const usage = JSON.parse(fs.readFileSync(rssFile, "utf8")) as { maxRssKb: number; cpuMs: number }
      resolve({ wallMs, ...usage, result: JSON.parse(stdout) as Digest, printed: comparable(stdout) })
    })
  })

export default async () => {
  const runs = Math.max(1, Number(process.env["BENCH_RUNS"] ?? "1"))
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "bench-digest-"))
  const files = fs.readdirSync(NOTES).filter((f) => f.endsWith(".md")).sort()
  // each note under the title a student gave it (as the retrieval and precision evaluations name them)
  const titles = new Map((JSON.parse(fs.readFileSync(LANDMARKS, "utf8")) as ReadonlyArray<{ note: string; title: string }>).map((l) => [`${l.note}.md`, `${l.title}.md`]))
  const spec = process.env["BENCH_BASELINE"]
  const baseline = spec === undefined || spec === "" || spec === "none" ? undefined : builtTree(spec)
  const samples: Array<Awaited<ReturnType<typeof once>>> = []
  const baseSamples: Array<Awaited<ReturnType<typeof once>>> = []
  const loads: Array<number> = []
  try {
    for (let i = 0; i < runs; i++) {
      // which build goes first alternates, so that neither has the quieter half of the machine's load
      const order = baseline === undefined ? [ROOT] : i % 2 === 0 ? [ROOT, baseline] : [baseline, ROOT]
      for (const tree of order) {
        // a fresh vault each run: the first digest of every note
        const vault = path.join(work, `vault-${i}-${tree === ROOT ? "this" : "baseline"}`)
        fs.mkdirSync(vault)
        for (const f of files) fs.copyFileSync(path.join(NOTES, f), path.join(vault, titles.get(f) ?? f))
        loads.push(os.loadavg()[0]!)
        const sample = await once(tree, vault, path.join(work, `rss-${i}.json`))
        ;(tree === ROOT ? samples : baseSamples).push(sample)
        fs.rmSync(vault, { recursive: true, force: true })
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
  const last = samples.at(-1)!.result
  const perNote = last.notes.map((n) => n.papers.length)
  const wall = median(samples.map((s) => s.wallMs)) / 1000
  const cpu = median(samples.map((s) => s.cpuMs)) / 1000
  const rss = Math.max(...samples.map((s) => s.maxRssKb)) / 1024
  const histogram = new Map<number, number>()
  for (const n of perNote) histogram.set(n, (histogram.get(n) ?? 0) + 1)
  console.log(`vault: ${files.length} notes of eval/retrieval/notes, --offline --since ${SINCE}; ${runs} run${runs === 1 ? "" : "s"}; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} on ${os.cpus().length} CPUs`)
  console.log(`wall time: ${wall.toFixed(1)} s (goal ≤ 30 s; median of ${runs}); CPU ${cpu.toFixed(1)} s`)
  console.log(`peak memory: ${rss.toFixed(0)} MiB (goal ≤ 300 MiB; the highest of ${runs})`)
  console.log(`notes searched: ${last.notes_covered}; not searched: ${last.not_searched.length}${last.not_searched.length === 0 ? "" : ` (${last.not_searched.map((s) => `${s.note}: ${s.reason}`).join("; ")})`}`)
  console.log(
    `new papers: ${last.new_papers} in all; per note mean ${(last.new_papers / Math.max(1, perNote.length)).toFixed(1)}, median ${median(perNote)}, ` +
      `min ${Math.min(...perNote)}, max ${Math.max(...perNote)}; notes with nothing new: ${perNote.filter((n) => n === 0).length}`
  )
  console.log(`per-note counts (papers: notes): ${[...histogram].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}: ${v}`).join(", ")}`)
  console.log(`calls: ${Object.entries(last.calls).map(([k, v]) => `${k} ${v}`).join(", ")}`)
  if (baseline !== undefined) {
    const first = samples[0]!.printed
    const fig = (xs: ReadonlyArray<Awaited<ReturnType<typeof once>>>) =>
      `wall ${(median(xs.map((s) => s.wallMs)) / 1000).toFixed(1)} s, CPU ${(median(xs.map((s) => s.cpuMs)) / 1000).toFixed(1)} s ` +
      `(medians of ${xs.length}; CPU each run: ${xs.map((s) => (s.cpuMs / 1000).toFixed(1)).join(", ")}), peak ${(Math.max(...xs.map((s) => s.maxRssKb)) / 1024).toFixed(0)} MiB`
    console.log(`this build: ${fig(samples)}`)
    console.log(`baseline ${spec}: ${fig(baseSamples)}`)
    console.log(`load (1 min) at each run's start: ${loads.map((l) => l.toFixed(1)).join(", ")}`)
    const same = [...samples, ...baseSamples].every((s) => s.printed === first)
    console.log(`the same digest in every run of both builds (--json but its vault calls): ${same ? "yes" : "NO"}`)
  }
  fs.mkdirSync(path.dirname(RESULTS), { recursive: true })
  fs.writeFileSync(RESULTS, `${JSON.stringify({ measuredOn: new Date().toISOString(), since: SINCE, runs, wallSeconds: wall, cpuSeconds: cpu, peakMiB: rss, loadavg: os.loadavg(), result: compact(last) })}\n`)
}
