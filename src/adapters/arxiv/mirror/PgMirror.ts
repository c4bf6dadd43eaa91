/**
 * `mirror sync --to postgres://…` and `mirror status --to postgres://…`: the
 * mirror's two commands on a lab's PostgreSQL database. The same harvester
 * as for a folder (Harvester.harvest), writing through PgIndex: one
 * harvester at a time across machines (the database's advisory lock), every
 * page committed with the harvest's position in one transaction.
 *
 * @since 0.3.0
 */
import type { HttpClient } from "@effect/platform"
import { Effect } from "effect"
import type { UpstreamUnavailable } from "../../../core/errors.js"
import { harvest, plan, type SyncOptions, type SyncPlan, type SyncProgress, type SyncReport } from "./Harvester.js"
import type { CitationStatus, HarvestState } from "./MirrorIndex.js"
import { openCountReader } from "./PgCitations.js"
import { limiterFor, make as makeClient, type OaiClientOptions } from "./OaiClient.js"
import { openReader, openWriter, redactUrl } from "./PgIndex.js"
import { setOfCategory } from "./sets.js"

export { redactUrl }

/** What the PostgreSQL mirror holds (as `mirror status` prints it). */
export interface PgStatus {
  readonly dir: string
  readonly records: number
  readonly categories: ReadonlyArray<{ readonly category: string; readonly records: number }>
  readonly newestDatestamp: string | undefined
  readonly sizeBytes: number
  readonly harvests: ReadonlyArray<HarvestState>
  /** The OpenAlex counts stored by `mirror sync --citations --to …`. */
  readonly citations: CitationStatus
}

/** Records, categories, newest datestamp, harvests, the tables' size (indexes included) and the citation counts of the mirror in `url`. */
export const status = (url: string): Effect.Effect<PgStatus, UpstreamUnavailable> =>
  Effect.scoped(
    Effect.flatMap(openReader(url, { connections: 1 }), (reader) => reader.status).pipe(
      Effect.zip(Effect.scoped(Effect.flatMap(openCountReader(url, 1), (counts) => counts.status))),
      Effect.map(([s, citations]) => ({
        citations,
        dir: redactUrl(url),
        records: s.records,
        categories: s.categories,
        newestDatestamp: s.newestDatestamp,
        sizeBytes: s.sizeBytes,
        harvests: s.harvests
      }))
    )
  )

/** What a sync into `url` would ask for; a database without a mirror yet plans every list from the start. */
export const dryRun = (url: string, options: SyncOptions, day: string): Effect.Effect<ReadonlyArray<SyncPlan>, UpstreamUnavailable> =>
  Effect.gen(function*() {
    const held = yield* status(url).pipe(
      Effect.map((s) => s.harvests),
      Effect.catchIf((e) => /no mirror in .* yet/.test(e.reason), () => Effect.succeed([] as ReadonlyArray<HarvestState>))
    )
    const byKey = new Map(held.map((h) => [h.key, h]))
    return plan({ harvestState: (key) => byKey.get(key) }, options, setOfCategory, day)
  })

/** Harvest `options.scope` into the database `url`, holding its harvest lock for the whole sync. */
export const sync = (
  url: string,
  options: SyncOptions,
  client: OaiClientOptions,
  progress?: ((p: SyncProgress) => Effect.Effect<void>) | undefined
): Effect.Effect<SyncReport, UpstreamUnavailable, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const oai = yield* makeClient(client).pipe(Effect.provide(limiterFor(client)))
    return yield* Effect.scoped(
      Effect.flatMap(openWriter(url), (store) => harvest(store, oai, { ...options, dir: redactUrl(url) }, setOfCategory, progress))
    )
  })
