/**
 * `arxiv-companion run "<prompt>"`.
 */
import { Args, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Config, Console, Effect, Option } from "effect"
import { COMPANION_CATEGORIES } from "../core/models.js"
import { CompanionOptionSpellings as S, progressLine } from "../tools/companion.js"
import { ARXIV_BACKEND } from "../layers.js"
import { asText, booleanWithEnv, oneOf, withEnv } from "./env.js"
import { reportFailure } from "./failure.js"

// text, not Options.directory: a path that is not a folder is the vault's own one-line message, naming --vault
export const vault = withEnv(
  Options.text("vault").pipe(Options.withPseudoName("folder")),
  "ARXIV_COMPANION_VAULT",
  asText,
  "a folder",
  "The Obsidian vault folder (env ARXIV_COMPANION_VAULT). Without it, the vault is reached over MCP (OBSIDIAN_MCP_URL or OBSIDIAN_MCP_COMMAND)."
)
export const judge = withEnv(
  Options.choice("judge", ["local", "llm"]),
  "ARXIV_COMPANION_JUDGE",
  oneOf("local", "llm"),
  "local or llm",
  "local (offline scorer) or llm (OPENROUTER_API_KEY or LLM_BASE_URL). Default: llm when configured, else local."
)
export const noCache = Options.boolean("no-cache").pipe(
  Options.withDescription("Do not read or write the on-disk response cache.")
)
// text, not Options.directory: a folder that cannot be used is the cache's warning, not a failed run
export const cacheDir = withEnv(
  Options.text("cache-dir").pipe(Options.withPseudoName("folder")),
  "ARXIV_COMPANION_CACHE_DIR",
  asText,
  "a folder",
  "Response cache folder (default ~/.cache/arxiv-companion; env ARXIV_COMPANION_CACHE_DIR)."
)
const CITATION_SOURCES = ["all", "semantic-scholar", "google-scholar-2025", "google-scholar"] as const
const offlineCitations = withEnv(
  Options.choice("offline-citations", CITATION_SOURCES),
  "ARXIV_COMPANION_OFFLINE_CITATIONS",
  oneOf(...CITATION_SOURCES),
  CITATION_SOURCES.join(", "),
  "Offline citation counts, one source per paper: all (default: per paper the first of Semantic Scholar 2024-02-15, " +
    "Google Scholar 2025 via Paper Copilot, Google Scholar 2017-06-25; 4,415 papers), or one source alone: semantic-scholar " +
    "(551 famous papers), google-scholar-2025 (3,431 papers) or google-scholar (2,434 papers)."
)
export const offline = booleanWithEnv(
  "offline",
  "ARXIV_COMPANION_OFFLINE",
  "Use the recorded offline corpus and citation data; no network, no key."
)
/** The arXiv backend (src/layers.ts's ARXIV_BACKEND: live, corpus, mirror or mirror:DIR), for every command that reads arXiv. */
export const arxiv = withEnv(
  Options.text(ARXIV_BACKEND.flag).pipe(Options.withPseudoName("live|corpus|mirror[:DIR]")),
  ARXIV_BACKEND.env,
  ARXIV_BACKEND.parse,
  ARXIV_BACKEND.allowed,
  ARXIV_BACKEND.description
).pipe(
  Options.mapEffect((value) =>
    Option.match(value, {
      onNone: () => Effect.succeed(Option.none()),
      onSome: (text) => {
        const parsed = ARXIV_BACKEND.parse(text)
        return parsed === undefined
          ? Effect.fail(ValidationError.invalidValue(HelpDoc.p(`Invalid --${ARXIV_BACKEND.flag}: got ${JSON.stringify(text)}; use ${ARXIV_BACKEND.allowed}.`)))
          : Effect.succeed(Option.some(parsed))
      }
    })
  )
)
export const json = Options.boolean("json").pipe(Options.withDescription("Print the machine-readable report alone on stdout."))
/**
 * The run's thresholds and limits: each a flag (spelled as CompanionOptionSpellings says) that falls
 * back to an environment variable. Read as text and checked by the companion's one options check, so a
 * refused value is one line naming the flag (or the variable) it came from.
 */
const RUN_OPTIONS = {
  relevanceThreshold: "Keep papers with relevance ≥ this (0..1, default 0.5)",
  citationsPerYearThreshold: "Impact bar in citations per year (default 5)",
  exemptYears: "Papers younger than this many years skip the impact bar (default 1)",
  minKeywords: "Halt when the note yields fewer keywords (default 2)",
  maxResults: "Papers kept at most, best first, 1..50 (default 10)",
  poolSize: "Candidates asked of arXiv in the run's concept search and judged, 1..2000 (default 1000)",
  foundational: "Foundational citations per kept paper, 1..3 (default 3)",
  categories: `Comma-separated arXiv categories (default every machine-learning category: ${COMPANION_CATEGORIES.join(",")})`,
  since: "Only papers first submitted on or after YYYY-MM-DD"
}
type RunOptionKey = keyof typeof RUN_OPTIONS
/** What each run option's value is, as its usage names it (read as text, checked by the options Schema). */
const RUN_OPTION_KINDS: Record<RunOptionKey, string> = {
  relevanceThreshold: "number",
  citationsPerYearThreshold: "number",
  exemptYears: "number",
  minKeywords: "integer",
  maxResults: "integer",
  poolSize: "integer",
  foundational: "integer",
  categories: "list",
  since: "YYYY-MM-DD"
}
const runOptionKeys = Object.keys(RUN_OPTIONS) as Array<RunOptionKey>

const runOptionFlags = Object.fromEntries(
  runOptionKeys.map((key) => [
    key,
    Options.text(S[key].flag).pipe(
      Options.withPseudoName(RUN_OPTION_KINDS[key]),
      Options.optional,
      Options.withDescription(`${RUN_OPTIONS[key]}; env ${S[key].env}.`)
    )
  ])
) as Record<RunOptionKey, Options.Options<Option.Option<string>>>

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i

/** A flag's text as the options Schema expects it; text that is not a number stays text, to be refused by name. */
const optionValue = (key: RunOptionKey, text: string): unknown =>
  key === "categories"
    ? text.split(",").map((c) => c.trim()).filter((c) => c.length > 0)
    : key === "since"
    ? text.trim()
    : NUMBER.test(text.trim())
    ? Number(text)
    : text

/** The run options from the flags, else the environment, and how to name each: the flag or the variable it came from. */
const readRunOptions = (given: Record<RunOptionKey, Option.Option<string>>) =>
  Effect.gen(function*() {
    const input: Record<string, unknown> = {}
    const names = new Map<string, string>()
    for (const key of runOptionKeys) {
      const fromFlag = given[key]
      const text = Option.isSome(fromFlag) ? fromFlag : yield* Config.option(Config.string(S[key].env))
      if (Option.isNone(text)) continue
      input[key] = optionValue(key, text.value)
      names.set(key, Option.isSome(fromFlag) ? `--${S[key].flag}` : S[key].env)
    }
    return { input, nameOf: (key: string) => names.get(key) ?? key }
  })

const prompt = Args.text({ name: "prompt" }).pipe(
  Args.withDescription("What to do, naming the note: e.g. \"Find papers related to my 'Transformers Concept Note'\".")
)

/** The `run` command. Its work (the companion, the layers, the rendering) loads when it runs, not for --help. */
export const runCommand = Command.make(
  "run",
  {
    prompt,
    vault,
    arxiv,
    offline,
    json,
    judge,
    noCache,
    cacheDir,
    offlineCitations,
    ...runOptionFlags
  },
  (a) =>
    Effect.gen(function*() {
      const [{ companion, companionInput }, { companionLayer, describeConfigError, setupConfig }, { CompanionReport }, { renderReport }, Schema] = yield* Effect.promise(() =>
        Promise.all([import("../tools/companion.js"), import("../layers.js"), import("../core/models.js"), import("./render.js"), import("effect/Schema")])
      )
      // the flags (with their environment fallbacks) override the rest of the setup's environment
      const setup = yield* setupConfig({
        vault: Option.getOrUndefined(a.vault),
        arxiv: Option.getOrUndefined(a.arxiv),
        ...(a.offline ? { offline: true } : {}),
        judge: Option.getOrUndefined(a.judge),
        ...(a.noCache ? { cache: false } : {}),
        cacheDir: Option.getOrUndefined(a.cacheDir),
        offlineCitations: Option.getOrUndefined(a.offlineCitations)
      }).pipe(Effect.mapError((e) => ({ _tag: "InvalidArgument", message: `Invalid configuration: ${describeConfigError(e)}` })))
      // the same use case as the MCP server's run_companion: the prompt and options checked the same way
      const { input, nameOf } = yield* readRunOptions(a)
      // checked before the vault and the upstreams are set up: a refused value is named even without --vault
      yield* companionInput(a.prompt, input, nameOf)
      const report = yield* companion(a.prompt, input, {
        onProgress: (e) => Console.error(progressLine(e))
      }, nameOf).pipe(Effect.provide(companionLayer(setup)))
      const data = Schema.encodeSync(CompanionReport)(report)
      yield* Console.log(a.json ? JSON.stringify(data, null, 2) : renderReport(data))
    }).pipe(Effect.catchAll(reportFailure))
).pipe(Command.withDescription("Find arXiv papers related to a concept note and write them back into the vault."))
