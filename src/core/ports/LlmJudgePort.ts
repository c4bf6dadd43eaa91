/**
 * The relevance judge: scores papers against a concept.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { JudgeFailed } from "../errors.js"
import type { Judgement, Paper } from "../models.js"

/** What the judge knows of the user's concept. */
export interface Concept {
  readonly title: string
  /** The note's text, without frontmatter. */
  readonly text: string
  /** Keywords extracted from the note, most important first. */
  readonly keywords: ReadonlyArray<string>
}

/** A summary a language model wrote for one paper. */
export interface WrittenSummary {
  readonly arxivId: string
  readonly summary: string
}

/** The papers a judge is given. */
export type JudgedPapers = ReadonlyArray<Pick<Paper, "arxivId" | "title" | "abstract">>

/**
 * For a costly judge (a paid model): how many candidates it should see in one
 * run, and a cheap ranking (a score per paper, in the order given, higher is
 * better) that picks them from a larger pool.
 */
export interface Shortlist {
  readonly size: number
  readonly rank: (concept: Concept, papers: JudgedPapers) => Effect.Effect<ReadonlyArray<number>, JudgeFailed>
}

/** Several concepts' papers at once: one list of judgements per item, each in the order of its papers. */
export type JudgeMany = (
  items: ReadonlyArray<{ readonly concept: Concept; readonly papers: JudgedPapers }>
) => Effect.Effect<ReadonlyArray<ReadonlyArray<Judgement>>, JudgeFailed>

/**
 * Judge papers against a concept: one judgement per paper, in the order given. It may carry `many`, the same
 * judgements for several concepts at once (a judge that prepares a paper once for every concept it is a candidate
 * of: the local judge). `many` belongs to this very function: a service that replaces `judge` (a wrapper that
 * records or caches) drops it with it, so the batch never bypasses the replacement.
 */
export type JudgeFn = ((concept: Concept, papers: JudgedPapers) => Effect.Effect<ReadonlyArray<Judgement>, JudgeFailed>) & {
  readonly many?: JudgeMany | undefined
}

/** The judge service. Returns one judgement per paper, in the order given. */
export interface LlmJudgeService {
  /** A short name for reports (e.g. "local-bm25" or the model id). */
  readonly name: string
  readonly judge: JudgeFn
  /** Absent: the judge sees every candidate. */
  readonly shortlist?: Shortlist | undefined
  /**
   * Optional: the least relevance, on this judge's own scale, at which a digest announces a paper (a digest brings
   * papers nobody asked for, so it is stricter than a run's bar). Each scale needs its own: the local judge's fixed
   * and learned relevances were measured apart (eval/digest/README.md). Absent: the digest's DIGEST_RELEVANCE.
   */
  readonly digestRelevance?: number | undefined
  /**
   * Optional: how much this judge's novelty (the share of a paper that is about what the note never mentions) weighs
   * in a run's keep order, which is then relevance − orderNovelty · (novelty − ½) (src/core/rules.ts `keepOrder`).
   * It orders the places only: which papers are relevant does not move. Measured for the local judge's fixed
   * relevance (eval/precision/README.md, prec7). Absent: relevance alone.
   */
  readonly orderNovelty?: number | undefined
  /**
   * Optional: whether `ask` judges its pool a second time with the field's words (the words its most cited relevant
   * papers' titles share) to re-rank the places after its first three. A second judging of the pool is cheap for the
   * local judge and was measured for it (eval/ask/README.md, eleventh round); a model judge would be asked twice.
   * Absent: no second judging.
   */
  readonly fieldWords?: boolean | undefined
  /**
   * Optional: a short summary of each paper in the model's own words (what it
   * does, its key result), from its title and abstract. Judges without a
   * language model leave it out, and the companion summarises extractively.
   * A paper may be missing from the answer; the companion then uses the
   * extractive summary for it.
   */
  readonly summarise?: (concept: Concept, papers: JudgedPapers) => Effect.Effect<ReadonlyArray<WrittenSummary>, JudgeFailed>
}

/** @since 0.1.0 */
export class LlmJudgePort extends Context.Tag("arxiv-companion/LlmJudgePort")<LlmJudgePort, LlmJudgeService>() {}
