/**
 * `ask` offline, once the corpus is loaded: wall time of each of the 20
 * questions of eval/ask/questions.jsonl (rule-based query, the offline
 * corpus, 50 candidates re-ranked by the local judge, top 3), in one
 * process, after one warm-up question that loads the corpus. The target is
 * ≤ 1.5 s per question on this machine class. The corpus load itself is
 * printed apart (it is paid once per process).
 *
 * Then `ask` live against the loopback arXiv stand-in (arXiv ~1 s latency,
 * as in companion.bench.ts), counting the arXiv requests one question makes.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Layer, ManagedRuntime } from "effect"
import { readFileSync } from "node:fs"
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
const quantile = (xs: ReadonlyArray<number>, q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!

export default async () => {
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
}
