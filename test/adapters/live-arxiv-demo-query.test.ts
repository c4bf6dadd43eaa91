/**
 * The arXiv requests a run of the demo notes sends, byte for byte: the live
 * adapter over a loopback arXiv (the recorded feeds and the landmark papers),
 * the local judge and the recorded citations. The pinned targets are what the
 * companion sent when its queries were still written as strings; the
 * structured query (src/core/arxivQuery.ts) rendered by the live adapter
 * must send the same.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as ArxivTermStats from "../../src/adapters/judge/ArxivTermStats.js"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import * as LiveArxiv from "../../src/adapters/arxiv/LiveArxiv.js"
import * as RecordedOpenAlex from "../../src/adapters/openalex/RecordedOpenAlex.js"
import * as ResponseCache from "../../src/adapters/http/ResponseCache.js"
import * as InMemoryVault from "../../src/adapters/vault/InMemoryVault.js"
import { CompanionOptions, type CompanionOptionsInput } from "../../src/core/models.js"
import { runCompanion } from "../../src/core/workflow.js"
import { arxivStandIn } from "../support/arxiv-standin.js"

const VAULT = nodePath.resolve(import.meta.dirname, "../../examples/vault")
const note = (title: string) => fs.readFileSync(nodePath.join(VAULT, `${title}.md`), "utf8")

/** The request targets (path and query string) of one run of `title` with `options`. */
const targets = (title: string, options: CompanionOptionsInput) =>
  Effect.gen(function*() {
    const arxiv = yield* arxivStandIn({ corpus: "landmarks", padSearches: true })
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "arxiv-companion-demo-query-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    const ports = Layer.mergeAll(
      LiveArxiv.layer({ apiUrl: arxiv.url, minInterval: "10 millis", leaseDir: dir }).pipe(
        Layer.provide(NodeHttpClient.layerUndici),
        Layer.provide(ResponseCache.layer({ dir }).pipe(Layer.provide(NodeContext.layer)))
      ),
      RecordedOpenAlex.layer().pipe(Layer.provide(NodeContext.layer)),
      LocalJudge.layer,
      InMemoryVault.layer({ [`${title}.md`]: note(title) }),
      ArxivTermStats.layer
    )
    const report = yield* runCompanion(`Find papers related to my "${title}" note`, Schema.decodeUnknownSync(CompanionOptions)(options)).pipe(
      Effect.provide(ports)
    )
    return { sent: arxiv.requests.filter((r) => r.params["search_query"] !== undefined).map((r) => r.url), report }
  })

/** The runs pinned, and what each sent (test/fixtures/demo-note-arxiv-requests.json, written by commit c0e3667). */
interface Pinned {
  readonly title: string
  readonly options: CompanionOptionsInput
  readonly sent: ReadonlyArray<string>
  readonly query: string
  readonly titleQuery?: string
}
const PINNED: ReadonlyArray<Pinned> = JSON.parse(
  fs.readFileSync(nodePath.resolve(import.meta.dirname, "../fixtures/demo-note-arxiv-requests.json"), "utf8")
)

describe("the demo notes' arXiv requests", () => {
  it("the pinned runs cover the pool alone, the author search with a category and a date, and the title search widened", () => {
    assert.deepStrictEqual(PINNED.map((p) => p.sent.length), [1, 2, 2])
    assert.include(PINNED[1]!.sent[1]!, "au:Vaswani")
    assert.include(PINNED[1]!.sent[1]!, "submittedDate:%5B201401010000+TO+999912312359%5D")
    assert.include(PINNED[2]!.sent[1]!, "ti:adversarial")
  })

  for (const pinned of PINNED) {
    it.scopedLive(`${pinned.title} ${JSON.stringify(pinned.options)}: the same request targets, byte for byte, and the same queries in the report`, () =>
      Effect.gen(function*() {
        const { report, sent } = yield* targets(pinned.title, pinned.options)
        assert.deepStrictEqual(sent, pinned.sent)
        assert.strictEqual(report.query, pinned.query)
        assert.strictEqual(report.titleQuery, pinned.titleQuery)
      }), 120_000)
  }
})
