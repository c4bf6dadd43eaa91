/**
 * Tool-level commands: `search`, `paper` and `bibtex`, over the same library
 * functions the MCP server serves.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Layer, Option } from "effect"
import { InvalidArgument } from "../core/errors.js"
import { arxivLayer, queryBuilderLayer, SETUP } from "../layers.js"
import { booleanWithEnv, integerFlag } from "./env.js"
import { reportFailure } from "./failure.js"
import { arxiv } from "./run.js"

const offline = booleanWithEnv(SETUP.offline.flag, SETUP.offline.env, "Use the recorded offline corpus; no network.")
const json = Options.boolean("json").pipe(Options.withDescription("Print JSON instead of text."))
const ids = Args.text({ name: "arxiv-id" }).pipe(Args.atLeast(1), Args.withDescription("arXiv ids or abs/pdf URLs."))

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim()

/** A bad id named as the CLI user gave it (`<arxiv-id>`, as --help shows it), not by the MCP argument (`arxiv_ids[0]`). */
const asTyped = <A, R>(effect: Effect.Effect<A, { readonly _tag: string; readonly message: string }, R>) =>
  Effect.catchIf(
    effect,
    (e): e is InvalidArgument => e instanceof InvalidArgument && /^arxiv_ids\[\d+\]$/.test(e.argument),
    (e) => Effect.fail(new InvalidArgument({ argument: "<arxiv-id>", reason: e.reason }))
  )

/** The tool functions, loaded when a command runs. */
const papers = Effect.promise(() => import("../tools/papers.js"))

/** `arxiv-companion search "<query>"` */
export const searchCommand = Command.make(
  "search",
  {
    query: Args.text({ name: "query" }).pipe(Args.withDescription("Free text or arXiv syntax (ti:, abs:, au:, cat:, AND/OR/ANDNOT).")),
    offline,
    arxiv,
    json,
    maxResults: integerFlag("max-results", { min: 1, max: 50, fallback: 10 }, "1..50 (default 10)"),
    categories: Options.text("categories").pipe(
      Options.withPseudoName("list"),
      Options.optional,
      Options.withDescription("Comma-separated categories (default cs.LG,cs.AI,cs.CL,stat.ML; \"\" for all).")
    ),
    since: Options.text("since").pipe(Options.withPseudoName("YYYY-MM-DD"), Options.optional, Options.withDescription("YYYY-MM-DD"))
  },
  (a) =>
    Effect.flatMap(papers, ({ searchPapers }) => searchPapers({
      query: a.query,
      max_results: a.maxResults,
      categories: Option.getOrUndefined(Option.map(a.categories, (c) => c.split(",").map((s) => s.trim()).filter((s) => s !== ""))),
      since_date: Option.getOrUndefined(a.since)
    }).pipe(
      Effect.flatMap((r) =>
        Console.log(
          a.json
            ? JSON.stringify(r, null, 2)
            : [`${r.total} matches for ${r.query}`, ...r.papers.map((p, i) =>
              `${r.start + i + 1}. ${oneLine(p.title)} (arXiv:${p.arxiv_id}, ${p.published_date}) — ${p.authors.slice(0, 3).join(", ")}${p.authors.length > 3 ? " et al." : ""}`
            )].join("\n")
        )
      ),
      // the query port reads what was typed (its parser, the same for every builder: no model is asked)
      Effect.provide(Layer.merge(arxivLayer({ offline: a.offline, arxiv: Option.getOrUndefined(a.arxiv) }), queryBuilderLayer({ queryBuilder: "rules" }))),
      Effect.catchAll(reportFailure)
    ))
).pipe(Command.withDescription("Search arXiv (or the offline corpus)."))

/** `arxiv-companion paper <id...>` */
export const paperCommand = Command.make("paper", { ids, offline, arxiv, json }, (a) =>
  Effect.flatMap(papers, ({ getPapers }) => asTyped(getPapers({ arxiv_ids: a.ids }))).pipe(
    Effect.flatMap((r) =>
      Console.log(
        a.json
          ? JSON.stringify(r, null, 2)
          : [
            ...r.papers.map((p) =>
              `${oneLine(p.title)}\n  arXiv:${p.arxiv_id} · ${p.published_date} · ${p.categories.join(", ")}\n  ${p.authors.join(", ")}\n\n  ${oneLine(p.abstract)}\n`
            ),
            ...(r.missing.length > 0 ? [`Not found on arXiv: ${r.missing.join(", ")}`] : [])
          ].join("\n")
      )
    ),
    Effect.provide(arxivLayer({ offline: a.offline, arxiv: Option.getOrUndefined(a.arxiv) })),
    Effect.catchAll(reportFailure)
  )).pipe(Command.withDescription("Show papers' metadata by arXiv id."))

/** `arxiv-companion bibtex <id...>` */
export const bibtexCommand = Command.make("bibtex", { ids, offline, arxiv }, (a) =>
  Effect.flatMap(papers, ({ exportBibtex }) => asTyped(exportBibtex({ arxiv_ids: a.ids }))).pipe(
    Effect.flatMap((r) =>
      Effect.zipRight(
        Console.log(r.bibtex),
        r.missing.length > 0 ? Console.error(`Not found on arXiv: ${r.missing.join(", ")}`) : Effect.void
      )
    ),
    Effect.provide(arxivLayer({ offline: a.offline, arxiv: Option.getOrUndefined(a.arxiv) })),
    Effect.catchAll(reportFailure)
  )).pipe(Command.withDescription("BibTeX entries (metadata only) for arXiv ids."))
