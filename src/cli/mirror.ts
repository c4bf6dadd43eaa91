/**
 * `arxiv-companion mirror sync` and `arxiv-companion mirror status`: a local
 * mirror of arXiv's metadata for chosen categories, harvested over OAI-PMH
 * (src/adapters/arxiv/mirror), read by `--arxiv mirror[:DIR]`.
 */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { reportFailure } from "./failure.js"

const list = (text: string): Array<string> => text.split(",").map((s) => s.trim()).filter((s) => s !== "")

const dir = Options.text("dir").pipe(
  Options.optional,
  Options.withDescription("The mirror's folder (default $XDG_DATA_HOME/arxiv-companion/mirror, else ~/.local/share/arxiv-companion/mirror).")
)
const to = Options.text("to").pipe(
  Options.optional,
  Options.withDescription("A lab's mirror in PostgreSQL instead of a folder: postgres://user@host:port/database (read it with --arxiv postgres://…).")
)
const json = Options.boolean("json").pipe(Options.withDescription("Print JSON instead of text."))

const commands = Effect.flatMap(Effect.promise(() => import("../layers.js")), (m) => m.mirrorCommands)

const count = (n: number) => n.toLocaleString("en-US")

const duration = (millis: number): string => {
  const s = Math.round(millis / 1000)
  if (s < 60) return `${s} s`
  const m = Math.round(s / 60)
  return m < 90 ? `${m} min` : `${(m / 60).toFixed(1)} h`
}

const bytes = (n: number): string =>
  n < 1024 * 1024 ? `${(n / 1024).toFixed(0)} KB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MB` : `${(n / 1024 ** 3).toFixed(2)} GB`

/** The progress line of a page: records, pages, time left. */
const progressLine = (p: {
  readonly set: string
  readonly pages: number
  readonly records: number
  readonly listSize?: number | undefined
  readonly added: number
  readonly replaced: number
  readonly deleted: number
  readonly elapsedMillis: number
  readonly leftMillis?: number | undefined
}) =>
  `${p.set}: page ${count(p.pages)} · ${count(p.records)}${p.listSize === undefined ? "" : ` of ${count(p.listSize)}`} records` +
  ` (${count(p.added)} new, ${count(p.replaced)} updated, ${count(p.deleted)} deleted) · ${duration(p.elapsedMillis)}` +
  (p.leftMillis === undefined ? "" : p.leftMillis === 0 ? " · list done" : ` · about ${duration(p.leftMillis)} left`)

type MirrorCommands = Effect.Effect.Success<typeof commands>

/** `mirror sync --citations`: count, with a line per batch on stderr, and say what was spent and what is left (`print`: false leaves the saying to the caller). */
const countCitations = (
  mirror: MirrorCommands,
  a: {
    readonly dir: Option.Option<string>
    readonly to: Option.Option<string>
    readonly budget: Option.Option<number>
    readonly olderThan: Option.Option<number>
    readonly dryRun: boolean
    readonly json: boolean
  },
  tty: boolean,
  print = true
) =>
  Effect.gen(function*() {
    const outcome = yield* mirror.citations({
      dir: Option.getOrUndefined(a.dir),
      to: Option.getOrUndefined(a.to),
      budget: Option.getOrUndefined(a.budget),
      olderThanDays: Option.getOrUndefined(a.olderThan),
      dryRun: a.dryRun,
      progress: (p) =>
        Effect.sync(() => {
          const line = `citations: request ${count(p.requests)} of at most ${count(p.budget)} · ${count(p.counted)} counted, ` +
            `${count(p.notFound)} unknown to OpenAlex · ${count(p.due)} were due`
          process.stderr.write(tty ? `\r\x1b[K${line}` : `${line}\n`)
        })
    })
    if (tty) process.stderr.write("\n")
    if (!print) return outcome
    if (a.json) return yield* Console.log(JSON.stringify(outcome, null, 2))
    if (outcome._tag === "NoKey") return yield* Console.log(outcome.message)
    if (outcome._tag === "CountPlan") {
      return yield* Console.log(
        `Would count ${count(outcome.due)} papers in ${outcome.dir} (never counted, or counted before ${outcome.refreshBefore.slice(0, 10)}): ` +
          `${count(outcome.requests)} OpenAlex requests of at most ${count(outcome.budget)}` +
          (outcome.keyed ? "." : "; OPENALEX_API_KEY is not set, so a sync would skip them.")
      )
    }
    yield* Console.log([
      `Citation counts in ${outcome.dir}: ${count(outcome.counted)} papers counted, ${count(outcome.notFound)} unknown to OpenAlex, ` +
      `after ${count(outcome.requests)} of ${count(outcome.budget)} requests (${count(outcome.budget - outcome.requests)} left of this sync's budget).`,
      outcome.leftToCount === 0
        ? `  Every paper has a count fetched since ${outcome.refreshBefore.slice(0, 10)}.`
        : `  ${count(outcome.leftToCount)} papers left to count (about ${count(Math.ceil(outcome.leftToCount / 50))} requests); run \`mirror sync --citations\` again.`
    ].join("\n"))
  })

const syncCommand = Command.make(
  "sync",
  {
    categories: Options.text("categories").pipe(
      Options.optional,
      Options.withDescription("Comma-separated categories to mirror (cs.LG,cs.CL): their sets are harvested and filtered.")
    ),
    sets: Options.text("sets").pipe(Options.optional, Options.withDescription("Comma-separated OAI-PMH sets to mirror whole (cs,stat,physics:hep-th).")),
    from: Options.text("from").pipe(
      Options.optional,
      Options.withDescription("Start from this day (YYYY-MM-DD) instead of where the last sync ended.")
    ),
    dir,
    to,
    dryRun: Options.boolean("dry-run").pipe(Options.withDescription("Say what would be fetched; fetch nothing.")),
    citations: Options.boolean("citations").pipe(
      Options.withDescription(
        "Fetch OpenAlex's citation counts for the mirrored papers (OPENALEX_API_KEY; one request per 50 papers, never counted first, " +
          "then the oldest counts), after harvesting when --categories/--sets are given too; read them with --citations mirror."
      )
    ),
    budget: Options.integer("budget").pipe(
      Options.optional,
      Options.withDescription("With --citations: the most OpenAlex requests to spend (default 1000, a tenth of a free key's day).")
    ),
    olderThan: Options.integer("older-than").pipe(
      Options.optional,
      Options.withDescription("With --citations: refresh counts at least this many days old (default 30; 0 refreshes every count, oldest first).")
    ),
    json
  },
  (a) =>
    Effect.gen(function*() {
      const mirror = yield* commands
      const tty = process.stderr.isTTY === true
      if (a.citations && Option.isNone(a.categories) && Option.isNone(a.sets)) return yield* countCitations(mirror, a, tty)
      const outcome = yield* mirror.sync({
        dir: Option.getOrUndefined(a.dir),
        to: Option.getOrUndefined(a.to),
        categories: Option.getOrUndefined(Option.map(a.categories, list)),
        sets: Option.getOrUndefined(Option.map(a.sets, list)),
        from: Option.getOrUndefined(a.from),
        dryRun: a.dryRun,
        progress: (p) =>
          p.note !== undefined
            ? Console.error(`${tty ? "\r\x1b[K" : ""}${p.note}`)
            : Effect.sync(() => process.stderr.write(tty ? `\r\x1b[K${progressLine(p)}` : `${progressLine(p)}\n`))
      })
      if (tty) process.stderr.write("\n")
      if (a.json) {
        // harvested and counted: one JSON document, the counts under `citations`
        const citations = a.citations && outcome._tag === "Synced" ? yield* countCitations(mirror, a, tty, false) : undefined
        return yield* Console.log(JSON.stringify(citations === undefined ? outcome : { ...outcome, citations }, null, 2))
      }
      if (outcome._tag === "Plan") {
        return yield* Console.log([
          `Would harvest into ${outcome.dir} from ${outcome.url} (one request every 3 s at least):`,
          ...outcome.plan.map((p) =>
            `  ${p.set}${p.categories.length > 0 ? ` (keeping ${p.categories.join(", ")})` : ""}: ` +
            (p.action === "resume"
              ? `resume the list at page ${p.pagesDone + 1} (${count(p.recordsDone)} records in), from ${p.from ?? "the beginning"}`
              : p.action === "restart"
              ? `start the list again from ${p.from ?? "the beginning"} (its saved token has expired)`
              : p.from === undefined
              ? "every record from the beginning (a first sync)"
              : `records changed since ${p.from}`)
          )
        ].join("\n"))
      }
      yield* Console.log([
        `Mirror in ${outcome.dir}: ${count(outcome.records)} records after ${count(outcome.requests)} requests.`,
        ...outcome.sets.map((s) =>
          `  ${s.set}${s.categories.length > 0 ? ` (${s.categories.join(", ")})` : ""}: ${count(s.pages)} pages, ` +
          `${count(s.added)} new, ${count(s.replaced)} updated, ${count(s.deleted)} deleted, ${count(s.skipped)} outside the categories` +
          (s.doneUntil === undefined ? "" : `; up to ${s.doneUntil}`)
        )
      ].join("\n"))
      if (a.citations) yield* countCitations(mirror, a, tty)
    }).pipe(Effect.catchAll(reportFailure))
).pipe(Command.withDescription("Harvest arXiv's metadata for some categories into a local mirror (OAI-PMH, resumable, incremental); --citations: OpenAlex's counts for it."))

const statusCommand = Command.make("status", { dir, to, json }, (a) =>
  Effect.gen(function*() {
    const mirror = yield* commands
    const s = yield* mirror.status(Option.getOrUndefined(Option.orElse(a.to, () => a.dir)))
    if (a.json) return yield* Console.log(JSON.stringify(s, null, 2))
    const top = s.categories.slice(0, 12).map((c) => `${c.category} ${count(c.records)}`).join(" · ")
    yield* Console.log([
      `Mirror in ${s.dir}`,
      `  records: ${count(s.records)}`,
      `  size on disk: ${bytes(s.sizeBytes)}`,
      `  newest datestamp: ${s.newestDatestamp ?? "none"}`,
      `  categories: ${top === "" ? "none" : top}${s.categories.length > 12 ? ` · and ${s.categories.length - 12} more` : ""}`,
      ...(s.citations === undefined ? [] : [
        `  citation counts: ${count(s.citations.counted)} of ${count(s.records)} records` +
        (s.citations.oldest === undefined ? " (`mirror sync --citations` fetches them)" : `, the oldest fetched ${s.citations.oldest.slice(0, 10)}`) +
        (s.citations.notFound > 0 ? ` · ${count(s.citations.notFound)} unknown to OpenAlex` : "")
      ]),
      ...s.harvests.map((h) =>
        `  harvest ${h.set}${h.categories.length > 0 ? ` (${h.categories.join(", ")})` : ""}: ` +
        (h.token !== undefined
          ? `in progress, ${count(h.pages)} pages (${count(h.records)} records) in; \`mirror sync\` resumes it`
          : `complete up to ${h.doneUntil ?? "?"}`)
      )
    ].join("\n"))
  }).pipe(Effect.catchAll(reportFailure))).pipe(Command.withDescription("What a local mirror holds: records, categories, newest datestamp, size on disk, citation counts."))

/** `arxiv-companion mirror …` */
export const mirrorCommand = Command.make("mirror").pipe(
  Command.withDescription("A local mirror of arXiv's metadata (for --arxiv mirror[:DIR]): sync, status."),
  Command.withSubcommands([syncCommand, statusCommand])
)
