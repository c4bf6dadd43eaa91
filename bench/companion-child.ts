/**
 * One companion run in its own process, for `companion.bench.ts`: the CLI's
 * composition root (`LiveLayer` of src/layers.ts) configured from the
 * environment exactly as a user would (ARXIV_API_URL, OPENALEX_API_URL,
 * OPENALEX_API_KEY, LLM_BASE_URL, LLM_MODEL, ARXIV_COMPANION_CACHE_DIR), with
 * a filesystem vault.
 *
 * Usage: node --import tsx bench/companion-child.ts <vault> <maxResults> <prompt>
 * Prints one JSON line: wall time of the run (layers built and torn down
 * included, process start-up excluded), peak RSS of this process, the report's
 * counts.
 */
import { Effect } from "effect"
import { CompanionOptions } from "../src/core/models.js"
import { runCompanion } from "../src/core/workflow.js"
import { LiveLayer } from "../src/layers.js"

const [vault, maxResults, prompt] = process.argv.slice(2)
if (vault === undefined || maxResults === undefined || prompt === undefined) {
  console.error("usage: companion-child.ts <vault> <maxResults> <prompt>")
  process.exit(2)
}

// The composition root the CLI uses, configured from the environment.
const live = LiveLayer({ vault })

const rssBeforeKb = Math.round(process.memoryUsage().rss / 1024)
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
  rssBeforeKb,
  calls: report.calls,
  candidates: report.candidates.length,
  survivors: report.survivors.length,
  foundations: report.foundations.reduce((n, f) => n + f.citations.length, 0),
  written: report.written
}))
