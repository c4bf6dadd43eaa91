/**
 * The local judge alone on the demo note's pool (issue 22: "≤ 2 ms a paper"; the offline run's largest part of
 * its own): the pool of the offline demo run (its `--json` report's candidates, about 1,000 papers) judged against
 * the note, in a fresh process per sample (`judge-child.ts`), this checkout's sources and a baseline's in turn.
 *
 * Printed per checkout: the medians of the first call's CPU and wall time (what a CLI run pays: the tables read,
 * the code not yet optimised), of a later call's CPU time, the CPU time per paper of each, and the digest of the
 * judgements (the same digest: the same judgements, to the last digit).
 *
 * `npm run bench -- judge` (the built CLI makes the pool: `npm run build` first). BENCH_RUNS=n samples (default 9);
 * BENCH_BASELINE=<commit>|<built dir>|none (default: where this branch left main, `git merge-base HEAD main`).
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { extractKeywords, plainText } from "../src/core/keywords.js"
import { builtTree, git, ROOT } from "./baseline.js"

const RUNS = Number(process.env["BENCH_RUNS"] ?? 9)
const NOTE = "Transformers Concept Note"

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

interface Sample {
  readonly papers: number
  readonly calls: ReadonlyArray<{ readonly cpuMs: number; readonly wallMs: number }>
  readonly digest: string
}

/** The demo run's pool and concept, from this checkout's built CLI, in a file for the children. */
const poolFile = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "judge-bench-"))
  const vault = path.join(dir, "vault")
  fs.cpSync(path.join(ROOT, "examples", "vault"), vault, { recursive: true })
  const r = spawnSync(process.execPath, [path.join(ROOT, "dist", "cli.js"), "run", `Find papers related to my '${NOTE}'`, "--vault", vault, "--offline", "--json"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 1 << 28,
    env: { ...process.env, ARXIV_COMPANION_OFFLINE: "" }
  })
  if (r.status !== 0) throw new Error(`the demo run failed (npm run build first?): ${r.stderr.trim()}`)
  const report = JSON.parse(r.stdout) as { candidates: ReadonlyArray<{ paper: { arxivId: string; title: string; abstract: string } }> }
  const text = fs.readFileSync(path.join(ROOT, "examples", "vault", `${NOTE}.md`), "utf8")
  const file = path.join(dir, "pool.json")
  fs.writeFileSync(file, JSON.stringify({
    concept: { title: NOTE, text: plainText(text), keywords: extractKeywords(text, NOTE).map((k) => k.term) },
    papers: report.candidates.map(({ paper }) => ({ arxivId: paper.arxivId, title: paper.title, abstract: paper.abstract }))
  }))
  fs.rmSync(vault, { recursive: true, force: true })
  return file
}

const child = (root: string, file: string): Promise<Sample> =>
  new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "bench", "judge-child.ts"), file], {
      cwd: ROOT,
      env: { ...process.env, BENCH_ROOT: root, RUNS: "3" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    p.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")))
    p.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")))
    p.on("error", reject)
    p.on("close", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop()!) as Sample) : reject(new Error(`judge-child (${root}) exited ${code}: ${err.trim()}`))))
  })

export default async function judgeBench(): Promise<void> {
  const spec = process.env["BENCH_BASELINE"]
  const baseline = spec === "none" ? undefined : builtTree(spec === undefined || spec === "" ? git("merge-base", "HEAD", "main") : spec)
  const trees = baseline === undefined ? [ROOT] : [ROOT, baseline]
  const file = poolFile()
  const load = () => os.loadavg()[0]!.toFixed(1)
  const before = load()
  for (const root of trees) await child(root, file)
  const samples: Array<Array<Sample>> = trees.map(() => [])
  for (let i = 0; i < RUNS; i++) for (const [t, root] of trees.entries()) samples[t]!.push(await child(root, file))
  console.log(`node ${process.version}, ${os.cpus().length} CPUs, ${RUNS} processes per checkout after one warm-up, in turn; load ${before}→${load()}`)
  console.log("| checkout | papers | first call CPU | first call wall | CPU a paper (first) | later call CPU | CPU a paper (later) | judgements |")
  console.log("|---|---|---|---|---|---|---|---|")
  for (const [t, root] of trees.entries()) {
    const s = samples[t]!
    const n = s[0]!.papers
    const first = median(s.map((x) => x.calls[0]!.cpuMs))
    const later = median(s.map((x) => x.calls[x.calls.length - 1]!.cpuMs))
    const name = root === ROOT ? "this checkout" : path.basename(root)
    console.log(`| ${name} | ${n} | ${first.toFixed(0)} ms | ${median(s.map((x) => x.calls[0]!.wallMs)).toFixed(0)} ms | ` +
      `${(first / n).toFixed(3)} ms | ${later.toFixed(0)} ms | ${(later / n).toFixed(3)} ms | ${[...new Set(s.map((x) => x.digest))].join(", ")} |`)
  }
  fs.rmSync(path.dirname(file), { recursive: true, force: true })
}
