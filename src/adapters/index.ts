/**
 * Every adapter, for Effect users composing their own layers. Each module
 * exports `make`, `layer(...)` and, where configuration applies, `layerConfig`.
 *
 * @since 0.1.0
 */
export * as FixtureArxiv from "./fixture/FixtureArxiv.js"
export * as FixtureOpenAlex from "./fixture/FixtureOpenAlex.js"
export * as ArxivTermStats from "./judge/ArxivTermStats.js"
export * as LocalJudge from "./judge/LocalJudge.js"
export * as RuleQueryBuilder from "./query/RuleQueryBuilder.js"
export * as LiveArxiv from "./live/LiveArxiv.js"
export * as LiveOpenAlex from "./live/LiveOpenAlex.js"
export * as LlmJudge from "./live/LlmJudge.js"
export * as ResponseCache from "./live/ResponseCache.js"
export * as FileSystemVault from "./vault/FileSystemVault.js"
export * as InMemoryVault from "./vault/InMemoryVault.js"
export * as McpVault from "./vault/McpVault.js"
