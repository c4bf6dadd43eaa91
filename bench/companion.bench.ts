/**
 * The whole companion against the loopback stand-ins, with realistic
 * latency: arXiv ~1 s, OpenAlex ~150 ms, the judge ~1.5 s per call. For 10
 * and 50 candidates, a cold run (empty cache) then a warm rerun of the same
 * prompt (same cache directory, new process).
 *
 * Each run is its own process (`companion-child.ts`, the CLI's `LiveLayer`),
 * configured through the environment only, as a user would point the CLI at
 * other endpoints; the stand-ins run here. Printed per run: upstream calls per service (as the
 * stand-ins counted them), wall time, the critical-path bound and the ratio,
 * the run's peak RSS.
 *
 * Critical-path bound: the least time the calls actually made could take
 * given the workflow's data dependencies — arXiv search, then (OpenAlex
 * impact ‖ judge), then (OpenAlex references ‖ the kept papers' summaries,
 * one more judge call) — with each service's latency,
 * the judge's 4 calls in flight at once, and arXiv's 3 s spacing between
 * its own requests. Local work (parsing, scoring, writing the note) counts
 * as zero, so the ratio shows everything else: overhead and any missed
 * parallelism.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { startArxivStandIn } from "../test/support/arxiv-standin.js"
import { asksForSummaries, startLlmStandIn } from "../test/support/llm-standin.js"
import { startOpenAlexStandIn } from "../test/support/openalex-standin.js"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const LATENCY = { arxiv: 1000, openalex: 150, judge: 1500 } as const
/** LlmJudge's defaults: 10 papers per call, 4 calls in flight. */
const JUDGE_CONCURRENCY = 4
const ARXIV_SPACING = 3000
const PROMPT = "Find papers related to my 'Transformers Concept Note'"

interface ChildResult {
  readonly wallMs: number
  /** Milliseconds from the start to each progress event. */
  readonly stages: Readonly<Record<string, number>>
  readonly maxRssKb: number
  /** RSS once the modules are loaded, before the run. */
  readonly rssBeforeKb: number
  readonly calls: { readonly arxiv: number; readonly openalex: number; readonly judge: number; readonly vault: number }
  readonly candidates: number
  readonly survivors: number
  readonly foundations: number
  readonly written: { readonly path: string; readonly status: string }
}

const runChild = (env: NodeJS.ProcessEnv, vault: string, maxResults: number): Promise<ChildResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "bench/companion-child.ts"), vault, String(maxResults), PROMPT],
      { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] }
    )
    let out = ""
    let err = ""
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")))
    child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")))
    child.on("error", reject)
    child.on("close", (code) => {
      const last = out.trim().split("\n").pop() ?? ""
      if (code !== 0 || !last.startsWith("{")) reject(new Error(`child exited ${code}: ${err.trim() || out.trim()}`))
      else resolve(JSON.parse(last) as ChildResult)
    })
  })

const copyDir = (from: string, to: string) => fs.cpSync(from, to, { recursive: true })

export default async function companionBench(): Promise<void> {
  const arxiv = await startArxivStandIn({ latencyMillis: LATENCY.arxiv, padSearches: true, corpus: "landmarks" })
  const openalex = await startOpenAlexStandIn({ latencyMillis: LATENCY.openalex, requiredKey: "bench-key" })
  const llm = await startLlmStandIn({ latencyMillis: LATENCY.judge })
  const rows: Array<Array<string>> = []
  const checks: Array<string> = []
  const stageLines: Array<string> = []
  try {
    for (const n of [10, 50]) {
      const work = fs.mkdtempSync(path.join(os.tmpdir(), `arxiv-companion-bench-${n}-`))
      const vault = path.join(work, "vault")
      copyDir(path.join(ROOT, "examples/vault"), vault)
      const env: NodeJS.ProcessEnv = {
        PATH: process.env["PATH"],
        HOME: work,
        ARXIV_API_URL: arxiv.url,
        ARXIV_COMPANION_CONTACT: "bench@example.org",
        OPENALEX_API_URL: openalex.url,
        OPENALEX_API_KEY: "bench-key",
        LLM_BASE_URL: llm.url,
        LLM_MODEL: "scripted-judge",
        ARXIV_COMPANION_CACHE_DIR: path.join(work, "cache")
      }
      for (const phase of ["cold", "warm"] as const) {
        const before = { arxiv: arxiv.requests.length, openalex: openalex.requests.length, judge: llm.completions().length }
        const result = await runChild(env, vault, n)
        const arxivCalls = arxiv.requests.length - before.arxiv
        const oaRequests = openalex.requests.slice(before.openalex)
        const judgeCalls = llm.completions().length - before.judge
        const summaryCalls = llm.completions().slice(before.judge).filter((r) => asksForSummaries(r.body.messages ?? [])).length
        const impactCalls = oaRequests.filter((r) => (r.params["filter"] ?? "").includes("doi:")).length
        const refCalls = oaRequests.length - impactCalls
        const boundMs = (arxivCalls === 0 ? 0 : LATENCY.arxiv + (arxivCalls - 1) * Math.max(LATENCY.arxiv, ARXIV_SPACING)) +
          Math.max(
            impactCalls === 0 ? 0 : LATENCY.openalex,
            Math.ceil((judgeCalls - summaryCalls) / JUDGE_CONCURRENCY) * LATENCY.judge
          ) +
          Math.max(refCalls === 0 ? 0 : LATENCY.openalex, Math.ceil(summaryCalls / JUDGE_CONCURRENCY) * LATENCY.judge)
        const total = arxivCalls + oaRequests.length + judgeCalls
        rows.push([
          String(n),
          phase,
          String(arxivCalls),
          `${oaRequests.length} (${impactCalls}+${refCalls})`,
          String(judgeCalls),
          String(total),
          (result.wallMs / 1000).toFixed(2),
          (boundMs / 1000).toFixed(2),
          boundMs === 0 ? "—" : (result.wallMs / boundMs).toFixed(2),
          `${(result.maxRssKb / 1024).toFixed(0)} (${(result.rssBeforeKb / 1024).toFixed(0)})`,
          `${result.candidates}/${result.survivors}/${result.foundations}`,
          result.written.status
        ])
        const at = (tag: string) => ((result.stages[tag] ?? NaN) / 1000).toFixed(2)
        stageLines.push(
          `${n} ${phase}: keywords ${at("Keywords")} s, searched ${at("Searched")} s, judged ${at("Judged")} s, written ${at("Written")} s`
        )
        if (phase === "cold" && n === 10) {
          checks.push(
            `10 candidates, cold: ${total} upstream calls ${total <= 4 + judgeCalls ? "≤" : ">"} 4 + ${judgeCalls} judge call(s)`
          )
        }
        if (phase === "warm") {
          checks.push(
            `${n} candidates, warm rerun: ${arxivCalls} arXiv, ${oaRequests.length} OpenAlex, ${judgeCalls} judge call(s)`
          )
        }
      }
      fs.rmSync(work, { recursive: true, force: true })
    }
  } finally {
    await Promise.all([arxiv.close(), openalex.close(), llm.close()])
  }
  const header = [
    "cands",
    "run",
    "arXiv",
    "OpenAlex (impact+refs)",
    "judge",
    "total",
    "wall s",
    "bound s",
    "ratio",
    "peak RSS MB (at start)",
    "cand/kept/found",
    "note"
  ]
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`
  console.log(
    `latency: arXiv ${LATENCY.arxiv} ms, OpenAlex ${LATENCY.openalex} ms, judge ${LATENCY.judge} ms; ` +
      `node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)} at the end`
  )
  console.log(line(header))
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`)
  for (const r of rows) console.log(line(r))
  for (const c of checks) console.log(`- ${c}`)
  console.log("stages (time since start of the run):")
  for (const l of stageLines) console.log(`- ${l}`)
}
