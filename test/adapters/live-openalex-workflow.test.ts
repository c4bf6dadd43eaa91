/**
 * The whole companion over the live adapters and three loopback stand-ins
 * (arXiv, OpenAlex, the scripted OpenAI-compatible judge): the upstream call
 * counts the batching promises, and a note written like the offline one.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as ArxivTermStats from "../../src/adapters/judge/ArxivTermStats.js"
import * as InMemoryVault from "../../src/adapters/vault/InMemoryVault.js"
import * as LiveArxiv from "../../src/adapters/arxiv/LiveArxiv.js"
import * as LiveOpenAlex from "../../src/adapters/openalex/LiveOpenAlex.js"
import * as LlmJudge from "../../src/adapters/judge/LlmJudge.js"
import * as ResponseCache from "../../src/adapters/http/ResponseCache.js"
import { CompanionOptions } from "../../src/core/models.js"
import { runCompanion } from "../../src/core/workflow.js"
import { LLM_SHORTLIST, withLocalShortlist } from "../../src/layers.js"
import { arxivStandIn } from "../support/arxiv-standin.js"
import { llmStandIn } from "../support/llm-standin.js"
import { openAlexStandIn } from "../support/openalex-standin.js"

const NOTE = `# Neural Machine Translation

Neural machine translation trains one network end to end: an encoder reads the source sentence,
a decoder writes the translation, and attention lets the decoder look back at the encoder states.
Sequence to sequence models with LSTM layers and word embeddings are the usual building blocks.
`

describe("runCompanion over the live adapters", () => {
  it.scopedLive("one arXiv search for a pool, the LLM judge on its shortlist, one most-cited, one impact and one references request, one summary call", () =>
    Effect.gen(function*() {
      const arxiv = yield* arxivStandIn({ corpus: "landmarks" })
      const openalex = yield* openAlexStandIn()
      const llm = yield* llmStandIn()
      const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "arxiv-companion-live-run-"))
      const http = NodeHttpClient.layerUndici
      const cache = ResponseCache.layer({ dir }).pipe(Layer.provide(NodeContext.layer))
      // the LLM judge as the composition root wires it: it sees the pool's best 30 by the local judge
      const judge = withLocalShortlist().pipe(
        Layer.provide(LlmJudge.layer({ apiUrl: llm.url, model: "test/scripted-judge", apiKey: Redacted.make("sk-run") }))
      )
      const ports = Layer.mergeAll(
        LiveArxiv.layer({ apiUrl: arxiv.url, minInterval: "10 millis" }),
        LiveOpenAlex.layer({ apiUrl: openalex.url, apiKey: Redacted.make("k-run") }),
        judge,
        InMemoryVault.layer({ "Neural Machine Translation.md": NOTE }),
        ArxivTermStats.layer
      ).pipe(Layer.provide(http), Layer.provide(cache))

      const options = new CompanionOptions({ citationsPerYearThreshold: 5, relevanceThreshold: 0.3 })
      const run = runCompanion(`Find papers related to my "Neural Machine Translation" note`, options).pipe(Effect.provide(ports))
      const report = yield* run

      // one arXiv request for a pool of up to 1000; with the most-cited channel's papers, the model
      // judges the best 30 of the pool (by the local judge), 10 per call
      assert.strictEqual(arxiv.requests.length, 1)
      assert.strictEqual(arxiv.requests[0]!.params["max_results"], "1000")
      assert.strictEqual(report.candidates.length, LLM_SHORTLIST)
      // judging the shortlist, then summarising the kept papers in one more call
      assert.isAbove(report.survivors.length, 0)
      assert.strictEqual(llm.completions().length, LLM_SHORTLIST / 10 + 1)
      // the port was asked twice: judge (three requests of 10) and summarise
      assert.strictEqual(report.calls.judge, 2)
      const citedRequests = openalex.requests.filter((r) => r.params["search"] !== undefined)
      const impactRequests = openalex.requests.filter((r) => r.params["filter"]?.startsWith("doi:"))
      const referenceRequests = openalex.requests.filter((r) => r.params["filter"]?.startsWith("openalex:"))
      assert.strictEqual(citedRequests.length, 1)
      assert.strictEqual(impactRequests.length, 1)
      // impact is asked only for the relevant candidates the most-cited channel did not bring a count for
      const counted = report.candidates.filter((c) => c.foundBy?.includes("most-cited")).map((c) => c.paper.arxivId)
      assert.isAbove(counted.length, 0)
      const asked = report.candidates.filter((c) => c.judgement.relevance >= 0.3 && !counted.includes(c.paper.arxivId))
      assert.isAbove(asked.length, 0)
      assert.strictEqual(impactRequests[0]!.params["filter"]!.split("|").length, asked.length)
      for (const id of counted) assert.notInclude(impactRequests[0]!.params["filter"]!, `arxiv.${id}`)
      for (const c of report.candidates.filter((c) => c.judgement.relevance < 0.3 && !counted.includes(c.paper.arxivId))) {
        assert.strictEqual(c.impact.status, "not-assessed")
      }
      assert.strictEqual(referenceRequests.length, 1)
      // 8 upstream calls in all (arXiv 1, OpenAlex 3, judge 3, summaries 1); shared foundations ask nothing more
      assert.strictEqual(arxiv.requests.length + openalex.requests.length + llm.completions().length, 8)

      // GNMT is among the candidates with its live OpenAlex count
      const gnmt = report.candidates.find((c) => c.paper.arxivId === "1609.08144")
      assert.isDefined(gnmt)
      assert.strictEqual(gnmt!.impact.citationCount, 5625)
      assert.strictEqual(gnmt!.impact.source?.name, "OpenAlex")
      assert.deepStrictEqual(report.survivors, ["1609.08144"])
      // GNMT's 4 recorded references are not in the recorded pool: reported, not dropped
      assert.deepStrictEqual(report.foundations[0]!.unresolved, ["W1968594024", "W2121879602", "W2964121744", "W2251743902"])
      assert.strictEqual(report.written.status, "created")
      assert.strictEqual(report.written.path, "Neural Machine Translation — Related Papers.md")

      // a warm rerun: no upstream call at all
      yield* run
      assert.strictEqual(arxiv.requests.length, 1)
      assert.strictEqual(llm.completions().length, LLM_SHORTLIST / 10 + 1)
      assert.strictEqual(openalex.requests.length, 3)
    }))
})
