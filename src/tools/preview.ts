/**
 * The companion run in two steps, for a face that shows the result before
 * writing it (the local page): `previewCompanion` runs the whole workflow with
 * the vault's writes held back, and `commitPreview` makes them later — only if
 * each target is still as the run found it, so the merge the run decided
 * (create, update the generated block, keep the user's edits and write a dated
 * sibling) still holds. Writes go through the vault's own write path.
 *
 * @since 0.1.0
 */
import { Effect, Equal, Option } from "effect"
import { UnsafeWrite } from "../core/errors.js"
import type { CompanionOptionsInput, CompanionReport } from "../core/models.js"
import { VaultPort, type VaultService } from "../core/ports/VaultPort.js"
import type { RunHooks } from "../core/workflow.js"
import { companion } from "./companion.js"

/** A write the run would have made, held until the user confirms it. */
export interface StagedWrite {
  readonly path: string
  readonly content: string
  /** The note at `path` when the run read it (None: there was no note). */
  readonly before: Option.Option<string>
}

/** A finished run whose note is not written yet. */
export interface CompanionPreview {
  /** The report; `written` says what the write will do (create, update, ...). */
  readonly report: CompanionReport
  /** What `commitPreview` writes; empty when the note is already up to date. */
  readonly writes: ReadonlyArray<StagedWrite>
}

/** The vault as the run sees it: reads go through, writes are recorded instead. */
const stagingVault = (vault: VaultService, writes: Array<StagedWrite>): VaultService => {
  const seen = new Map<string, Option.Option<string>>()
  return {
    ...vault,
    readNoteIfExists: (path) =>
      vault.readNoteIfExists(path).pipe(Effect.tap((found) => {
        if (!seen.has(path)) seen.set(path, found)
      })),
    writeNote: (path, content) =>
      Effect.sync(() => {
        writes.push({ path, content, before: seen.get(path) ?? Option.none() })
      })
  }
}

/**
 * Run the companion without writing — through the same way in as every face
 * (`Tools.companion`: prompt and options checked alike) — the report, and the
 * writes it would make.
 */
export const previewCompanion = Effect.fn("Tools.previewCompanion")(function*(
  prompt: string,
  options?: CompanionOptionsInput,
  hooks?: RunHooks
) {
  const vault = yield* VaultPort
  const writes: Array<StagedWrite> = []
  const report = yield* companion(prompt, options, hooks).pipe(
    Effect.provideService(VaultPort, stagingVault(vault, writes))
  )
  return { report, writes } satisfies CompanionPreview
})

/**
 * Write what a preview held back. Each target must still be as the run found
 * it (or already hold exactly what would be written: writing twice is
 * harmless); otherwise nothing is written and the run must be repeated, so
 * edits made in the meantime are merged, never overwritten.
 */
export const commitPreview = Effect.fn("Tools.commitPreview")(function*(preview: CompanionPreview) {
  const vault = yield* VaultPort
  const pending: Array<StagedWrite> = []
  for (const write of preview.writes) {
    const now = yield* vault.readNoteIfExists(write.path)
    if (Option.isSome(now) && now.value === write.content) continue
    if (!Equal.equals(now, write.before)) {
      return yield* new UnsafeWrite({
        path: write.path,
        reason: "the note changed in the vault after these results were found. Run the companion again: it merges your edits instead of overwriting them"
      })
    }
    pending.push(write)
  }
  for (const write of pending) yield* vault.writeNote(write.path, write.content)
  return { ...preview.report.written, wrote: pending.length > 0 }
})
