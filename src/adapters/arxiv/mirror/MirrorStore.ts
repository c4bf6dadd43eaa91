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
   * What the index does once a harvest has written its pages, so that searches stay fast (`changed`: the records
   * this sync added, replaced or deleted): a line saying what and why, the work, and the line for work that failed;
   * undefined when nothing is due.
   */
  readonly tidy?: (changed: number) => Effect.Effect<Tidying | undefined, UpstreamUnavailable>
}

/** Work an index does after a harvest (HarvestStore `tidy`). */
export interface Tidying {
  /** Said before the work starts. */
  readonly note: string
  readonly run: Effect.Effect<void, UpstreamUnavailable>
  /** Said when the work failed (every page is written by then, so the sync does not fail), given why. */
  readonly notDone: (reason: string) => string
}

/** Whether a mirror location (`--to`, `--arxiv`) names a PostgreSQL database rather than a folder. */
export const isPostgresUrl = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location.trim())
