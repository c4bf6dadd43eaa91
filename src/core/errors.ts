/**
 * Typed, user-readable errors of the companion's ports and workflow.
 *
 * Every error carries the context a user needs and a `message` that says what
 * to do next. Infrastructure errors (HTTP, parse, file system) are translated
 * into these at the adapter edge and never reach the core.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** A paper id that the upstream (arXiv or OpenAlex) does not know. */
export class PaperNotFound extends Schema.TaggedError<PaperNotFound>("arxiv-companion/PaperNotFound")(
  "PaperNotFound",
  { id: Schema.String, source: Schema.String }
) {
  override get message(): string {
    return `${this.source} has no record of paper "${this.id}". Check the id (e.g. 1409.0473 or hep-th/9901001).`
  }
}

/** An argument that cannot be sent upstream as it is; `message` says how to fix it. */
export class InvalidArgument extends Schema.TaggedError<InvalidArgument>("arxiv-companion/InvalidArgument")(
  "InvalidArgument",
  { argument: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `Invalid ${this.argument}: ${this.reason}`
  }
}

/** An upstream service that did not answer usefully after the adapter's retries. */
export class UpstreamUnavailable extends Schema.TaggedError<UpstreamUnavailable>(
  "arxiv-companion/UpstreamUnavailable"
)("UpstreamUnavailable", {
  service: Schema.String,
  reason: Schema.String,
  status: Schema.optional(Schema.Number),
  retryAfterSeconds: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    const status = this.status === undefined ? "" : ` (HTTP ${this.status})`
    // a wait of 0 s (a 503 without Retry-After, a date already past) tells a person nothing
    const retry = this.retryAfterSeconds === undefined || this.retryAfterSeconds <= 0 ? "" : ` Try again in ${this.retryAfterSeconds} s.`
    return `${this.service} is unavailable${status}: ${this.reason}.${retry}`
  }
}

/** The named note is not in the vault; `closest` lists the nearest titles. */
export class NoteNotFound extends Schema.TaggedError<NoteNotFound>("arxiv-companion/NoteNotFound")(
  "NoteNotFound",
  { title: Schema.String, closest: Schema.Array(Schema.String) }
) {
  override get message(): string {
    const hint = this.closest.length > 0
      ? ` Closest titles: ${this.closest.map((t) => `"${t}"`).join(", ")}.`
      : " The vault has no notes."
    return `No note titled "${this.title}" in the vault.${hint}`
  }
}

/** The vault cannot be reached (folder missing, MCP server not running, ...). */
export class VaultUnavailable extends Schema.TaggedError<VaultUnavailable>("arxiv-companion/VaultUnavailable")(
  "VaultUnavailable",
  { vault: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `The vault ${this.vault} is unavailable: ${this.reason}`
  }
}

/** The vault refused the credentials (wrong or missing API key). */
export class VaultUnauthorized extends Schema.TaggedError<VaultUnauthorized>("arxiv-companion/VaultUnauthorized")(
  "VaultUnauthorized",
  { vault: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `The vault ${this.vault} refused access: ${this.reason}. Check OBSIDIAN_API_KEY.`
  }
}

/** A write the companion refuses to make (outside the vault, onto the source note, bad title). */
export class UnsafeWrite extends Schema.TaggedError<UnsafeWrite>("arxiv-companion/UnsafeWrite")(
  "UnsafeWrite",
  { path: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `Refused to write "${this.path}": ${this.reason}`
  }
}

/** The judge could not produce a valid judgement. */
export class JudgeFailed extends Schema.TaggedError<JudgeFailed>("arxiv-companion/JudgeFailed")(
  "JudgeFailed",
  { model: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `The relevance judge (${this.model}) failed: ${this.reason}`
  }
}

/** The prompt or the note does not carry enough to search on. `message` is shown verbatim. */
export class NotEnoughInformation extends Schema.TaggedError<NotEnoughInformation>(
  "arxiv-companion/NotEnoughInformation"
)("NotEnoughInformation", { detail: Schema.String }) {
  override get message(): string {
    return `Not enough information: ${this.detail}`
  }
}

/** Errors an ArxivPort may fail with. */
export type ArxivError = InvalidArgument | UpstreamUnavailable
/** Errors an OpenAlexPort may fail with. */
export type OpenAlexError = InvalidArgument | UpstreamUnavailable
/** Errors a VaultPort may fail with. */
export type VaultError = NoteNotFound | VaultUnavailable | VaultUnauthorized | UnsafeWrite
/** Every error the companion workflow may fail with. */
export type CompanionError =
  | ArxivError
  | OpenAlexError
  | VaultError
  | JudgeFailed
  | NotEnoughInformation
  | NoteAmbiguous
  | GeneratedNoteNamed

/** The source knows the paper but has no record of what was asked (its reference list, its citing works). */
export class DataNotRecorded extends Schema.TaggedError<DataNotRecorded>("arxiv-companion/DataNotRecorded")(
  "DataNotRecorded",
  { id: Schema.String, what: Schema.String, hint: Schema.String }
) {
  override get message(): string {
    return `No ${this.what} is recorded for ${this.id}. ${this.hint}`
  }
}

/** Several notes match the title the prompt names equally well; the companion does not guess. */
export class NoteAmbiguous extends Schema.TaggedError<NoteAmbiguous>("arxiv-companion/NoteAmbiguous")(
  "NoteAmbiguous",
  { title: Schema.String, paths: Schema.Array(Schema.String) }
) {
  override get message(): string {
    const example = this.paths[0]?.replace(/\.md$/i, "") ?? this.title
    return `Several notes match "${this.title}": ${this.paths.map((p) => `"${p}"`).join(", ")}. ` +
      `Name the one you mean by its exact title or its path, e.g. [[${example}]].`
  }
}

/** The prompt names a note the companion wrote ("X — Related Papers"), not a concept note. */
export class GeneratedNoteNamed extends Schema.TaggedError<GeneratedNoteNamed>("arxiv-companion/GeneratedNoteNamed")(
  "GeneratedNoteNamed",
  { title: Schema.String, source: Schema.String }
) {
  override get message(): string {
    return `"${this.title}" is a note the companion writes (its results for a concept note), not a concept note; ` +
      `name the concept note instead, e.g. "${this.source}".`
  }
}

/** A page service (Notion) did not save the page; `archived` says whether a partly written page was put in the trash. */
export class PageNotSaved extends Schema.TaggedError<PageNotSaved>("arxiv-companion/PageNotSaved")(
  "PageNotSaved",
  { service: Schema.String, reason: Schema.String, status: Schema.optional(Schema.Number), archived: Schema.optional(Schema.String) }
) {
  override get message(): string {
    const status = this.status === undefined ? "" : ` (HTTP ${this.status})`
    const archived = this.archived === undefined ? "" : ` The partly written page ${this.archived} was moved to the trash.`
    return `${this.service} did not save the page${status}: ${this.reason}.${archived}`
  }
}
