/**
 * `arxiv-companion run "<prompt>"`.
 */
import { Args, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Config, Console, Effect, Option } from "effect"
import { COMPANION_CATEGORIES } from "../core/models.js"
import { CompanionOptionSpellings as S, progressLine } from "../tools/companion.js"
import {
  type ArxivBackend,
  type CitationsBackend,
  type CompanionSetup,
  type JudgeBackend,
  type OfflineCitations,
  SETUP
} from "../layers.js"
import { asText, booleanWithEnv, oneOf, setupFlag, withEnv } from "./env.js"
import { reportFailure } from "./failure.js"

// every setup flag is derived from src/layers.ts's SETUP (its flag, variable, words and help), as the MCP bin's are
// text, not Options.directory: a path that is not a folder is the vault's own one-line message, naming --vault
export const vault = setupFlag(SETUP.vault)
export const judge = setupFlag(SETUP.judge)
export const noCache = Options.boolean(SETUP.cache.flag).pipe(Options.withDescription(SETUP.cache.description))
// text, not Options.directory: a folder that cannot be used is the cache's warning, not a failed run
export const cacheDir = setupFlag(SETUP.cacheDir)
export const offlineCitations = setupFlag(SETUP.offlineCitations)
export const offline = booleanWithEnv(SETUP.offline.flag, SETUP.offline.env, SETUP.offline.description)
/** The arXiv backend (live, corpus, mirror or mirror:DIR), for every command that reads arXiv. */
export const arxiv = setupFlag(SETUP.arxiv)
/** The citations backend (openalex or recorded). */
export const citations = setupFlag(SETUP.citations)

/** The setup the flags (each with its environment fallback) ask for: the CLI reads no other setting. */
export const setupOf = (a: {
  readonly vault: Option.Option<string>
  readonly arxiv: Option.Option<ArxivBackend>
  readonly citations: Option.Option<CitationsBackend>
  readonly offline: boolean
  readonly judge: Option.Option<JudgeBackend>
  readonly noCache: boolean
  readonly cacheDir: Option.Option<string>
  readonly offlineCitations?: Option.Option<typeof OfflineCitations.Type> | undefined
}): CompanionSetup => ({
  vault: Option.getOrUndefined(a.vault),
  arxiv: Option.getOrUndefined(a.arxiv),
  citations: Option.getOrUndefined(a.citations),
  ...(a.offline ? { offline: true } : {}),
  judge: Option.getOrUndefined(a.judge),
  ...(a.noCache ? { cache: false } : {}),
  cacheDir: Option.getOrUndefined(a.cacheDir),
  offlineCitations: a.offlineCitations === undefined ? undefined : Option.getOrUndefined(a.offlineCitations)
})

/** The flags of a setup, for every command that runs the companion. */
export const setupFlags = { vault, arxiv, citations, offline, judge, noCache, cacheDir }
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
    ...setupFlags,
    json,
    offlineCitations,
    ...runOptionFlags
  },
  (a) =>
    Effect.gen(function*() {
      const [{ companion, companionInput }, { companionLayer }, { CompanionReport }, { renderReport }, Schema] = yield* Effect.promise(() =>
        Promise.all([import("../tools/companion.js"), import("../layers.js"), import("../core/models.js"), import("./render.js"), import("effect/Schema")])
      )
      const setup = setupOf(a)
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
