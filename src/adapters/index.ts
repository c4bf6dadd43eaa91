/**
 * Every adapter, for Effect users composing their own layers. Each module
 * exports `make`, `layer(...)` and, where configuration applies, `layerConfig`.
 *
 * @since 0.1.0
 */
export * as CorpusArxiv from "./arxiv/CorpusArxiv.js"
export * as RecordedOpenAlex from "./openalex/RecordedOpenAlex.js"
export * as ArxivTermStats from "./judge/ArxivTermStats.js"
export * as LocalJudge from "./judge/LocalJudge.js"
export * as RuleQueryBuilder from "./query/RuleQueryBuilder.js"
export * as LiveArxiv from "./arxiv/LiveArxiv.js"
export * as LiveOpenAlex from "./openalex/LiveOpenAlex.js"
export * as LlmJudge from "./judge/LlmJudge.js"
export * as ResponseCache from "./http/ResponseCache.js"
export * as FileSystemVault from "./vault/FileSystemVault.js"
export * as InMemoryVault from "./vault/InMemoryVault.js"
export * as McpVault from "./vault/McpVault.js"
/**
 * The earlier names of the recorded-corpus adapters, kept so code written
 * against them still compiles.
 *
 * @deprecated Use `CorpusArxiv`: the shipped corpus is not a test fixture.
 * @since 0.1.0
 */
export * as FixtureArxiv from "./arxiv/CorpusArxiv.js"
/**
 * @deprecated Use `RecordedOpenAlex`.
 * @since 0.1.0
 */
export * as FixtureOpenAlex from "./openalex/RecordedOpenAlex.js"
