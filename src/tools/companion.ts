/**
 * run_companion: the companion workflow as a tool, with a compact result.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { CompanionOptions, type CompanionReport } from "../core/models.js"
import { type Progress, runCompanion, type RunHooks } from "../core/workflow.js"
import { categoriesArg, dateArg, intArg, numberArg, textArg } from "./arguments.js"
import type { CompanionResult } from "./schemas.js"

/** Arguments of {@link runCompanionTool}. */
export interface RunCompanionInput {
  /** Names the concept note, e.g. Find papers related to my 'Transformers' note. */
  readonly prompt: string
  readonly options?: {
    readonly relevance_threshold?: number | undefined
    readonly citations_per_year_threshold?: number | undefined
    readonly max_results?: number | undefined
    readonly categories?: ReadonlyArray<string> | undefined
    readonly since_date?: string | undefined
  } | undefined
}

/** One line for a progress event: what the CLI prints on stderr and the page shows. */
export const progressLine = (e: Progress): string => {
  switch (e._tag) {
    case "NoteFound":
      return `Reading ${e.path}`
    case "Keywords":
      return `Keywords: ${e.keywords.join(", ")}`
    case "Searched":
      return `Found ${e.candidates} candidates on arXiv; scoring`
    case "Judged":
      return `${e.kept} kept; looking up foundational citations`
    case "Written":
      return `Note ${e.status}: ${e.path}`
  }
}

/** The compact result of a companion run: what was found, kept, dropped and written. */
export const summarizeReport = (report: CompanionReport): CompanionResult => {
  const byId = new Map(report.candidates.map((c) => [c.paper.arxivId, c]))
  const foundations = new Map(report.foundations.map((f) => [f.arxivId, f]))
  return {
    note: report.note.path,
    written: { path: report.written.path, status: report.written.status },
    keywords: report.keywords,
    query: report.query,
    candidates: report.candidates.length,
    survivors: report.survivors.flatMap((id) => {
      const c = byId.get(id)
      if (c === undefined) return []
      return [{
        arxiv_id: id,
        title: c.paper.title,
        relevance: c.judgement.relevance,
        citations_per_year: c.impact.citationsPerYear ?? null,
        rationale: c.judgement.rationale,
        builds_on: (foundations.get(id)?.citations ?? []).map((f) =>
          `${f.title === "" ? f.openalexId : f.title} (cited by ${f.citedByCount})`
        ),
        found_by: c.foundBy ?? ["arxiv-search"]
      }]
    }),
    already_in_note: report.alreadyInNote.map((n) => ({ arxiv_id: n.arxivId, title: n.title ?? null, named_as: n.mention })),
    dropped: report.candidates
      .filter((c) => !c.decision.kept)
      .map((c) => ({ arxiv_id: c.paper.arxivId, reasons: c.decision.reasons }))
  }
}

/** Options of the companion from tool arguments (checked; unset ones take the defaults). */
export const companionOptions = Effect.fn("Tools.companionOptions")(function*(options: RunCompanionInput["options"]) {
  const o = options ?? {}
  const relevanceThreshold = yield* numberArg("options.relevance_threshold", o.relevance_threshold, 0, 1)
  const citationsPerYearThreshold = yield* numberArg("options.citations_per_year_threshold", o.citations_per_year_threshold, 0, 1e6)
  const maxResults = o.max_results === undefined ? undefined : yield* intArg("options.max_results", o.max_results, 1, 50, 10)
  const categories = o.categories === undefined ? undefined : yield* categoriesArg(o.categories, "options.categories")
  const since = yield* dateArg("options.since_date", o.since_date)
  return new CompanionOptions({
    ...(relevanceThreshold === undefined ? {} : { relevanceThreshold }),
    ...(citationsPerYearThreshold === undefined ? {} : { citationsPerYearThreshold }),
    ...(maxResults === undefined ? {} : { maxResults }),
    ...(categories === undefined ? {} : { categories }),
    ...(since === undefined ? {} : { since })
  })
})

/**
 * Run the companion for a prompt that names a concept note: it writes
 * "<note> — Related Papers" into the vault and returns a compact summary.
 */
export const runCompanionTool = Effect.fn("Tools.runCompanion")(function*(input: RunCompanionInput, hooks: RunHooks = {}) {
  const prompt = yield* textArg("prompt", input.prompt, "a request naming your note, e.g. Find papers related to my 'Transformers' note")
  const options = yield* companionOptions(input.options)
  const report = yield* runCompanion(prompt, options, hooks)
  return summarizeReport(report)
})
