/**
 * The composition root: which adapter serves each port.
 *
 * - offline: the recorded arXiv corpus and citation data, the local judge;
 * - live: arXiv and OpenAlex over HTTP (polite, cached), and the LLM judge
 *   when one is configured (OPENROUTER_API_KEY or LLM_BASE_URL), the local
 *   judge otherwise;
 * - the vault: a folder on disk when one is given, else an Obsidian MCP server
 *   (OBSIDIAN_MCP_URL or OBSIDIAN_MCP_COMMAND).
 *
 * @since 0.1.0
 */
import type { FileSystem, HttpClient, Path } from "@effect/platform"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { ConfigError, Effect, Layer, Option } from "effect"
import * as FixtureArxiv from "./adapters/fixture/FixtureArxiv.js"
import * as FixtureOpenAlex from "./adapters/fixture/FixtureOpenAlex.js"
import * as ArxivTermStats from "./adapters/judge/ArxivTermStats.js"
import * as LocalJudge from "./adapters/judge/LocalJudge.js"
import * as LiveArxiv from "./adapters/live/LiveArxiv.js"
import * as LiveOpenAlex from "./adapters/live/LiveOpenAlex.js"
import * as LlmJudge from "./adapters/live/LlmJudge.js"
import * as ResponseCache from "./adapters/live/ResponseCache.js"
import * as FileSystemVault from "./adapters/vault/FileSystemVault.js"
import * as McpVault from "./adapters/vault/McpVault.js"
import * as RuleQueryBuilder from "./adapters/query/RuleQueryBuilder.js"
import * as LlmQueryBuilder from "./adapters/live/LlmQueryBuilder.js"
import * as NotionPages from "./adapters/live/NotionPages.js"
import { InvalidArgument } from "./core/errors.js"
import type { ArxivPort } from "./core/ports/ArxivPort.js"
import type { LlmJudgePort } from "./core/ports/LlmJudgePort.js"
import type { OpenAlexPort } from "./core/ports/OpenAlexPort.js"
import type { PagePort } from "./core/ports/PagePort.js"
import type { QueryBuilderPort } from "./core/ports/QueryBuilderPort.js"
import type { TermStatsPort } from "./core/ports/TermStatsPort.js"
import type { VaultPort } from "./core/ports/VaultPort.js"

/** Every port the companion needs. */
export type CompanionPorts = ArxivPort | OpenAlexPort | LlmJudgePort | VaultPort | TermStatsPort

/** Where the companion reads and writes, and which services it uses. */
export interface CompanionSetup {
  /**
   * The vault folder (an Obsidian vault is a folder of Markdown files). When
   * absent, the vault is reached over MCP (OBSIDIAN_MCP_URL / OBSIDIAN_MCP_COMMAND).
   */
  readonly vault?: string | undefined
  /** Serve arXiv and citation data from the recorded offline corpus; no network, no key. */
  readonly offline?: boolean | undefined
  /**
   * Offline citation counts, one source per paper: "all" (default; per paper the first of Semantic Scholar
   * 2024, Google Scholar 2025, Google Scholar 2017) or one named source alone.
   */
  readonly offlineCitations?: FixtureOpenAlex.CitationSource | undefined
  /** "local" (offline scorer) or "llm" (OpenAI-compatible endpoint). Default: llm when configured. */
  readonly judge?: "local" | "llm" | undefined
  /** Keep live responses in the on-disk cache (default true). */
  readonly cache?: boolean | undefined
  /** The cache folder (default: $XDG_CACHE_HOME/arxiv-companion or ~/.cache/arxiv-companion). */
  readonly cacheDir?: string | undefined
}

/** A configuration problem, as the typed error users see. */
const configProblem = (error: ConfigError.ConfigError) =>
  new InvalidArgument({ argument: "configuration", reason: String(error).replace(/^\(?Missing data at /, "missing ") })

/** The vault: a folder when given, else an Obsidian MCP server from the environment. */
export const vaultLayer = (setup: CompanionSetup): Layer.Layer<VaultPort, InvalidArgument> =>
  setup.vault !== undefined
    ? FileSystemVault.layer({ root: setup.vault }).pipe(Layer.provide(NodeContext.layer))
    : Layer.unwrapEffect(
      McpVault.optionsConfig.pipe(
        Effect.mapError(configProblem),
        Effect.flatMap(Option.match({
          onNone: () =>
            Effect.fail(
              new InvalidArgument({
                argument: "vault",
                reason: "no vault configured. Pass --vault DIR (or set ARXIV_COMPANION_VAULT), or set OBSIDIAN_MCP_URL / OBSIDIAN_MCP_COMMAND to reach Obsidian over MCP."
              })
            ),
          onSome: (options) => Effect.succeed(McpVault.layer(options).pipe(Layer.provide(NodeHttpClient.layerUndici)))
        }))
      )
    )

/** The judge a setup asks for: explicit, else the LLM judge when one is configured, else local. */
export const judgeLayer = (
  setup: CompanionSetup
): Layer.Layer<LlmJudgePort, InvalidArgument, HttpClient.HttpClient> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const configured = yield* LlmJudge.liveJudgeConfigured.pipe(Effect.orElseSucceed(() => false))
      const choice = setup.judge ?? (configured && setup.offline !== true ? "llm" : "local")
      return choice === "local"
        ? LocalJudge.layer
        : LlmJudge.layerConfig().pipe(Layer.mapError(configProblem))
    })
  )

/** The recorded arXiv corpus and citation data, the local judge (unless asked otherwise) and the vault. */
export const OfflineLayer = (setup: CompanionSetup): Layer.Layer<CompanionPorts, InvalidArgument> =>
  Layer.mergeAll(
    FixtureArxiv.layer(),
    FixtureOpenAlex.layer({ citations: setup.offlineCitations ?? "all" }),
    judgeLayer({ ...setup, offline: true }),
    ArxivTermStats.layer,
    vaultLayer(setup)
  ).pipe(Layer.provide(NodeHttpClient.layerUndici), Layer.provide(NodeContext.layer))

/**
 * The on-disk response cache a setup asks for. Pass the same value wherever
 * the cache is needed in one layer graph: layers are shared by reference, so
 * the process keeps one cache (one store, one coalescing map).
 */
export const responseCacheLayer = (
  setup: Pick<CompanionSetup, "cache" | "cacheDir">
): Layer.Layer<ResponseCache.ResponseCache, never, FileSystem.FileSystem | Path.Path> =>
  ResponseCache.layerConfig({
    ...(setup.cache === undefined ? {} : { enabled: setup.cache }),
    ...(setup.cacheDir === undefined ? {} : { dir: setup.cacheDir })
  })

/** arXiv and OpenAlex over HTTP (ARXIV_API_URL, OPENALEX_API_URL, OPENALEX_API_KEY), cached on disk. */
export const LiveLayer = (
  setup: CompanionSetup,
  cache = responseCacheLayer(setup)
): Layer.Layer<CompanionPorts, InvalidArgument> => {
  // one cache for the process: arXiv needs it; OpenAlex and the LLM judge use it when present
  return Layer.mergeAll(
    LiveArxiv.layerConfig().pipe(Layer.mapError(configProblem)),
    LiveOpenAlex.layerConfig().pipe(Layer.mapError(configProblem)),
    judgeLayer(setup),
    ArxivTermStats.layer,
    vaultLayer(setup)
  ).pipe(Layer.provide(cache), Layer.provide(NodeHttpClient.layerUndici), Layer.provide(NodeContext.layer))
}

/** arXiv alone, offline or live (for the CLI's search, paper and bibtex commands). */
export const arxivLayer = (setup: Pick<CompanionSetup, "offline" | "cache" | "cacheDir">): Layer.Layer<ArxivPort, InvalidArgument> =>
  setup.offline === true
    ? FixtureArxiv.layer().pipe(Layer.provide(NodeContext.layer))
    : LiveArxiv.layerConfig().pipe(
      Layer.mapError(configProblem),
      Layer.provide(responseCacheLayer(setup)),
      Layer.provide(NodeHttpClient.layerUndici),
      Layer.provide(NodeContext.layer)
    )

/** The layer a setup asks for: offline or live. */
export const companionLayer = (
  setup: CompanionSetup,
  cache = responseCacheLayer(setup)
): Layer.Layer<CompanionPorts, InvalidArgument> =>
  setup.offline === true ? OfflineLayer(setup) : LiveLayer(setup, cache)

/** A setup for `ask`: the companion's, and who writes the arXiv query. */
export interface AskSetup extends CompanionSetup {
  /** "rules" (offline, deterministic) or "llm" (the judge's endpoint). Default: llm when configured and not offline. */
  readonly queryBuilder?: "rules" | "llm" | undefined
}

/** Every port `ask` needs. */
export type AskPorts = ArxivPort | LlmJudgePort | QueryBuilderPort

/**
 * The query builder a setup asks for: explicit, else the LLM when one is
 * configured (as for the judge) and the setup is not offline, else rules
 * (offline, deterministic).
 */
export const queryBuilderLayer = (setup: AskSetup): Layer.Layer<QueryBuilderPort, InvalidArgument> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const configured = yield* LlmJudge.liveJudgeConfigured.pipe(Effect.orElseSucceed(() => false))
      const choice = setup.queryBuilder ?? (configured && setup.offline !== true ? "llm" : "rules")
      return choice === "rules"
        ? RuleQueryBuilder.layer
        : LlmQueryBuilder.layerConfig().pipe(Layer.mapError(configProblem), Layer.provide(NodeHttpClient.layerUndici))
    })
  )

/** What `ask` needs: arXiv (offline or live), the judge and the query builder. */
export const askLayer = (setup: AskSetup): Layer.Layer<AskPorts, InvalidArgument> =>
  Layer.mergeAll(
    arxivLayer(setup),
    judgeLayer(setup).pipe(Layer.provide(NodeHttpClient.layerUndici)),
    queryBuilderLayer(setup)
  )

/**
 * Where `ask` may save an answer, built only for what is asked: the vault
 * (a note) and Notion (NOTION_TOKEN, NOTION_PARENT_PAGE_ID). `ask` finds
 * them as optional services, so an unrequested one is never set up.
 */
export const askSaveLayer = (
  setup: CompanionSetup,
  want: { readonly note?: boolean | undefined; readonly page?: boolean | undefined }
): Layer.Layer<VaultPort | PagePort, InvalidArgument> => {
  const vault: Layer.Layer<VaultPort, InvalidArgument> | Layer.Layer<never> = want.note === true ? vaultLayer(setup) : Layer.empty
  const pages: Layer.Layer<PagePort> | Layer.Layer<never> = want.page === true ? NotionPages.layerConfig() : Layer.empty
  return Layer.merge(vault, pages) as Layer.Layer<VaultPort | PagePort, InvalidArgument>
}
