/**
 * `arxiv-companion run "<prompt>"`.
 */
import { Args, Command, Options } from "@effect/cli"
import { Config, Console, Effect, Option } from "effect"
import { COMPANION_CATEGORIES } from "../core/models.js"
import { CompanionOptionSpellings as S, progressLine } from "../tools/companion.js"
import { reportFailure } from "./failure.js"

/** A flag that falls back to an environment variable, and to the library default when neither is set. */
export const withEnv = <A>(options: Options.Options<A>, config: Config.Config<A>, description: string) =>
  options.pipe(
    Options.optional,
    Options.withFallbackConfig(Config.option(config)),
    Options.withDescription(description)
  )

export const vault = withEnv(
  Options.directory("vault"),
  Config.string("ARXIV_COMPANION_VAULT"),
  "The Obsidian vault folder (env ARXIV_COMPANION_VAULT). Without it, the vault is reached over MCP (OBSIDIAN_MCP_URL or OBSIDIAN_MCP_COMMAND)."
)
export const judge = withEnv(
  Options.choice("judge", ["local", "llm"]),
  Config.literal("local", "llm")("ARXIV_COMPANION_JUDGE"),
  "local (offline scorer) or llm (OPENROUTER_API_KEY or LLM_BASE_URL). Default: llm when configured, else local."
)
export const noCache = Options.boolean("no-cache").pipe(
  Options.withDescription("Do not read or write the on-disk response cache.")
)
// text, not Options.directory: a folder that cannot be used is the cache's warning, not a failed run
export const cacheDir = withEnv(
  Options.text("cache-dir"),
  Config.string("ARXIV_COMPANION_CACHE_DIR"),
  "Response cache folder (default ~/.cache/arxiv-companion; env ARXIV_COMPANION_CACHE_DIR)."
)
const offlineCitations = withEnv(
  Options.choice("offline-citations", ["all", "semantic-scholar", "google-scholar-2025", "google-scholar"]),
  Config.literal("all", "semantic-scholar", "google-scholar-2025", "google-scholar")("ARXIV_COMPANION_OFFLINE_CITATIONS"),
  "Offline citation counts, one source per paper: all (default: per paper the first of Semantic Scholar 2024-02-15, " +
    "Google Scholar 2025 via Paper Copilot, Google Scholar 2017-06-25; 4,415 papers), or one source alone: semantic-scholar " +
    "(551 famous papers), google-scholar-2025 (3,431 papers) or google-scholar (2,434 papers)."
)
export const offline = Options.boolean("offline").pipe(
  Options.withFallbackConfig(Config.boolean("ARXIV_COMPANION_OFFLINE").pipe(Config.withDefault(false))),
  Options.withDescription("Use the recorded offline corpus and citation data; no network, no key.")
)
export const json = Options.boolean("json").pipe(Options.withDescription("Print the machine-readable report alone on stdout."))
const relevanceThreshold = withEnv(
  Options.float(S.relevanceThreshold.flag),
  Config.number(S.relevanceThreshold.env),
  "Keep papers with relevance ≥ this (0..1, default 0.5; env RELEVANCE_PASS_THRESHOLD)."
)
const citationsPerYear = withEnv(
  Options.float(S.citationsPerYearThreshold.flag),
  Config.number(S.citationsPerYearThreshold.env),
  "Impact bar in citations per year (default 5; env CITATIONS_PER_YEAR_THRESHOLD)."
)
const exemptYears = withEnv(
  Options.float(S.exemptYears.flag),
  Config.number(S.exemptYears.env),
  "Papers younger than this many years skip the impact bar (default 1; env NEW_PAPER_AGE_EXEMPT_YEARS)."
)
const minKeywords = withEnv(
  Options.integer(S.minKeywords.flag),
  Config.integer(S.minKeywords.env),
  "Halt when the note yields fewer keywords (default 2; env MIN_KEYWORDS)."
)
const maxResults = withEnv(
  Options.integer(S.maxResults.flag),
  Config.integer(S.maxResults.env),
  "Papers kept at most, best first, 1..50 (default 10; env MAX_RESULTS)."
)
const poolSize = withEnv(
  Options.integer(S.poolSize.flag),
  Config.integer(S.poolSize.env),
  "Candidates asked of arXiv in the run's one search and judged, 1..2000 (default 100; env POOL_SIZE)."
)
const foundational = withEnv(
  Options.integer(S.foundational.flag),
  Config.integer(S.foundational.env),
  "Foundational citations per kept paper, 1..3 (default 3; env FOUNDATIONAL_CITATIONS)."
)
const categories = withEnv(
  Options.text(S.categories.flag),
  Config.string(S.categories.env),
  `Comma-separated arXiv categories (default every machine-learning category: ${COMPANION_CATEGORIES.join(",")}; env ARXIV_CATEGORIES).`
)
const since = withEnv(
  Options.text(S.since.flag),
  Config.string(S.since.env),
  "Only papers first submitted on or after YYYY-MM-DD (env ARXIV_SINCE)."
)
const prompt = Args.text({ name: "prompt" }).pipe(
  Args.withDescription("What to do, naming the note: e.g. \"Find papers related to my 'Transformers Concept Note'\".")
)

/** The `run` command. Its work (the companion, the layers, the rendering) loads when it runs, not for --help. */
export const runCommand = Command.make(
  "run",
  {
    prompt,
    vault,
    offline,
    json,
    judge,
    noCache,
    cacheDir,
    offlineCitations,
    relevanceThreshold,
    citationsPerYear,
    exemptYears,
    minKeywords,
    maxResults,
    poolSize,
    foundational,
    categories,
    since
  },
  (a) =>
    Effect.gen(function*() {
      const [{ companion }, { companionLayer, setupConfig }, { CompanionReport }, { renderReport }, Schema] = yield* Effect.promise(() =>
        Promise.all([import("../tools/companion.js"), import("../layers.js"), import("../core/models.js"), import("./render.js"), import("effect/Schema")])
      )
      // the flags (with their environment fallbacks) override the rest of the setup's environment
      const setup = yield* setupConfig({
        vault: Option.getOrUndefined(a.vault),
        ...(a.offline ? { offline: true } : {}),
        judge: Option.getOrUndefined(a.judge),
        ...(a.noCache ? { cache: false } : {}),
        cacheDir: Option.getOrUndefined(a.cacheDir),
        offlineCitations: Option.getOrUndefined(a.offlineCitations)
      }).pipe(Effect.mapError((e) => ({ _tag: "InvalidArgument", message: `Invalid configuration: ${String(e)}` })))
      // the same use case as the MCP server's run_companion: the prompt and options checked the same way
      const report = yield* companion(a.prompt, {
        relevanceThreshold: Option.getOrUndefined(a.relevanceThreshold),
        citationsPerYearThreshold: Option.getOrUndefined(a.citationsPerYear),
        exemptYears: Option.getOrUndefined(a.exemptYears),
        minKeywords: Option.getOrUndefined(a.minKeywords),
        maxResults: Option.getOrUndefined(a.maxResults),
        poolSize: Option.getOrUndefined(a.poolSize),
        foundational: Option.getOrUndefined(a.foundational),
        categories: Option.getOrUndefined(
          Option.map(a.categories, (c) => c.split(",").map((s) => s.trim()).filter((s) => s.length > 0))
        ),
        since: Option.getOrUndefined(a.since)
      }, {
        onProgress: (e) => Console.error(progressLine(e))
      }).pipe(Effect.provide(companionLayer(setup)))
      const data = Schema.encodeSync(CompanionReport)(report)
      yield* Console.log(a.json ? JSON.stringify(data, null, 2) : renderReport(data))
    }).pipe(Effect.catchAll(reportFailure))
).pipe(Command.withDescription("Find arXiv papers related to a concept note and write them back into the vault."))
