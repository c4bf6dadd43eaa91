/**
 * One behaviour suite for every judge (LlmJudgePort): the same tests run
 * against the local scorer (LocalJudge) and the LLM judge (LlmJudge) on a
 * loopback stand-in for an OpenAI-compatible endpoint whose scripted model
 * reads the prompt it is sent. A new judge joins by adding its layer to
 * BACKENDS.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted, type Scope } from "effect"
import * as LlmJudge from "../../src/adapters/judge/LlmJudge.js"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import { type Concept, type JudgedPapers, LlmJudgePort, type LlmJudgeService } from "../../src/core/ports/LlmJudgePort.js"
import { llmStandIn } from "../support/llm-standin.js"

const portOf = <E>(layer: Layer.Layer<LlmJudgePort, E>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, LlmJudgePort)).pipe(Effect.orDie)

const BACKENDS: ReadonlyArray<{ readonly name: string; readonly port: Effect.Effect<LlmJudgeService, never, Scope.Scope> }> = [
  { name: "LocalJudge (BM25F + arXiv IDF)", port: portOf(LocalJudge.layer) },
  {
    name: "LlmJudge (an OpenAI-compatible endpoint, on a loopback stand-in)",
    port: Effect.flatMap(llmStandIn({ requiredKey: "sk-test-judge-key-000" }), (standIn) =>
      portOf(
        LlmJudge.layer({
          apiUrl: standIn.url,
          model: "test/scripted-judge",
          apiKey: Redacted.make("sk-test-judge-key-000"),
          retries: 2,
          retryBaseDelay: "5 millis"
        }).pipe(Layer.provide(NodeHttpClient.layerUndici))
      ))
  }
]

const concept: Concept = {
  title: "Transformers",
  text: "The Transformer is a sequence transduction model built entirely on self-attention, without recurrence: an " +
    "encoder and a decoder of stacked attention layers, first used for machine translation.",
  keywords: ["attention", "transformer", "sequence", "translation", "encoder", "decoder"]
}

// real arXiv records (shared/data/corpus, CC0), their abstracts shortened to the first sentences
const papers: JudgedPapers = [
  {
    arxivId: "1409.0473",
    title: "Neural Machine Translation by Jointly Learning to Align and Translate",
    abstract: "Neural machine translation is a recently proposed approach to machine translation. The models proposed " +
      "recently for neural machine translation often belong to a family of encoder-decoders and consists of an encoder " +
      "that encodes a source sentence into a fixed-length vector from which a decoder generates a translation. We " +
      "conjecture that the use of a fixed-length vector is a bottleneck and propose to extend this by allowing a model " +
      "to automatically (soft-)search for parts of a source sentence that are relevant to predicting a target word " +
      "(attention) over the input sequence."
  },
  {
    arxivId: "1512.03385",
    title: "Deep Residual Learning for Image Recognition",
    abstract: "Deeper neural networks are more difficult to train. We present a residual learning framework to ease the " +
      "training of networks that are substantially deeper than those used previously. We explicitly reformulate the " +
      "layers as learning residual functions with reference to the layer inputs, instead of learning unreferenced functions."
  }
]

for (const backend of BACKENDS) {
  const withJudge = <A, E>(f: (judge: LlmJudgeService) => Effect.Effect<A, E>) => Effect.scoped(Effect.flatMap(backend.port, f))

  describe(`LlmJudgePort: ${backend.name}`, { timeout: 120_000 }, () => {
    it.live("one judgement per paper, in the papers' order, relevance and novelty in 0..1, each with a rationale", () =>
      withJudge((judge) =>
        Effect.gen(function*() {
          const judged = yield* judge.judge(concept, papers)
          assert.deepStrictEqual(judged.map((j) => j.arxivId), papers.map((p) => p.arxivId))
          for (const j of judged) {
            assert.isTrue(j.relevance >= 0 && j.relevance <= 1, String(j.relevance))
            assert.isTrue(j.novelty >= 0 && j.novelty <= 1, String(j.novelty))
            assert.isAbove(j.rationale.length, 0)
          }
          assert.isAbove(judge.name.length, 0)
        })
      ))

    it.live("the paper on the note's topic is judged more relevant than the one off it", () =>
      withJudge((judge) =>
        Effect.gen(function*() {
          const [onTopic, offTopic] = yield* judge.judge(concept, papers)
          assert.isAbove(onTopic!.relevance, offTopic!.relevance)
        })
      ))

    it.live("no papers: no judgements", () =>
      withJudge((judge) => Effect.map(judge.judge(concept, []), (judged) => assert.deepStrictEqual(judged, []))))
  })
}
