/**
 * Reads a note in any language as English terms: what the companion searches
 * arXiv with and the judge weighs, when a student writes in Ukrainian,
 * Russian, French, German or Spanish. An English note is read as it is.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { EnglishNote } from "../language.js"

/** The note reader. Reading cannot fail: a reader that cannot read a language says so in the reading's notes. */
export interface NoteLanguageService {
  /** "offline", or the model's name. */
  readonly name: string
  readonly read: (note: { readonly title: string; readonly text: string }) => Effect.Effect<EnglishNote>
}

/** @since 0.1.0 */
export class NoteLanguagePort extends Context.Tag("arxiv-companion/NoteLanguagePort")<NoteLanguagePort, NoteLanguageService>() {}
