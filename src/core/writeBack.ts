/**
 * Writing a generated note into the vault by the safe-write rules: merged
 * into what is there (the user's text and properties kept), nothing written
 * when nothing changed, and a block the user edited never overwritten — the
 * fresh result goes to a dated sibling instead.
 *
 * @since 0.1.0
 */
import { Effect, Option } from "effect"
import { type GeneratedNote, mergeGenerated } from "./compose.js"
import type { VaultError } from "./errors.js"
import type { VaultService } from "./ports/VaultPort.js"

/** Where the note went and what happened to it. */
export interface Written {
  readonly path: string
  readonly status: "created" | "updated" | "unchanged" | "kept-user-edits"
}

/**
 * Merge `note` into the vault at `target` (a vault-relative `.md` path).
 * `nowIso` stamps `updated`; `today` (YYYY-MM-DD) names a sibling; `onCall`
 * counts vault calls.
 */
export const writeGenerated = (
  vault: VaultService,
  target: string,
  note: GeneratedNote,
  nowIso: string,
  today: string,
  onCall: () => void = () => undefined
): Effect.Effect<Written, VaultError> =>
  Effect.gen(function*() {
    onCall()
    const existing = yield* vault.readNoteIfExists(target)
    const merge = mergeGenerated(Option.getOrUndefined(existing), note, nowIso)
    switch (merge._tag) {
      case "Unchanged":
        return { path: target, status: "unchanged" } as const
      case "UserEdited": {
        // the user's version stays; the result goes to a dated sibling, merged like the note
        // itself, so a sibling the user has edited too is never overwritten either
        for (let n = 1; n <= 20; n++) {
          const sibling = target.replace(/\.md$/, n === 1 ? ` (${today}).md` : ` (${today} ${n}).md`)
          onCall()
          const current = yield* vault.readNoteIfExists(sibling)
          const next = mergeGenerated(Option.getOrUndefined(current), note, nowIso)
          if (next._tag === "UserEdited") continue
          if (next._tag !== "Unchanged") {
            onCall()
            yield* vault.writeNote(sibling, next.content)
          }
          return { path: sibling, status: "kept-user-edits" } as const
        }
        // twenty edited siblings today: write nothing rather than overwrite one
        return { path: target, status: "kept-user-edits" } as const
      }
      default:
        onCall()
        yield* vault.writeNote(target, merge.content)
        return { path: target, status: merge._tag === "Create" ? "created" : "updated" } as const
    }
  })
