/**
 * The companion's view of an Obsidian vault.
 *
 * @since 0.1.0
 */
import { Context, type Effect, type Option } from "effect"
import type { VaultError } from "../errors.js"
import type { NoteRef } from "../models.js"

/** The vault service. Paths are vault-relative with `/` separators and end in `.md`. */
export interface VaultService {
  /** A human-readable name for messages (folder path or server name). */
  readonly name: string
  readonly listNotes: () => Effect.Effect<ReadonlyArray<NoteRef>, VaultError>
  /** Fails with NoteNotFound when the note does not exist. */
  readonly readNote: (path: string) => Effect.Effect<string, VaultError>
  /** None when the note does not exist (used for write-back merges). */
  readonly readNoteIfExists: (path: string) => Effect.Effect<Option.Option<string>, VaultError>
  /** Creates or replaces the note, whole or not at all. */
  readonly writeNote: (path: string, content: string) => Effect.Effect<void, VaultError>
}

/** @since 0.1.0 */
export class VaultPort extends Context.Tag("arxiv-companion/VaultPort")<VaultPort, VaultService>() {}
