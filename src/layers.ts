/**
 * The composition root: which adapter serves each port, for the library, the
 * CLI, the MCP server and the local page alike. One setup (`CompanionSetup`,
 * a Schema) picks a backend per port, and every face derives its flags and
 * variables from `SETUP`:
 *
 * - arXiv: live (the API, polite, cached) | corpus (the recorded corpus) |
 *   mirror[:DIR] (a local mirror);
 * - citations: openalex (the API, cached) | recorded | mirror (the counts a
 *   mirror stores; chosen by default when the arXiv backend is a mirror,
 *   folder or PostgreSQL, holding counts);
 * - judge: local | llm (by default the LLM when one is configured:
 *   OPENROUTER_API_KEY or LLM_BASE_URL);
 * - vault: a folder | mcp (an Obsidian MCP server: OBSIDIAN_MCP_URL or
 *   OBSIDIAN_MCP_COMMAND; the default);
 * - `offline`: a preset of them (arXiv corpus, citations recorded, judge
 *   local, abstract-only full texts), each still overridable.
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
import type { NoteLanguagePort } from "./core/ports/NoteLanguagePort.js"
import type { OpenAlexPort } from "./core/ports/OpenAlexPort.js"
import type { PagePort } from "./core/ports/PagePort.js"
import type { QueryBuilderPort } from "./core/ports/QueryBuilderPort.js"
import type { SpeechToTextPort } from "./core/ports/SpeechToTextPort.js"
import type { TextToSpeechPort } from "./core/ports/TextToSpeechPort.js"
import type { TermStatsPort } from "./core/ports/TermStatsPort.js"
import { VaultPort, type VaultService } from "./core/ports/VaultPort.js"
import {
  ARXIV_BACKENDS,
  CITATIONS_BACKENDS,
  JUDGE_BACKENDS,
  OFFLINE_CITATION_SOURCES,
  QUERY_BUILDER_BACKENDS,
  SETUP,
  type SetupSetting
} from "./setup.js"

/** Every port the companion needs. */
export type CompanionPorts = ArxivPort | OpenAlexPort | LlmJudgePort | VaultPort | TermStatsPort

/** Every port of the library: the companion's, `ask`'s and the extra tools' (full text, citing works). */
export type AllPorts = CompanionPorts | QueryBuilderPort | FullTextPort | CitationsPort | PagePort | SpeechToTextPort | TextToSpeechPort

// -----------------------------------------------------------------------------
// the setup: which backend serves each port, one Schema for every face

/**
 * The arXiv backend of a setup: `live` (arXiv's API), `corpus` (the recorded
 * offline corpus), `mirror` (a local mirror built by `arxiv-companion mirror
 * sync`, in its default directory) or `mirror:DIR` (the mirror in DIR).
 * A new backend is one more member here and one more case in `arxivLayer`.
 */
export const ArxivBackend = Schema.Union(
  Schema.Literal(...ARXIV_BACKENDS),
  Schema.TemplateLiteral(Schema.Literal("mirror:"), Schema.String),
  // a lab's shared mirror on PostgreSQL (`mirror sync --to postgres://…`)
  Schema.TemplateLiteral(Schema.Literal("postgres://", "postgresql://"), Schema.String)
).annotations({ identifier: "ArxivBackend", description: "live, corpus, mirror, mirror:DIR or postgres://…" })
export type ArxivBackend = typeof ArxivBackend.Type

/** Where citation data (impact, reference lists, citing works) comes from: OpenAlex's API, or the recorded counts and works. */
export const CitationsBackend = Schema.Literal(...CITATIONS_BACKENDS).annotations({ identifier: "CitationsBackend" })
export type CitationsBackend = typeof CitationsBackend.Type

/** Who judges relevance: the local scorer, or an OpenAI-compatible LLM endpoint. */
export const JudgeBackend = Schema.Literal(...JUDGE_BACKENDS).annotations({ identifier: "JudgeBackend" })
export type JudgeBackend = typeof JudgeBackend.Type

/** Who writes `ask`'s arXiv query: rules (offline, deterministic) or the LLM. */
export const QueryBuilderBackend = Schema.Literal(...QUERY_BUILDER_BACKENDS).annotations({ identifier: "QueryBuilderBackend" })
export type QueryBuilderBackend = typeof QueryBuilderBackend.Type

/** The recorded citation counts, one source per paper ("all": per paper the first that recorded it). */
export const OfflineCitations = Schema.Literal(...OFFLINE_CITATION_SOURCES).annotations({
  identifier: "OfflineCitations"
})

/** The vault: a folder (an Obsidian vault is a folder of Markdown files), or `mcp`: an Obsidian MCP server. */
export const VaultBackend = Schema.String.annotations({ identifier: "VaultBackend", description: "a folder, or mcp" })

/** The recorded OpenAlex adapter takes every recorded source the setup may name (checked by the compiler). */
const recordedSources: ReadonlyArray<RecordedOpenAlex.CitationSource> = OfflineCitations.literals
void recordedSources

/** The word that picks the MCP vault (OBSIDIAN_MCP_URL or OBSIDIAN_MCP_COMMAND) instead of a folder. */
export const MCP_VAULT = "mcp"

/**
 * The setup of every face: one backend per port, and the `offline` preset.
 * Every field is optional; `backendsOf` says what an absent one means.
 */
export const CompanionSetup = Schema.Struct({
  /** The vault: a folder, or "mcp" (OBSIDIAN_MCP_URL / OBSIDIAN_MCP_COMMAND). Absent: the MCP vault. */
  vault: Schema.optional(VaultBackend),
  /** Where arXiv's papers come from. Default: "corpus" when offline, else "live". */
  arxiv: Schema.optional(ArxivBackend),
  /**
   * Where citation data comes from. Default: "mirror" when arXiv is a mirror (folder or PostgreSQL) that holds counts
   * (`mirror sync --citations`), else "recorded" when offline, else "openalex".
   */
  citations: Schema.optional(CitationsBackend),
  /** A preset: arXiv from the recorded corpus, recorded citations, the local judge; each still overridable. */
  offline: Schema.optional(Schema.Boolean),
  /** Which recorded counts give impact when citations are recorded (default "all"). */
  offlineCitations: Schema.optional(OfflineCitations),
  /** "local" (offline scorer) or "llm" (OpenAI-compatible endpoint). Default: llm when configured and not offline. */
  judge: Schema.optional(JudgeBackend),
  /** Keep live responses in the on-disk cache (default true). */
  cache: Schema.optional(Schema.Boolean),
  /** The cache folder (default: $XDG_CACHE_HOME/arxiv-companion or ~/.cache/arxiv-companion). */
  cacheDir: Schema.optional(Schema.String)
}).annotations({ identifier: "CompanionSetup" })

/** Where the companion reads and writes, and which backend serves each port. */
export interface CompanionSetup extends Schema.Schema.Type<typeof CompanionSetup> {}

/** A setup for `ask`: the companion's, and who writes the arXiv query. */
export const AskSetup = Schema.Struct({
  ...CompanionSetup.fields,
  /** "rules" (offline, deterministic) or "llm" (the judge's endpoint). Default: llm when configured and not offline. */
  queryBuilder: Schema.optional(QueryBuilderBackend)
}).annotations({ identifier: "AskSetup" })
export interface AskSetup extends Schema.Schema.Type<typeof AskSetup> {}

/** The backend of each port, every default applied (the judge and the query builder may be left to `auto`). */
export interface Backends {
  readonly arxiv: ArxivBackend
  readonly citations: CitationsBackend
  /** auto: the LLM when its endpoint is configured, else local. */
  readonly judge: JudgeBackend | "auto"
  readonly queryBuilder: QueryBuilderBackend | "auto"
  /** Full texts: arXiv's HTML or PDF, or (offline) the paper's recorded metadata alone. */
  readonly fullText: "arxiv" | "abstract-only"
  /** A folder, or the MCP vault. */
  readonly vault: { readonly _tag: "folder"; readonly root: string } | { readonly _tag: "mcp" }
}

/** The `offline` preset: the backends it picks for what the setup leaves unsaid. */
export const OFFLINE_PRESET = { arxiv: "corpus", citations: "recorded", judge: "local", queryBuilder: "rules" } as const

/**
 * What serves each port for a setup: its explicit choices, then the offline
 * preset (when `offline`), then the live defaults. The one place a default is
 * decided, for every layer and face.
 */
export const backendsOf = (setup: AskSetup): Backends => {
  const offline = setup.offline === true
  const vault = setup.vault
  return {
    arxiv: setup.arxiv ?? (offline ? OFFLINE_PRESET.arxiv : "live"),
    citations: setup.citations ?? (offline ? OFFLINE_PRESET.citations : "openalex"),
    judge: setup.judge ?? (offline ? OFFLINE_PRESET.judge : "auto"),
    queryBuilder: setup.queryBuilder ?? (offline ? OFFLINE_PRESET.queryBuilder : "auto"),
    fullText: offline ? "abstract-only" : "arxiv",
    vault: vault === undefined || vault === MCP_VAULT ? { _tag: "mcp" } : { _tag: "folder", root: vault }
  }
}

/** Every setting of the setup with its flag and variable, checked against `AskSetup` by the compiler. */
export { SETUP, type SetupSetting } from "./setup.js"
type SettingsCoverTheSetup = { readonly [K in keyof AskSetup]-?: SetupSetting<Exclude<AskSetup[K], undefined>> }
const settingsCoverTheSetup: SettingsCoverTheSetup = SETUP
void settingsCoverTheSetup

/** The arXiv backend setting alone (its flag, variable and words), as before `SETUP`. */
export const ARXIV_BACKEND = SETUP.arxiv

/** An optional setting: unset or blank is undefined, else `parse` reads it (undefined: not a valid value). */
const setting = <A>(s: SetupSetting<A>): Config.Config<A | undefined> =>
  Config.option(Config.string(s.env)).pipe(
    Config.mapOrFail((value) => {
      const text = Option.getOrElse(value, () => "").trim()
      if (text === "") return Either.right(undefined)
      const parsed = s.parse(text)
      return parsed === undefined
        ? Either.left(ConfigError.InvalidData([s.env], `Expected ${s.allowed}, got "${text}"`))
        : Either.right(parsed)
    })
  )

/**
 * A setup read from the environment (each setting's variable in `SETUP`),
 * each field overridden by `overrides` when given there (a face's flags).
 * Blank values count as unset.
 */
export const setupConfig = (overrides: AskSetup = {}): Config.Config<AskSetup> =>
  Config.all({
    vault: setting(SETUP.vault),
    arxiv: setting(SETUP.arxiv),
    citations: setting(SETUP.citations),
    offline: setting(SETUP.offline),
    offlineCitations: setting(SETUP.offlineCitations),
    judge: setting(SETUP.judge),
    queryBuilder: setting(SETUP.queryBuilder),
    cache: setting(SETUP.cache),
    cacheDir: setting(SETUP.cacheDir)
  }).pipe(
    Config.map((env): AskSetup => {
      const merged: Record<string, unknown> = {}
      for (const key of Object.keys(SETUP) as ReadonlyArray<keyof AskSetup>) {
        const value = overrides[key] ?? env[key]
        if (value !== undefined) merged[key] = value
      }
      return merged as AskSetup
    })
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
  PgArxiv: () => import("./adapters/arxiv/mirror/PgArxiv.js"),
  Mirror: () => import("./adapters/arxiv/mirror/Mirror.js"),
  CitationSync: () => import("./adapters/arxiv/mirror/CitationSync.js"),
  MirrorOpenAlex: () => import("./adapters/arxiv/mirror/MirrorOpenAlex.js"),
  LiveOpenAlex: () => import("./adapters/openalex/LiveOpenAlex.js"),
  LiveOpenAlexCitations: () => import("./adapters/openalex/LiveOpenAlexCitations.js"),
  LiveFullText: () => import("./adapters/fulltext/LiveFullText.js"),
  LlmJudge: () => import("./adapters/judge/LlmJudge.js"),
  ResponseCache: () => import("./adapters/http/ResponseCache.js"),
  FileSystemVault: () => import("./adapters/vault/FileSystemVault.js"),
  McpVault: () => import("./adapters/vault/McpVault.js"),
  RuleQueryBuilder: () => import("./adapters/query/RuleQueryBuilder.js"),
  LlmQueryBuilder: () => import("./adapters/query/LlmQueryBuilder.js"),
  NotionPages: () => import("./adapters/pages/NotionPages.js"),
  OfflineLanguage: () => import("./adapters/language/OfflineLanguage.js"),
  LlmLanguage: () => import("./adapters/language/LlmLanguage.js")
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
export const vaultLayer = (setup: CompanionSetup): Layer.Layer<VaultPort, InvalidArgument> => {
  const vault = backendsOf(setup).vault
  return vault._tag === "folder"
    ? lazyLayer(() =>
      Effect.map(load(Modules.FileSystemVault), (FileSystemVault) =>
        FileSystemVault.layer({ root: vault.root }).pipe(Layer.provide(nodeContextLayer)))
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
}

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
 * Whether the LLM does a part of the work (judging, writing the query): as
 * the setup assigns it, else (`auto`: not offline, nothing said) when its
 * endpoint is configured. The one rule for both parts.
 */
const llmWhenConfigured = (choice: "auto" | "llm" | "local" | "rules"): Effect.Effect<boolean> =>
  choice !== "auto"
    ? Effect.succeed(choice === "llm")
    : Effect.flatMap(load(Modules.LlmJudge), (LlmJudge) => LlmJudge.liveJudgeConfigured.pipe(Effect.orElseSucceed(() => false)))

/**
 * The judge a setup asks for: explicit, else the LLM judge when one is configured (and not offline), else local.
 * The LLM judge reads the local judge's shortlist of the pool.
 */
export const judgeLayer = (setup: CompanionSetup): Layer.Layer<LlmJudgePort, InvalidArgument> =>
  lazyLayer((errors) =>
    Effect.gen(function*() {
      if (!(yield* llmWhenConfigured(backendsOf(setup).judge))) return (yield* load(Modules.LocalJudge)).layer
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
const corpusArxivLayer: Layer.Layer<ArxivPort> = lazyLayer(() =>
  Effect.map(load(Modules.CorpusArxiv), (CorpusArxiv) => CorpusArxiv.layer().pipe(Layer.provide(nodeContextLayer)))
)

/**
 * The note's language and its English reading, offline (the detector, the glossary, cognates and
 * transliteration): the companion finds it as an optional service, so a layer without it searches notes as written.
 */
const offlineLanguageLayer: Layer.Layer<NoteLanguagePort> = lazyLayer(() => Effect.map(load(Modules.OfflineLanguage), (m) => m.layer))

/**
 * Who reads a note in another language: the LLM when the setup's judge is the LLM (asked for, or configured and
 * not offline), which answers the English terms under a JSON Schema and falls back to the offline reading; else
 * the offline reading.
 */
export const languageLayer = (setup: CompanionSetup): Layer.Layer<NoteLanguagePort, InvalidArgument> =>
  lazyLayer((errors) =>
    Effect.gen(function*() {
      if (!(yield* llmWhenConfigured(backendsOf(setup).judge))) return offlineLanguageLayer
      const LlmLanguage = yield* load(Modules.LlmLanguage)
      return LlmLanguage.layerConfig().pipe(Layer.mapError(configProblem(errors)), Layer.provide(httpClientLayer))
    })
  )

/** The arXiv term statistics the keywords are ranked by (the shipped document-frequency table). */
const termStatsLayer: Layer.Layer<TermStatsPort> = lazyLayer(() => Effect.map(load(Modules.ArxivTermStats), (m) => m.layer))

/** The folder of a folder mirror backend (`mirror`: the default one, undefined), or none when arXiv is not a folder mirror. */
const mirrorFolderOf = (arxiv: ArxivBackend): { readonly dir: string | undefined } | undefined =>
  arxiv === "mirror" ? { dir: undefined } : arxiv.startsWith("mirror:") ? { dir: arxiv.slice("mirror:".length) || undefined } : undefined

/**
 * Where citation data comes from for this setup, the mirror's counts
 * included: asked for (`--citations mirror`, which needs a mirror as the
 * arXiv backend: a folder or postgres://…), or, when nothing is said, the
 * mirror of `--arxiv` when it holds counts; else `backendsOf`'s default.
 */
export const citationsBackendOf = (
  setup: CompanionSetup
): Effect.Effect<
  | { readonly _tag: "mirror"; readonly dir: string | undefined }
  | { readonly _tag: "pg-mirror"; readonly url: string }
  | { readonly _tag: "openalex" | "recorded" },
  InvalidArgument
> =>
  Effect.gen(function*() {
    const backends = backendsOf(setup)
    const folder = mirrorFolderOf(backends.arxiv)
    const pg = backends.arxiv.startsWith("postgres") ? backends.arxiv : undefined
    if (setup.citations === "mirror") {
      if (folder !== undefined) return { _tag: "mirror", dir: folder.dir } as const
      if (pg !== undefined) return { _tag: "pg-mirror", url: pg } as const
      const errors = yield* load(Modules.errors)
      return yield* new errors.InvalidArgument({
        argument: "citations",
        reason: "--citations mirror reads the counts of a mirror: add --arxiv mirror[:DIR] or postgres://… (counted with `mirror sync --citations`)"
      })
    }
    if (setup.citations === undefined && (folder !== undefined || pg !== undefined)) {
      const MirrorOpenAlex = yield* load(Modules.MirrorOpenAlex)
      if (pg !== undefined) {
        if (yield* MirrorOpenAlex.pgHasCounts(pg)) return { _tag: "pg-mirror", url: pg } as const
      } else {
        const [dirs, NodeContext] = yield* Effect.all([load(() => import("./adapters/arxiv/mirror/mirrorDir.js")), load(Modules.NodeContext)])
        const dir = folder?.dir ?? (yield* dirs.defaultMirrorDir.pipe(Effect.provide(NodeContext.layer)))
        if (MirrorOpenAlex.hasCounts(dir)) return { _tag: "mirror", dir } as const
      }
    }
    return { _tag: backends.citations === "recorded" ? "recorded" : "openalex" } as const
  })

/** The mirror's stored counts as OpenAlexPort and CitationsPort. */
const mirrorCitationsLayer = (choice: { readonly _tag: "mirror"; readonly dir: string | undefined } | { readonly _tag: "pg-mirror"; readonly url: string }): Layer.Layer<OpenAlexPort | CitationsPort> =>
  lazyLayer(() =>
    Effect.map(load(Modules.MirrorOpenAlex), (m) => choice._tag === "pg-mirror" ? m.pgLayer(choice.url) : m.layer(choice.dir).pipe(Layer.provide(nodeContextLayer)))
  )

/** Citation data alone: the recorded counts, the mirror's, or OpenAlex over HTTP (cached), as the setup's `citations` says. */
export const openAlexLayer = (
  setup: CompanionSetup,
  cache = responseCacheLayer(setup)
): Layer.Layer<OpenAlexPort, InvalidArgument> =>
  Layer.unwrapEffect(Effect.map(citationsBackendOf(setup), (choice) =>
    choice._tag === "mirror" || choice._tag === "pg-mirror" ? mirrorCitationsLayer(choice) as Layer.Layer<OpenAlexPort> : choice._tag === "recorded"
    ? lazyLayer(() =>
      Effect.map(load(Modules.RecordedOpenAlex), (RecordedOpenAlex) =>
      RecordedOpenAlex.layer({ citations: setup.offlineCitations ?? "all" }).pipe(Layer.provide(nodeContextLayer))))
    : lazyLayer((errors) =>
      Effect.map(load(Modules.LiveOpenAlex), (LiveOpenAlex) => LiveOpenAlex.layerConfig().pipe(Layer.mapError(configProblem(errors))))
    ).pipe(Layer.provide(cache), Layer.provide(httpClientLayer), Layer.provide(nodeContextLayer))))

/** arXiv over HTTP (ARXIV_API_URL), through the given response cache. */
const liveArxivLayer = (cache: Layer.Layer<ResponseCache.ResponseCache, never, FileSystem.FileSystem | Path.Path>) =>
  lazyLayer((errors) =>
    Effect.map(load(Modules.LiveArxiv), (LiveArxiv) => LiveArxiv.layerConfig().pipe(Layer.mapError(configProblem(errors))))
  ).pipe(
    Layer.provide(cache),
    Layer.provide(httpClientLayer),
    Layer.provide(nodeContextLayer)
  )

/** A local mirror (`mirror sync`) as ArxivPort: in `dir`, else in the default directory. */
const mirrorArxivLayer = (dir: string | undefined): Layer.Layer<ArxivPort> =>
  lazyLayer(() => Effect.map(load(Modules.MirrorArxiv), (MirrorArxiv) => MirrorArxiv.layerConfig(dir).pipe(Layer.provide(nodeContextLayer))))

/**
 * arXiv as the setup's backend says (`arxiv`; by default the corpus when
 * offline, else the live API): the one place the choice is made, for every
 * layer and face. A new backend: a member of `ArxivBackend`, a case here.
 */
export const arxivLayer = (
  setup: Pick<CompanionSetup, "arxiv" | "offline" | "cache" | "cacheDir">,
  cache = responseCacheLayer(setup)
): Layer.Layer<ArxivPort, InvalidArgument> => {
  const backend = backendsOf(setup).arxiv
  if (backend === "corpus") return corpusArxivLayer
  if (backend === "live") return liveArxivLayer(cache)
  if (backend.startsWith("postgres")) return lazyLayer(() => Effect.map(load(Modules.PgArxiv), (PgArxiv) => PgArxiv.layer({ url: backend })))
  const dir = backend.slice("mirror:".length)
  return mirrorArxivLayer(dir === "" ? undefined : dir)
}

/** The mirror's commands (`mirror sync`, `mirror sync --citations`, `mirror status`), loaded when used, with Node's file system and HTTP client. */
export const mirrorCommands = Effect.map(Effect.all([load(Modules.Mirror), load(Modules.CitationSync)]), ([Mirror, CitationSync]) => ({
  sync: (request: Parameters<typeof Mirror.sync>[0]) =>
    Effect.flatMap(Mirror.clientConfig, (fromEnv) => Mirror.sync({ ...fromEnv, ...request })).pipe(
      Effect.catchTag("ConfigError", (e) => Effect.flatMap(load(Modules.errors), (errors) => Effect.fail(configProblem(errors)(e)))),
      Effect.provide(Layer.merge(nodeContextLayer, httpClientLayer))
    ),
  citations: (request: Parameters<typeof CitationSync.syncCitations>[0]) =>
    CitationSync.syncCitations(request).pipe(
      Effect.catchTag("ConfigError", (e) => Effect.flatMap(load(Modules.errors), (errors) => Effect.fail(configProblem(errors)(e)))),
      Effect.provide(Layer.merge(nodeContextLayer, httpClientLayer))
    ),
  status: (dir: string | undefined) => Mirror.status(dir).pipe(Effect.provide(nodeContextLayer))
}))

/**
 * The companion's ports but the vault, each from the backend the setup picks
 * for it; one response cache for all of them (arXiv needs it; OpenAlex and
 * the LLM judge use it when present, the judge only when not offline).
 */
const researchLayer = (
  setup: CompanionSetup,
  cache: Layer.Layer<ResponseCache.ResponseCache, never, FileSystem.FileSystem | Path.Path>
): Layer.Layer<Exclude<CompanionPorts, VaultPort>, InvalidArgument> =>
  Layer.mergeAll(
    arxivLayer(setup, cache),
    openAlexLayer(setup, cache),
    setup.offline === true ? judgeLayer(setup) : judgeLayer(setup).pipe(Layer.provide(cache), Layer.provide(nodeContextLayer)),
    termStatsLayer,
    languageLayer(setup)
  )

/** The layer a setup asks for: each port from its backend (see `backendsOf`), and the vault. */
export const companionLayer = (
  setup: CompanionSetup,
  cache = responseCacheLayer(setup)
): Layer.Layer<CompanionPorts, InvalidArgument> => Layer.merge(researchLayer(setup, cache), vaultLayer(setup))

/**
 * What a digest asks of the world: the companion's ports alone (the digest reads notes as written, so the
 * note-language reading, whose detector holds a 26 MB n-gram table, is not set up).
 */
export const digestLayer = (
  setup: CompanionSetup,
  cache = responseCacheLayer(setup)
): Layer.Layer<CompanionPorts, InvalidArgument> =>
  Layer.mergeAll(
    arxivLayer(setup, cache),
    openAlexLayer(setup, cache),
    setup.offline === true ? judgeLayer(setup) : judgeLayer(setup).pipe(Layer.provide(cache), Layer.provide(nodeContextLayer)),
    termStatsLayer,
    vaultLayer(setup)
  )

/** The `offline` preset of `companionLayer`: the recorded corpus and citation data, the local judge (unless the setup says otherwise). */
export const OfflineLayer = (setup: CompanionSetup): Layer.Layer<CompanionPorts, InvalidArgument> =>
  companionLayer({ ...setup, offline: true })

/** `companionLayer` without the offline preset: arXiv and OpenAlex over HTTP, cached on disk, unless the setup picks otherwise. */
export const LiveLayer = (
  setup: CompanionSetup,
  cache?: Layer.Layer<ResponseCache.ResponseCache, never, FileSystem.FileSystem | Path.Path>
): Layer.Layer<CompanionPorts, InvalidArgument> => {
  const live = { ...setup, offline: false }
  return companionLayer(live, cache ?? responseCacheLayer(live))
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
      if (!(yield* llmWhenConfigured(backendsOf(setup).queryBuilder))) return (yield* load(Modules.RuleQueryBuilder)).layer
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
    languageLayer(setup),
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

/** Full texts: arXiv's HTML or PDF (cached), or offline the paper's recorded metadata alone. */
const fullTextLayer = (
  setup: CompanionSetup,
  cache: Layer.Layer<ResponseCache.ResponseCache, never, FileSystem.FileSystem | Path.Path>
): Layer.Layer<FullTextPort, never, ArxivPort> =>
  backendsOf(setup).fullText === "abstract-only"
    ? lazyLayer(() => Effect.map(load(Modules.AbstractOnlyFullText), (m) => m.layer))
    : lazyLayer(() =>
      Effect.map(load(Modules.LiveFullText), (LiveFullText) =>
        LiveFullText.layerConfig().pipe(Layer.provide(cache), Layer.provide(httpClientLayer), Layer.provide(nodeContextLayer)))
    )

/** Citing works: recorded, the mirror's (none: it says so), or OpenAlex (cached), as the setup's `citations` says. */
const citingWorksLayer = (
  setup: CompanionSetup,
  cache: Layer.Layer<ResponseCache.ResponseCache, never, FileSystem.FileSystem | Path.Path>
): Layer.Layer<CitationsPort> =>
  // a refused choice is reported by openAlexLayer, built beside this one
  Layer.unwrapEffect(Effect.map(Effect.orElseSucceed(citationsBackendOf(setup), () => ({ _tag: "openalex" }) as const), (choice) =>
    choice._tag === "mirror" || choice._tag === "pg-mirror" ? mirrorCitationsLayer(choice) as Layer.Layer<CitationsPort> : choice._tag === "recorded"
    ? lazyLayer(() => Effect.map(load(Modules.RecordedCitations), (m) => m.layer()))
    : lazyLayer(() =>
      Effect.map(load(Modules.LiveOpenAlexCitations), (LiveOpenAlexCitations) =>
        LiveOpenAlexCitations.layerConfig().pipe(
          Layer.orDie,
          Layer.provide(cache),
          Layer.provide(httpClientLayer),
          Layer.provide(nodeContextLayer)
        ))
    )))

/** Full text and citing works, each from its backend. */
const extrasLayer = (
  setup: CompanionSetup,
  cache: Layer.Layer<ResponseCache.ResponseCache, never, FileSystem.FileSystem | Path.Path>
): Layer.Layer<FullTextPort | CitationsPort, never, ArxivPort> => Layer.merge(fullTextLayer(setup, cache), citingWorksLayer(setup, cache))

/**
 * Every port for a setup, as the MCP server serves them: the companion's
 * (the vault tolerant: without one, every tool but run_companion works, and
 * run_companion says how to configure it), `ask`'s query builder and Notion
 * pages, full text and citing works. One response cache for all of them.
 */
export const allPortsLayer = (setup: AskSetup): Layer.Layer<AllPorts, InvalidArgument> => {
  const cache = responseCacheLayer(setup)
  const companion = Layer.merge(researchLayer(setup, cache), tolerantVaultLayer(setup))
  // ask_arxiv: the query builder, and Notion for notion: true (it says what to set when unconfigured)
  const ask = Layer.mergeAll(queryBuilderLayer(setup), notionLayer, speechLayer())
  return Layer.merge(Layer.provideMerge(extrasLayer(setup, cache), companion), ask)
}

/**
 * Every port, with the setup read through `setupConfig` (the environment;
 * `overrides` win): the one layer the MCP server runs on. A configuration
 * problem is an InvalidArgument that names it.
 */
export const layerConfig = (overrides: AskSetup = {}): Layer.Layer<AllPorts, InvalidArgument> =>
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
