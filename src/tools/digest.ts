/**
 * The vault digest as a use case, the one way in for every face: the CLI's
 * `digest`, the MCP server's `digest_vault`, the page's Digest button and the
 * library's `digestVault` check their arguments here, the same way, then run
 * the digest (src/core/digest.ts).
 *
 * @since 0.4.0
 */
import { Effect, Schema } from "effect"
import { bestOf } from "../core/digestNote.js"
import { digestVault, type DigestHooks, type DigestProgress, type DigestReport } from "../core/digest.js"
import * as Dates from "../core/dates.js"
import { InvalidArgument } from "../core/errors.js"
import type { CompanionOptionsInput } from "../core/models.js"
import { companionOptions } from "./companion.js"

/** The arguments of a digest, as the MCP tool spells them. */
export interface DigestVaultInput {
  /** `YYYY-MM-DD` or a number of days (`7d`). */
  readonly since_date?: string | undefined
  /** A glob over vault paths, e.g. `Topics/**`. */
  readonly notes?: string | undefined
  readonly tag?: string | undefined
  readonly dry_run?: boolean | undefined
  /** Papers kept per note at most (1..50, default 10). */
  readonly max_results?: number | undefined
  readonly categories?: ReadonlyArray<string> | undefined
}

/** How many days back `Nd` may reach. */
const MAX_DAYS = 36_500

/**
 * `--since` as a date: `YYYY-MM-DD` (a real calendar date, not after today) or
 * `Nd` (N days before today). A refusal is one line naming `argument`.
 */
export const sinceArg = (argument: string, value: string | undefined, today: string): Effect.Effect<string | undefined, InvalidArgument> => {
  if (value === undefined) return Effect.succeed(undefined)
  const text = value.trim()
  const days = /^(\d{1,6})d$/i.exec(text)
  if (days !== null) {
    const n = Number(days[1])
    if (n < 1 || n > MAX_DAYS) {
      return Effect.fail(new InvalidArgument({ argument, reason: `"${value}" is out of range; give 1d to ${MAX_DAYS}d, or a date YYYY-MM-DD` }))
    }
    return Effect.succeed(Dates.isoOfDayNumber(Dates.dayNumber(today) - n))
  }
  if (!Dates.isCalendarDate(text)) {
    return Effect.fail(new InvalidArgument({ argument, reason: `"${value}" is not a date; give YYYY-MM-DD (e.g. 2016-06-01) or a number of days (e.g. 7d)` }))
  }
  if (text > today) {
    return Effect.fail(new InvalidArgument({ argument, reason: `${text} is in the future (today is ${today}); give a past date or a number of days, e.g. 7d` }))
  }
  return Effect.succeed(text)
}

const textOrUndefined = (argument: string, value: string | undefined): Effect.Effect<string | undefined, InvalidArgument> =>
  value === undefined
    ? Effect.succeed(undefined)
    : value.trim() === ""
    ? Effect.fail(new InvalidArgument({ argument, reason: "is empty; leave it out, or give a value" }))
    : Effect.succeed(value.trim())

/** The digest's arguments checked, before anything is set up; `nameOf` spells each as the face does. */
export const digestInput = Effect.fn("Tools.digestInput")(function*(
  input: DigestVaultInput,
  nameOf: (key: keyof DigestVaultInput) => string = (key) => key
) {
  const today = yield* Dates.today
  const since = yield* sinceArg(nameOf("since_date"), input.since_date, today)
  const notes = yield* textOrUndefined(nameOf("notes"), input.notes)
  const tag = yield* textOrUndefined(nameOf("tag"), input.tag)
  const optionInput: CompanionOptionsInput = {
    ...(input.max_results === undefined ? {} : { maxResults: input.max_results }),
    ...(input.categories === undefined ? {} : { categories: input.categories })
  }
  const options = yield* companionOptions(optionInput, (key) => nameOf(key === "maxResults" ? "max_results" : "categories"))
  return { since, notes, tag, dryRun: input.dry_run === true, options }
})

export type { DigestHooks, DigestProgress, DigestReport } from "../core/digest.js"

/**
 * One line for a digest's progress event. `pace` is the seconds each arXiv request waits (3 live, 0 local;
 * undefined when the face does not know its backend).
 */
export const digestProgressLine = (e: DigestProgress, pace?: number): string => {
  switch (e._tag) {
    case "Planned": {
      const resumed = e.resumed === 0 ? "" : `; resuming: ${e.resumed} already done`
      const skipped = e.skipped === 0 ? "" : `; ${e.skipped} not searched (listed with why)`
      const time = pace === undefined
        ? `one arXiv request each`
        : pace === 0
        ? "0 arXiv requests (a local backend)"
        : `${e.toSearch} arXiv request${e.toSearch === 1 ? "" : "s"} at arXiv's pace of one per ${pace} s: about ${duration(e.toSearch * pace)}`
      return `Digest: ${e.toSearch} of ${e.notes} concept notes to search${resumed}${skipped}; ${time}`
    }
    case "NoteDone": {
      const width = 20
      const filled = Math.round((e.done / Math.max(1, e.total)) * width)
      const left = e.total - e.done
      const perNote = e.done > 0 ? (e.atMs - e.startedMs) / 1000 / e.done : 0
      const estimate = Math.max(left * (pace ?? 0), left * perNote)
      return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${e.done}/${e.total} ${e.path}: ${e.papers} new` +
        (left === 0 ? "" : ` · about ${duration(estimate)} left`)
    }
    case "Written":
      return `Digest ${e.status}: ${e.path}`
  }
}

/** "45 s", "15 min", "1 h 20 min". */
const duration = (seconds: number): string => {
  const s = Math.round(seconds)
  if (s < 90) return `${s} s`
  const m = Math.round(s / 60)
  return m < 90 ? `${m} min` : `${Math.floor(m / 60)} h ${m % 60} min`
}

/** A paper of a digest, as the faces return it. */
const DigestPaperResult = Schema.Struct({
  arxiv_id: Schema.String,
  title: Schema.String,
  published: Schema.String,
  relevance: Schema.Number,
  judge_relevance: Schema.Number,
  profile_shift: Schema.Number,
  why: Schema.String,
  summary: Schema.String,
  impact: Schema.String
})

/** The result of a digest: what each note got, what was not searched, what was written. */
export const DigestResult = Schema.Struct({
  date: Schema.String,
  since: Schema.NullOr(Schema.String),
  dry_run: Schema.Boolean,
  digest_note: Schema.String,
  status: Schema.String,
  notice: Schema.NullOr(Schema.String),
  notes_covered: Schema.NonNegativeInt,
  new_papers: Schema.NonNegativeInt,
  resumed: Schema.NonNegativeInt,
  generated_left_out: Schema.NonNegativeInt,
  best: Schema.Array(Schema.Struct({ note: Schema.String, arxiv_id: Schema.String, title: Schema.String, relevance: Schema.Number })),
  notes: Schema.Array(Schema.Struct({
    note: Schema.String,
    title: Schema.String,
    since: Schema.String,
    candidates: Schema.NonNegativeInt,
    left_out: Schema.NonNegativeInt,
    papers: Schema.Array(DigestPaperResult)
  })),
  not_searched: Schema.Array(Schema.Struct({ note: Schema.String, reason: Schema.String })),
  calls: Schema.Struct({ arxiv: Schema.NonNegativeInt, openalex: Schema.NonNegativeInt, judge: Schema.NonNegativeInt, vault: Schema.NonNegativeInt })
})
export type DigestResult = typeof DigestResult.Type

/** The compact result of a digest report. */
export const summarizeDigest = (r: DigestReport): DigestResult => ({
  date: r.date,
  since: r.since ?? null,
  dry_run: r.dryRun,
  digest_note: r.path,
  status: r.written?.status ?? "not-written (dry run)",
  notice: r.written?.notice ?? null,
  notes_covered: r.notes.length,
  new_papers: r.notes.reduce((s, d) => s + d.papers.length, 0),
  resumed: r.resumed,
  generated_left_out: r.generated,
  best: bestOf(r.notes).map(({ note, paper }) => ({ note: note.path, arxiv_id: paper.arxivId, title: paper.title, relevance: paper.relevance })),
  notes: r.notes.map((d) => ({
    note: d.path,
    title: d.title,
    since: d.since,
    candidates: d.candidates,
    left_out: d.alreadyHeld + d.rejected,
    papers: d.papers.map((p) => ({
      arxiv_id: p.arxivId,
      title: p.title,
      published: p.published,
      relevance: p.relevance,
      judge_relevance: p.judgeRelevance,
      profile_shift: p.shift,
      why: p.rationale,
      summary: p.summary,
      impact: p.impact
    }))
  })),
  not_searched: r.skipped.map((s) => ({ note: s.path, reason: s.reason })),
  calls: r.calls
})

/** The digest as every face runs it: the arguments checked, then the digest; the full report. */
export const digest = Effect.fn("Tools.digest")(function*(
  input: DigestVaultInput,
  hooks: DigestHooks = {},
  nameOf?: (key: keyof DigestVaultInput) => string
) {
  const checked = yield* digestInput(input, nameOf)
  return yield* digestVault(checked, hooks)
})

/**
 * What the MCP tool digest_vault returns: the digest note, and per note its new papers (id, title, relevance);
 * the rest (why, summaries, impact) is in the note. Small, as a host's tools/list carries its schema.
 */
export const DigestToolResult = Schema.Struct({
  digest_note: Schema.String,
  status: Schema.String,
  new_papers: Schema.NonNegativeInt,
  resumed: Schema.NonNegativeInt,
  notes: Schema.Array(Schema.Struct({
    note: Schema.String,
    papers: Schema.Array(Schema.Struct({ arxiv_id: Schema.String, title: Schema.String, relevance: Schema.Number }))
  })),
  not_searched: Schema.Array(Schema.Struct({ note: Schema.String, reason: Schema.String }))
})
export type DigestToolResult = typeof DigestToolResult.Type

/** The tool's result from the full one. */
export const compactDigest = (r: DigestResult): DigestToolResult => ({
  digest_note: r.digest_note,
  status: r.status,
  new_papers: r.new_papers,
  resumed: r.resumed,
  notes: r.notes.map((n) => ({ note: n.note, papers: n.papers.map((p) => ({ arxiv_id: p.arxiv_id, title: p.title, relevance: p.relevance })) })),
  not_searched: r.not_searched
})

/** digest_vault: the digest written into the vault, a compact result returned. */
export const digestVaultTool = Effect.fn("Tools.digestVault")(function*(input: DigestVaultInput, hooks: DigestHooks = {}) {
  return compactDigest(summarizeDigest(yield* digest(input, hooks)))
})

/** The tool's result as text, for hosts that show only text. */
export const renderDigestTool = (r: DigestToolResult): string =>
  [
    `${r.status === "not-written (dry run)" ? "Would write" : "Wrote"} ${r.digest_note} (${r.status}): ${r.new_papers} new papers` +
    (r.resumed > 0 ? `, ${r.resumed} notes resumed` : "") + ".",
    ...r.notes.filter((n) => n.papers.length > 0).map((n) =>
      `${n.note}: ${n.papers.map((p) => `${p.title} [${p.arxiv_id}] ${p.relevance.toFixed(2)}`).join("; ")}`
    ),
    ...(r.notes.some((n) => n.papers.length === 0) ? [`Nothing new: ${r.notes.filter((n) => n.papers.length === 0).map((n) => n.note).join(", ")}`] : []),
    ...r.not_searched.map((s) => `Not searched: ${s.note}: ${s.reason}`)
  ].join("\n")

/** The result as a person reads it on a terminal. */
export const renderDigest = (r: DigestResult): string => {
  const lines: Array<string> = []
  lines.push(
    `${r.dry_run ? "Would write" : r.status === "unchanged" ? "Unchanged" : "Wrote"} ${r.digest_note}: ${r.notes_covered} notes searched, ${r.new_papers} new papers` +
      (r.resumed > 0 ? ` (${r.resumed} notes resumed from an interrupted digest)` : "") +
      (r.generated_left_out > 0 ? `; ${r.generated_left_out} generated notes left out` : "") + "."
  )
  if (r.notice !== null) lines.push(r.notice)
  if (r.best.length > 0) {
    lines.push("", "Best of this digest:")
    r.best.forEach((b, i) => lines.push(`${i + 1}. ${b.title} (arXiv:${b.arxiv_id}) for ${b.note}, relevance ${b.relevance.toFixed(2)}`))
  }
  for (const n of r.notes.filter((n) => n.papers.length > 0)) {
    lines.push("", `${n.note} (since ${n.since}, ${n.candidates} judged${n.left_out > 0 ? `, ${n.left_out} already in the vault or rejected` : ""}):`)
    for (const p of n.papers) lines.push(`  - ${p.title} (arXiv:${p.arxiv_id}, ${p.published}): relevance ${p.relevance.toFixed(2)}`)
  }
  const nothing = r.notes.filter((n) => n.papers.length === 0)
  if (nothing.length > 0) lines.push("", `Nothing new: ${nothing.map((n) => n.note).join(", ")}`)
  if (r.not_searched.length > 0) {
    lines.push("", "Not searched:")
    for (const s of r.not_searched) lines.push(`  - ${s.note}: ${s.reason}`)
  }
  lines.push("", `Calls: arXiv ${r.calls.arxiv}, OpenAlex ${r.calls.openalex}, judge ${r.calls.judge}, vault ${r.calls.vault}.`)
  return lines.join("\n")
}
