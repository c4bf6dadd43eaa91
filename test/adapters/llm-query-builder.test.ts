/**
 * The LLM query builder against the loopback OpenAI-compatible stand-in
 * (scripted query writer): the model's query checked by the arXiv query
 * parser, sent back once when unusable, the rule-based query when the second
 * answer is unusable too or the endpoint is down; and, end to end, a query
 * arXiv rejects (HTTP 400, against the arXiv stand-in) replaced by the rules.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as RecordedOpenAlex from "../../src/adapters/openalex/RecordedOpenAlex.js"
import * as ArxivTermStats from "../../src/adapters/judge/ArxivTermStats.js"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import * as LiveArxiv from "../../src/adapters/arxiv/LiveArxiv.js"
import * as LlmQueryBuilder from "../../src/adapters/query/LlmQueryBuilder.js"
import * as ResponseCache from "../../src/adapters/http/ResponseCache.js"
import { render } from "../../src/core/arxivQuery.js"
import { askArxivTool } from "../../src/tools/ask.js"
import { arxivStandIn, Fault } from "../support/arxiv-standin.js"
import { captureLogs } from "../support/logs.js"
import { LlmFault, llmStandIn, scriptedQuery } from "../support/llm-standin.js"
import { typedQuery } from "../support/query.js"

const KEY = "sk-test-query-builder-0123456789"
const builder = (url: string) =>
  LlmQueryBuilder.make({ apiUrl: url, model: "scripted-writer", apiKey: Redacted.make(KEY), retryBaseDelay: "5 millis" }).pipe(
    Effect.provide(NodeHttpClient.layer)
  )
const Q = "what are the main ways to stabilise GAN training?"

describe("LlmQueryBuilder", () => {
  it.live("sends the model's query as written, with the rule-based query as the fallback", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn({ requiredKey: KEY })
      const built = yield* Effect.flatMap(builder(llm.url), (b) => b.build(Q))
      assert.strictEqual(built.query, scriptedQuery(Q))
      assert.strictEqual(built.builder, "scripted-writer")
      assert.strictEqual(built.fallback, "stabilise OR stabilize OR gan OR \"generative adversarial\"")
      assert.deepEqual([built.attempts, built.fellBack, built.notes], [1, false, []])
      // the concept the stages work from is the question's, whoever wrote the pool's query
      assert.deepEqual(built.concept.terms.map((t) => t.forms[0]), ["stabilise", "gan"])
      const request = llm.completions()[0]!.body
      // the model is asked for the question's concept, not for its words ANDed
      assert.match(request.messages![0]!.content, /the question's concept, not its words ANDed: an OR of its central concepts/)
      assert.deepEqual((request.response_format as { json_schema: { name: string } }).json_schema.name, "arxiv_query")
      assert.include(request.messages![1]!.content, Q)
    })))

  it.live("an answer that is not JSON is sent back once with the error; the second answer is used", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn()
      llm.failNext(LlmFault.invalidJson())
      const built = yield* Effect.flatMap(builder(llm.url), (b) => b.build(Q))
      assert.strictEqual(built.query, scriptedQuery(Q))
      assert.deepEqual([built.attempts, built.fellBack], [2, false])
      assert.match(built.notes[0]!, /answer 1 was unusable: it is not valid JSON; it was sent back with the error/)
      const second = llm.completions()[1]!.body.messages!
      assert.strictEqual(second.at(-2)!.role, "assistant")
      assert.include(second.at(-1)!.content, "it is not valid JSON")
    })))

  it.live("a long unusable answer is sent back cut between characters, never inside an emoji", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn()
      // the answer is {"query":"(a a … a😀 …"}: 1,999 units before the emoji, so the cut at 2,000 used to split it
      const query = `(${"a ".repeat(994)}😀 and more`
      llm.failNext(LlmFault.query(query))
      yield* Effect.flatMap(builder(llm.url), (b) => b.build(Q))
      const sentBack = llm.completions()[1]!.body.messages!.at(-2)!.content
      assert.strictEqual(sentBack, `${JSON.stringify({ query }).slice(0, 1999)}😀…`)
    })))

  it.live("bad syntax, then an unknown field: the rule-based query is used and the notes say why", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn()
      llm.failNext(LlmFault.query("ti:(GAN AND stable"), LlmFault.query("title:GAN AND abstract:\"stable training\""))
      const built = yield* Effect.flatMap(builder(llm.url), (b) => b.build(Q))
      assert.strictEqual(built.query, "stabilise OR stabilize OR gan OR \"generative adversarial\"")
      assert.isUndefined(built.fallback)
      assert.deepEqual([built.attempts, built.fellBack], [2, true])
      assert.match(built.notes[0]!, /answer 1 was unusable: .*syntax error: missing '\)'/)
      assert.match(built.notes[0]!, /answer 2 was unusable: .*unknown fields "title:", "abstract:".*the rule-based query was used/)
      assert.include(llm.completions()[1]!.body.messages!.at(-1)!.content, "missing ')'")
    })))

  it.live("an endpoint that stays down or refuses the key: rules, a note, and the key never shows", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn({ requiredKey: "another-key" })
      const { exit, lines } = yield* captureLogs(Effect.flatMap(builder(llm.url), (b) => b.build(Q)))
      assert.strictEqual(exit._tag, "Success")
      if (exit._tag !== "Success") return
      assert.isTrue(exit.value.fellBack)
      assert.match(exit.value.notes[0]!, /could not be reached \(HTTP 401.*<redacted>.*rule-based query was used/)
      for (const text of [...exit.value.notes, ...lines]) assert.notInclude(text, KEY)
      const down = yield* llmStandIn()
      down.failNext(LlmFault.serverError(), LlmFault.serverError(), LlmFault.serverError())
      const built = yield* Effect.flatMap(builder(down.url), (b) => b.build(Q))
      assert.isTrue(built.fellBack)
      assert.strictEqual(down.completions().length, 3)
    })))

  it.live("a one-word question fails before the model is asked", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn()
      const e = yield* Effect.flip(Effect.flatMap(builder(llm.url), (b) => b.build("what are the best papers?")))
      assert.strictEqual(e._tag, "NotEnoughInformation")
      assert.strictEqual(llm.completions().length, 0)
    })))

  it.live("end to end: a model query arXiv rejects (HTTP 400) is replaced by the rule-based query", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn()
      const arxiv = yield* arxivStandIn({ padSearches: true })
      arxiv.failNext(Fault.errorFeed("search_query"))
      const layer = Layer.mergeAll(
        LiveArxiv.layer({ apiUrl: arxiv.url, minInterval: "5 millis", retry: { baseDelay: "5 millis", maxDelay: "20 millis" } }).pipe(
          Layer.provide(Layer.mergeAll(NodeHttpClient.layer, ResponseCache.layerDisabled))
        ),
        LocalJudge.layer,
        RecordedOpenAlex.layer(),
        ArxivTermStats.layer,
        LlmQueryBuilder.layer({ apiUrl: llm.url, model: "scripted-writer", retryBaseDelay: "5 millis" }).pipe(Layer.provide(NodeHttpClient.layer))
      ).pipe(Layer.provide(NodeContext.layer))
      const r = yield* askArxivTool({ question: Q, max_results: 10 }).pipe(Effect.provide(layer))
      assert.strictEqual(r.builder, "scripted-writer")
      assert.isTrue(r.fell_back)
      assert.match(r.notes[0]!, /arXiv rejected the query .*rule-based query was sent instead/)
      const queries = arxiv.requests.map((q) => new URL(q.url, "http://x").searchParams.get("search_query"))
      // the rejected query, then the rule-based concept in its place (and at most the title search after it),
      // each as the parser read it: the model's "((ti:stabilise OR abs:stabilise) OR …)" is the same tree
      assert.deepEqual(queries.slice(0, 2), [`(${render(typedQuery(scriptedQuery(Q)))})`, "(all:stabilise OR all:stabilize OR all:gan OR all:\"generative adversarial\")"])
      assert.strictEqual(queries[0], "(ti:stabilise OR abs:stabilise OR (ti:gan OR abs:gan OR abs:\"generative adversarial\") OR (ti:training OR abs:training))")
      assert.isAtMost(queries.length, 3)
      assert.strictEqual(r.query, queries[1])
    })))
})
