/**
 * `mirror sync`: harvest arXiv's metadata over OAI-PMH into the mirror's
 * index, one set after another, one page at a time.
 *
 * - Resumable: each page is committed with the harvest's new position (its
 *   resumptionToken) in one transaction, so a sync killed at any moment
 *   resumes at the first page not committed and never asks for one twice.
 * - A token arXiv no longer accepts (`badResumptionToken`; they expire at
 *   the next UTC midnight) restarts the list from the day it started from
 *   (the last complete harvest's newest datestamp): pages already committed
 *   are asked for again, and applying them again changes nothing. A token
 *   known to have expired is not even sent.
 * - Incremental: a list that completes records its newest datestamp; the next
 *   sync asks `from=` that day (inclusive: a record stamped later that day is
 *   not missed).
 * - Deleted records are removed; a record replaces the version held unless it
 *   is older; records outside the categories asked for are skipped.
 * - One harvester per directory: a second sync on the same directory exits
 *   saying which process holds it.
 *
 * @since 0.3.0
 */
import { FileSystem, Path } from "@effect/platform"
import { Clock, Effect, Either } from "effect"
import { UpstreamUnavailable } from "../../../core/errors.js"
import { COMPACT_AT, failureReason, type HarvestState, MIRROR_SERVICE, MirrorIndex, type PageChanges } from "./MirrorIndex.js"
import type { HarvestStore, Tidying } from "./MirrorStore.js"
import { OAI_SERVICE, type OaiClient, type OaiRequest } from "./OaiClient.js"
import type { MirrorRecord, OaiEntry } from "./OaiPage.js"
import type { HarvestScope } from "./sets.js"


/** What one sync is asked to do. */
export interface SyncOptions {
  readonly dir: string
  readonly scope: HarvestScope
  /** Start a new list from this day (YYYY-MM-DD) instead of where the last one ended. */
  readonly from?: string | undefined
}

/** Where a sync is, after each page. */
export interface SyncProgress {
  readonly set: string
  /** Pages and records of the current list so far (resumed pages included). */
  readonly pages: number
  readonly records: number
  /** Records the list holds in all, when the server says so. */
  readonly listSize?: number | undefined
  /** Pages fetched by this sync, over every set. */
  readonly fetched: number
  readonly added: number
  readonly replaced: number
  readonly deleted: number
  readonly elapsedMillis: number
  /** An estimate of the time left for this list, when one can be made. */
  readonly leftMillis?: number | undefined
  /** A line for a person: a restart, a list found empty. */
  readonly note?: string | undefined
}

/** What one set's harvest did. */
export interface SetReport {
  readonly set: string
  readonly categories: ReadonlyArray<string>
  /** The `from=` of the list (undefined: from the beginning). */
  readonly from?: string | undefined
  readonly resumed: boolean
  readonly pages: number
  readonly added: number
  readonly replaced: number
  readonly deleted: number
  readonly skipped: number
  readonly doneUntil?: string | undefined
}

/** What a sync did. */
export interface SyncReport {
  readonly dir: string
  readonly requests: number
  readonly sets: ReadonlyArray<SetReport>
  readonly records: number
}

/** What a sync would ask for (`--dry-run`). */
export interface SyncPlan {
  readonly set: string
  readonly categories: ReadonlyArray<string>
  readonly action: "resume" | "restart" | "list"
  readonly from?: string | undefined
  readonly pagesDone: number
  readonly recordsDone: number
}

/** The harvest key of a set and the categories of it kept. */
export const harvestKey = (set: string, categories: ReadonlyArray<string>): string => `${set}|${categories.join(",")}`

/** The categories of `scope` that live in `set` (all of them: none). */
const categoriesOf = (scope: HarvestScope, set: string, setOf: (c: string) => string | undefined) =>
  scope.categories.filter((c) => setOf(c) === set)

const fresh = (key: string, set: string, categories: ReadonlyArray<string>): HarvestState => ({
  key,
  set,
  categories,
  pages: 0,
  records: 0
})

/** A state that starts a new list from `from`. */
const startList = (state: HarvestState, from: string | undefined): HarvestState => ({
  ...state,
  token: undefined,
  tokenExpires: undefined,
  listFrom: from,
  pages: 0,
  records: 0,
  listSize: undefined,
  newest: undefined
})

const newer = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined || a >= b ? a : b)

const indexFailure = (dir: string, e: unknown, what: string): UpstreamUnavailable =>
  new UpstreamUnavailable({ service: MIRROR_SERVICE, reason: failureReason(dir, e, what, "write") })

/** Open (or create) the index for writing. */
export const openForWriting = (dir: string): Effect.Effect<MirrorIndex, UpstreamUnavailable> =>
  Effect.try({ try: () => MirrorIndex.open(dir, { create: true }), catch: (e) => indexFailure(dir, e, "the index") })

/** The SQLite index as the harvester's store: its synchronous calls in Effect, failures in one line. */
export const sqliteStore = (index: MirrorIndex, dir: string): HarvestStore => ({
  harvestState: (key) => Effect.try({ try: () => index.harvestState(key), catch: (e) => indexFailure(dir, e, "the harvest's state") }),
  saveState: (state) => Effect.try({ try: () => index.saveState(state), catch: (e) => indexFailure(dir, e, "the harvest's state") }),
  commitPage: (entries, keep, state) =>
    Effect.try({ try: () => index.commitPage(entries, keep, state), catch: (e) => indexFailure(dir, e, `page ${state.pages} of ${state.set}`) }),
  records: Effect.try({ try: () => index.status().records, catch: (e) => indexFailure(dir, e, "the status") }),
  // FTS5's segments merged into one when a harvest left COMPACT_AT or more (MirrorIndex.compact)
  tidy: () =>
    Effect.map(
      Effect.try({ try: () => index.fullTextSegments(), catch: (e) => indexFailure(dir, e, "the full-text index") }),
      (segments): Tidying | undefined =>
        segments < COMPACT_AT ? undefined : {
          note: `merging the full-text index's ${segments} segments into one, so that a search reads each word's list once ` +
            "(about 20 s a million papers; a search waits a few seconds at most)",
          run: Effect.try({ try: () => void index.compact(), catch: (e) => indexFailure(dir, e, "merging the full-text index") }),
          notDone: (reason) => `the full-text index was not merged (${reason}); searches work as before, and the next sync merges it`
        }
    )
})

/**
 * Hold the directory's harvest lock (`sync.lock`, the holder's pid and start)
 * for the scope of `use`; a lock whose process is gone is taken over.
 */
export const withSyncLock = <A, E, R>(dir: string, use: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const lock = path.join(dir, "sync.lock")
    yield* fs.makeDirectory(dir, { recursive: true }).pipe(
      Effect.mapError((e) => new UpstreamUnavailable({ service: MIRROR_SERVICE, reason: `cannot create ${dir}: ${e.message}` }))
    )
    const heldHere = heldInProcess.get(lock)
    if (heldHere !== undefined) {
      return yield* new UpstreamUnavailable({
        service: MIRROR_SERVICE,
        reason: `another sync (process ${process.pid}, since ${heldHere}) is harvesting into ${dir}; wait for it to end, or stop it`
      })
    }
    // claimed in this process before the file is written: another sync of this process started meanwhile sees it
    heldInProcess.set(lock, new Date().toISOString())
    const takeFile = Effect.gen(function*() {
      const take = fs.writeFileString(lock, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }), { flag: "wx" })
      const taken = yield* Effect.either(take)
      if (taken._tag === "Left" && !(taken.left._tag === "SystemError" && taken.left.reason === "AlreadyExists")) {
        return yield* new UpstreamUnavailable({ service: MIRROR_SERVICE, reason: failureReason(dir, taken.left, "the sync's lock", "write") })
      }
      if (taken._tag === "Left") {
        const held = yield* fs.readFileString(lock).pipe(
          Effect.map((text) => JSON.parse(text) as { pid?: number; since?: string }),
          Effect.orElseSucceed(() => ({}) as { pid?: number; since?: string })
        )
        const alive = typeof held.pid === "number" && held.pid !== process.pid && isAlive(held.pid)
        if (alive) {
          return yield* new UpstreamUnavailable({
            service: MIRROR_SERVICE,
            reason: `another sync (process ${held.pid}, since ${held.since ?? "?"}) is harvesting into ${dir}; wait for it to end, or stop it`
          })
        }
        // the holder is gone (killed): take the lock over
        yield* fs.writeFileString(lock, JSON.stringify({ pid: process.pid, since: new Date().toISOString() })).pipe(
          Effect.mapError((e) => new UpstreamUnavailable({ service: MIRROR_SERVICE, reason: `cannot write ${lock}: ${e.message}` }))
        )
      }
    })
    yield* Effect.onError(takeFile, () => Effect.sync(() => heldInProcess.delete(lock)))
    return yield* Effect.ensuring(use, Effect.zipRight(Effect.sync(() => heldInProcess.delete(lock)), fs.remove(lock).pipe(Effect.ignore)))
  })

/** Locks this process holds (a pid alone cannot tell two syncs of one process apart). */
const heldInProcess = new Map<string, string>()

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** What a sync of `options` would ask for, without asking anything. */
export const plan = (
  index: Pick<MirrorIndex, "harvestState">,
  options: SyncOptions,
  setOf: (category: string) => string | undefined,
  today: string
): ReadonlyArray<SyncPlan> =>
  options.scope.sets.map((set) => {
    const categories = categoriesOf(options.scope, set, setOf)
    const state = index.harvestState(harvestKey(set, categories))
    if (state?.token !== undefined && options.from === undefined) {
      const expired = state.tokenExpires !== undefined && state.tokenExpires.slice(0, 10) < today
      return {
        set,
        categories,
        action: expired ? "restart" : "resume",
        from: state.listFrom,
        pagesDone: expired ? 0 : state.pages,
        recordsDone: expired ? 0 : state.records
      }
    }
    return { set, categories, action: "list", from: options.from ?? state?.doneUntil, pagesDone: 0, recordsDone: 0 }
  })

/** Time left for a list, from its size (old server) or the datestamps covered so far. */
const estimateLeft = (
  state: HarvestState,
  firstDay: string | undefined,
  today: string,
  perPageMillis: number
): number | undefined => {
  if (state.listSize !== undefined && state.records > 0 && state.listSize > state.records) {
    const perRecord = perPageMillis * state.pages / state.records
    return (state.listSize - state.records) * perRecord
  }
  if (firstDay === undefined || state.newest === undefined || state.newest <= firstDay) return undefined
  const span = Date.parse(today) - Date.parse(firstDay)
  const done = Date.parse(state.newest) - Date.parse(firstDay)
  if (!(span > 0) || !(done > 0) || done >= span) return undefined
  return perPageMillis * state.pages * (span - done) / done
}

/**
 * Harvest every set of the scope into `index`, through `client`. `progress`
 * hears after each page. Fails in one line: the server refused the request,
 * stayed unavailable through the retries, or the index could not be written
 * (then the page was not written either).
 */
export const harvest = (
  index: HarvestStore,
  client: OaiClient,
  options: SyncOptions,
  setOf: (category: string) => string | undefined,
  progress: (p: SyncProgress) => Effect.Effect<void> = () => Effect.void
): Effect.Effect<SyncReport, UpstreamUnavailable> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    let requests = 0
    let fetched = 0
    const totals = { added: 0, replaced: 0, deleted: 0 }
    const reports: Array<SetReport> = []
    const today = new Date(started).toISOString().slice(0, 10)
    let last: SyncProgress = { set: "", pages: 0, records: 0, fetched: 0, added: 0, replaced: 0, deleted: 0, elapsedMillis: 0 }

    for (const set of options.scope.sets) {
      const categories = categoriesOf(options.scope, set, setOf)
      const wanted = new Set(categories)
      const keep = (r: MirrorRecord) => wanted.size === 0 || r.categories.some((c) => wanted.has(c))
      const key = harvestKey(set, categories)
      let state = (yield* index.harvestState(key)) ?? fresh(key, set, categories)
      const snapshot = (): SyncProgress => ({
        set,
        pages: state.pages,
        records: state.records,
        listSize: state.listSize,
        fetched,
        ...totals,
        elapsedMillis: 0
      })
      let resumed = state.token !== undefined && options.from === undefined
      if (resumed && state.tokenExpires !== undefined && state.tokenExpires.slice(0, 10) < today) {
        yield* progress({ ...snapshot(), note: `${set}: the saved resumption token expired on ${state.tokenExpires}; starting the list again from ${state.listFrom ?? "the beginning"}` })
        state = startList(state, state.listFrom)
        resumed = false
      } else if (!resumed) {
        state = startList(state, options.from ?? state.doneUntil)
      }
      const report = { set, categories, from: state.listFrom, resumed, pages: 0, added: 0, replaced: 0, deleted: 0, skipped: 0 }
      let request: OaiRequest = state.token !== undefined ? { _tag: "Resume", token: state.token } : { _tag: "List", set, from: state.listFrom }
      let restarts = 0
      let firstDay: string | undefined = state.listFrom
      const setStarted = yield* Clock.currentTimeMillis

      for (;;) {
        const answer = yield* client.fetch(request)
        requests++
        if (answer._tag === "OaiError") {
          if (answer.code === "noRecordsMatch") {
            // nothing (new) in the set: the list is complete and empty
            state = { ...startList(state, undefined), doneUntil: state.doneUntil ?? state.listFrom }
            yield* index.saveState(state)
            yield* progress({ ...snapshot(), note: `${set}: nothing new${state.doneUntil === undefined ? "" : ` since ${state.doneUntil}`}` })
            break
          }
          if (answer.code === "badResumptionToken" && request._tag === "Resume" && restarts === 0) {
            restarts++
            state = startList(state, state.listFrom)
            yield* index.saveState(state)
            yield* progress({ ...snapshot(), note: `${set}: arXiv no longer accepts the saved resumption token (${answer.code}); starting the list again from ${state.listFrom ?? "the beginning"}` })
            request = { _tag: "List", set, from: state.listFrom }
            report.resumed = false
            continue
          }
          return yield* new UpstreamUnavailable({
            service: OAI_SERVICE,
            reason: `arXiv refused the request (${answer.code}${answer.message === "" ? "" : `: ${answer.message}`})` +
              (answer.code === "badArgument"
                ? "; check --from (YYYY-MM-DD, not in the future) and --sets"
                : answer.code === "badResumptionToken"
                ? "; the list was restarted once already, run the sync again later"
                : "; check ARXIV_OAI_URL")
          })
        }
        fetched++
        const newest = answer.entries.reduce<string | undefined>((d, e) => newer(d, entryDay(e)), state.newest)
        firstDay ??= answer.entries.reduce<string | undefined>((d, e) => (d === undefined || entryDay(e) < d ? entryDay(e) : d), undefined)
        const counted = {
          pages: state.pages + 1,
          records: state.records + answer.entries.length,
          listSize: answer.token?.completeListSize ?? answer.completeListSize ?? state.listSize,
          newest
        }
        const next: HarvestState = answer.token === undefined
          ? { ...state, ...counted, token: undefined, tokenExpires: undefined, listFrom: undefined, doneUntil: newer(newest, state.doneUntil) ?? state.listFrom }
          : { ...state, ...counted, token: answer.token.value, tokenExpires: answer.token.expirationDate }
        const changes: PageChanges = yield* index.commitPage(answer.entries, keep, next)
        state = next
        report.pages++
        report.added += changes.added
        report.replaced += changes.replaced
        report.deleted += changes.deleted
        report.skipped += changes.skipped
        totals.added += changes.added
        totals.replaced += changes.replaced
        totals.deleted += changes.deleted
        const now = yield* Clock.currentTimeMillis
        const perPage = (now - setStarted) / Math.max(1, report.pages)
        yield* progress({
          ...snapshot(),
          elapsedMillis: now - started,
          leftMillis: answer.token === undefined ? 0 : estimateLeft(state, firstDay, today, perPage)
        })
        if (answer.token === undefined) break
        request = { _tag: "Resume", token: answer.token.value }
      }
      reports.push({ ...report, doneUntil: state.doneUntil })
      last = { ...snapshot(), elapsedMillis: (yield* Clock.currentTimeMillis) - started }
    }
    const tidying = index.tidy === undefined ? undefined : yield* index.tidy(totals.added + totals.replaced + totals.deleted)
    if (tidying !== undefined) {
      yield* progress({ ...last, note: tidying.note })
      // every page is committed by now: work that fails (a full disk) costs only speed, and the next sync does it
      const done = yield* Effect.either(tidying.run)
      if (Either.isLeft(done)) yield* progress({ ...last, note: tidying.notDone(done.left.reason) })
    }
    const records = yield* index.records
    return { dir: options.dir, requests, sets: reports, records }
  })

const entryDay = (e: OaiEntry): string => (e._tag === "Record" ? e.record.datestamp : e.datestamp)
