/**
 * arxiv-companion: a study companion for Obsidian concept notes.
 *
 * - Promise API: {@link runCompanion}, {@link askArxiv}, {@link digestVault}.
 * - Effect API: the `Workflow` program, the ports, the models and errors,
 *   and the layers that wire adapters to ports.
 *
 * @since 0.1.0
 */
export {
  type AskAnswerData,
  askArxiv,
  type AskArxivOptions,
  type CompanionOptionsInput,
  type CompanionReportData,
  type DigestData,
  digestVault,
  type DigestVaultOptions,
  runCompanion,
  type RunCompanionOptions
} from "./promise.js"

export * from "./core/errors.js"
export * from "./core/models.js"

export { ArxivPort, type ArxivSearch, type ArxivSearchResult, type ArxivLookup, type ArxivService } from "./core/ports/ArxivPort.js"
export { OpenAlexPort, type ImpactLookup, type OpenAlexService, type WorkLookup } from "./core/ports/OpenAlexPort.js"
export { type Concept, type JudgeFn, type JudgeMany, LlmJudgePort, type LlmJudgeService } from "./core/ports/LlmJudgePort.js"
export { VaultPort, type VaultService } from "./core/ports/VaultPort.js"
export { type BuiltQuery, QueryBuilderPort, type QueryBuilderService } from "./core/ports/QueryBuilderPort.js"
/** Ask a research question as an Effect program: `Ask.askArxiv(question, options)`. */
export * as Ask from "./core/ask.js"
export { type TermStat, type TermLookup, TermStatsPort, type TermStatsService } from "./core/ports/TermStatsPort.js"

/** The companion as an Effect program: `Workflow.runCompanion(prompt, options)`. */
export * as Workflow from "./core/workflow.js"
/** The vault digest as an Effect program: `Digest.digestVault(request, hooks)`. */
export * as Digest from "./core/digest.js"
/** The composition root: `Layers.OfflineLayer`, `Layers.companionLayer`. */
export * as Layers from "./layers.js"

export { CitationsPort, type CitationsService, type CitingWorks } from "./core/ports/CitationsPort.js"
export { FullTextPort, type FullTextService } from "./core/ports/FullTextPort.js"

/** The arXiv tools the MCP server serves, as library functions over the ports. */
export * as Tools from "./tools/index.js"
/** BibTeX entries from paper metadata (stable keys, escaped). */
export * as Bibtex from "./core/bibtex.js"
/** The arXiv category taxonomy. */
export * as Categories from "./core/categories.js"
/** The structured query `ArxivPort.search` takes: `term`, `phrase`, `range`, `and`, `or`, `andNot`, `not`, and `render` (arXiv's syntax). */
export * as ArxivQuery from "./core/arxivQuery.js"
/** The adapters behind the ports (offline, live, vaults), each with `make` and `layer`. */
export * as Adapters from "./adapters/index.js"
