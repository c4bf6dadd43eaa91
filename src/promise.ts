/**
 * The Promise façade for callers who do not use Effect.
 *
 * @since 0.1.0
 */
import { Cause, Effect, Exit, type Layer, Option, ParseResult, Schema } from "effect"
import { type CompanionError, InvalidArgument } from "./core/errors.js"
import { CompanionOptions, CompanionReport } from "./core/models.js"
import type { ArxivPort } from "./core/ports/ArxivPort.js"
import type { LlmJudgePort } from "./core/ports/LlmJudgePort.js"
import type { OpenAlexPort } from "./core/ports/OpenAlexPort.js"
import type { VaultPort } from "./core/ports/VaultPort.js"
import { runCompanion as program } from "./core/workflow.js"
import { companionLayer, type CompanionSetup } from "./layers.js"

/** The plain-data report `runCompanion` resolves with (JSON-ready). */
export type CompanionReportData = typeof CompanionReport.Encoded

/** Thresholds and limits, all optional (DESIGN.md defaults). */
export type CompanionOptionsInput = typeof CompanionOptions.Encoded

/** Options of the Promise API. */
export interface RunCompanionOptions extends CompanionSetup, CompanionOptionsInput {
  /** Cancel the run; the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined
  /** Replace the adapters entirely (tests, custom ports). Overrides the setup fields. */
  readonly layer?: Layer.Layer<ArxivPort | OpenAlexPort | LlmJudgePort | VaultPort, CompanionError> | undefined
}

const encodeReport = Schema.encodeSync(CompanionReport)

const pickOptions = (o: RunCompanionOptions): CompanionOptionsInput => ({
  relevanceThreshold: o.relevanceThreshold,
  citationsPerYearThreshold: o.citationsPerYearThreshold,
  exemptYears: o.exemptYears,
  minKeywords: o.minKeywords,
  maxResults: o.maxResults,
  foundational: o.foundational,
  categories: o.categories,
  since: o.since
})

/**
 * Run the companion for one prompt and resolve with the report as plain data.
 *
 * Rejects with the original typed error (`NotEnoughInformation`,
 * `NoteNotFound`, `InvalidArgument`, ... — check `error._tag`), never with a
 * FiberFailure wrapper. Invalid options reject with `InvalidArgument`.
 *
 * @example
 * ```ts
 * import { runCompanion } from "arxiv-companion"
 * const report = await runCompanion("Find papers related to my 'Transformers Concept Note'", {
 *   vault: "./examples/vault",
 *   offline: true
 * })
 * console.log(report.written.path, report.survivors)
 * ```
 * @since 0.1.0
 */
export const runCompanion = async (prompt: string, options: RunCompanionOptions): Promise<CompanionReportData> => {
  const layer = options.layer ?? companionLayer(options)
  const effect = decodeOptions(pickOptions(options)).pipe(
    Effect.flatMap((opts) => program(prompt, opts)),
    Effect.provide(layer)
  )
  const exit = await Effect.runPromiseExit(effect, options.signal === undefined ? {} : { signal: options.signal })
  if (Exit.isSuccess(exit)) return encodeReport(exit.value)
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) throw failure.value
  if (Cause.isInterruptedOnly(exit.cause)) {
    throw options.signal?.reason ?? new Error("arxiv-companion: the run was interrupted")
  }
  throw Cause.squash(exit.cause)
}


/** Decode user options into CompanionOptions, failing with InvalidArgument that names the bad field. */
export const decodeOptions = (input: CompanionOptionsInput): Effect.Effect<CompanionOptions, InvalidArgument> => {
  const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
  return Schema.decodeUnknown(CompanionOptions)(defined).pipe(
    Effect.mapError((e) =>
      new InvalidArgument({ argument: "options", reason: ParseResult.TreeFormatter.formatErrorSync(e) })
    )
  )
}
