/**
 * NoteLanguagePort offline: the language detector, the glossary, cognates and
 * transliteration against arXiv's vocabulary (reading.ts). No network, no key.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { NoteLanguagePort, type NoteLanguageService } from "../../core/ports/NoteLanguagePort.js"
import { readNote } from "./reading.js"

/** The reader's name in reports. */
export const name = "offline"

/**
 * Build the service (the glossary, the vocabulary and the detector's tables are read on the first note that needs them;
 * a note surely English needs none).
 */
export const makeWith = (): NoteLanguageService => ({
  name,
  read: Effect.fn("NoteLanguagePort.read")(function*(note) {
    return yield* readNote(note, name)
  })
})

export const make: Effect.Effect<NoteLanguageService> = Effect.sync(makeWith)

/** The offline reader as the NoteLanguagePort. */
export const layer: Layer.Layer<NoteLanguagePort> = Layer.effect(NoteLanguagePort, make)
