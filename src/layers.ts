/**
 * The composition root: which adapter serves each port, for the library, the
 * CLI and the MCP server alike.
 *
 * - offline: the recorded arXiv corpus and citation data, the local judge;
 * - live: arXiv and OpenAlex over HTTP (polite, cached), and the LLM judge
 *   when one is configured (OPENROUTER_API_KEY or LLM_BASE_URL), the local
 *   judge otherwise;
 * - the vault: a folder on disk when one is given, else an Obsidian MCP server
 *   (OBSIDIAN_MCP_URL or OBSIDIAN_MCP_COMMAND).
 *
 * Each adapter module (and the platform's Node layers) is imported when a
 * layer that needs it is built, not when this module is: a command loads
 * only what it uses.
 *
 * @since 0.1.0
 */
import type { FileSystem, HttpClient, Path } from "@effect/platform"
import { Config, ConfigError, Effect, Either, Layer, Option, Schema } from "effect"
import type * as RecordedOpenAlex from "./adapters/openalex/RecordedOpenAlex.js"
import type * as ResponseCache from "./adapters/http/ResponseCache.js"
import type { InvalidArgument } from "./core/errors.js"
import type { ArxivPort } from "./core/ports/ArxivPort.js"
import type { CitationsPort } from "./core/ports/CitationsPort.js"
import type { FullTextPort } from "./core/ports/FullTextPort.js"
import { LlmJudgePort } from "./core/ports/LlmJudgePort.js"
import type { OpenAlexPort } from "./core/ports/OpenAlexPort.js"
import type { PagePort } from "./core/ports/PagePort.js"
import type { QueryBuilderPort } from "./core/ports/QueryBuilderPort.js"
import type { SpeechToTextPort } from "./core/ports/SpeechToTextPort.js"
import type { TextToSpeechPort } from "./core/ports/TextToSpeechPort.js"
import type { TermStatsPort } from "./core/ports/TermStatsPort.js"
import { VaultPort, type VaultService } from "./core/ports/VaultPort.js"

/** Every port the companion needs. */
export type CompanionPorts = ArxivPort | OpenAlexPort | LlmJudgePort | VaultPort | TermStatsPort

/** Every port of the library: the companion's, `ask`'s and the extra tools' (full text, citing works). */
export type AllPorts = CompanionPorts | QueryBuilderPort | FullTextPort | CitationsPort | PagePort | SpeechToTextPort | TextToSpeechPort

/** Where the companion reads and writes, and which services it uses. */
export interface CompanionSetup {
  /**
   * The vault folder (an Obsidian vault is a folder of Markdown files). When
   * absent, the vault is reached over MCP (OBSIDIAN_MCP_URL / OBSIDIAN_MCP_COMMAND).
   */
  readonly vault?: string | undefined
  /**
   * Where arXiv's papers come from (see {@link ArxivBackend}): "live", "corpus", "mirror" or
   * "mirror:DIR". Default: "corpus" when offline, else "live". Citations and the judge are chosen apart.
   */
  readonly arxiv?: ArxivBackend | undefined
  /** A preset: the recorded corpus (unless `arxiv` says otherwise), recorded citations, the local judge; no network, no key. */
  readonly offline?: boolean | undefined
  /**
   * Offline citation counts, one source per paper: "all" (default; per paper the first of Semantic Scholar
   * 2024, Google Scholar 2025, Google Scholar 2017) or one named source alone.
   */
  readonly offlineCitations?: RecordedOpenAlex.CitationSource | undefined
  /** "local" (offline scorer) or "llm" (OpenAI-compatible endpoint). Default: llm when configured. */
  readonly judge?: "local" | "llm" | undefined
  /** Keep live responses in the on-disk cache (default true). */
  readonly cache?: boolean | undefined
  /** The cache folder (default: $XDG_CACHE_HOME/arxiv-companion or ~/.cache/arxiv-companion). */
  readonly cacheDir?: string | undefined
}

/** The offline citation sources a setup may name (every RecordedOpenAlex.CitationSource, checked by the compiler). */
const CITATION_SOURCES = Object.keys(
  { all: true, "semantic-scholar": true, "google-scholar-2025": true, "google-scholar": true } satisfies Record<
    RecordedOpenAlex.CitationSource,
    true
  >
) as ReadonlyArray<RecordedOpenAlex.CitationSource>

/**
 * The arXiv backend of a setup, one setting for every face: `live` (arXiv's API), `corpus` (the
 * recorded offline corpus), `mirror` (a local mirror built by `arxiv-companion mirror sync`, in its
 * default directory) or `mirror:DIR` (the mirror in DIR). Faces derive their flag and variable from
 * {@link ARXIV_BACKEND}.
 */
export const ArxivBackend = Schema.Union(
  Schema.Literal("live", "corpus", "mirror"),
  Schema.TemplateLiteral(Schema.Literal("mirror:"), Schema.String)
).annotations({ identifier: "ArxivBackend", description: "live, corpus, mirror or mirror:DIR" })
export type ArxivBackend = typeof ArxivBackend.Type

/** The flag, variable and words of the arXiv backend setting, for every face. */
export const ARXIV_BACKEND = {
  flag: "arxiv",
  env: "ARXIV_COMPANION_ARXIV",
  allowed: "live, corpus, mirror or mirror:DIR",
  description:
    "Where arXiv's papers come from: live (the API), corpus (the recorded offline corpus), mirror or mirror:DIR " +
    "(a local mirror: `arxiv-companion mirror sync`); env ARXIV_COMPANION_ARXIV. Default: corpus with --offline, else live.",
  /** The setting's text as a backend (blank or "mirror:" alone: no directory), undefined when it is none. */
  parse: (text: string): ArxivBackend | undefined => {
    const t = text.trim()
    if (t === "mirror:") return "mirror"
    return Schema.is(ArxivBackend)(t) ? t : undefined
  }
} as const

/** An optional setting: unset or blank is undefined, else `parse` reads it (undefined: not a valid value). */
const setting = <A>(name: string, expected: string, parse: (value: string) => A | undefined): Config.Config<A | undefined> =>
  Config.option(Config.string(name)).pipe(
    Config.mapOrFail((value) => {
      const text = Option.getOrElse(value, () => "").trim()
      if (text === "") return Either.right(undefined)
      const parsed = parse(text)
      return parsed === undefined
        ? Either.left(ConfigError.InvalidData([name], `Expected ${expected}, got "${text}"`))
        : Either.right(parsed)
    })
  )

const BOOLEAN: Readonly<Record<string, boolean>> = { true: true, yes: true, on: true, "1": true, false: false, no: false, off: false, "0": false }
const bool = (value: string) => BOOLEAN[value.toLowerCase()]
const oneOf = <L extends string>(values: ReadonlyArray<L>) => (value: string): L | undefined =>
  (values as ReadonlyArray<string>).includes(value) ? value as L : undefined

/**
 * A setup read from the environment, each field overridden by `overrides`
 * when given there (a face's flags): ARXIV_COMPANION_VAULT,
 * ARXIV_COMPANION_ARXIV, ARXIV_COMPANION_OFFLINE, ARXIV_COMPANION_OFFLINE_CITATIONS,
 * ARXIV_COMPANION_JUDGE (local | llm), ARXIV_COMPANION_CACHE (false: no
 * on-disk cache) and ARXIV_COMPANION_CACHE_DIR. Blank values count as unset.
 */
export const setupConfig = (overrides: CompanionSetup = {}): Config.Config<CompanionSetup> =>
  Config.all({
    vault: setting("ARXIV_COMPANION_VAULT", "a folder", (s) => s),
    arxiv: setting(ARXIV_BACKEND.env, ARXIV_BACKEND.allowed, ARXIV_BACKEND.parse),
    offline: setting("ARXIV_COMPANION_OFFLINE", "true or false", bool),
    offlineCitations: setting("ARXIV_COMPANION_OFFLINE_CITATIONS", `one of ${CITATION_SOURCES.join(", ")}`, oneOf(CITATION_SOURCES)),
    judge: setting("ARXIV_COMPANION_JUDGE", "local or llm", oneOf(["local", "llm"] as const)),
    cache: setting("ARXIV_COMPANION_CACHE", "true or false", bool),
    cacheDir: setting("ARXIV_COMPANION_CACHE_DIR", "a folder", (s) => s)
  }).pipe(
    Config.map((env): CompanionSetup => ({
      vault: overrides.vault ?? env.vault,
      arxiv: overrides.arxiv ?? env.arxiv,
      offline: overrides.offline ?? env.offline,
      offlineCitations: overrides.offlineCitations ?? env.offlineCitations,
      judge: overrides.judge ?? env.judge,
      cache: overrides.cache ?? env.cache,
      cacheDir: overrides.cacheDir ?? env.cacheDir
    }))
  )

// -----------------------------------------------------------------------------
// the modules behind the layers, imported when a layer is built

const load = <A>(module: () => Promise<A>): Effect.Effect<A> => Effect.promise(module)
const Modules = {
  errors: () => import("./core/errors.js"),
  NodeContext: () => import("@effect/platform-node/NodeContext"),
  NodeHttpClient: () => import("@effect/platform-node/NodeHttpClient"),
  CorpusArxiv: () => import("./adapters/arxiv/CorpusArxiv.js"),
  RecordedOpenAlex: () => import("./adapters/openalex/RecordedOpenAlex.js"),
  RecordedCitations: () => import("./adapters/openalex/RecordedCitations.js"),
  AbstractOnlyFullText: () => import("./adapters/fulltext/AbstractOnlyFullText.js"),
  LocalJudge: () => import("./adapters/judge/LocalJudge.js"),
  ArxivTermStats: () => import("./adapters/judge/ArxivTermStats.js"),
  LiveArxiv: () => import("./adapters/arxiv/LiveArxiv.js"),
  MirrorArxiv: () => import("./adapters/arxiv/mirror/MirrorArxiv.js"),
  Mirror: () => import("./adapters/arxiv/mirror/Mirror.js"),
  LiveOpenAlex: () => import("./adapters/openalex/LiveOpenAlex.js"),
  LiveOpenAlexCitations: () => import("./adapters/openalex/LiveOpenAlexCitations.js"),
  LiveFullText: () => import("./adapters/fulltext/LiveFullText.js"),
  LlmJudge: () => import("./adapters/judge/LlmJudge.js"),
  ResponseCache: () => import("./adapters/http/ResponseCache.js"),
  FileSystemVault: () => import("./adapters/vault/FileSystemVault.js"),
  McpVault: () => import("./adapters/vault/McpVault.js"),
  RuleQueryBuilder: () => import("./adapters/query/RuleQueryBuilder.js"),
  LlmQueryBuilder: () => import("./adapters/query/LlmQueryBuilder.js"),
  NotionPages: () => import("./adapters/pages/NotionPages.js")
}

type Errors = typeof import("./core/errors.js")

/** A configuration problem in words: each missing or invalid variable with what to do, no tree. */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  switch (error._op) {
    case "And":
    case "Or":
      return `${describeConfigError(error.left)}; ${describeConfigError(error.right)}`
    case "MissingData":
      // our messages name the variable and the fix; Effect's default ("Expected X to exist ...") does not
      return /^Expected .* to exist/.test(error.message) ? `${error.path.join(".")} is not set` : error.message
    default:
      return `${error.path.join(".")}: ${error.message}`
  }
}

/** A configuration problem, as the typed error users see. */
const configProblem = (errors: Errors) => (error: ConfigError.ConfigError): InvalidArgument =>
  new errors.InvalidArgument({ argument: "configuration", reason: describeConfigError(error) })

/**
 * A layer whose modules are imported when it is built; `make` gets the core's
 * errors module, for the configuration problems it reports.
 */
const lazyLayer = <ROut, E, RIn, E2 = never>(
  make: (errors: Errors) => Effect.Effect<Layer.Layer<ROut, E, RIn>, E2>
): Layer.Layer<ROut, E | E2, RIn> => Layer.unwrapEffect(Effect.flatMap(load(Modules.errors), make))

/** Node's file system and path services. */
export const nodeContextLayer: Layer.Layer<FileSystem.FileSystem | Path.Path> = lazyLayer(() =>
  Effect.map(load(Modules.NodeContext), (m) => m.layer)
)

/** Node's HTTP client (undici). */
export const httpClientLayer: Layer.Layer<HttpClient.HttpClient> = lazyLayer(() =>
  Effect.map(load(Modules.NodeHttpClient), (m) => m.layerUndici)
)

// -----------------------------------------------------------------------------
// the ports

/** The vault: a folder when given, else an Obsidian MCP server from the environment. */
export const vaultLayer = (setup: CompanionSetup): Layer.Layer<VaultPort, InvalidArgument> =>
  setup.vault !== undefined
    ? lazyLayer(() =>
      Effect.map(load(Modules.FileSystemVault), (FileSystemVault) =>
        FileSystemVault.layer({ root: setup.vault! }).pipe(Layer.provide(nodeContextLayer)))
    )
    : lazyLayer((errors) =>
      Effect.map(load(Modules.McpVault), (McpVault) =>
      Layer.unwrapEffect(
        McpVault.optionsConfig.pipe(
          Effect.mapError(configProblem(errors)),
          Effect.flatMap(Option.match({
            onNone: () =>
              Effect.fail(
                new errors.InvalidArgument({
                  argument: "vault",
                  reason: "no vault configured. Pass --vault DIR (or set ARXIV_COMPANION_VAULT), or set OBSIDIAN_MCP_URL / OBSIDIAN_MCP_COMMAND to reach Obsidian over MCP."
                })
              ),
            onSome: (options) => Effect.succeed(McpVault.layer(options).pipe(Layer.provide(httpClientLayer)))
          }))
        )
      )))

/** A vault whose every call fails with the reason it could not be set up. */
export const unavailableVault = (errors: Errors, reason: string): VaultService => {
  const fail = Effect.fail(new errors.VaultUnavailable({ vault: "(not configured)", reason }))
  return { name: "(not configured)", listNotes: () => fail, readNote: () => fail, readNoteIfExists: () => fail, writeNote: () => fail }
}

/** The vault of a setup; a setup error becomes a vault that reports it on use (the MCP server's tools work without one). */
export const tolerantVaultLayer = (setup: CompanionSetup): Layer.Layer<VaultPort> =>
  Layer.catchAll(vaultLayer(setup), (error) =>
    lazyLayer((errors) => Effect.succeed(Layer.succeed(VaultPort, unavailableVault(errors, error.reason)))))

/** How many candidates an LLM judge sees in one run: the best of the pool by the local judge's ranking. */
export const LLM_SHORTLIST = 30

/**
 * An LLM judge that sees only the best `size` candidates of a larger pool,
 * picked by the local judge (offline, no cost): a paid model reads 30
 * abstracts, not 100.
 */
export const withLocalShortlist = (
  size: number = LLM_SHORTLIST
): Layer.Layer<LlmJudgePort, never, LlmJudgePort> =>
  Layer.effect(
    LlmJudgePort,
    Effect.gen(function*() {
      const llm = yield* LlmJudgePort
      const local = (yield* load(Modules.LocalJudge)).makeWith()
      return {
        ...llm,
        shortlist: {
          size,
          rank: (concept, papers) => local.judge(concept, papers).pipe(Effect.map((js) => js.map((j) => j.relevance)))
        }
      }
    })
  )

/**
 * Whether the LLM does a part of the work (judging, writing the query) the
 * setup does not assign: when its endpoint is configured and the setup is not
 * offline. The one rule for both parts.
 */
const llmByDefault = (setup: Pick<CompanionSetup, "offline">): Effect.Effect<boolean> =>
  setup.offline === true
    ? Effect.succeed(false)
    : Effect.flatMap(load(Modules.LlmJudge), (LlmJudge) => LlmJudge.liveJudgeConfigured.pipe(Effect.orElseSucceed(() => false)))

/**
 * The judge a setup asks for: explicit, else the LLM judge when one is configured (and not offline), else local.
 * The LLM judge reads the local judge's shortlist of the pool.
 */
export const judgeLayer = (setup: CompanionSetup): Layer.Layer<LlmJudgePort, InvalidArgument> =>
  lazyLayer((errors) =>
    Effect.gen(function*() {
      const choice = setup.judge ?? ((yield* llmByDefault(setup)) ? "llm" : "local")
      if (choice === "local") return (yield* load(Modules.LocalJudge)).layer
      const LlmJudge = yield* load(Modules.LlmJudge)
      return withLocalShortlist().pipe(
        Layer.provide(LlmJudge.layerConfig().pipe(Layer.mapError(configProblem(errors)), Layer.provide(httpClientLayer)))
      )
    })
  )

/**
 * The on-disk response cache a setup asks for. Pass the same value wherever
 * the cache is needed in one layer graph: layers are shared by reference, so
 * the process keeps one cache (one store, one coalescing map).
 */
export const responseCacheLayer = (
  setup: Pick<CompanionSetup, "cache" | "cacheDir">
): Layer.Layer<ResponseCache.ResponseCache, never, FileSystem.FileSystem | Path.Path> =>
  lazyLayer(() =>
    Effect.map(load(Modules.ResponseCache), (ResponseCache) =>
    ResponseCache.layerConfig({
      ...(setup.cache === undefined ? {} : { enabled: setup.cache }),
      ...(setup.cacheDir === undefined ? {} : { dir: setup.cacheDir })
    })))

/** The recorded corpus as ArxivPort. */
const offlineArxivLayer: Layer.Layer<ArxivPort> = lazyLayer(() =>
  Effect.map(load(Modules.CorpusArxiv), (CorpusArxiv) => CorpusArxiv.layer().pipe(Layer.provide(nodeContextLayer)))
)

/** The arXiv term statistics the keywords are ranked by (the shipped document-frequency table). */
const termStatsLayer: Layer.Layer<TermStatsPort> = lazyLayer(() => Effect.map(load(Modules.ArxivTermStats), (m) => m.layer))

/** Citation data alone: the recorded counts offline, else OpenAlex over HTTP (cached). */
export const openAlexLayer = (
  setup: CompanionSetup,
  cache = responseCacheLayer(setup)
): Layer.Layer<OpenAlexPort, InvalidArgument> =>
  setup.offline === true
    ? lazyLayer(() =>
      Effect.map(load(Modules.RecordedOpenAlex), (RecordedOpenAlex) =>
      RecordedOpenAlex.layer({ citations: setup.offlineCitations ?? "all" }).pipe(Layer.provide(nodeContextLayer))))
    : lazyLayer((errors) =>
      Effect.map(load(Modules.LiveOpenAlex), (LiveOpenAlex) => LiveOpenAlex.layerConfig().pipe(Layer.mapError(configProblem(errors))))
    ).pipe(Layer.provide(cache), Layer.provide(httpClientLayer), Layer.provide(nodeContextLayer))

/** The recorded citation data, the local judge (unless asked otherwise), the vault, and arXiv as the setup says (the corpus by default). */
export const OfflineLayer = (setup: CompanionSetup): Layer.Layer<CompanionPorts, InvalidArgument> =>
  Layer.mergeAll(
    arxivLayer({ ...setup, offline: true }),
    openAlexLayer({ ...setup, offline: true }),
    judgeLayer({ ...setup, offline: true }),
    termStatsLayer,
    vaultLayer(setup)
  )

/** arXiv over HTTP (ARXIV_API_URL), through the given response cache. */
const liveArxivLayer = (cache: Layer.Layer<ResponseCache.ResponseCache, never, FileSystem.FileSystem | Path.Path>) =>
  lazyLayer((errors) =>
    Effect.map(load(Modules.LiveArxiv), (LiveArxiv) => LiveArxiv.layerConfig().pipe(Layer.mapError(configProblem(errors))))
  ).pipe(
    Layer.provide(cache),
    Layer.provide(httpClientLayer),
    Layer.provide(nodeContextLayer)
  )

/** arXiv and OpenAlex over HTTP (ARXIV_API_URL, OPENALEX_API_URL, OPENALEX_API_KEY), cached on disk. */
export const LiveLayer = (
  setup: CompanionSetup,
  cache = responseCacheLayer(setup)
): Layer.Layer<CompanionPorts, InvalidArgument> =>
  // one cache for the process: arXiv needs it; OpenAlex and the LLM judge use it when present
  Layer.mergeAll(
    arxivLayer(setup, cache),
    openAlexLayer({ ...setup, offline: false }, cache),
    judgeLayer(setup).pipe(Layer.provide(cache), Layer.provide(nodeContextLayer)),
    termStatsLayer,
    vaultLayer(setup)
  )

/** A local mirror (`mirror sync`) as ArxivPort: in `dir`, else in the default directory. */
const mirrorArxivLayer = (dir: string | undefined): Layer.Layer<ArxivPort> =>
  lazyLayer(() => Effect.map(load(Modules.MirrorArxiv), (MirrorArxiv) => MirrorArxiv.layerConfig(dir).pipe(Layer.provide(nodeContextLayer))))

/**
 * arXiv as the setup's backend says (`arxiv`; by default the corpus when
 * offline, else the live API): the one place the choice is made, for every
 * layer and face.
 */
export const arxivLayer = (
  setup: Pick<CompanionSetup, "arxiv" | "offline" | "cache" | "cacheDir">,
  cache = responseCacheLayer(setup)
): Layer.Layer<ArxivPort, InvalidArgument> => {
  const backend = setup.arxiv ?? (setup.offline === true ? "corpus" : "live")
  if (backend === "corpus") return offlineArxivLayer
  if (backend === "live") return liveArxivLayer(cache)
  const dir = backend.slice("mirror:".length)
  return mirrorArxivLayer(dir === "" ? undefined : dir)
}

/** The mirror's commands (`mirror sync`, `mirror status`), loaded when used, with Node's file system and HTTP client. */
export const mirrorCommands = Effect.map(load(Modules.Mirror), (Mirror) => ({
  sync: (request: Parameters<typeof Mirror.sync>[0]) =>
    Effect.flatMap(Mirror.clientConfig, (fromEnv) => Mirror.sync({ ...fromEnv, ...request })).pipe(
      Effect.catchTag("ConfigError", (e) => Effect.flatMap(load(Modules.errors), (errors) => Effect.fail(configProblem(errors)(e)))),
      Effect.provide(Layer.merge(nodeContextLayer, httpClientLayer))
    ),
  status: (dir: string | undefined) => Mirror.status(dir).pipe(Effect.provide(nodeContextLayer))
}))

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
export type AskPorts = ArxivPort | OpenAlexPort | LlmJudgePort | QueryBuilderPort | TermStatsPort

/**
 * The query builder a setup asks for: explicit, else the LLM when one is
 * configured (as for the judge) and the setup is not offline, else rules
 * (offline, deterministic).
 */
export const queryBuilderLayer = (setup: AskSetup): Layer.Layer<QueryBuilderPort, InvalidArgument> =>
  lazyLayer((errors) =>
    Effect.gen(function*() {
      const choice = setup.queryBuilder ?? ((yield* llmByDefault(setup)) ? "llm" : "rules")
      if (choice === "rules") return (yield* load(Modules.RuleQueryBuilder)).layer
      const LlmQueryBuilder = yield* load(Modules.LlmQueryBuilder)
      return LlmQueryBuilder.layerConfig().pipe(Layer.mapError(configProblem(errors)), Layer.provide(httpClientLayer))
    })
  )

/**
 * What `ask` needs: arXiv and citation data (offline or live), the judge, the
 * term statistics and the query builder (no vault: saving asks for one).
 */
export const askLayer = (setup: AskSetup): Layer.Layer<AskPorts, InvalidArgument> => {
  const cache = responseCacheLayer(setup)
  return Layer.mergeAll(
    arxivLayer(setup, cache),
    openAlexLayer(setup, cache),
    judgeLayer(setup),
    termStatsLayer,
    queryBuilderLayer(setup)
  )
}

/** Notion pages (NOTION_TOKEN, NOTION_PARENT_PAGE_ID); unconfigured, it says what to set when used. */
const notionLayer: Layer.Layer<PagePort> = lazyLayer(() => Effect.map(load(Modules.NotionPages), (m) => m.layerConfig()))

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
  const pages: Layer.Layer<PagePort> | Layer.Layer<never> = want.page === true ? notionLayer : Layer.empty
  return Layer.merge(vault, pages) as Layer.Layer<VaultPort | PagePort, InvalidArgument>
}

/** Full text and citing works: recorded offline, else arXiv's HTML/PDF and OpenAlex (cached). */
const extrasLayer = (
  setup: CompanionSetup,
  cache: Layer.Layer<ResponseCache.ResponseCache, never, FileSystem.FileSystem | Path.Path>
): Layer.Layer<FullTextPort | CitationsPort, never, ArxivPort> =>
  setup.offline === true
    ? lazyLayer(() =>
      Effect.map(
      Effect.all([load(Modules.AbstractOnlyFullText), load(Modules.RecordedCitations)]),
      ([AbstractOnlyFullText, RecordedCitations]) => Layer.merge(AbstractOnlyFullText.layer, RecordedCitations.layer())
    ))
    : lazyLayer(() =>
      Effect.map(
      Effect.all([load(Modules.LiveFullText), load(Modules.LiveOpenAlexCitations)]),
      ([LiveFullText, LiveOpenAlexCitations]) =>
        Layer.merge(LiveFullText.layerConfig(), LiveOpenAlexCitations.layerConfig().pipe(Layer.orDie)).pipe(
          Layer.provide(cache),
          Layer.provide(httpClientLayer),
          Layer.provide(nodeContextLayer)
        )
    ))

/**
 * Every port for a setup, as the MCP server serves them: the companion's
 * (the vault tolerant: without one, every tool but run_companion works, and
 * run_companion says how to configure it), `ask`'s query builder and Notion
 * pages, full text and citing works. One response cache for all of them.
 */
export const allPortsLayer = (setup: CompanionSetup): Layer.Layer<AllPorts, InvalidArgument> => {
  const cache = responseCacheLayer(setup)
  // the composition's vault is replaced by the tolerant one (the right side of a merge wins)
  const companion = Layer.merge(companionLayer({ ...setup, vault: setup.vault ?? "." }, cache), tolerantVaultLayer(setup))
  // ask_arxiv: the query builder, and Notion for notion: true (it says what to set when unconfigured)
  const ask = Layer.mergeAll(queryBuilderLayer(setup), notionLayer, speechLayer())
  return Layer.merge(Layer.provideMerge(extrasLayer(setup, cache), companion), ask)
}

/**
 * Every port, with the setup read through `setupConfig` (the environment;
 * `overrides` win): the one layer the MCP server runs on. A configuration
 * problem is an InvalidArgument that names it.
 */
export const layerConfig = (overrides: CompanionSetup = {}): Layer.Layer<AllPorts, InvalidArgument> =>
  lazyLayer((errors) => Effect.map(Effect.mapError(setupConfig(overrides), configProblem(errors)), allPortsLayer))

// -----------------------------------------------------------------------------
// voice

/**
 * Who hears and speaks: "offline" (default: pocketsphinx and espeak-ng, Debian's programs, no network) or
 * "api" (an OpenAI-compatible audio API: ARXIV_COMPANION_AUDIO_BASE_URL, _API_KEY, _STT_MODEL, _TTS_MODEL,
 * _VOICE). Faces take it from their flag, else ARXIV_COMPANION_SPEECH.
 */
export type SpeechBackend = "offline" | "api"

/** The speech ports for a backend (default: ARXIV_COMPANION_SPEECH, else offline). */
export const speechLayer = (backend?: SpeechBackend): Layer.Layer<SpeechToTextPort | TextToSpeechPort, InvalidArgument> =>
  lazyLayer((errors) =>
    Effect.gen(function*() {
      const chosen = backend ?? (yield* Config.literal("offline", "api")("ARXIV_COMPANION_SPEECH").pipe(
        Config.withDefault("offline" as const),
        Effect.mapError(configProblem(errors))
      ))
      if (chosen === "api") {
        const OpenAiAudio = yield* load(() => import("./adapters/speech/OpenAiAudio.js"))
        return OpenAiAudio.layerConfig.pipe(
          Layer.catchAll((e) => Layer.fail(configProblem(errors)(e))),
          Layer.provide(httpClientLayer)
        )
      }
      const [Pocketsphinx, Espeak, NodeContext] = yield* Effect.all([
        load(() => import("./adapters/speech/PocketsphinxSpeechToText.js")),
        load(() => import("./adapters/speech/EspeakTextToSpeech.js")),
        load(Modules.NodeContext)
      ])
      return Layer.merge(Pocketsphinx.layerConfig, Espeak.layerConfig).pipe(
        Layer.catchAll((e) => Layer.fail(configProblem(errors)(e))),
        Layer.provide(NodeContext.layer)
      )
    })
  )
