/**
 * The companion as a use case, the one way in for every face: the CLI's
 * `run`, the MCP server's `run_companion` and the Promise API check the
 * prompt and the options here, the same way, then run the workflow.
 *
 * The options are `CompanionOptions` (src/core/models.ts: names, bounds,
 * defaults); each face spells them its own way, and `CompanionOptionSpellings`
 * is the one table of those spellings.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { CompanionOptions, type CompanionOptionsInput, type CompanionReport, decodeOptions } from "../core/models.js"
import { type Progress, runCompanion, type RunHooks } from "../core/workflow.js"
import { categoriesArg, dateArg, promptArg } from "./arguments.js"
import { describeReading } from "../core/language.js"
import type { CompanionResult } from "./schemas.js"

/**
 * How the faces spell each option: the MCP tools' argument (snake_case), the
 * CLI's flag and the environment variable the flag falls back to.
 */
export const CompanionOptionSpellings = {
  relevanceThreshold: { tool: "relevance_threshold", flag: "relevance-threshold", env: "RELEVANCE_PASS_THRESHOLD" },
  citationsPerYearThreshold: { tool: "citations_per_year_threshold", flag: "citations-per-year", env: "CITATIONS_PER_YEAR_THRESHOLD" },
  exemptYears: { tool: "exempt_years", flag: "exempt-years", env: "NEW_PAPER_AGE_EXEMPT_YEARS" },
  minKeywords: { tool: "min_keywords", flag: "min-keywords", env: "MIN_KEYWORDS" },
  maxResults: { tool: "max_results", flag: "max-results", env: "MAX_RESULTS" },
  poolSize: { tool: "pool_size", flag: "pool-size", env: "POOL_SIZE" },
  foundational: { tool: "foundational", flag: "foundational", env: "FOUNDATIONAL_CITATIONS" },
  categories: { tool: "categories", flag: "categories", env: "ARXIV_CATEGORIES" },
  since: { tool: "since_date", flag: "since", env: "ARXIV_SINCE" }
} as const satisfies { readonly [K in keyof CompanionOptionsInput]-?: { readonly tool: string; readonly flag: string; readonly env: string } }

type Spellings = typeof CompanionOptionSpellings

/** The options as the MCP tools spell them (`max_results`, `since_date`, ...). */
export type ToolOptions = {
  readonly [K in keyof Spellings as Spellings[K]["tool"]]?: CompanionOptionsInput[K] | undefined
}

/** Tool-spelled options → the library's spelling (unknown keys are left out). */
export const fromToolOptions = (options: ToolOptions | undefined): CompanionOptionsInput => {
  const o = (options ?? {}) as Record<string, unknown>
  return Object.fromEntries(
    Object.entries(CompanionOptionSpellings).map(([key, s]) => [key, o[s.tool]])
  ) as CompanionOptionsInput
}

/** Arguments of {@link runCompanionTool}. */
export interface RunCompanionInput {
  /** Names the concept note, e.g. Find papers related to my 'Transformers' note. */
  readonly prompt: string
  readonly options?: ToolOptions | undefined
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

/** How many of the candidates not kept a result lists, most relevant first (`candidates` counts them all). */
export const DROPPED_LISTED = 20

/** What {@link mostRelevantDropped} reads of a candidate: the report's, decoded or as JSON. */
interface Ranked {
  readonly paper: { readonly arxivId: string }
  readonly judgement: { readonly relevance: number }
  readonly decision: { readonly kept: boolean }
}

/**
 * The candidates of a run not kept (cut by the cap too), most relevant first, at most `limit`, leaving out those
 * listed elsewhere (`except`: the relevant papers without a count shown after the kept): a pool of 1000 is not a
 * list to read.
 */
export const mostRelevantDropped = <C extends Ranked>(
  candidates: ReadonlyArray<C>,
  limit = DROPPED_LISTED,
  except: ReadonlyArray<string> = []
): ReadonlyArray<C> => notKept(candidates, except).slice(0, limit)

/** Every candidate not kept and not in `except`, most relevant first. */
export const notKept = <C extends Ranked>(candidates: ReadonlyArray<C>, except: ReadonlyArray<string> = []): Array<C> => {
  const listed = new Set(except)
  return candidates
    .filter((c) => !c.decision.kept && !listed.has(c.paper.arxivId))
    .sort((a, b) => b.judgement.relevance - a.judgement.relevance || a.paper.arxivId.localeCompare(b.paper.arxivId))
}

/** The compact result of a companion run: what was found, kept, the most relevant of what was dropped, and what was written. */
export const summarizeReport = (report: CompanionReport): CompanionResult => {
  const byId = new Map(report.candidates.map((c) => [c.paper.arxivId, c]))
  const foundations = new Map(report.foundations.map((f) => [f.arxivId, f]))
  const summaries = new Map(report.summaries.map((s) => [s.arxivId, s]))
  const inPlaces = new Set(report.unrecordedInPlaces)
  // what a paper in the places carries: its summary and its foundational citations
  const readAs = (id: string) => ({
    summary: summaries.get(id)?.text ?? "",
    builds_on: (foundations.get(id)?.citations ?? []).map((f) => `${f.title === "" ? f.openalexId : f.title} (cited by ${f.citedByCount})`)
  })
  return {
    note: report.note.path,
    written: report.written,
    keywords: report.keywords,
    ...(report.language === undefined ? {} : {
      language: [
        `${report.language.detected.language}: ${describeReading(report.language)}.`,
        ...report.language.notes,
        ...(report.language.terms.length === 0
          ? []
          : [`English terms: ${report.language.terms.map((t) => `${t.source} → ${t.english} (${t.via})`).join("; ")}.`])
      ].join(" ")
    }),
    query: report.query,
    ...(report.titleQuery === undefined ? {} : { second_query: report.titleQuery }),
    ...(report.citedQuery === undefined ? {} : { cited_query: report.citedQuery }),
    cited_authors: report.citedAuthors.map((a) => ({ surname: a.surname, cited_as: a.text })),
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
        ...readAs(id),
        found_by: c.foundBy ?? ["arxiv-search"]
      }]
    }),
    already_in_note: report.alreadyInNote.map((n) => ({ arxiv_id: n.arxivId, title: n.title ?? null, named_as: n.mention })),
    counts: {
      cleared_both_bars: report.counts.clearedBothBars,
      cut_by_cap: report.counts.cutByCap,
      impact_not_recorded: report.counts.impactNotRecorded,
      unrecorded_in_places: report.counts.unrecordedInPlaces,
      dropped: report.counts.dropped
    },
    // right after the kept, the relevant papers without a count placed among them; then the most relevant of the
    // rest: a pool of 1000 would make the host read ~120 KB of papers it will not use
    dropped: [
      ...report.unrecordedAmongKept.flatMap((id) => byId.get(id) ?? []),
      ...mostRelevantDropped(report.candidates, DROPPED_LISTED, report.unrecordedAmongKept)
    ].map((c) => ({
      arxiv_id: c.paper.arxivId,
      title: c.paper.title,
      decision: c.decision.kind,
      reasons: c.decision.reasons,
      // one that takes a place is read as a kept paper is
      ...(inPlaces.has(c.paper.arxivId) ? readAs(c.paper.arxivId) : {})
    }))
  }
}

/**
 * The options checked: names, types and bounds by the Schema, categories
 * against arXiv's taxonomy (in arXiv's spelling, the closest codes suggested),
 * `since` as a real calendar date. Unset ones take the defaults. A refusal is
 * one line naming the option as `nameOf` spells it (a flag, a variable, a tool
 * argument), the value given and what is allowed.
 */
export const companionOptions = Effect.fn("Tools.companionOptions")(function*(
  input: CompanionOptionsInput | Readonly<Record<string, unknown>> = {},
  nameOf: (key: string) => string = (key) => key
) {
  const options = yield* decodeOptions(input, nameOf)
  const categories = input.categories === undefined ? undefined : yield* categoriesArg(options.categories, nameOf("categories"))
  yield* dateArg(nameOf("since"), options.since)
  return categories === undefined ? options : new CompanionOptions({ ...options, categories })
})

/** An option's name as run_companion spells it (`maxResults` → `options.max_results`). */
export const toolName = (key: string): string =>
  `options.${(CompanionOptionSpellings as Record<string, { readonly tool: string } | undefined>)[key]?.tool ?? key}`

/**
 * The prompt and the options as every face checks them, before anything is
 * set up: the prompt trimmed (an empty or overlong one is an InvalidArgument),
 * the options checked (a refusal names the option as `nameOf` spells it).
 */
export const companionInput = Effect.fn("Tools.companionInput")(function*(
  promptText: string,
  input: CompanionOptionsInput | Readonly<Record<string, unknown>> = {},
  nameOf?: (key: string) => string
) {
  const prompt = yield* promptArg("prompt", promptText, "a request naming your note, e.g. Find papers related to my 'Transformers' note")
  const options = yield* companionOptions(input, nameOf)
  return { prompt, options }
})

/**
 * Run the companion for a prompt that names a concept note, as every face
 * does: the prompt and the options checked ({@link companionInput}), then the
 * workflow; the full report.
 */
export const companion = Effect.fn("Tools.companion")(function*(
  promptText: string,
  input: CompanionOptionsInput | Readonly<Record<string, unknown>> = {},
  hooks: RunHooks = {},
  nameOf?: (key: string) => string
) {
  const { options, prompt } = yield* companionInput(promptText, input, nameOf)
  return yield* runCompanion(prompt, options, hooks)
})

/**
 * run_companion: it writes "<note> — Related Papers" into the vault and
 * returns a compact summary.
 */
export const runCompanionTool = Effect.fn("Tools.runCompanion")(function*(input: RunCompanionInput, hooks: RunHooks = {}) {
  return summarizeReport(yield* companion(input.prompt, fromToolOptions(input.options), hooks, toolName))
})
