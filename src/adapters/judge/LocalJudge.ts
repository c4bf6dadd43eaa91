/**
 * The local relevance judge: offline, deterministic, no key, no model download.
 *
 * Each paper is scored against the concept on its own (BM25F over stems and
 * stem pairs, IDF from a shipped table of 36k CC0 arXiv abstracts), so scores
 * do not depend on which other papers are judged or in what order, and a
 * relevance of 0.5 means the same coverage of the note in every run. See
 * ./score.ts for the rule and README "How relevance is scored (offline judge)"
 * for how it was chosen and measured on CSFCube.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { JudgeFailed } from "../../core/errors.js"
import { Judgement } from "../../core/models.js"
import { type Concept, type JudgeMany, LlmJudgePort, type LlmJudgeService } from "../../core/ports/LlmJudgePort.js"
import { arxivDfTable } from "./dfTable.js"
import type { Ranker } from "./ranker.js"
import {
  type DfTable,
  defaultParams,
  type PaperScore,
  prepareConcept,
  preparePaper,
  type ScoringParams,
  scorePaper,
  scorePrepared,
  type TermVectors
} from "./score.js"
import { arxivTermVectors } from "./termVectors.js"

/** The learned relevance fitted on the graded tuning notes (data/judge/ranker.json), for `makeWith({ ranker })`. */
export { arxivRanker, type Ranker } from "./ranker.js"

/** The judge's name in reports. */
export const name = "local (BM25F + arXiv IDF)"

/**
 * The least relevance of the fixed map (the default) at which a digest announces a paper, the judge's
 * `digestRelevance`: chosen with the digest's announcing rule (src/core/digest.ts `DIGEST_ANNOUNCE`) on the 76 graded
 * tuning notes (eval/digest/bars.ts; eval/digest/README.md). The learned relevance has its own, beside its weights
 * (`Ranker.digestRelevance` in data/judge/ranker.json).
 */
export const fixedDigestRelevance = 0.7

/** Options of the local judge; every field has a measured default. */
export interface LocalJudgeOptions {
  /** Override scoring knobs (see ScoringParams in ./score.ts); the defaults were tuned on one CSFCube fold. */
  readonly params?: Partial<ScoringParams> | undefined
  /** Override the document-frequency table (tests, other corpora). */
  readonly table?: DfTable | undefined
  /** Override the term vectors (tests, other corpora). */
  readonly vectors?: TermVectors | undefined
  /**
   * A learned relevance (./ranker.ts; the one fitted on the graded tuning notes is `arxivRanker()`): relevance is
   * then its probability that a student of the note should read the paper. Absent or null: the fixed map (the
   * default, which keeps CSFCube's figure; eval/precision/README.md says what the learned one measured).
   */
  readonly ranker?: Ranker | null | undefined
  /**
   * The judge's `orderNovelty`: a run's places ordered by relevance − orderNovelty · (novelty − ½). Absent (the
   * default): relevance alone. 0.1 passed its cross-validation on the graded tuning notes by a hair but cut the
   * GAN paper from the demo GAN note and a landmark of `tune` (eval/precision/README.md, prec7), so it is opt-in.
   */
  readonly orderNovelty?: number | undefined
}

const percent = (x: number): string => `${Math.round(x * 100)}%`

/** A rationale a person can check: which of the note's terms the paper matched, and what it adds. */
export const rationale = (s: PaperScore): string => {
  // a matched phrase stands for its words: list "machine translation", not also "machine" and "translation"
  const shown: Array<string> = []
  for (const m of s.matches) {
    const words = m.term.split(" ")
    if (words.length === 1) {
      if (!shown.some((t) => t.split(" ").includes(m.term))) shown.push(m.term)
      continue
    }
    const at = shown.findIndex((t) => words.includes(t))
    if (at >= 0) shown.splice(at, 1, m.term)
    else shown.push(m.term)
    for (let i = shown.length - 1; i > at; i--) if (words.includes(shown[i]!)) shown.splice(i, 1)
  }
  const matched = shown.slice(0, 8)
  const head =
    matched.length === 0
      ? "Matched none of the note's key terms"
      : `Matched the note's terms: ${matched.join(", ")}${shown.length > matched.length ? ` (+${shown.length - matched.length} more)` : ""}`
  const similar = s.similarity === undefined ? "" : `; topic similarity ${s.similarity.toFixed(2)}`
  const adds = s.additions.slice(0, 5)
  return (
    `${head}. Covers ${percent(s.coverage)} of the note's weighted terms that arXiv abstracts use${similar}.` +
    (adds.length > 0 ? ` Beyond the note: ${adds.join(", ")}.` : "")
  )
}

type JudgedPaper = { readonly arxivId: string; readonly title: string; readonly abstract: string }

/**
 * The judgement of a scored paper: with the concept gate holding it back, the relevance before the gate and the
 * gate's signal, for the keep rule to apply (a paper the field cites enough is spared there, where its count is read).
 */
const judgementOf = (arxivId: string, s: PaperScore): Judgement =>
  new Judgement({
    arxivId,
    relevance: s.gate?.before ?? s.relevance,
    novelty: s.novelty,
    rationale: rationale(s),
    ...(s.gate === undefined ? {} : {
      conceptGate: {
        match: s.gate.match,
        gate: s.gate.gate,
        ...(s.gate.spareCites === undefined ? {} : { spareCitationsPerYear: s.gate.spareCites })
      }
    })
  })

/** Build the judge service with the given options. */
export const makeWith = (options: LocalJudgeOptions = {}): LlmJudgeService => {
  const params: ScoringParams = { ...defaultParams, ...options.params }
  const table = () => options.table ?? arxivDfTable()
  const vectors = () => (params.semanticWeight > 0 ? options.vectors ?? arxivTermVectors() : undefined)
  const failed = (e: unknown) => new JudgeFailed({ model: name, reason: e instanceof Error ? e.message : String(e) })
  const judgeOne = Effect.fn("LlmJudgePort.judge")(function*(
    concept: Concept,
    papers: ReadonlyArray<{ readonly arxivId: string; readonly title: string; readonly abstract: string }>
  ) {
    return yield* Effect.try({
      try: () => {
        const t = table()
        const v = vectors()
        const prepared = prepareConcept(concept, t, params, v)
        return papers.map((paper) => {
          const s = scorePaper(prepared, paper, t, params, v, options.ranker)
          return judgementOf(paper.arxivId, s)
        })
      },
      catch: failed
    })
  })
  // several concepts at once: each distinct paper (same id, title and abstract) prepared once, scored against every
  // concept it is a candidate of, then let go, so nothing of it is kept beyond its judgements
  const many: JudgeMany = Effect.fn("LlmJudgePort.judgeMany")(function*(items) {
    return yield* Effect.try({
      try: () => {
        const t = table()
        const v = vectors()
        const concepts = items.map((item) => prepareConcept(item.concept, t, params, v))
        const out: Array<Array<Judgement | undefined>> = items.map((item) => new Array<Judgement | undefined>(item.papers.length))
        // by id; a second text under one id (another record) is prepared on its own
        const byPaper = new Map<string, Array<{ readonly paper: JudgedPaper; readonly refs: Array<{ readonly item: number; readonly at: number }> }>>()
        items.forEach((item, i) =>
          item.papers.forEach((paper, at) => {
            const texts = byPaper.get(paper.arxivId) ?? []
            if (texts.length === 0) byPaper.set(paper.arxivId, texts)
            const same = texts.find((x) => x.paper === paper || (x.paper.title === paper.title && x.paper.abstract === paper.abstract))
            if (same === undefined) texts.push({ paper, refs: [{ item: i, at }] })
            else same.refs.push({ item: i, at })
          })
        )
        for (const texts of byPaper.values()) {
          for (const { paper, refs } of texts) {
            const prepared = preparePaper(paper, t, params, v)
            for (const { at, item } of refs) {
              const s = scorePrepared(concepts[item]!, prepared, t, params, v, options.ranker)
              out[item]![at] = judgementOf(paper.arxivId, s)
            }
          }
        }
        return out as ReadonlyArray<ReadonlyArray<Judgement>>
      },
      catch: failed
    })
  })
  const judge: LlmJudgeService["judge"] = Object.assign(judgeOne, { many })
  // each relevance scale has its own bar for a digest; a ranker without one leaves the digest's default
  const digestRelevance = options.ranker == null ? fixedDigestRelevance : options.ranker.digestRelevance
  // a second judging of ask's pool with the field's words costs a fraction of the first (eval/ask/README.md, eleventh round)
  return { name, judge, digestRelevance, orderNovelty: options.orderNovelty, fieldWords: true }
}

/** The local judge with its defaults. */
export const make: Effect.Effect<LlmJudgeService> = Effect.sync(() => makeWith())

/** The local judge as the LlmJudgePort. */
export const layer: Layer.Layer<LlmJudgePort> = Layer.effect(LlmJudgePort, make)

/** The local judge with options (tuning, tests). */
export const layerWith = (options: LocalJudgeOptions): Layer.Layer<LlmJudgePort> =>
  Layer.succeed(LlmJudgePort, makeWith(options))
