/**
 * The Promise façade for callers who do not use Effect.
 *
 * @since 0.1.0
 */
import { Cause, Effect, Exit, Layer, Option, Schema } from "effect"
import * as ArxivTermStats from "./adapters/judge/ArxivTermStats.js"
import type { CompanionError } from "./core/errors.js"
import { CompanionOptions, CompanionReport, decodeOptions } from "./core/models.js"
import type { ArxivPort } from "./core/ports/ArxivPort.js"
import type { LlmJudgePort } from "./core/ports/LlmJudgePort.js"
import type { OpenAlexPort } from "./core/ports/OpenAlexPort.js"
import type { TermStatsPort } from "./core/ports/TermStatsPort.js"
import type { VaultPort } from "./core/ports/VaultPort.js"
import { askLayer, type AskPorts, askSaveLayer, type AskSetup, companionLayer, type CompanionSetup } from "./layers.js"
import { type AskInput, type AskResult, askArxivTool } from "./tools/ask.js"
import { companion } from "./tools/companion.js"
import { digest, type DigestProgress, type DigestResult, type DigestVaultInput, summarizeDigest } from "./tools/digest.js"

/** The plain-data report `runCompanion` resolves with (JSON-ready). */
export type CompanionReportData = typeof CompanionReport.Encoded

/** Thresholds and limits, all optional (DESIGN.md defaults). */
export type CompanionOptionsInput = typeof CompanionOptions.Encoded

/** Options of the Promise API. */
export interface RunCompanionOptions extends CompanionSetup, CompanionOptionsInput {
  /** Cancel the run; the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined
  /**
   * Replace the adapters (tests, custom ports). Overrides the setup fields. The
   * shipped arXiv term statistics serve keyword ranking unless the layer
   * provides its own TermStatsPort.
   */
  readonly layer?:
    | Layer.Layer<ArxivPort | OpenAlexPort | LlmJudgePort | VaultPort, CompanionError>
    | Layer.Layer<ArxivPort | OpenAlexPort | LlmJudgePort | VaultPort | TermStatsPort, CompanionError>
    | undefined
}

const encodeReport = Schema.encodeSync(CompanionReport)

const pickOptions = (o: RunCompanionOptions): CompanionOptionsInput => ({
  relevanceThreshold: o.relevanceThreshold,
  citationsPerYearThreshold: o.citationsPerYearThreshold,
  exemptYears: o.exemptYears,
  minKeywords: o.minKeywords,
  maxResults: o.maxResults,
  poolSize: o.poolSize,
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
  // the right side of a merge wins: a custom layer's own statistics replace the shipped ones
  const layer = options.layer === undefined ? companionLayer(options) : Layer.merge(ArxivTermStats.layer, options.layer)
  // the same checks as the CLI and the MCP server: one way in
  const effect = companion(prompt, pickOptions(options)).pipe(Effect.provide(layer))
  return encodeReport(await runToPromise(effect, options.signal))
}

/** Run an effect for a Promise caller: the value, or the original typed error (never a FiberFailure). */
const runToPromise = async <A, E>(effect: Effect.Effect<A, E>, signal: AbortSignal | undefined): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect, signal === undefined ? {} : { signal })
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) throw failure.value
  if (Cause.isInterruptedOnly(exit.cause)) {
    throw signal?.reason ?? new Error("arxiv-companion: the run was interrupted")
  }
  throw Cause.squash(exit.cause)
}

/** The answer `askArxiv` resolves with (JSON-ready, the same as the CLI's --json and the MCP tool's). */
export type AskAnswerData = AskResult

/** Options of {@link askArxiv}. */
export interface AskArxivOptions extends AskSetup, Omit<AskInput, "question"> {
  /** Cancel the question; the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined
  /** Replace the adapters entirely (tests, custom ports). Overrides the setup fields. */
  readonly layer?: Layer.Layer<AskPorts, CompanionError> | undefined
}

/**
 * Ask a research question: the question becomes an arXiv query (shown in
 * the answer), the first `max_results` (50) results are re-ranked by the
 * judge against the question, and the `top` (3) papers come back with links.
 *
 * Rejects with the original typed error: `NotEnoughInformation` for an empty
 * or one-word question (its message says what to add), `InvalidArgument` for
 * bad options, `UpstreamUnavailable` when arXiv is down.
 *
 * @example
 * ```ts
 * import { askArxiv } from "arxiv-companion"
 * const answer = await askArxiv("what are the main ways to stabilise GAN training?", { offline: true })
 * console.log(answer.query, answer.papers.map((p) => p.title))
 * ```
 * @since 0.1.0
 */
export const askArxiv = async (question: string, options: AskArxivOptions = {}): Promise<AskAnswerData> => {
  const { categories, layer, max_results, notion, save_as, signal, since_date, top, ...setup } = options
  const effect = askArxivTool({ question, top, max_results, categories, since_date, save_as, notion }).pipe(
    Effect.provide(Layer.merge(layer ?? askLayer(setup), askSaveLayer(setup, { note: save_as !== undefined, page: notion === true })))
  )
  return runToPromise(effect, signal)
}

/** What {@link digestVault} resolves with (JSON-ready, the same as the CLI's `digest --json`). */
export type DigestData = DigestResult

/** Options of {@link digestVault}. */
export interface DigestVaultOptions extends CompanionSetup, DigestVaultInput {
  /** Each step: the plan, each note done, the note written. */
  readonly onProgress?: ((event: DigestProgress) => void) | undefined
  /** Cancel the digest (a later digest with the same selection resumes it); the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined
  /** Replace the adapters (tests, custom ports). Overrides the setup fields. */
  readonly layer?:
    | Layer.Layer<ArxivPort | OpenAlexPort | LlmJudgePort | VaultPort, CompanionError>
    | Layer.Layer<ArxivPort | OpenAlexPort | LlmJudgePort | VaultPort | TermStatsPort, CompanionError>
    | undefined
}

/**
 * Digest a vault: every concept note searched for papers first submitted
 * since its last digest (or `since_date`: `YYYY-MM-DD` or `7d`), kept by the
 * rules of a run, written into one `arXiv Digest YYYY-MM-DD.md` note.
 *
 * Rejects with the original typed error: `NotEnoughInformation` for a vault
 * with no concept note, `InvalidArgument` for a bad `since_date`, a glob or a
 * tag that selects nothing.
 *
 * @example
 * ```ts
 * import { digestVault } from "arxiv-companion"
 * const digest = await digestVault({ vault: "./examples/vault", offline: true, since_date: "2016-06-01" })
 * console.log(digest.digest_note, digest.notes.map((n) => [n.note, n.papers.length]))
 * ```
 * @since 0.4.0
 */
export const digestVault = async (options: DigestVaultOptions): Promise<DigestData> => {
  const { categories, dry_run, layer, max_results, notes, onProgress, signal, since_date, tag, ...setup } = options
  const provided = layer === undefined ? companionLayer(setup) : Layer.merge(ArxivTermStats.layer, layer)
  const hooks = onProgress === undefined ? {} : { onProgress: (e: DigestProgress) => Effect.sync(() => onProgress(e)) }
  const effect = digest({ categories, dry_run, max_results, notes, since_date, tag }, hooks).pipe(Effect.map(summarizeDigest), Effect.provide(provided))
  return runToPromise(effect, signal)
}

/**
 * Decode user options into CompanionOptions (the core's one check), failing
 * with one line that names the option (as `nameOf` spells it), the value given
 * and what is allowed.
 */
export { decodeOptions }
