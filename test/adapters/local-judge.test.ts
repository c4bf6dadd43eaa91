import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { centralConcept, conceptMatch } from "../../src/adapters/judge/concept.js"
import { arxivDfTable } from "../../src/adapters/judge/dfTable.js"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import { citationSparedGate, defaultParams, gateRelevance, prepareConcept, type ScoringParams, scorePaper } from "../../src/adapters/judge/score.js"
import { arxivTermVectors } from "../../src/adapters/judge/termVectors.js"
import { extractKeywords } from "../../src/core/keywords.js"
import { plainText } from "../../src/core/keywords.js"
import type { Concept } from "../../src/core/ports/LlmJudgePort.js"
import { LlmJudgePort } from "../../src/core/ports/LlmJudgePort.js"

interface Abstract {
  readonly arxivId: string
  readonly title: string
  readonly abstract: string
}

// Real arXiv abstracts (CC0), see test/fixtures/README.md
const abstracts = (file: string): ReadonlyArray<Abstract> =>
  readFileSync(fileURLToPath(new URL(`../fixtures/${file}`, import.meta.url)), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Abstract)
const papers = abstracts("judge-abstracts.jsonl")
const byId = (id: string): Abstract => papers.find((p) => p.arxivId === id)!
// the landmarks of a dropout note
const dropoutPapers = abstracts("judge-dropout-landmarks.jsonl")
// papers that share a note's words but not its concept, and papers about a concept in other words
const conceptPapers = abstracts("judge-concept-abstracts.jsonl")

const noteOf = (file: string): Concept => {
  const text = readFileSync(fileURLToPath(new URL(`../../examples/vault/${file}.md`, import.meta.url)), "utf8")
  return { title: file, text: plainText(text), keywords: extractKeywords(text, file).map((k) => k.term) }
}

const conceptOf = (title: string, markdown: string): Concept => ({
  title,
  text: plainText(markdown),
  keywords: extractKeywords(markdown, title).map((k) => k.term)
})

// a lecture note in a student's own words (written for this test; no abstract's wording copied)
const dropoutNote = `# Dropout (lecture 7)

Trick against overfitting: while training, every hidden neuron is switched off at random (keep it with prob 0.5), so a fresh thinned net is trained on each minibatch.

- why it works: neurons can't lean on particular other neurons, they have to be useful on their own
- at test time nothing is dropped, the outgoing weights get multiplied by the keep prob -> roughly the average of all those thinned nets, a cheap ensemble
- worked on MNIST, TIMIT speech and ImageNet convnets, lower test error everywhere

## RNNs / LSTMs
- dropping on the recurrent (time-to-time) connections destroys the memory -> only drop between stacked layers, then big LSTMs on PTB stop overfitting
- Bayesian view: sample ONE mask per sequence and reuse it at every step, then the recurrent weights can be dropped too

todo: ask in office hours whether p should differ per layer
`
// a second student's note, for a concept papers often name in other words ("label noise")
const noisyLabelsNote = `# Learning with noisy labels

web-scale datasets and crowd workers give wrong labels. what does a deep net do when trained on them?

- nets can fit completely random labels, so the noise is memorised eventually and test accuracy drops
- model the corruption as a transition matrix between the true and the observed class, learn it or estimate it
- bootstrapping: the target mixes the given label with the model's own prediction
- symmetric noise vs class-dependent noise (cat <-> dog)
`
// what students write around the concept: a lecturer, authors, course work, shorthand (no abstract says these)
const asides = "\n(from Prof. Okonkwo's slides, wk7; Srivastava/Zaremba/Gal; tbh kinda janky imo, lol. ppl ~78 on ptb w/ 2x650 lstm, todo redo hw3 q2b)\n"

const transformers = noteOf("Transformers Concept Note")
const gans = noteOf("Generative Adversarial Networks")

const judge = (concept: Concept, ps: ReadonlyArray<Abstract>) =>
  Effect.flatMap(LlmJudgePort, (j) => j.judge(concept, ps)).pipe(Effect.provide(LocalJudge.layer))

const seeded = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31
  return seed / 2 ** 31
}
const shuffle = <A>(xs: ReadonlyArray<A>, rnd: () => number): Array<A> => {
  const out = [...xs]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

describe("LocalJudge", () => {
  it("names itself for reports", () => {
    assert.match(LocalJudge.name, /^local \(BM25/)
  })

  it.effect("returns one judgement per paper, in the order given, bounded in [0, 1]", () =>
    Effect.gen(function*() {
      const js = yield* judge(transformers, papers)
      assert.deepStrictEqual(js.map((j) => j.arxivId), papers.map((p) => p.arxivId))
      for (const j of js) {
        assert.isTrue(j.relevance >= 0 && j.relevance <= 1, `relevance ${j.relevance}`)
        assert.isTrue(j.novelty >= 0 && j.novelty <= 1, `novelty ${j.novelty}`)
      }
    }))

  it.effect("is deterministic", () =>
    Effect.gen(function*() {
      const a = yield* judge(transformers, papers)
      const b = yield* judge(transformers, papers)
      assert.deepStrictEqual(a, b)
    }))

  it.effect("gives a paper the same judgement whatever the other candidates and their order", () =>
    Effect.gen(function*() {
      const all = yield* judge(transformers, papers)
      const rnd = seeded(7)
      for (let round = 0; round < 5; round++) {
        const subset = shuffle(papers, rnd).slice(0, 3 + round)
        const js = yield* judge(transformers, subset)
        for (const j of js) assert.deepStrictEqual(j, all.find((x) => x.arxivId === j.arxivId))
      }
    }))

  it.effect("ranks on-topic papers above off-topic ones on real abstracts", () =>
    Effect.gen(function*() {
      const t = yield* judge(transformers, papers)
      const rel = (id: string) => t.find((j) => j.arxivId === id)!.relevance
      // attention-based NMT and seq2seq vs. residual nets, GANs and Adam
      for (const on of ["1409.0473", "1409.3215"]) {
        for (const off of ["1512.03385", "1406.2661", "1412.6980"]) {
          assert.isTrue(rel(on) > rel(off), `${on} (${rel(on)}) should outrank ${off} (${rel(off)})`)
        }
      }
      assert.isTrue(rel("1412.6980") < 0.5, "Adam does not clear the threshold for a Transformers note")

      const g = yield* judge(gans, papers)
      const grel = (id: string) => g.find((j) => j.arxivId === id)!.relevance
      for (const on of ["1406.2661", "1701.07875", "1511.06434"]) {
        for (const off of ["1409.0473", "1508.07909", "1412.6980"]) {
          assert.isTrue(grel(on) > grel(off), `${on} should outrank ${off} for the GAN note`)
        }
      }
    }))

  it.effect("topic similarity recognises a paper on the note's topic that shares few of its words", () =>
    Effect.gen(function*() {
      const similarity = (rationale: string): number => {
        const m = /topic similarity (-?\d\.\d\d)/.exec(rationale)
        assert.isNotNull(m, rationale)
        return Number(m![1])
      }
      const g = yield* judge(gans, papers)
      const sim = (id: string) => similarity(g.find((j) => j.arxivId === id)!.rationale)
      // Wasserstein GAN matches few of the GAN note's terms, yet is about what the note is about
      for (const off of ["1409.0473", "1409.3215", "1508.07909", "1512.03385", "1412.6980"]) {
        assert.isTrue(sim("1701.07875") > sim(off) + 0.2, `WGAN ${sim("1701.07875")} vs ${off} ${sim(off)}`)
      }
      // what every abstract shares is removed, so an unrelated paper sits near zero, not near one
      const t = yield* judge(transformers, papers)
      const tsim = (id: string) => similarity(t.find((j) => j.arxivId === id)!.rationale)
      assert.isTrue(tsim("1412.6980") < 0.3, `Adam vs the Transformers note: ${tsim("1412.6980")}`)
      assert.isTrue(tsim("1409.0473") > 0.5, `attention NMT vs the Transformers note: ${tsim("1409.0473")}`)
    }))

  it.effect("rationale names the matched terms a person can find in both texts", () =>
    Effect.gen(function*() {
      const [j] = yield* judge(transformers, [byId("1409.0473")])
      const m = /Matched the note's terms: ([^.]+?)(?: \(\+\d+ more\))?\./.exec(j!.rationale)
      assert.isNotNull(m, j!.rationale)
      const terms = m![1]!.split(", ")
      assert.isTrue(terms.length >= 3, j!.rationale)
      const paperText = `${byId("1409.0473").title} ${byId("1409.0473").abstract}`.toLowerCase()
      const noteText = `${transformers.title} ${transformers.text}`.toLowerCase()
      // every matched word (or a variant sharing its first 5 letters) occurs in the paper and in the note
      for (const term of terms) {
        for (const w of term.split(" ")) {
          const root = w.slice(0, 5)
          assert.include(paperText, root, `${w} in paper`)
          assert.include(noteText, root, `${w} in note`)
        }
      }
      assert.include(terms, "machine translation")

      const [off] = yield* judge(transformers, [{ arxivId: "x", title: "Soil moisture", abstract: "Rainfall and soil." }])
      assert.match(off!.rationale, /Matched none of the note's key terms/)
    }))

  it.effect("novelty measures what the paper adds, not 1 - relevance", () =>
    Effect.gen(function*() {
      const js = yield* judge(transformers, papers)
      const gaps = js.map((j) => Math.abs(j.novelty - (1 - j.relevance)))
      assert.isTrue(Math.max(...gaps) > 0.2, `novelty tracks 1 - relevance too closely: ${gaps}`)
      // a paper restating the note adds little; the same paper with unrelated material appended adds more,
      // while still covering the note as well
      const restated = { arxivId: "same", title: transformers.title, abstract: transformers.text }
      const extended = {
        arxivId: "more",
        title: transformers.title,
        abstract: `${transformers.text} ${byId("1412.6980").abstract} ${byId("1406.2661").abstract}`
      }
      const [a, b] = yield* judge(transformers, [restated, extended])
      assert.isTrue(a!.novelty < 0.2, `restated note novelty ${a!.novelty}`)
      assert.isTrue(b!.novelty > a!.novelty + 0.15, `extended novelty ${b!.novelty}`)
      assert.isTrue(b!.relevance >= 0.5 && a!.relevance >= 0.5)
    }))

  it.effect("a student's note clears the bar for the papers it is about, asides and all; famous papers on other topics do not", () =>
    Effect.gen(function*() {
      const onTopic = ["1409.2329", "1512.05287"] // dropout for recurrent networks, the note's second half
      const offTopic = papers.map((p) => p.arxivId) // attention, seq2seq, subwords, ResNet, GAN, WGAN, DCGAN, Adam
      const plain = yield* judge(conceptOf("Dropout", dropoutNote), [...dropoutPapers, ...papers])
      const noisy = yield* judge(conceptOf("Dropout", dropoutNote + asides), [...dropoutPapers, ...papers])
      const rel = (js: typeof plain, id: string) => js.find((j) => j.arxivId === id)!.relevance
      for (const id of onTopic) {
        assert.isTrue(rel(plain, id) >= 0.5, `${id} on the plain note: ${rel(plain, id)}`)
        // names, course work and shorthand no abstract uses do not count against the paper
        assert.isTrue(rel(noisy, id) >= rel(plain, id), `${id} with the asides: ${rel(noisy, id)} < ${rel(plain, id)}`)
      }
      for (const id of offTopic) {
        assert.isTrue(rel(plain, id) < 0.5, `${id} on the plain note: ${rel(plain, id)}`)
        assert.isTrue(rel(noisy, id) < 0.5, `${id} with the asides: ${rel(noisy, id)}`)
      }
    }))

  it.effect("a paper without the note's concept cannot reach the bar on the note's incidental words", () =>
    Effect.gen(function*() {
      // layer normalisation and parameter pruning share the dropout note's hidden units, weights, recurrent nets
      // and training, and never say dropout; a dropout variant does
      const dropout = conceptOf("Dropout", dropoutNote)
      const [layerNorm, pruning, curriculum] = yield* judge(dropout, conceptPapers.slice(0, 3))
      assert.isTrue(layerNorm!.relevance < 0.5, `Layer Normalization: ${layerNorm!.relevance}`)
      assert.isTrue(pruning!.relevance < 0.5, `Data-free parameter pruning: ${pruning!.relevance}`)
      assert.isTrue(curriculum!.relevance >= 0.5, `Curriculum Dropout: ${curriculum!.relevance}`)
      // the concept is measured apart from the shared words: none of it in the first two, all of it in the third
      const table = arxivDfTable()
      const prepared = prepareConcept(dropout, table, defaultParams, arxivTermVectors())
      const about = (paper: Abstract) => scorePaper(prepared, paper, table, defaultParams, arxivTermVectors()).concept
      assert.strictEqual(about(conceptPapers[0]!), 0)
      assert.strictEqual(about(conceptPapers[1]!), 0)
      assert.strictEqual(about(conceptPapers[2]!), 1)
    }))

  it.effect("a paper about the note's concept in a variant of its words reaches the bar", () =>
    Effect.gen(function*() {
      // "noisy labels" in the title, "label noise" in the paper: another inflection, the other word order
      const note = conceptOf("Learning with noisy labels", noisyLabelsNote)
      const [, , , boosting] = yield* judge(note, conceptPapers)
      assert.isTrue(boosting!.relevance >= 0.5, `Non-Convex Boosting Overcomes Random Label Noise: ${boosting!.relevance}`)
      const [layerNorm] = yield* judge(note, conceptPapers)
      assert.isTrue(layerNorm!.relevance < 0.5, `Layer Normalization for the noisy-labels note: ${layerNorm!.relevance}`)
    }))

  it.effect("a note named by an acronym finds the papers that spell it out, and not those about the inverse problem", () =>
    Effect.gen(function*() {
      const ttsNote = `# Neural TTS

old pipeline: text to linguistic features to an acoustic model to a vocoder; concatenative units sound best, HMMs buzzy.
- sample-level autoregressive audio models as vocoder: natural but slow sampling
- seq2seq + attention from characters to spectrograms, then Griffin-Lim for the waveform
- MOS for evaluation; why predict spectrograms and not raw waveforms?
`
      const note = conceptOf("Neural TTS", ttsNote)
      const [tacotron, deepVoice, wav2letter] = conceptPapers.slice(4, 7)
      const table = arxivDfTable()
      // the corpus defines the acronym, and no abstract of the three writes "TTS"
      assert.deepStrictEqual(table.acronyms?.get("tts"), ["text to speech"])
      for (const p of [tacotron!, deepVoice!, wav2letter!]) assert.notMatch(`${p.title} ${p.abstract}`, /\bTTS\b/)
      const prepared = prepareConcept(note, table, defaultParams, arxivTermVectors())
      const about = (paper: Abstract) => scorePaper(prepared, paper, table, defaultParams, arxivTermVectors()).concept
      assert.strictEqual(about(tacotron!), 1)
      assert.strictEqual(about(deepVoice!), 1)
      assert.strictEqual(about(wav2letter!), 0)
      const [t, d, w] = yield* judge(note, [tacotron!, deepVoice!, wav2letter!])
      assert.isTrue(t!.relevance >= 0.5 && d!.relevance >= 0.5, `Tacotron ${t!.relevance}, Deep Voice ${d!.relevance}`)
      // speech recognition shares the note's speech and waveform words, not its concept: it ranks below both
      assert.isTrue(w!.relevance < Math.min(t!.relevance, d!.relevance), `Wav2Letter ${w!.relevance}`)
      // only a word written in capitals is read as an acronym: "map" is not "maximum a posteriori"
      assert.isDefined(table.acronyms?.get("map"))
      assert.isUndefined(centralConcept("Saliency map", table, defaultParams).units.find((u) => u.phrases !== undefined))
      assert.isDefined(centralConcept("Neural TTS", table, defaultParams).units.find((u) => u.phrases !== undefined))
    }))

  it.effect("a title word Porter conflates with unrelated words is matched by its word family", () =>
    Effect.sync(() => {
      const table = arxivDfTable()
      // "generalization" stems to "gener", as "general", "generate" and "generation" do: it would weigh nothing
      const concept = centralConcept("Generalization in deep nets", table, defaultParams)
      const family = concept.units.find((u) => u.key === "~generali")
      assert.isDefined(family, concept.units.map((u) => u.key).join(", "))
      assert.isTrue(family!.weight > 0)
      assert.isUndefined(concept.units.find((u) => u.key === "gener"))
      const prepared = prepareConcept({ title: "Generalization in deep nets", text: "", keywords: [] }, table, defaultParams)
      const [sharp, memory] = conceptPapers.slice(7, 9)
      const about = (paper: Abstract) => scorePaper(prepared, paper, table, defaultParams).concept
      // both are about deep nets; only the first about their generalization
      assert.isTrue(about(sharp!) > about(memory!) + 0.2, `sharp minima ${about(sharp!)}, sublinear memory ${about(memory!)}`)
      // a word Porter cuts little keeps its stem ("normalization" is matched by "normalized" too), as does an adjective
      for (const title of ["Batch normalization", "Modelling sentences", "A distributional account of negation"]) {
        assert.isUndefined(centralConcept(title, table, defaultParams).units.find((u) => u.key.startsWith("~")), title)
      }
    }))

  it.effect("a title of alternatives is about any of them; a title of names requires nothing", () =>
    Effect.sync(() => {
      const table = arxivDfTable()
      const edges = centralConcept("Edge and contour detection", table, defaultParams)
      assert.strictEqual(edges.parts, 2)
      const edgeOnly = { title: new Set(["edg", "detect", "edg detect"]), abstract: new Map<string, number>() }
      assert.isTrue(conceptMatch(edges, edgeOnly, defaultParams) > 0.9, "an edge detection paper is about the note")
      const names = centralConcept("Zorvik", table, defaultParams)
      assert.strictEqual(names.units.length, 0)
      assert.strictEqual(names.strength, 0)
    }))

  it.effect("a concept pair one word apart is matched in a paper only with conceptPairsApart", () =>
    Effect.sync(() => {
      const table = arxivDfTable()
      const concept = { title: "Human pose estimation", text: "", keywords: [] }
      // the concept forms "human … estimation" from its three words; papers write the whole phrase, never that pair
      assert.isDefined(centralConcept(concept.title, table, defaultParams).units.find((u) => u.key === "human estim"))
      const paper = {
        title: "Stacked hourglass networks for human pose estimation",
        abstract: "A convolutional architecture that pools and upsamples features repeatedly to locate body joints in images."
      }
      const about = (pairsApart: boolean) => {
        const p = { ...defaultParams, conceptPairsApart: pairsApart }
        return scorePaper(prepareConcept(concept, table, p), paper, table, p).concept
      }
      assert.isBelow(about(false), 0.9)
      assert.strictEqual(about(true), 1)
      // the shipped rule reads adjacent pairs only (measured on the tuning notes: eval/precision/README.md)
      assert.isFalse(defaultParams.conceptPairsApart === true)
    }))

  it.effect("noveltyWeight takes off what a paper adds beyond the note, for a note whose title names a concept", () =>
    Effect.sync(() => {
      const table = arxivDfTable()
      const vectors = arxivTermVectors()
      const note = conceptOf("Dropout", dropoutNote)
      const aside = {
        title: "Dropout prediction for online course students",
        abstract: "We predict which students leave massive open online courses from clickstream logs, forum posts and " +
          "quiz submissions, and compare gradient boosted trees with logistic regression on several course offerings."
      }
      const with_ = (weight: number, concept: Concept) => {
        const p = { ...defaultParams, noveltyWeight: weight }
        return scorePaper(prepareConcept(concept, table, p, vectors), aside, table, p, vectors)
      }
      const before = with_(0, note)
      const after = with_(0.05, note)
      // most of its salient words (students, courses, clickstream) are not the note's: it loses score
      assert.isAbove(before.novelty, 0.5)
      assert.closeTo(before.score - after.score, 0.05 * (before.novelty - 0.5), 1e-9)
      // a title as long as a paper's names no concept (strength 0): nothing changes
      const long = { ...note, title: "On the regularisation of large feed-forward and recurrent neural networks by random omission" }
      assert.strictEqual(with_(0.05, long).score, with_(0, long).score)
      assert.strictEqual(defaultParams.noveltyWeight ?? 0, 0)
    }))

  it("credits the word-vector neighbours of a title's words only when conceptTextNeighbours asks (off by default)", () => {
    const table = arxivDfTable()
    const vectors = arxivTermVectors()
    const title = "why do neural networks forget old tasks"
    // a paper about the concept in the field's word ("catastrophic forgetting" without "forget"), none of the title's
    const paper = { title: new Set(["catastroph"]), abstract: new Map([["catastroph", 3]]) }
    const asked = { ...defaultParams, conceptTextNeighbours: 12, conceptTextCosine: 0.45, conceptTextCredit: 1 }
    assert.strictEqual(conceptMatch(centralConcept(title, table, defaultParams, vectors), paper, defaultParams), 0)
    assert.isAbove(conceptMatch(centralConcept(title, table, asked, vectors), paper, asked), 0.3)
    // below the cosine floor, nothing is credited
    const strict = { ...asked, conceptTextCosine: 0.9 }
    assert.strictEqual(conceptMatch(centralConcept(title, table, strict, vectors), paper, strict), 0)
    assert.isUndefined(defaultParams.conceptTextNeighbours)
  })

  it("matches the title's concept in the field's other spellings only when asked (prec10's knobs; off by default)", () => {
    const table = arxivDfTable()
    const vectors = arxivTermVectors()
    const match = (title: string, paperTitle: string, knobs: Partial<ScoringParams>) => {
      const p = { ...defaultParams, ...knobs }
      const concept = { title, text: "", keywords: [] } as unknown as Concept
      return scorePaper(prepareConcept(concept, table, p, vectors), { title: paperTitle, abstract: "" }, table, p, vectors).concept
    }
    // a compound in its other spelling: two title words written as one, one title word written as two
    const lipNet = "LipNet: End-to-End Sentence-level Lipreading"
    assert.strictEqual(match("Lip reading with deep nets", lipNet, {}), 0)
    assert.isAbove(match("Lip reading with deep nets", lipNet, { conceptCompounds: true }), 0.5)
    const multiTask = "A multi-task architecture for sequence tagging"
    assert.strictEqual(match("Multitask learning", multiTask, {}), 0)
    assert.isAbove(match("Multitask learning", multiTask, { conceptCompounds: true }), 0.5)
    // a pair named apart in the paper's title
    const dec = "Unsupervised Deep Embedding for Clustering Analysis"
    assert.isBelow(match("Deep clustering", dec, {}), 0.2)
    assert.isAbove(match("Deep clustering", dec, { conceptPairsInTitle: 0.6 }), 0.5)
    // a near word-vector neighbour in the paper's title earns its cosine, not half of it
    assert.isAbove(match("MCMC", "A tutorial on HMC", { conceptTitleNeighbourCosine: 0.8 }), match("MCMC", "A tutorial on HMC", {}))
    for (const k of ["conceptCompounds", "conceptPairsInTitle", "conceptTitleNeighbourCosine", "conceptGenericPair"] as const) {
      assert.isUndefined(defaultParams[k])
    }
  })

  it.effect("the concept gate (an option) flags a paper without the note's concept for the keep rule, unless the judge is sure of it", () =>
    Effect.gen(function*() {
      // the demo note is named after the Transformer; attention-based translation (1409.0473) and sequence to
      // sequence learning (1409.3215) share its words and never write the name: concept match 0
      const ids = ["1409.0473", "1409.3215"]
      const judgeWith = (params: Partial<ScoringParams>, concept: Concept) =>
        Effect.flatMap(LlmJudgePort, (j) => j.judge(concept, ids.map(byId))).pipe(
          Effect.provide(Layer.succeed(LlmJudgePort, LocalJudge.makeWith({ params })))
        )
      const gate = citationSparedGate
      const [attention, seq2seq] = yield* judgeWith(gate, transformers)
      const [plainAttention, plainSeq2seq] = yield* judgeWith({ ...gate, conceptGate: 0 }, transformers)
      // the judgement keeps the relevance before the gate; the keep rule reads the flag (src/core/rules.ts)
      assert.strictEqual(attention!.relevance, plainAttention!.relevance)
      assert.strictEqual(seq2seq!.relevance, plainSeq2seq!.relevance)
      assert.isTrue(attention!.relevance >= 0.95 && seq2seq!.relevance >= 0.5 && seq2seq!.relevance < 0.95, `${attention!.relevance}, ${seq2seq!.relevance}`)
      // at 0.95 or above the judge is sure enough: not flagged; below, flagged with the citations that would spare it
      assert.isUndefined(attention!.conceptGate)
      assert.deepStrictEqual(seq2seq!.conceptGate, { match: 0, gate: 0.3, spareCitationsPerYear: 20 })
      assert.isUndefined(plainSeq2seq!.conceptGate)
      // without a citation spare, nothing spares it
      const [, strict] = yield* judgeWith({ ...gate, gateSpareCites: undefined }, transformers)
      assert.deepStrictEqual(strict!.conceptGate, { match: 0, gate: 0.3 })
      // a title as long as a paper's names no concept (strength 0): the gate does not apply
      const long = { ...transformers, title: "Attention-based encoder and decoder networks for translating sentences between languages" }
      assert.isTrue((yield* judgeWith(gate, long)).every((j) => j.conceptGate === undefined))
      // off by default: no judgement carries the signal
      assert.isTrue((yield* judgeWith({}, transformers)).every((j) => j.conceptGate === undefined))
      assert.deepStrictEqual([defaultParams.conceptGate, defaultParams.gateSpareRelevance, defaultParams.gateSpareCites], [undefined, undefined, undefined])
      // scorePaper, for the eval: a flagged paper's relevance is mapped under the bar, the relevance before it beside it
      const table = arxivDfTable()
      const vectors = arxivTermVectors()
      const p = { ...defaultParams, ...gate }
      const s = scorePaper(prepareConcept(transformers, table, p, vectors), byId("1409.3215"), table, p, vectors)
      assert.strictEqual(s.gate?.before, seq2seq!.relevance)
      assert.strictEqual(s.relevance, gateRelevance(seq2seq!.relevance))
      // the map under the bar: unchanged up to 0.45, at most 0.49, order kept
      assert.strictEqual(gateRelevance(0.3), 0.3)
      assert.isBelow(gateRelevance(1), 0.5)
      assert.isAbove(gateRelevance(0.9), gateRelevance(0.8))
    }))

  it.effect("a note made mostly of words no abstract uses does not make papers relevant", () =>
    Effect.gen(function*() {
      const junk = "zorvik plenth quastle brimwort fremmick: okonkwo's wk7 slides, tbh janky, hw3 q2b todo. " +
        "neural networks trained with gradients lol. snorvel grimtap wuzzle for the quastle, plenth again."
      const js = yield* judge(conceptOf("Zorvik", `# Zorvik\n\n${junk}\n`), [...dropoutPapers, ...papers])
      for (const j of js) assert.isTrue(j.relevance < 0.5, `${j.arxivId}: ${j.relevance}`)
    }))

  it.effect("handles empty input and empty text", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* judge(transformers, []), [])
      const [j] = yield* judge({ title: "", text: "", keywords: [] }, [byId("1409.0473")])
      assert.strictEqual(j!.relevance >= 0 && j!.relevance <= 1, true)
      assert.match(j!.rationale, /Matched none/)
    }))
})
