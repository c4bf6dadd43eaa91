/**
 * Start the three loopback stand-ins (arXiv, OpenAlex, an OpenAI-compatible
 * scripted judge) and keep them running, so the CLI can be pointed at them
 * without --offline:
 *
 *   node --import tsx bench/serve-standins.ts [--latency]   # prints the env to export
 *   ARXIV_API_URL=... OPENALEX_API_URL=... arxiv-companion run "..." --vault examples/vault
 *
 * `--latency` adds the bench's realistic latency (arXiv 1 s, OpenAlex 150 ms,
 * judge 1.5 s). Ctrl-C stops them.
 */
import { startArxivStandIn } from "../test/support/arxiv-standin.js"
import { startLlmStandIn } from "../test/support/llm-standin.js"
import { startOpenAlexStandIn } from "../test/support/openalex-standin.js"

const slow = process.argv.includes("--latency")
const arxiv = await startArxivStandIn({ latencyMillis: slow ? 1000 : 0, padSearches: true, corpus: "landmarks" })
const openalex = await startOpenAlexStandIn({ latencyMillis: slow ? 150 : 0 })
const llm = await startLlmStandIn({ latencyMillis: slow ? 1500 : 0 })

console.log(`export ARXIV_API_URL=${arxiv.url}`)
console.log(`export OPENALEX_API_URL=${openalex.url}`)
console.log("export OPENALEX_API_KEY=standin")
console.log(`export LLM_BASE_URL=${llm.url}`)
console.log("export LLM_MODEL=scripted-judge")
console.error("stand-ins running; Ctrl-C to stop")

const stop = async () => {
  await Promise.all([arxiv.close(), openalex.close(), llm.close()])
  console.error(`served: arXiv ${arxiv.requests.length}, OpenAlex ${openalex.requests.length}, judge ${llm.completions().length} requests`)
  process.exit(0)
}
process.on("SIGINT", () => void stop())
process.on("SIGTERM", () => void stop())
