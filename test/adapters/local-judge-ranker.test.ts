import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { arxivDfTable } from "../../src/adapters/judge/dfTable.js"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import { arxivRanker, rankerFeatureNames, validRanker } from "../../src/adapters/judge/ranker.js"
import { defaultParams, prepareConcept, scorePaper } from "../../src/adapters/judge/score.js"
import { arxivTermVectors } from "../../src/adapters/judge/termVectors.js"
import { extractKeywords, plainText } from "../../src/core/keywords.js"
import type { Concept } from "../../src/core/ports/LlmJudgePort.js"

interface Abstract {
  readonly arxivId: string
  readonly title: string
  readonly abstract: string
}

// Real arXiv abstracts (CC0), see test/fixtures/README.md: papers that share a note's words but not its concept,
// and papers about a concept in other words
const conceptPapers: ReadonlyArray<Abstract> = readFileSync(
  fileURLToPath(new URL("../fixtures/judge-concept-abstracts.jsonl", import.meta.url)),
  "utf8"
).split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Abstract)
const [layerNorm, pruning, curriculumDropout, labelNoiseBoosting, tacotron, deepVoice, wav2letter] = conceptPapers

const conceptOf = (title: string, markdown: string): Concept => ({
  title,
  text: plainText(markdown),
  keywords: extractKeywords(markdown, title).map((k) => k.term)
})

// a student's lecture note (written for this test; no abstract's wording copied)
const dropout = conceptOf(
  "Dropout",
  `# Dropout (lecture 7)

Trick against overfitting: while training, every hidden neuron is switched off at random (keep it with prob 0.5), so a
fresh thinned net is trained on each minibatch. Neurons can't lean on particular other neurons. At test time the
outgoing weights get multiplied by the keep prob, roughly the average of all those thinned nets.

## RNNs / LSTMs
- dropping on the recurrent connections destroys the memory -> only drop between stacked layers
- Bayesian view: sample one mask per sequence and reuse it at every step
`
)
const tts = conceptOf(
  "Neural TTS",
  `# Neural TTS

old pipeline: text to linguistic features to an acoustic model to a vocoder; concatenative units sound best.
- sample-level autoregressive audio models as vocoder: natural but slow sampling
- seq2seq + attention from characters to spectrograms, then Griffin-Lim for the waveform
`
)

const learned = LocalJudge.makeWith({ ranker: arxivRanker() })
const fixed = LocalJudge.makeWith({ ranker: null })
const relevanceOf = (judge: typeof learned, concept: Concept, papers: ReadonlyArray<Abstract>) =>
  Effect.map(judge.judge(concept, papers), (js) => new Map(js.map((j) => [j.arxivId, j.relevance])))

describe("LocalJudge with the learned relevance", () => {
  it("loads the shipped coefficients: the file's model, over signals the judge computes", () => {
    const file = JSON.parse(
      readFileSync(fileURLToPath(new URL("../../data/judge/ranker.json", import.meta.url)), "utf8")
    ) as { features: ReadonlyArray<{ name: string; weight: number }>; bias: number }
    const model = arxivRanker()
    assert.deepStrictEqual(model.features, file.features)
    assert.strictEqual(model.bias, file.bias)
    assert.isAbove(model.features.length, 0)
    for (const t of model.features) {
      for (const n of t.name.split("*")) assert.include(rankerFeatureNames, n)
    }
    // a model naming a signal the judge does not compute is refused, with what to fix
    assert.throws(() => validRanker({ ...file, features: [{ name: "citations", weight: 1 }] }), /not a weighted product of/)
    assert.throws(() => validRanker({ features: [], bias: "1" }), /expected \{target, features/)
    // the digest's bar beside the weights is a relevance, or absent
    assert.throws(() => validRanker({ ...file, digestRelevance: 1.5 }), /digestRelevance 1.5 is not a relevance/)
    assert.throws(() => validRanker({ ...file, digestRelevance: "0.7" }), /digestRelevance "0.7" is not a relevance/)
    assert.strictEqual(validRanker({ ...file, digestRelevance: 0.75 }).digestRelevance, 0.75)
  })

  it("names no orderNovelty by default (the places by relevance alone), the one it is given otherwise", () => {
    assert.isUndefined(LocalJudge.makeWith().orderNovelty)
    assert.isUndefined(learned.orderNovelty)
    assert.strictEqual(LocalJudge.makeWith({ orderNovelty: 0.1 }).orderNovelty, 0.1)
  })

  it.effect("is deterministic and judges each paper on its own", () =>
    Effect.gen(function*() {
      const all = yield* learned.judge(dropout, conceptPapers)
      assert.deepStrictEqual(yield* learned.judge(dropout, conceptPapers), all)
      const reversed = yield* learned.judge(dropout, [...conceptPapers].reverse())
      for (const j of reversed) assert.deepStrictEqual(j, all.find((x) => x.arxivId === j.arxivId))
      for (const j of all) assert.isTrue(j.relevance >= 0 && j.relevance <= 1, `${j.arxivId}: ${j.relevance}`)
    }))

  it.effect("a paper about the note's concept clears the line; papers sharing only its incidental words do not", () =>
    Effect.gen(function*() {
      const r = yield* relevanceOf(learned, dropout, conceptPapers)
      // layer normalisation and parameter pruning share hidden units, weights and recurrent nets, never dropout
      assert.isTrue(r.get(curriculumDropout!.arxivId)! >= 0.5, `Curriculum Dropout ${r.get(curriculumDropout!.arxivId)}`)
      for (const p of [layerNorm!, pruning!]) {
        assert.isTrue(r.get(p.arxivId)! < 0.5, `${p.title}: ${r.get(p.arxivId)}`)
        assert.isTrue(r.get(curriculumDropout!.arxivId)! > r.get(p.arxivId)!, p.title)
      }
      // a paper on another concept sits far below
      assert.isTrue(r.get(labelNoiseBoosting!.arxivId)! < 0.1, `label-noise boosting ${r.get(labelNoiseBoosting!.arxivId)}`)
    }))

  it.effect("ranks the papers that are about an acronym's concept above those that share its field", () =>
    Effect.gen(function*() {
      const r = yield* relevanceOf(learned, tts, [tacotron!, deepVoice!, wav2letter!])
      // speech recognition shares the note's speech and waveform words, not text-to-speech
      for (const on of [tacotron!, deepVoice!]) {
        assert.isTrue(r.get(on.arxivId)! >= 0.5, `${on.title}: ${r.get(on.arxivId)}`)
        assert.isTrue(r.get(on.arxivId)! > r.get(wav2letter!.arxivId)!, on.title)
      }
    }))

  it.effect("a title that names no concept keeps the fixed map; the default judge is the fixed map", () =>
    Effect.gen(function*() {
      // a title as long as a paper's describes a paper, not a concept (concept strength 0): the model was not fitted there
      const long = conceptOf(
        "Randomly omitting hidden units while training large feed forward networks prevents co-adaptation",
        "Randomly omitting half of the feature detectors on each training case prevents complex co-adaptations."
      )
      const table = arxivDfTable()
      assert.strictEqual(prepareConcept(long, table, defaultParams, arxivTermVectors()).central.strength, 0)
      assert.deepStrictEqual(yield* learned.judge(long, conceptPapers), yield* fixed.judge(long, conceptPapers))
      assert.deepStrictEqual(yield* LocalJudge.makeWith().judge(dropout, conceptPapers), yield* fixed.judge(dropout, conceptPapers))
      // for a note that names its concept the model decides: relevance is its probability, not the fixed map's
      const prepared = prepareConcept(dropout, table, defaultParams, arxivTermVectors())
      const s = scorePaper(prepared, curriculumDropout!, table, defaultParams, arxivTermVectors(), arxivRanker())
      const f = scorePaper(prepared, curriculumDropout!, table, defaultParams, arxivTermVectors(), null)
      assert.strictEqual(prepared.central.strength, 1)
      assert.notStrictEqual(s.relevance, f.relevance)
      assert.deepStrictEqual(s.features, f.features)
    }))
})
