/**
 * VaultPort over an in-memory map of notes — for tests and examples. It obeys
 * the same path rules as the filesystem vault, and lets a test read back what
 * was written.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option, Ref } from "effect"
import { NoteNotFound, UnsafeWrite } from "../../core/errors.js"
import { VaultPort, type VaultService } from "../../core/ports/VaultPort.js"
import { isListedNote, isReadablePath, noteRefOf, sortNotes, titleOf, unsafeWriteReason } from "./vaultPath.js"

/** The in-memory vault: a VaultService plus read-back for tests. */
export interface InMemoryVaultService extends VaultService {
  /** Every note now in the vault, by vault-relative path. */
  readonly snapshot: Effect.Effect<Readonly<Record<string, string>>>
  /** Paths written so far, in order (one entry per successful writeNote). */
  readonly writes: Effect.Effect<ReadonlyArray<string>>
}

/** The in-memory vault's own tag, provided next to VaultPort by `layer`. */
export class InMemoryVault extends Context.Tag("arxiv-companion/InMemoryVault")<InMemoryVault, InMemoryVaultService>() {}

/** Build an in-memory vault holding `notes` (vault-relative path → Markdown). */
export const make = Effect.fn("InMemoryVault.make")(function*(notes: Readonly<Record<string, string>> = {}) {
  const store = yield* Ref.make(new Map(Object.entries(notes)))
  const written = yield* Ref.make<ReadonlyArray<string>>([])

  const readNoteIfExists = Effect.fn("InMemoryVault.readNoteIfExists")(function*(path: string) {
    if (!isReadablePath(path)) return Option.none<string>()
    return Option.fromNullable((yield* Ref.get(store)).get(path))
  })

  const service: InMemoryVaultService = {
    name: "in-memory vault",
    listNotes: Effect.fn("InMemoryVault.listNotes")(function*() {
      const paths = [...(yield* Ref.get(store)).keys()].filter(isListedNote)
      return sortNotes(paths.map(noteRefOf))
    }),
    readNote: Effect.fn("InMemoryVault.readNote")(function*(path: string) {
      const text = yield* readNoteIfExists(path)
      if (Option.isNone(text)) return yield* new NoteNotFound({ title: titleOf(path), closest: [] })
      return text.value
    }),
    readNoteIfExists,
    writeNote: Effect.fn("InMemoryVault.writeNote")(function*(path: string, content: string) {
      const reason = unsafeWriteReason(path)
      if (reason !== undefined) return yield* new UnsafeWrite({ path, reason })
      yield* Ref.update(store, (m) => new Map(m).set(path, content))
      yield* Ref.update(written, (w) => [...w, path])
    }),
    snapshot: Ref.get(store).pipe(Effect.map((m) => Object.fromEntries([...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1))))),
    writes: Ref.get(written)
  }
  return service
})

/** VaultPort and InMemoryVault over the same fresh in-memory vault. */
export const layer = (notes: Readonly<Record<string, string>> = {}): Layer.Layer<VaultPort | InMemoryVault> =>
  Layer.effectContext(
    Effect.map(make(notes), (service) => Context.make(VaultPort, service as VaultService).pipe(Context.add(InMemoryVault, service)))
  )
