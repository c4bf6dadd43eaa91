/**
 * `arxiv-companion digest --vault DIR [--since YYYY-MM-DD|7d] [--notes GLOB] [--tag TAG] [--dry-run]`:
 * every concept note of the vault searched for what is new, one dated digest note written.
 */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { setFlagsFromString } from "node:v8"
import { reportFailure } from "./failure.js"
import { integerFlag } from "./env.js"
import { arxiv, cacheDir, judge, json, noCache, offline, vault } from "./run.js"

/**
 * How much V8 lets the heap grow past what a collection found live, in percent. A digest allocates much (every
 * note's pool, judged) and holds little (~120 MiB live, most of it the corpus and the judge's tables): left to
 * itself V8 grows the heap to 3–4 times that (a 390 MiB peak on the bench); at 75 % the peak is ~270 MiB for the
 * same CPU time (eval/digest/README.md). Not a cap: a larger vault gets the heap it needs. A flag the user set
 * (NODE_OPTIONS, node's own arguments) is left alone.
 */
export const DIGEST_HEAP_GROWING_PERCENT = 75

const heapGrowing = Effect.sync(() => {
  const set = [...process.execArgv, process.env["NODE_OPTIONS"] ?? ""].some((a) => /heap[-_]growing[-_]percent/.test(a))
  if (!set) setFlagsFromString(`--heap-growing-percent=${DIGEST_HEAP_GROWING_PERCENT}`)
})

const since = Options.text("since").pipe(
  Options.withPseudoName("YYYY-MM-DD|Nd"),
  Options.optional,
  Options.withDescription("Search every note for papers first submitted on or after this date, or this many days back (7d); default: each note's last digest, else 7 days.")
)
const notes = Options.text("notes").pipe(
  Options.withPseudoName("glob"),
  Options.optional,
  Options.withDescription("Only the concept notes whose vault path matches this glob, e.g. \"Topics/**\" or \"*Concept*\".")
)
const tag = Options.text("tag").pipe(Options.withPseudoName("tag"), Options.optional, Options.withDescription("Only the concept notes carrying this tag."))
const dryRun = Options.boolean("dry-run").pipe(Options.withDescription("Search and print the digest; write nothing into the vault."))
const categories = Options.text("categories").pipe(
  Options.withPseudoName("list"),
  Options.optional,
  Options.withDescription("Comma-separated arXiv categories to search (default: those of run).")
)
const maxResults = integerFlag("max-results", { min: 1, max: 50, fallback: 10 }, "Papers kept per note at most, best first, 1..50 (default 10).")

/** The `digest` command. */
export const digestCommand = Command.make(
  "digest",
  { vault, since, notes, tag, dryRun, maxResults, categories, arxiv, offline, json, judge, noCache, cacheDir },
  (a) =>
    Effect.gen(function*() {
      const [{ digest, digestInput, digestProgressLine, renderDigest, summarizeDigest }, { describeConfigError, digestLayer, setupConfig }] = yield* Effect.promise(() =>
        Promise.all([import("../tools/digest.js"), import("../layers.js")])
      )
      const input = {
        since_date: Option.getOrUndefined(a.since),
        notes: Option.getOrUndefined(a.notes),
        tag: Option.getOrUndefined(a.tag),
        dry_run: a.dryRun,
        max_results: a.maxResults,
        categories: Option.getOrUndefined(Option.map(a.categories, (c) => c.split(",").map((x) => x.trim()).filter((x) => x !== "")))
      }
      const nameOf = (key: string) => (key === "dry_run" ? "--dry-run" : key === "max_results" ? "--max-results" : key === "since_date" ? "--since" : `--${key}`)
      // checked before the vault and the upstreams are set up: a refused value is named even without --vault
      yield* digestInput(input, nameOf)
      yield* heapGrowing
      const setup = yield* setupConfig({
        vault: Option.getOrUndefined(a.vault),
        arxiv: Option.getOrUndefined(a.arxiv),
        ...(a.offline ? { offline: true } : {}),
        judge: Option.getOrUndefined(a.judge),
        ...(a.noCache ? { cache: false } : {}),
        cacheDir: Option.getOrUndefined(a.cacheDir)
      }).pipe(Effect.mapError((e) => ({ _tag: "InvalidArgument", message: `Invalid configuration: ${describeConfigError(e)}` })))
      const backend = setup.arxiv ?? (setup.offline === true ? "corpus" : "live")
      const pace = backend === "live" ? 3 : 0
      const report = yield* digest(input, { onProgress: (e) => Console.error(digestProgressLine(e, pace)) }, nameOf).pipe(
        Effect.provide(digestLayer(setup))
      )
      const result = summarizeDigest(report)
      yield* Console.log(a.json ? JSON.stringify(result, null, 2) : a.dryRun ? `${report.markdown}\n\n${renderDigest(result)}` : renderDigest(result))
    }).pipe(Effect.catchAll(reportFailure))
).pipe(Command.withDescription("Digest the vault: what is new on arXiv for every concept note, in one dated note."))
