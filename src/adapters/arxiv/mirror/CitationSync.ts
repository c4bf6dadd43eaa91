/**
 * `mirror sync --citations`: OpenAlex's citation counts for the papers a
 * mirror holds, stored beside the records with the date they were fetched
 * (the `citations` table of MirrorIndex, or of PgCitations for a lab's
 * PostgreSQL mirror), for `--citations mirror` to read
 * without asking OpenAlex again.
 *
 * - One `/works?filter=doi:10.48550/arxiv.<a>|…&per_page=100` request per 50
 *   papers, through the same client as every live OpenAlex call
 *   (openalexClient.ts: the key, retries, the process-wide limiter and the
 *   lease shared with the user's other processes). Each record is matched
 *   back to the arXiv ids it describes through its ids and locations, as
 *   LiveOpenAlex does; a paper with no record is stored as "OpenAlex had no
 *   work for it" on that date, so the next sync does not ask again at once.
 * - Papers never asked about come first, then counts older than `olderThanDays`
 *   (default 30), oldest first; a sync stops at its budget of requests
 *   (default 1,000: a tenth of what a free key's $1 a day buys at $0.0001 a
 *   list request) and says what is left.
 * - Each batch is stored in one transaction once its answer is in: a sync
 *   that fails or is killed keeps every batch before it, never half of one.
 * - Without OPENALEX_API_KEY nothing is asked and nothing changes: OpenAlex
 *   requires a key since February 2026.
 *
 * @since 0.4.0
 */
import type { FileSystem, HttpClient, Path } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { InvalidArgument, type OpenAlexError, UpstreamUnavailable } from "../../../core/errors.js"
import {
  arxivDoi,
  arxivKey,
  arxivKeysOf,
  bareDoi,
  limiterLayer,
  makeClient,
  type OpenAlexClientOptions,
  optionsConfig,
  shortWorkId,
  WorkRecord
} from "../../openalex/openalexClient.js"
import { IMPACT_FIELDS } from "../../openalex/LiveOpenAlex.js"
import { existsSync } from "node:fs"
import { openForWriting, withSyncLock } from "./Harvester.js"
import { failureReason, INDEX_FILE, MIRROR_SERVICE, MirrorIndex, type StoredCount } from "./MirrorIndex.js"

const indexFailure = (dir: string, e: unknown, what: string): UpstreamUnavailable =>
  new UpstreamUnavailable({ service: MIRROR_SERVICE, reason: failureReason(dir, e, what, "write") })
import { isPostgresUrl } from "./MirrorStore.js"
import { defaultMirrorDir } from "./mirrorDir.js"
import type { CountStore } from "./PgCitations.js"

/** Papers per request (OpenAlex takes up to 100 OR-ed values; 50 is the safe size UPSTREAMS.md names). */
export const BATCH_SIZE = 50

/** Requests one sync may spend unless told: a tenth of a free key's daily $1 at $0.0001 a list request. */
export const DEFAULT_BUDGET = 1_000

/** Counts fetched this many days ago or more are refreshed (after every paper never counted). */
export const DEFAULT_OLDER_THAN_DAYS = 30

/** The line a sync without a key prints (and does nothing else). */
export const NO_KEY_MESSAGE = "Citation counts skipped: OpenAlex requires an API key since February 2026; " +
  "set OPENALEX_API_KEY (a free key: https://openalex.org/settings/api) and run `mirror sync --citations` again."

/** What `mirror sync --citations` is asked. */
export interface CitationRequest {
  /** The mirror's directory; default `defaultMirrorDir`. */
  readonly dir?: string | undefined
  /** A lab's mirror on PostgreSQL (postgres://…) instead of a folder. */
  readonly to?: string | undefined
  /** Requests this sync may spend (default DEFAULT_BUDGET). */
  readonly budget?: number | undefined
  /** Refresh counts at least this many days old (default DEFAULT_OLDER_THAN_DAYS; 0: every count, oldest first). */
  readonly olderThanDays?: number | undefined
  /** Say how many papers are due and how many requests that is; ask nothing. */
  readonly dryRun?: boolean | undefined
  /** Hears after every stored batch. */
  readonly progress?: ((p: CitationProgress) => Effect.Effect<void>) | undefined
}

/** After each stored batch. */
export interface CitationProgress {
  readonly requests: number
  readonly budget: number
  readonly counted: number
  readonly notFound: number
  /** Papers due when the sync began. */
  readonly due: number
}

/** What a citation sync did. */
export type CitationOutcome =
  | { readonly _tag: "NoKey"; readonly dir: string; readonly message: string }
  | {
    readonly _tag: "CountPlan"
    readonly dir: string
    /** Papers due: never counted, or counted before `refreshBefore`. */
    readonly due: number
    /** Requests a sync would spend now: one per 50 due papers, at most the budget. */
    readonly requests: number
    readonly budget: number
    readonly refreshBefore: string
    /** Whether OPENALEX_API_KEY is set (without it a sync skips). */
    readonly keyed: boolean
  }
  | {
    readonly _tag: "Counted"
    readonly dir: string
    /** Requests spent (one per batch of 50). */
    readonly requests: number
    readonly budget: number
    /** Papers given a count by this sync. */
    readonly counted: number
    /** Papers OpenAlex had no work for. */
    readonly notFound: number
    /** Papers still due (never counted, or counted before the refresh date) after this sync. */
    readonly leftToCount: number
    /** Counts fetched before this date-time are refreshed by a sync (ISO). */
    readonly refreshBefore: string
  }

/** The part of a work record the counts need: the impact fields and counts_by_year. */
const CountRecord = Schema.Struct({
  ...WorkRecord.fields,
  counts_by_year: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({ year: Schema.Int, cited_by_count: Schema.NonNegativeInt }))))
})
type CountRecord = typeof CountRecord.Type
const CountList = Schema.Struct({ results: Schema.Array(CountRecord) })

/** The fields a count request selects. */
export const COUNT_FIELDS = [...IMPACT_FIELDS, "counts_by_year"] as const

/** The record per asked id: the most cited that points to it (merged records gather every version's), an exact arXiv DOI breaking ties. */
export const matchCounts = (ids: ReadonlyArray<string>, records: ReadonlyArray<CountRecord>, fetchedAt: string): Array<StoredCount> => {
  const exact = (r: CountRecord, key: string) => typeof r.doi === "string" && bareDoi(r.doi) === arxivDoi(key)
  const best = new Map<string, CountRecord>()
  const wanted = new Set(ids.map(arxivKey))
  for (const record of records) {
    for (const key of arxivKeysOf(record)) {
      if (!wanted.has(key)) continue
      const current = best.get(key)
      const a = record.cited_by_count ?? 0
      const b = current?.cited_by_count ?? 0
      if (current === undefined || a > b || (a === b && exact(record, key) && !exact(current, key))) best.set(key, record)
    }
  }
  return ids.map((id): StoredCount => {
    const key = arxivKey(id)
    const record = best.get(key)
    if (record === undefined) return { id, fetchedAt }
    const refs = (record.referenced_works ?? []).flatMap((w) => shortWorkId(w) ?? [])
    const own = exact(record, key)
    return {
      id,
      citedByCount: record.cited_by_count ?? 0,
      countsByYear: record.counts_by_year?.map((y) => ({ year: y.year, citedByCount: y.cited_by_count })),
      openalexId: shortWorkId(record.id),
      // an empty list does not prove the paper cites nothing: no list known
      referencedWorks: refs.length > 0 ? refs : undefined,
      // a merged record's date can be another version's
      publicationDate: own && typeof record.publication_date === "string" && /^\d{4}-\d{2}-\d{2}$/.test(record.publication_date)
        ? record.publication_date
        : undefined,
      fetchedAt
    }
  })
}

const DAY_MILLIS = 86_400_000

/** A folder mirror's index as a CountStore. */
const sqliteCounts = (index: MirrorIndex, dir: string): CountStore => ({
  due: (limit, staleBefore) =>
    Effect.try({ try: () => index.dueForCounting(limit, staleBefore), catch: (e) => indexFailure(dir, e, "the citation counts") }),
  commit: (counts) => Effect.try({ try: () => index.commitCounts(counts), catch: (e) => indexFailure(dir, e, "a batch of citation counts") })
})

/** Count the papers of one mirror: batch after batch, each stored whole, until nothing is due or the budget is spent. */
const countInto = (
  store: CountStore,
  dir: string,
  options: OpenAlexClientOptions,
  request: CitationRequest
) =>
  Effect.gen(function*() {
    const budget = request.budget ?? DEFAULT_BUDGET
    const olderThan = request.olderThanDays ?? DEFAULT_OLDER_THAN_DAYS
    const now = yield* Clock.currentTimeMillis
    const refreshBefore = new Date(now - olderThan * DAY_MILLIS).toISOString()
    const fetchedAt = new Date(now).toISOString()
    const http = yield* makeClient(options)
    const due = (limit: number) => store.due(limit, refreshBefore)

    // the papers this sync may count, in order, read once (one pass over the index, not one per batch)
    const first = yield* due(budget * BATCH_SIZE)
    let requests = 0
    let counted = 0
    let notFound = 0
    for (let at = 0; at < first.ids.length && requests < budget; at += BATCH_SIZE) {
      requests++
      const ids = first.ids.slice(at, at + BATCH_SIZE)
      const page = yield* http.getJson(
        "/works",
        [["filter", `doi:${ids.map(arxivDoi).join("|")}`], ["select", COUNT_FIELDS.join(",")], ["per_page", "100"]],
        CountList
      ).pipe(Effect.mapError((e): OpenAlexError => stopped(e, requests - 1, counted + notFound, dir)))
      const counts = matchCounts(ids, page.results, fetchedAt)
      yield* store.commit(counts)
      counted += counts.filter((c) => c.citedByCount !== undefined).length
      notFound += counts.filter((c) => c.citedByCount === undefined).length
      if (request.progress !== undefined) yield* request.progress({ requests, budget, counted, notFound, due: first.due })
    }
    const left = yield* due(0)
    return {
      _tag: "Counted",
      dir,
      requests,
      budget,
      counted,
      notFound,
      leftToCount: left.due,
      refreshBefore
    } satisfies CitationOutcome
  })

/** What a sync would do now, from the number of papers due. */
const planOf = (dir: string, due: number, request: CitationRequest, refreshBefore: string, keyed: boolean): CitationOutcome => {
  const budget = request.budget ?? DEFAULT_BUDGET
  return { _tag: "CountPlan", dir, due, requests: Math.min(budget, Math.ceil(due / BATCH_SIZE)), budget, refreshBefore, keyed }
}

const refreshDate = (request: CitationRequest) =>
  Effect.map(Clock.currentTimeMillis, (now) => new Date(now - (request.olderThanDays ?? DEFAULT_OLDER_THAN_DAYS) * DAY_MILLIS).toISOString())

/** A failed batch, saying what was kept. */
const stopped = (e: OpenAlexError, batches: number, papers: number, dir: string): OpenAlexError => {
  const kept = `${batches} batch${batches === 1 ? "" : "es"} (${papers} papers) stored before it are kept in ${dir}; ` +
    "run `mirror sync --citations` again to go on"
  if (e instanceof UpstreamUnavailable) {
    return new UpstreamUnavailable({
      service: e.service,
      reason: `${e.reason}; ${kept}`,
      ...(e.status === undefined ? {} : { status: e.status }),
      ...(e.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: e.retryAfterSeconds })
    })
  }
  if (e instanceof InvalidArgument) return new InvalidArgument({ argument: e.argument, reason: `${e.reason}; ${kept}` })
  return e
}

/** Count the mirror's papers as `request` says (see the module's doc). */
export const syncCitations = (
  request: CitationRequest
) =>
  Effect.gen(function*() {
    if (request.budget !== undefined && (!Number.isInteger(request.budget) || request.budget < 1)) {
      return yield* new InvalidArgument({ argument: "budget", reason: `${request.budget} is not a number of requests; use a whole number ≥ 1, e.g. --budget 200` })
    }
    if (request.olderThanDays !== undefined && (!Number.isInteger(request.olderThanDays) || request.olderThanDays < 0)) {
      return yield* new InvalidArgument({ argument: "older-than", reason: `${request.olderThanDays} is not a number of days; use a whole number ≥ 0` })
    }
    const options = yield* optionsConfig
    if (request.to !== undefined) {
      const to = request.to
      if (!isPostgresUrl(to)) {
        return yield* new InvalidArgument({ argument: "to", reason: `"${to}" is not a PostgreSQL URL; use postgres://user@host:port/database, or --dir DIR` })
      }
      const Pg = yield* Effect.promise(() => import("./PgCitations.js"))
      const where = Pg.redactUrl(to)
      if (request.dryRun === true) {
        const before = yield* refreshDate(request)
        const due = yield* Effect.scoped(Effect.flatMap(Pg.openCountReader(to, 1), (reader) => reader.due(before)))
        return planOf(where, due, request, before, options.apiKey !== undefined)
      }
      if (options.apiKey === undefined) return { _tag: "NoKey", dir: where, message: NO_KEY_MESSAGE } satisfies CitationOutcome
      return yield* Effect.scoped(Effect.flatMap(Pg.openCountWriter(to), (store) => countInto(store, where, options, request))).pipe(
        Effect.provide(limiterLayer(options))
      )
    }
    const dir = request.dir ?? (yield* defaultMirrorDir)
    if (request.dryRun === true) {
      const before = yield* refreshDate(request)
      const due = yield* Effect.acquireUseRelease(
        Effect.try({ try: () => MirrorIndex.open(dir, { create: false }), catch: (e) => indexFailure(dir, e, "the index") }),
        (index) => Effect.try({ try: () => index.dueForCounting(0, before).due, catch: (e) => indexFailure(dir, e, "the citation counts") }),
        (index) => Effect.sync(() => index.close())
      )
      return planOf(dir, due, request, before, options.apiKey !== undefined)
    }
    if (options.apiKey === undefined) return { _tag: "NoKey", dir, message: NO_KEY_MESSAGE } satisfies CitationOutcome
    if (!existsSync(`${dir.replace(/\/+$/, "")}/${INDEX_FILE}`)) {
      return yield* new UpstreamUnavailable({
        service: MIRROR_SERVICE,
        reason: `no mirror in ${dir} to count; build one first with \`arxiv-companion mirror sync --categories cs.LG --dir ${dir}\``
      })
    }
    return yield* withSyncLock(
      dir,
      Effect.acquireUseRelease(
        openForWriting(dir),
        (index) => countInto(sqliteCounts(index, dir), dir, options, request),
        (index) => Effect.sync(() => index.close())
      )
    ).pipe(Effect.provide(limiterLayer(options)))
  }).pipe(Effect.withSpan("Mirror.syncCitations")) satisfies Effect.Effect<
    CitationOutcome,
    unknown,
    HttpClient.HttpClient | FileSystem.FileSystem | Path.Path
  >
