/**
 * The mirror's two commands as library functions: `sync` (harvest the chosen
 * categories or sets into the index, or say what it would fetch) and
 * `status` (records, categories, newest datestamp, size on disk). The CLI's
 * `mirror` command runs them through the composition root.
 *
 * @since 0.3.0
 */
import { FileSystem, type HttpClient, Path } from "@effect/platform"
import { Config, Effect, Option } from "effect"
import { isCalendarDate, today } from "../../../core/dates.js"
import { InvalidArgument, UpstreamUnavailable } from "../../../core/errors.js"
import {
  harvest,
  openForWriting,
  plan,
  sqliteStore,
  type SyncPlan,
  type SyncProgress,
  type SyncReport,
  withSyncLock
} from "./Harvester.js"
import { type CitationStatus, type HarvestState, INDEX_FILE, IndexUnavailable, MIRROR_SERVICE, MirrorIndex } from "./MirrorIndex.js"
import { defaultMirrorDir } from "./mirrorDir.js"
import { isPostgresUrl } from "./MirrorStore.js"
import { DEFAULT_OAI_URL, limiterFor, make as makeClient, type OaiClientOptions } from "./OaiClient.js"
import { harvestScope, setOfCategory } from "./sets.js"

export type { SyncPlan, SyncProgress, SyncReport }

/** What `mirror sync` is asked. */
export interface SyncRequest extends OaiClientOptions {
  /** The mirror's directory; default `defaultMirrorDir`. */
  readonly dir?: string | undefined
  /** A PostgreSQL database to harvest into instead of a folder (postgres://user@host:port/database). */
  readonly to?: string | undefined
  readonly categories?: ReadonlyArray<string> | undefined
  readonly sets?: ReadonlyArray<string> | undefined
  /** Start from this day (YYYY-MM-DD) instead of where the last sync ended. */
  readonly from?: string | undefined
  /** Say what would be fetched; fetch nothing. */
  readonly dryRun?: boolean | undefined
  /** Hears after every page. */
  readonly progress?: ((p: SyncProgress) => Effect.Effect<void>) | undefined
}

/** What a sync did, or (dry run) would do. */
export type SyncOutcome =
  | ({ readonly _tag: "Synced" } & SyncReport)
  | { readonly _tag: "Plan"; readonly dir: string; readonly url: string; readonly plan: ReadonlyArray<SyncPlan> }

/** What `mirror status` says. */
export interface MirrorStatus {
  readonly dir: string
  readonly records: number
  readonly categories: ReadonlyArray<{ readonly category: string; readonly records: number }>
  readonly newestDatestamp: string | undefined
  readonly sizeBytes: number
  readonly harvests: ReadonlyArray<HarvestState>
  /** The OpenAlex counts stored by `mirror sync --citations` (a folder mirror's; absent for PostgreSQL). */
  readonly citations?: CitationStatus | undefined
}

/** ARXIV_OAI_URL and ARXIV_COMPANION_CONTACT. */
export const clientConfig: Config.Config<OaiClientOptions> = Config.all({
  oaiUrl: Config.string("ARXIV_OAI_URL").pipe(Config.withDefault(DEFAULT_OAI_URL)),
  contact: Config.option(Config.nonEmptyString("ARXIV_COMPANION_CONTACT")).pipe(Config.map(Option.getOrUndefined))
})

const dirOf = (dir: string | undefined) => (dir === undefined ? defaultMirrorDir : Effect.succeed(dir))



/** Harvest (or plan to harvest) what `request` names. */
export const sync = (
  request: SyncRequest
): Effect.Effect<SyncOutcome, InvalidArgument | UpstreamUnavailable, HttpClient.HttpClient | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const scope = harvestScope({ categories: request.categories, sets: request.sets })
    if (typeof scope === "string") return yield* new InvalidArgument({ argument: "scope", reason: scope })
    const day = yield* today
    if (request.from !== undefined && (!isCalendarDate(request.from) || request.from > day)) {
      return yield* new InvalidArgument({
        argument: "from",
        reason: `"${request.from}" is not a past date; use YYYY-MM-DD, e.g. 2024-01-31`
      })
    }
    const oaiUrl = request.oaiUrl ?? DEFAULT_OAI_URL
    if (request.to !== undefined) {
      if (!isPostgresUrl(request.to)) {
        return yield* new InvalidArgument({
          argument: "to",
          reason: `"${request.to}" is not a PostgreSQL URL; use postgres://user@host:port/database, or --dir DIR for a folder`
        })
      }
      const PgMirror = yield* Effect.promise(() => import("./PgMirror.js"))
      const pgOptions = { dir: PgMirror.redactUrl(request.to), scope, from: request.from }
      if (request.dryRun === true) {
        return { _tag: "Plan", dir: pgOptions.dir, url: oaiUrl, plan: yield* PgMirror.dryRun(request.to, pgOptions, day) } satisfies SyncOutcome
      }
      return { _tag: "Synced", ...(yield* PgMirror.sync(request.to, pgOptions, request, request.progress)) } satisfies SyncOutcome
    }
    const dir = yield* dirOf(request.dir)
    const options = { dir, scope, from: request.from }
    if (request.dryRun === true) {
      const planned = yield* Effect.acquireUseRelease(
        Effect.try({
          try: () => existingIndex(dir),
          catch: (e) => new UpstreamUnavailable({ service: MIRROR_SERVICE, reason: String(e) })
        }),
        (index) =>
          Effect.succeed(
            index === undefined
              ? scope.sets.map((set): SyncPlan => ({
                set,
                categories: scope.categories.filter((c) => setOfCategory(c) === set),
                action: "list",
                from: request.from,
                pagesDone: 0,
                recordsDone: 0
              }))
              : plan(index, options, setOfCategory, day)
          ),
        (index) => Effect.sync(() => index?.close())
      )
      return { _tag: "Plan", dir, url: oaiUrl, plan: planned } satisfies SyncOutcome
    }
    const client = yield* makeClient(request).pipe(Effect.provide(limiterFor(request)))
    const report = yield* withSyncLock(
      dir,
      Effect.acquireUseRelease(
        openForWriting(dir),
        (index) => harvest(sqliteStore(index, dir), client, options, setOfCategory, request.progress),
        (index) => Effect.sync(() => index.close())
      )
    )
    return { _tag: "Synced", ...report } satisfies SyncOutcome
  }).pipe(Effect.withSpan("Mirror.sync"))

/** The index of `dir` opened read-only, or undefined when there is none yet. */
const existingIndex = (dir: string): MirrorIndex | undefined => {
  try {
    return MirrorIndex.open(dir, { create: false })
  } catch (e) {
    if (e instanceof IndexUnavailable && /is missing/.test(e.reason)) return undefined
    throw e instanceof IndexUnavailable ? e.reason : e
  }
}

/** Records, categories, newest datestamp and size on disk of the mirror in `dir` (default: `defaultMirrorDir`). */
export const status = (dir?: string | undefined): Effect.Effect<MirrorStatus, UpstreamUnavailable, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    if (dir !== undefined && isPostgresUrl(dir)) return yield* Effect.flatMap(Effect.promise(() => import("./PgMirror.js")), (m) => m.status(dir))
    const d = yield* dirOf(dir)
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const s = yield* Effect.acquireUseRelease(
      Effect.try({
        try: () => MirrorIndex.open(d, { create: false }),
        catch: (e) => new UpstreamUnavailable({ service: MIRROR_SERVICE, reason: e instanceof IndexUnavailable ? e.reason : String(e) })
      }),
      (index) =>
        Effect.try({
          try: () => ({ ...index.status(), citations: index.citationStatus() }),
          catch: (e) => new UpstreamUnavailable({ service: MIRROR_SERVICE, reason: `cannot read the index: ${String(e)}` })
        }),
      (index) => Effect.sync(() => index.close())
    )
    const size = yield* fs.stat(path.join(d, INDEX_FILE)).pipe(
      Effect.map((info) => Number(info.size)),
      Effect.orElseSucceed(() => 0)
    )
    return { dir: d, records: s.records, categories: s.categories, newestDatestamp: s.newestDatestamp, sizeBytes: size, harvests: s.harvests, citations: s.citations }
  })



