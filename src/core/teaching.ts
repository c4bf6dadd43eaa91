/**
 * What the Related Papers note teaches beyond the list of papers: a summary
 * of each kept paper, the foundations they share, a citation map and a
 * reading order, assembled from what the run already looked up.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import { type CitationMap, citationMap } from "./citationMap.js"
import { type Foundations, type Impact, PaperSummary, type ReadingStep, type ScoredPaper, type SharedFoundations, type Work } from "./models.js"
import type { Concept, LlmJudgeService } from "./ports/LlmJudgePort.js"
import { readingOrder } from "./readingOrder.js"
import { sharedFoundations } from "./sharedFoundations.js"
import { extractiveSummary, keyFigure } from "./summary.js"

/** The teaching parts of a note. */
export interface NoteTeaching {
  /** One per paper in the places (the kept, then those without a recorded count that take places). */
  readonly summaries: ReadonlyArray<PaperSummary>
  readonly shared: SharedFoundations
  readonly readingOrder: ReadonlyArray<ReadingStep>
  readonly map: CitationMap
}

/** The extractive summary of a kept paper, for the note's keywords. */
export const abstractSummary = (s: ScoredPaper, keywords: ReadonlyArray<string>): PaperSummary => {
  const summary = extractiveSummary(s.paper, keywords)
  return new PaperSummary({
    arxivId: s.paper.arxivId,
    text: summary.text,
    source: "abstract",
    ...(summary.keyFigure === undefined ? {} : { keyFigure: summary.keyFigure })
  })
}

/**
 * A summary of each kept paper. With a judge that writes summaries (an LLM),
 * one batched request asks for all of them (`onCall` counts it); a paper it
 * leaves out, or every paper when the request fails, gets the extractive
 * summary, and the failure is logged, never fatal.
 */
export const summarise = (
  judge: LlmJudgeService,
  concept: Concept,
  kept: ReadonlyArray<ScoredPaper>,
  onCall: () => void = () => {}
): Effect.Effect<ReadonlyArray<PaperSummary>> =>
  Effect.gen(function*() {
    let written = new Map<string, string>()
    if (judge.summarise !== undefined && kept.length > 0) {
      onCall()
      written = yield* judge.summarise(concept, kept.map((s) => s.paper)).pipe(
        Effect.map((list) => new Map(list.map((w) => [w.arxivId, w.summary.replace(/\s+/g, " ").trim()]))),
        Effect.catchAll((e) =>
          Effect.logWarning(`Summaries by ${judge.name} failed (${e.message}); the note uses sentences of the abstracts instead.`).pipe(
            Effect.as(new Map<string, string>())
          )
        )
      )
    }
    return kept.map((s) => {
      const text = written.get(s.paper.arxivId)
      if (text === undefined || text === "") return abstractSummary(s, concept.keywords)
      const figure = keyFigure(s.paper.abstract)
      return new PaperSummary({
        arxivId: s.paper.arxivId,
        text,
        source: "model",
        ...(figure === undefined ? {} : { keyFigure: figure })
      })
    })
  })

/** What the teaching parts are built from: the run's kept papers, their reference lists and resolved works. */
export interface TeachingSources {
  readonly sourceTitle: string
  readonly kept: ReadonlyArray<ScoredPaper>
  /**
   * The papers in the places, in keep order: the kept and the relevant papers without a recorded count that take
   * places. The reading order has them all; the shared foundations and the citation map the kept only. Default: kept.
   */
  readonly places?: ReadonlyArray<ScoredPaper> | undefined
  /** Each kept paper's reference list (OpenAlex ids), undefined when none is recorded. */
  readonly references: ReadonlyMap<string, ReadonlyArray<string> | undefined>
  /** The referenced works that were resolved. */
  readonly works: ReadonlyMap<string, Work>
  readonly impacts: ReadonlyMap<string, Impact>
  readonly foundations: ReadonlyArray<Foundations>
  readonly summaries: ReadonlyArray<PaperSummary>
}

/** Shared foundations, reading order and citation map. Pure and deterministic. */
export const teaching = (sources: TeachingSources): NoteTeaching => {
  const shared = sharedFoundations(
    sources.kept.map((s) => ({ arxivId: s.paper.arxivId, references: sources.references.get(s.paper.arxivId) })),
    sources.works
  )
  const map = citationMap({
    sourceTitle: sources.sourceTitle,
    papers: sources.kept.map((s) => ({
      arxivId: s.paper.arxivId,
      openalexId: sources.impacts.get(s.paper.arxivId)?.openalexId,
      title: s.paper.title,
      year: Number(s.paper.published.slice(0, 4)),
      references: sources.references.get(s.paper.arxivId),
      foundational: sources.foundations.find((f) => f.arxivId === s.paper.arxivId)?.citations ?? []
    })),
    shared: shared.foundations
  })
  return {
    summaries: sources.summaries,
    shared,
    readingOrder: readingOrder(sources.places ?? sources.kept, shared, sources.foundations),
    map
  }
}
