/**
 * Citation tools over OpenAlexPort and CitationsPort: references, citing
 * works, foundational citations and one-paper relevance scoring.
 *
 * @since 0.1.0
 */
import { firstVersionFromId } from "../core/arxiv.js"
import { Effect } from "effect"
import { describeSource } from "../core/compose.js"
import * as Dates from "../core/dates.js"
import { DataNotRecorded, PaperNotFound } from "../core/errors.js"
import { extractKeywords } from "../core/keywords.js"
import { CompanionOptions, type Work } from "../core/models.js"
import { CitationsPort } from "../core/ports/CitationsPort.js"
import { LlmJudgePort } from "../core/ports/LlmJudgePort.js"
import { type ImpactLookup, OpenAlexPort } from "../core/ports/OpenAlexPort.js"
import { assessImpact, rankFoundational } from "../core/rules.js"
import { arxivIdArg, intArg, textArg } from "./arguments.js"
import type { CitationsResult, FoundationalResult, ReferencesResult, RelevanceResult, WorkSummary } from "./schemas.js"

/** A work as a tool result. */
export const toWorkSummary = (w: Work): WorkSummary => ({
  openalex_id: w.openalexId,
  title: w.title,
  cited_by_count: w.citedByCount,
  ...(w.publicationYear === undefined ? {} : { publication_year: w.publicationYear }),
  ...(w.doi === undefined ? {} : { doi: w.doi }),
  ...(w.arxivId === undefined ? {} : { arxiv_id: w.arxivId })
})

const byCitations = (a: Work, b: Work) => b.citedByCount - a.citedByCount || a.openalexId.localeCompare(b.openalexId)

/** Whether a lookup answered from recorded (offline) data: it then carries the date it was recorded. */
const isRecorded = (lookup: ImpactLookup): boolean => lookup.asOf !== undefined

/**
 * The citation record of one arXiv paper and whether it is recorded data.
 * PaperNotFound when OpenAlex has none; DataNotRecorded when offline data has
 * none (a gap in what was recorded, not a wrong id).
 */
const impactOf = (id: string) =>
  Effect.flatMap(OpenAlexPort, (openalex) =>
    Effect.flatMap(openalex.worksByArxivIds([id]), (lookup) => {
      const impact = lookup.impacts.find((i) => i.arxivId === id) ?? lookup.impacts[0]
      if (impact !== undefined) return Effect.succeed({ impact, recorded: isRecorded(lookup) })
      return Effect.fail(
        isRecorded(lookup)
          ? new DataNotRecorded({
            id,
            what: "offline citation data",
            hint: `The offline data (${describeSource(lookup.source)}) covers a few thousand well-known papers; ` +
              "without offline mode, OpenAlex is asked."
          })
          : new PaperNotFound({ id, source: lookup.source.name })
      )
    }))

/** Arguments of {@link getReferences}. */
export interface GetReferencesInput {
  readonly arxiv_id: string
  /** 1..200, default 25. */
  readonly max_results?: number | undefined
}

/**
 * The works a paper cites (OpenAlex), most cited first. DataNotRecorded when
 * OpenAlex knows the paper but not its reference list.
 */
export const getReferences = Effect.fn("Tools.getReferences")(function*(input: GetReferencesInput) {
  const openalex = yield* OpenAlexPort
  const id = yield* arxivIdArg(input.arxiv_id)
  const max = yield* intArg("max_results", input.max_results, 1, 200, 25)
  const { impact } = yield* impactOf(id)
  const refs = impact.referencedWorks
  if (refs === undefined) {
    return yield* new DataNotRecorded({
      id,
      what: `reference list (${impact.source.name})`,
      hint: "That does not mean the paper cites nothing: read its References section with read_paper instead."
    })
  }
  const works = refs.length === 0 ? { works: [], missing: [] } : yield* openalex.worksByIds(refs)
  return {
    arxiv_id: id,
    ...(impact.openalexId === undefined ? {} : { openalex_id: impact.openalexId }),
    total: refs.length,
    references: works.works.slice().sort(byCitations).slice(0, max).map(toWorkSummary),
    unresolved: refs.filter((r) => !works.works.some((w) => w.openalexId === r))
  } satisfies ReferencesResult
})

/** Arguments of {@link getCitations}. */
export interface GetCitationsInput {
  readonly arxiv_id: string
  /** 1..200, default 25. */
  readonly max_results?: number | undefined
}

/** The works citing a paper (OpenAlex), most cited first. */
export const getCitations = Effect.fn("Tools.getCitations")(function*(input: GetCitationsInput) {
  const citations = yield* CitationsPort
  const id = yield* arxivIdArg(input.arxiv_id)
  const max = yield* intArg("max_results", input.max_results, 1, 200, 25)
  const found = yield* citations.citingWorks(id, max)
  return {
    arxiv_id: id,
    openalex_id: found.openalexId,
    total: found.total,
    citations: found.works.slice().sort(byCitations).slice(0, max).map(toWorkSummary)
  } satisfies CitationsResult
})

/** Arguments of {@link findFoundationalCitations}. */
export interface FoundationalInput {
  readonly arxiv_id: string
  /** 1..3, default 3. */
  readonly max_results?: number | undefined
}

/**
 * The most cited works a paper builds on, by cited_by_count. [] is valid (no
 * references); `status` says whether a reference list was recorded at all.
 */
export const findFoundationalCitations = Effect.fn("Tools.findFoundationalCitations")(function*(input: FoundationalInput) {
  const openalex = yield* OpenAlexPort
  const id = yield* arxivIdArg(input.arxiv_id)
  const max = yield* intArg("max_results", input.max_results, 1, 3, 3)
  const { impact, recorded } = yield* impactOf(id)
  const refs = impact.referencedWorks
  if (refs === undefined) return { arxiv_id: id, status: "not-recorded", citations: [] } satisfies FoundationalResult
  if (refs.length === 0) return { arxiv_id: id, status: "no-references", citations: [] } satisfies FoundationalResult
  const works = yield* openalex.worksByIds(refs)
  const citations = rankFoundational(works.works, max).map((c) => ({
    openalex_id: c.openalexId,
    title: c.title,
    cited_by_count: c.citedByCount,
    ...(c.publicationYear === undefined ? {} : { publication_year: c.publicationYear })
  }))
  // what is recorded is returned, and what is missing said: references whose details are unknown cannot be ranked
  const unresolved = refs.filter((r) => !works.works.some((w) => w.openalexId === r))
  if (unresolved.length === 0) return { arxiv_id: id, status: "found", citations } satisfies FoundationalResult
  const where = recorded ? "in the offline data" : "resolved by OpenAlex"
  const missing = unresolved.length === refs.length
    ? `none of them is ${where} (their titles and citation counts are unknown), so none can be ranked`
    : `${unresolved.length} of them are not ${where} (their titles and citation counts are unknown), so the ranking ` +
      `is over the other ${refs.length - unresolved.length}`
  return {
    arxiv_id: id,
    status: "found",
    citations,
    unresolved,
    note: `${refs.length} references are recorded for ${id}; ${missing}.` +
      (recorded ? " Without offline mode, OpenAlex resolves them." : "")
  } satisfies FoundationalResult
})

/** The month a paper was first submitted, from its id (see `core/arxiv.ts`). */
export { firstVersionFromId }

/** Arguments of {@link scorePaperRelevance}. */
export interface ScoreRelevanceInput {
  /** A few sentences on the concept. */
  readonly concept_summary: string
  readonly paper: { readonly arxiv_id: string; readonly title: string; readonly abstract: string }
}

/**
 * Score one paper against a concept: the judge's relevance and novelty, and
 * age-adjusted citation impact with the companion's default thresholds.
 */
export const scorePaperRelevance = Effect.fn("Tools.scorePaperRelevance")(function*(input: ScoreRelevanceInput) {
  const judge = yield* LlmJudgePort
  const openalex = yield* OpenAlexPort
  const id = yield* arxivIdArg(input.paper.arxiv_id, "paper.arxiv_id")
  const summary = yield* textArg("concept_summary", input.concept_summary, "a few sentences describing the concept")
  const title = yield* textArg("paper.title", input.paper.title, "the paper's title")
  const keywords = extractKeywords(summary).map((k) => k.term)
  const [judgement] = yield* judge.judge({ title: "", text: summary, keywords }, [
    { arxivId: id, title, abstract: input.paper.abstract }
  ])
  // relevance is still worth having when the citation index cannot be reached (e.g. no OpenAlex key)
  const lookup = yield* openalex.worksByArxivIds([id]).pipe(
    Effect.map((l) => ({ impacts: l.impacts, source: l.source.name, asOf: l.asOf, unavailable: undefined as string | undefined })),
    Effect.catchTag("UpstreamUnavailable", (e) =>
      Effect.succeed({ impacts: [], source: e.service, asOf: undefined, unavailable: e.message }))
  )
  const impact = lookup.impacts.find((i) => i.arxivId === id) ?? lookup.impacts[0]
  const options = new CompanionOptions({})
  const today = yield* Dates.today
  const assessed = assessImpact(firstVersionFromId(id), impact, lookup.asOf ?? today, options)
  const year = impact?.publicationYear ?? Number(firstVersionFromId(id)?.slice(0, 4) ?? Number.NaN)
  return {
    arxiv_id: id,
    relevance: judgement?.relevance ?? 0,
    novelty: judgement?.novelty ?? 0,
    citation_count: assessed.citationCount ?? null,
    publication_year: Number.isFinite(year) ? year : null,
    citations_per_year: assessed.citationsPerYear ?? null,
    impact_pass: assessed.pass,
    rationale: [
      judgement?.rationale ?? "",
      assessed.status === "unknown"
        ? [
          assessed.exempt
            ? `new paper (${assessed.ageYears.toFixed(1)} y as of ${assessed.asOf}): impact exempt, no citation count needed`
            : lookup.unavailable !== undefined
            ? "impact unknown, so it does not pass"
            : `no citation record (${lookup.source}): impact unknown, so it does not pass`,
          lookup.unavailable === undefined ? "" : ` (${lookup.unavailable})`
        ].join("")
        : assessed.exempt
        ? `new paper (${assessed.ageYears.toFixed(1)} y): impact exempt`
        : `${(assessed.citationsPerYear ?? 0).toFixed(1)} citations/year vs threshold ${options.citationsPerYearThreshold} (${lookup.source})`
    ].filter((s) => s !== "").join("; ")
  } satisfies RelevanceResult
})
