/**
 * What the harvester needs of a mirror's index, whichever engine holds it:
 * the embedded SQLite file (MirrorIndex) or a lab's PostgreSQL database
 * (PgIndex). Each call is an Effect that fails in one line saying what to do;
 * `commitPage` writes a page and the harvest's new state in one transaction.
 *
 * @since 0.3.0
 */
import type { Effect } from "effect"
import type { UpstreamUnavailable } from "../../../core/errors.js"
import type { HarvestState, PageChanges } from "./MirrorIndex.js"
import type { MirrorRecord, OaiEntry } from "./OaiPage.js"

/** A mirror's index as the harvester writes it. */
export interface HarvestStore {
  /** Where a harvest's state is, if it ever started. */
  readonly harvestState: (key: string) => Effect.Effect<HarvestState | undefined, UpstreamUnavailable>
  /** Save a harvest's state alone (a restart after a refused token, a list found empty). */
  readonly saveState: (state: HarvestState) => Effect.Effect<void, UpstreamUnavailable>
  /** One page and the harvest's new state, in one transaction: whole or not at all. */
  readonly commitPage: (
    entries: ReadonlyArray<OaiEntry>,
    keep: (record: MirrorRecord) => boolean,
    state: HarvestState
  ) => Effect.Effect<PageChanges, UpstreamUnavailable>
  /** How many papers the index holds. */
  readonly records: Effect.Effect<number, UpstreamUnavailable>
  /**
   * An index that searches faster once a harvest's writes are merged: how many pieces it holds now (`pieces`) and
   * from how many it merges them (`mergeAt`), and the merge (`merge`, after the harvest, once it said so).
   */
  readonly compaction?: {
    readonly pieces: Effect.Effect<number, UpstreamUnavailable>
    readonly mergeAt: number
    readonly merge: Effect.Effect<void, UpstreamUnavailable>
  }
}

/** Whether a mirror location (`--to`, `--arxiv`) names a PostgreSQL database rather than a folder. */
export const isPostgresUrl = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location.trim())
