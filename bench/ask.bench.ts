/**
 * `ask` offline, once the corpus is loaded: wall time of each of the 38
 * questions of eval/ask/questions.jsonl (rule-based query, the offline
 * corpus, 50 candidates re-ranked by the local judge, top 3), in one
 * process, after one warm-up question that loads the corpus. The target is
 * ≤ 1.5 s per question on this machine class. The corpus load itself is
 * printed apart (it is paid once per process).
 *
 * Then `ask` live against the loopback arXiv stand-in (arXiv ~1 s latency,
 * as in companion.bench.ts), counting the arXiv requests one question makes.
 *
 * Then a cold `ask --offline` from the built CLI (dist/cli.js: a new process
 * each time, the corpus index loaded from disk), for a question with a full
 * pool of 1000 and one with a small pool: the median wall and CPU time of
 * `ASK_BENCH_RUNS` runs (default 5), beside the same runs of a baseline CLI
 * when `ASK_BENCH_BASELINE` names one (e.g. another checkout's dist/cli.js),
 * interleaved so both see the same machine load; the load average is printed
 * with them (the target, ≤ 1.5 s wall, is for a quiet machine).
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Layer, ManagedRuntime } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as CorpusArxiv from "../src/adapters/arxiv/CorpusArxiv.js"
import * as RecordedOpenAlex from "../src/adapters/openalex/RecordedOpenAlex.js"
import * as ArxivTermStats from "../src/adapters/judge/ArxivTermStats.js"
import * as LocalJudge from "../src/adapters/judge/LocalJudge.js"
import * as LiveArxiv from "../src/adapters/arxiv/LiveArxiv.js"
import * as ResponseCache from "../src/adapters/http/ResponseCache.js"
import * as RuleQueryBuilder from "../src/adapters/query/RuleQueryBuilder.js"
import { askArxivTool } from "../src/tools/ask.js"
import { startArxivStandIn } from "../test/support/arxiv-standin.js"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const questions = readFileSync(path.join(ROOT, "eval", "ask", "questions.jsonl"), "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => (JSON.parse(l) as { question: string }).question)

const ms = (start: number) => performance.now() - start
const median = (xs: ReadonlyArray<number>) => quantile(xs, 0.5)

/** One cold `ask --offline` of `cli`: wall time, and CPU time (user + system) from GNU time when it is installed. */
const coldAsk = (cli: string, question: string): { readonly wall: number; readonly cpu?: number } => {
  const timed = existsSync("/usr/bin/time")
  const args = [cli, "ask", question, "--offline"]
  const start = performance.now()
  const r = timed
    ? spawnSync("/usr/bin/time", ["-f", "%U %S", process.execPath, ...args], { encoding: "utf8" })
    : spawnSync(process.execPath, args, { encoding: "utf8" })
  const wall = ms(start)
  if (r.status !== 0) throw new Error(`${cli} ask failed (${r.status}): ${r.stderr.slice(-500)}`)
  const times = timed ? /(\d+\.\d+) (\d+\.\d+)\s*$/.exec(r.stderr) : null
  return times === null ? { wall } : { wall, cpu: 1000 * (Number(times[1]) + Number(times[2])) }
}

const COLD_QUESTIONS = [
  "what is the best way to detect objects in images with convolutional networks", // a full pool of 1000
  "how do neural networks caption images" // a small pool (183)
]

const coldBench = () => {
  const cli = path.join(ROOT, "dist", "cli.js")
  if (!existsSync(cli)) {
    console.log("cold ask: dist/cli.js is not built (npm run build); skipped")
    return
  }
  const baseline = process.env["ASK_BENCH_BASELINE"]
  const runs = Math.max(1, Number(process.env["ASK_BENCH_RUNS"] ?? 5))
  const builds = [["this build", cli] as const, ...(baseline === undefined ? [] : [["baseline", path.resolve(baseline)] as const])]
  const load = os.loadavg()
  for (const question of COLD_QUESTIONS) {
    const samples = new Map(builds.map(([name]) => [name, [] as Array<{ wall: number; cpu?: number }>]))
    for (let i = 0; i < runs; i++) for (const [name, file] of builds) samples.get(name)!.push(coldAsk(file, question))
    for (const [name] of builds) {
      const xs = samples.get(name)!
      const cpus = xs.flatMap((x) => (x.cpu === undefined ? [] : [x.cpu]))
      console.log(
        `cold ask --offline (${name}), median of ${runs}: ${median(xs.map((x) => x.wall)).toFixed(0)} ms wall` +
          `${cpus.length > 0 ? `, ${median(cpus).toFixed(0)} ms CPU` : ""}  "${question}"`
      )
    }
  }
  const after = os.loadavg()
  console.log(`load average (1 min) on ${os.cpus().length} cores: ${load[0]!.toFixed(1)} before, ${after[0]!.toFixed(1)} after (target ≤ 1500 ms wall on a quiet machine)`)
}
const quantile = (xs: ReadonlyArray<number>, q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!

export default async () => {
  if (process.env["ASK_BENCH_COLD_ONLY"] === "1") return coldBench()
  const offline = ManagedRuntime.make(
    Layer.mergeAll(
      Layer.merge(CorpusArxiv.layer(), RecordedOpenAlex.layer()).pipe(Layer.provide(NodeContext.layer)),
      LocalJudge.layer,
      ArxivTermStats.layer,
      RuleQueryBuilder.layer
    )
  )
  let start = performance.now()
  await offline.runPromise(askArxivTool({ question: "how do LSTMs learn long-term dependencies" }))
  console.log(`warm-up question (loads and indexes the corpus): ${ms(start).toFixed(0)} ms`)
  const times: Array<number> = []
  for (const q of questions) {
    start = performance.now()
    const r = await offline.runPromise(askArxivTool({ question: q }))
    times.push(ms(start))
    console.log(`  ${times.at(-1)!.toFixed(0).padStart(5)} ms  ${r.candidates} candidates  ${q}`)
  }
  console.log(
    `offline ask after load, ${times.length} questions: median ${quantile(times, 0.5).toFixed(0)} ms, ` +
      `90th percentile ${quantile(times, 0.9).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (target ≤ 1500 ms)`
  )
  await offline.dispose()

  const standIn = await startArxivStandIn({ latencyMillis: 1000, padSearches: true })
  try {
    const live = ManagedRuntime.make(
      Layer.mergeAll(
        LiveArxiv.layer({ apiUrl: standIn.url, minInterval: "5 millis" }).pipe(
          Layer.provide(Layer.mergeAll(NodeHttpClient.layerUndici, ResponseCache.layerDisabled))
        ),
        RecordedOpenAlex.layer().pipe(Layer.provide(NodeContext.layer)),
        LocalJudge.layer,
        ArxivTermStats.layer,
        RuleQueryBuilder.layer
      )
    )
    start = performance.now()
    const r = await live.runPromise(askArxivTool({ question: questions[0]! }))
    console.log(
      `live ask against the arXiv stand-in (1 s latency): ${ms(start).toFixed(0)} ms, ${standIn.requests.length} arXiv request(s), ` +
        `${r.candidates} candidates`
    )
    await live.dispose()
  } finally {
    await standIn.close()
  }
  coldBench()
}
