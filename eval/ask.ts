/**
 * `npm run eval:ask` — how often `ask` puts the landmark papers of a research
 * question in its top 3 and top 10, on the offline corpus (the recorded arXiv
 * corpus and citation counts) with the local judge. `--set tuning` (default)
 * runs the 55 tuning questions of eval/ask/questions.jsonl; `--set NAME` the
 * questions of eval/ask/questions-NAME.jsonl, whatever the name (`heldout`,
 * the first held-out set, never tuned on; `heldout2` and `heldout3`, retired
 * into tuning after their runs; `heldout4`, written blind on 2026-12-07 when
 * those two were retired and retired in turn after its run; `heldout5`,
 * written blind that evening; a new set needs no change here); names joined
 * by commas are read in turn (`--set tuning,heldout2,heldout3`); `--set all`
 * every questions file that is there. `--rules-only` runs the first builder
 * alone (a quicker look while tuning); a reported figure runs all three:
 *
 * - the rule-based query builder (the default);
 * - a scripted LLM stand-in (test/support/llm-standin.ts, on loopback) that
 *   writes the query, answering well-formed JSON every time;
 * - the same stand-in answering malformed JSON (prose) 1 time in 3 (seeded),
 *   with the share of questions whose query needed the retry or the
 *   rule-based fallback.
 *
 * Recall@k is the share of a question's expected papers in the top k,
 * averaged over questions (and, for the rules, the share among the judged
 * candidates at all); intervals are 95% bootstrap intervals over
 * questions (5,000 draws, fixed seed). `--json` prints the figures as JSON.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import * as CorpusArxiv from "../src/adapters/arxiv/CorpusArxiv.js"
import * as RecordedOpenAlex from "../src/adapters/openalex/RecordedOpenAlex.js"
import * as ArxivTermStats from "../src/adapters/judge/ArxivTermStats.js"
import * as LocalJudge from "../src/adapters/judge/LocalJudge.js"
import * as LlmQueryBuilder from "../src/adapters/query/LlmQueryBuilder.js"
import * as RuleQueryBuilder from "../src/adapters/query/RuleQueryBuilder.js"
import { askArxivTraced, AskOptions, type AskTrace } from "../src/core/ask.js"
import type { ArxivPort } from "../src/core/ports/ArxivPort.js"
import type { OpenAlexPort } from "../src/core/ports/OpenAlexPort.js"
import type { QueryBuilderPort } from "../src/core/ports/QueryBuilderPort.js"
import { startLlmStandIn } from "../test/support/llm-standin.js"
import { bootstrapMean, repoRoot } from "./retrieval-data.js"

interface Question {
  readonly question: string
  readonly expected: ReadonlyArray<string>
}

interface Row {
  readonly question: string
  readonly ms: number
  readonly requests: number
  readonly at3: number
  readonly at10: number
  /** The share of the expected papers among the judged candidates: a paper never found cannot be answered. */
  readonly found: number
  readonly query: string
  readonly retried: boolean
  readonly fellBack: boolean
  readonly missing: ReadonlyArray<string>
}

const argument = (name: string): string | undefined => {
  const i = process.argv.indexOf(name)
  return i < 0 ? undefined : process.argv[i + 1]
}
const set = argument("--set") ?? "tuning"
/**
 * The files a set reads: `tuning` is questions.jsonl, any other name `questions-<name>.jsonl` (a new held-out set
 * needs no change here), several names joined by commas (`tuning,heldout2,heldout3`) read each in turn, and `all`
 * every questions file there is.
 */
const fileOf = (file: string): string => join(repoRoot, "eval", "ask", file)
const fileOfSet = (name: string): string => name === "tuning" ? "questions.jsonl" : `questions-${name}.jsonl`
if (set.split(",").some((name) => !/^[a-z0-9][a-z0-9-]*$/.test(name) || (name === "all" && set !== "all"))) {
  console.error(`--set takes tuning, all, or the name of an eval/ask/questions-<name>.jsonl (several joined by commas); got "${set}"`)
  process.exit(2)
}
const chosen = set === "all"
  ? readdirSync(join(repoRoot, "eval", "ask")).filter((f) => /^questions(?:-[a-z0-9-]+)?\.jsonl$/.test(f)).sort()
  : set.split(",").map(fileOfSet)
const absent = chosen.filter((file) => !existsSync(fileOf(file)))
if (absent.length > 0) {
  console.error(`--set ${set} reads eval/ask/${absent.join(", eval/ask/")}, which is not there (a held-out set is added by whoever wrote it, unread by tuning)`)
  process.exit(2)
}
const questions: ReadonlyArray<Question> = chosen.flatMap((file) =>
  readFileSync(fileOf(file), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Question)
)

const mean = (xs: ReadonlyArray<number>): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)

/** 95% bootstrap interval of the mean over questions (fixed seed: reproducible). */
const bootstrap = (xs: ReadonlyArray<number>): readonly [number, number] => bootstrapMean(xs, 12)

/** Where a missed paper ended: its place in the answer order and the keep rule's decision, or not a candidate. */
const whereMissed = (trace: AskTrace, id: string): string => {
  const at = trace.order.findIndex((s) => s.paper.arxivId === id)
  if (at < 0) return `${id} (not a candidate)`
  const s = trace.order[at]!
  const count = s.impact.citationsPerYear === undefined ? "no count" : `${Math.round(s.impact.citationsPerYear)}/year`
  return `${id} (rank ${at + 1}, relevance ${s.judgement.relevance.toFixed(3)}, ${count}, ${s.decision.kind})`
}

const score = (q: Question, trace: AskTrace, ms: number): Row => {
  const answer = trace.answer
  const ids = answer.papers.map((p) => p.paper.arxivId)
  const hit = (k: number) => q.expected.filter((id) => ids.slice(0, k).includes(id)).length / q.expected.length
  return {
    question: q.question,
    ms,
    requests: answer.arxivRequests,
    at3: hit(3),
    at10: hit(10),
    found: q.expected.filter((id) => trace.order.some((s) => s.paper.arxivId === id)).length / q.expected.length,
    query: [answer.query.sent, ...(answer.query.second === undefined ? [] : [answer.query.second])].join("\n             "),
    retried: answer.query.attempts > 1 && !answer.query.fellBack,
    fellBack: answer.query.fellBack,
    missing: q.expected.filter((id) => !ids.includes(id)).map((id) => whereMissed(trace, id))
  }
}

const run = (builder: Layer.Layer<QueryBuilderPort>, arxiv: Layer.Layer<ArxivPort | OpenAlexPort>) =>
  Effect.forEach(questions, (q) =>
    Effect.suspend(() => {
      const start = performance.now()
      return askArxivTraced(q.question, new AskOptions({ top: 10 })).pipe(Effect.map((t) => score(q, t, performance.now() - start)))
    }), { concurrency: 1 }).pipe(
    Effect.provide(Layer.mergeAll(builder, arxiv, LocalJudge.layer, ArxivTermStats.layer))
  )

const pct = (x: number): string => `${(100 * x).toFixed(0)}%`
const interval = (xs: ReadonlyArray<number>): string => {
  const [lo, hi] = bootstrap(xs)
  return `${pct(mean(xs))} [${pct(lo)}, ${pct(hi)}]`
}

const main = async () => {
  const json = process.argv.includes("--json")
  // `--rules-only`: the rule-based builder alone (a quicker look while tuning; a reported figure runs all three)
  const rulesOnly = process.argv.includes("--rules-only")
  // one corpus for every run: the layer is built once (memoised) and shared
  const arxiv = Layer.merge(CorpusArxiv.layer(), RecordedOpenAlex.layer()).pipe(Layer.provide(NodeContext.layer))
  const clean = await startLlmStandIn()
  const flaky = await startLlmStandIn({ malformedQueries: { rate: 1 / 3, seed: 20170331 } })
  const llm = (url: string) =>
    LlmQueryBuilder.layer({ apiUrl: url, model: "scripted stand-in", retryBaseDelay: "5 millis" }).pipe(Layer.provide(NodeHttpClient.layer))
  try {
    const runs = await Effect.runPromise(
      Effect.gen(function*() {
        const shared = yield* Layer.memoize(arxiv)
        return {
          rules: yield* run(RuleQueryBuilder.layer, shared),
          ...(rulesOnly ? {} : {
            llm: yield* run(llm(clean.url), shared),
            llmMalformed: yield* run(llm(flaky.url), shared)
          })
        } as { rules: ReadonlyArray<Row>; llm?: ReadonlyArray<Row>; llmMalformed?: ReadonlyArray<Row> }
      }).pipe(Effect.scoped)
    )
    const summary = Object.fromEntries(
      Object.entries(runs).map(([name, rows]) => [name, {
        recallAt3: mean(rows.map((r) => r.at3)),
        recallAt3Interval: bootstrap(rows.map((r) => r.at3)),
        recallAt10: mean(rows.map((r) => r.at10)),
        recallAt10Interval: bootstrap(rows.map((r) => r.at10)),
        candidates: mean(rows.map((r) => r.found)),
        candidatesInterval: bootstrap(rows.map((r) => r.found)),
        retried: rows.filter((r) => r.retried).length,
        fellBack: rows.filter((r) => r.fellBack).length,
        needed: bootstrap(rows.map((r) => (r.retried || r.fellBack ? 1 : 0))),
        questions: rows.length
      }])
    )
    if (json) {
      console.log(JSON.stringify({ summary, runs }, null, 2))
      return
    }
    console.log(`${questions.length} questions (--set ${set}), offline corpus and citation counts, local judge; recall of the expected papers (95% bootstrap interval)\n`)
    console.log("builder                          | top 3            | top 10           | retry | fallback")
    console.log("---------------------------------|------------------|------------------|-------|---------")
    const label = { rules: "rules", llm: "scripted LLM stand-in", llmMalformed: "stand-in, malformed JSON 1 in 3" } as const
    for (const [name, rows] of Object.entries(runs) as Array<[keyof typeof label, ReadonlyArray<Row>]>) {
      console.log(
        `${label[name].padEnd(33)}| ${interval(rows.map((r) => r.at3)).padEnd(17)}| ${interval(rows.map((r) => r.at10)).padEnd(17)}| ` +
          `${String(rows.filter((r) => r.retried).length).padStart(5)} | ${String(rows.filter((r) => r.fellBack).length).padStart(8)}`
      )
    }
    const flakyRows = runs.llmMalformed ?? []
    const needed = flakyRows.map((r) => (r.retried || r.fellBack ? 1 : 0))
    console.log(`\nWith malformed JSON 1 in 3: ${needed.filter((x) => x === 1).length} of ${flakyRows.length} questions needed the retry or the fallback (${interval(needed)}).`)
    console.log(`Expected papers among the judged candidates (rules): ${interval(runs.rules.map((r) => r.found))}; a paper never found cannot be answered.`)
    const ms = runs.rules.map((r) => r.ms).sort((a, b) => a - b)
    console.log(`\nRules, per question in this process (corpus loaded): median ${ms[Math.floor(ms.length / 2)]!.toFixed(0)} ms, max ${ms.at(-1)!.toFixed(0)} ms; arXiv requests at most ${Math.max(...runs.rules.map((r) => r.requests))} a question.`)
    console.log("\nPer question (rules): top-3 / top-10 recall, expected papers not in the top 10 (where they ranked, and why), queries sent")
    for (const r of runs.rules) {
      console.log(`  ${pct(r.at3).padStart(4)} ${pct(r.at10).padStart(4)}  ${r.question}${r.missing.length > 0 ? `  [missing ${r.missing.join(", ")}]` : ""}\n             ${r.query}`)
    }
  } finally {
    await clean.close()
    await flaky.close()
  }
}

await main()
