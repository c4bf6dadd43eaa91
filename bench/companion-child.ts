/**
 * One companion run in its own process, for `companion.bench.ts`: the live
 * adapters configured from the environment exactly as a user would
 * (ARXIV_API_URL, OPENALEX_API_URL, OPENALEX_API_KEY, LLM_BASE_URL, LLM_MODEL,
 * ARXIV_COMPANION_CACHE_DIR), a filesystem vault, the persistent cache.
 *
 * Usage: node --import tsx bench/companion-child.ts <vault> <maxResults> <prompt>
 * Prints one JSON line: wall time of the run (layers built and torn down
 * included, process start-up excluded), peak RSS of this process, the report's
 * counts.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as LiveArxiv from "../src/adapters/live/LiveArxiv.js"
import * as LiveOpenAlex from "../src/adapters/live/LiveOpenAlex.js"
import * as LlmJudge from "../src/adapters/live/LlmJudge.js"
import * as ResponseCache from "../src/adapters/live/ResponseCache.js"
import * as FileSystemVault from "../src/adapters/vault/FileSystemVault.js"
import { CompanionOptions } from "../src/core/models.js"
import { runCompanion } from "../src/core/workflow.js"

const [vault, maxResults, prompt] = process.argv.slice(2)
if (vault === undefined || maxResults === undefined || prompt === undefined) {
  console.error("usage: companion-child.ts <vault> <maxResults> <prompt>")
  process.exit(2)
}

const live = Layer.mergeAll(
  LiveArxiv.layerConfig(),
  LiveOpenAlex.layerConfig(),
  LlmJudge.layerConfig(),
  FileSystemVault.layer({ root: vault })
).pipe(
  Layer.provide(ResponseCache.layerConfig()),
  Layer.provide(Layer.mergeAll(NodeHttpClient.layer, NodeContext.layer))
)

const started = performance.now()
const stages: Record<string, number> = {}
const report = await Effect.runPromise(
  runCompanion(prompt, new CompanionOptions({ maxResults: Number(maxResults) }), {
    onProgress: (event) => Effect.sync(() => void (stages[event._tag] = performance.now() - started))
  }).pipe(Effect.provide(live))
)
const wallMs = performance.now() - started
console.log(JSON.stringify({
  wallMs,
  stages,
  maxRssKb: process.resourceUsage().maxRSS,
  calls: report.calls,
  candidates: report.candidates.length,
  survivors: report.survivors.length,
  foundations: report.foundations.reduce((n, f) => n + f.citations.length, 0),
  written: report.written
}))
