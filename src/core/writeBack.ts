/**
 * Writing a generated note into the vault by the safe-write rules: into the
 * companion's own note, never over a note the companion did not write, never
 * over another concept note's results, never onto the concept note itself.
 * It is merged into what is there (the user's text and properties kept),
 * nothing is written when nothing changed, and a block the user edited is
 * never overwritten: the fresh result goes to a dated sibling instead.
 *
 * A note is the companion's when it holds the companion's markers; whose
 * results it holds is recorded in its `source` property (`"[[Title]]"`).
 * Several titles can give the same file name (`\tAttention`, `Attention`):
 * the first free or own slot of `X.md`, `X (2).md`, … is used, and the
 * outcome's `notice` says why.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { END, findBlock, type GeneratedNote, mergeGenerated } from "./compose.js"
import { UnsafeWrite, type VaultError } from "./errors.js"
import { splitFrontmatter } from "./keywords.js"
import type { VaultService } from "./ports/VaultPort.js"

/** How many same-named slots (`(2)` … `(20)`) and dated siblings a run tries before refusing. */
const MAX_SLOTS = 20

/** Where the note went and what happened to it; `notice` says why, when it is not the obvious. */
export interface Written {
  readonly path: string
  readonly status: "created" | "updated" | "unchanged" | "kept-user-edits" | "kept-earlier"
  readonly notice?: string
}

// ---------------------------------------------------------------------------
// The file's own conventions: a byte-order mark and CRLF line endings are kept

interface Conventions {
  readonly bom: boolean
  readonly crlf: boolean
}

const conventionsOf = (text: string): Conventions => ({
  bom: text.startsWith("\uFEFF"),
  // CRLF only when every line ends so: a file already mixed is left as the user keeps it
  crlf: text.includes("\r\n") && !/(?:^|[^\r])\n/.test(text)
})

const toLf = (text: string, c: Conventions): string => {
  const body = c.bom ? text.slice(1) : text
  return c.crlf ? body.replace(/\r\n/g, "\n") : body
}

const fromLf = (text: string, c: Conventions): string => `${c.bom ? "\uFEFF" : ""}${c.crlf ? text.replace(/\n/g, "\r\n") : text}`

// ---------------------------------------------------------------------------
// Whose note is it

const BEGIN_LINE = /^%% arxiv-companion:begin [0-9a-f]{8} %%$/gm
const END_LINE = /^%% arxiv-companion:end %%$/gm

const lineStarts = (text: string, line: RegExp): ReadonlyArray<number> => [...text.matchAll(line)].map((m) => m.index)

/** A property's value, unquoted when it was written as a JSON/YAML string. */
const property = (frontmatter: string | undefined, key: string): string | undefined => {
  const m = new RegExp(`^${key}:[ \\t]*(.*?)[ \\t]*$`, "m").exec(frontmatter ?? "")
  if (m === null) return undefined
  const value = m[1]!
  if (value.startsWith("\"")) {
    try {
      const parsed: unknown = JSON.parse(value)
      if (typeof parsed === "string") return parsed
    } catch {
      // not JSON: read it as YAML's plain or single-quoted form below
    }
  }
  return value.replace(/^'(.*)'$/, "$1")
}

const wikilinkTarget = (s: string | undefined): string | undefined => {
  const m = /^\[\[([\s\S]*)\]\]$/.exec(s ?? "")
  return m === null ? undefined : m[1]!.replace(/\|[^|]*$/, "")
}

/** What a note at a Related Papers path is. */
type Inspection =
  | { readonly _tag: "User" }
  | {
    readonly _tag: "Companion"
    /** The concept note whose results it holds, when recorded. */
    readonly source: string | undefined
    readonly markers: "ok" | "no-end" | "no-begin" | "two-begins"
    readonly candidates: number | undefined
    readonly kept: number | undefined
    readonly updated: string | undefined
  }

const inspect = (note: string): Inspection => {
  const begins = lineStarts(note, BEGIN_LINE)
  const ends = lineStarts(note, END_LINE)
  if (begins.length === 0 && ends.length === 0) return { _tag: "User" }
  const firstEnd = ends.find((e) => e > begins[0]!)
  const markers = begins.length === 0
    ? "no-begin"
    : firstEnd === undefined
    ? "no-end"
    : begins.some((b) => b > begins[0]! && b < firstEnd)
    ? "two-begins"
    : "ok"
  const { frontmatter } = splitFrontmatter(note)
  const count = (key: string) => {
    const n = Number(property(frontmatter, key))
    return Number.isInteger(n) && n >= 0 ? n : undefined
  }
  // the block's first line names the source: "Papers related to [[X]], in the order…" (notes written before it moved: a callout "> [!info] Papers related to [[X]]")
  const fromBlock = /^(?:> \[!info\] )?Papers related to (\[\[[^\n]*?\]\])(?:$|,)/m.exec(note)?.[1]
  return {
    _tag: "Companion",
    source: wikilinkTarget(property(frontmatter, "source")) ?? wikilinkTarget(fromBlock),
    markers,
    candidates: count("candidates"),
    kept: count("kept"),
    updated: property(frontmatter, "updated")
  }
}

// ---------------------------------------------------------------------------
// What to do at one path

type Placement =
  | { readonly _tag: "Write"; readonly content: string; readonly created: boolean }
  | { readonly _tag: "Unchanged" }
  /** This run found nothing and the note holds earlier results: they stay. */
  | { readonly _tag: "KeepEarlier"; readonly earlier: string }
  /** Not the companion's note for this source: try the next slot. */
  | { readonly _tag: "NotOurs"; readonly why: string }
  /** Ours, but the user's edits (or broken markers) keep it as it is: a dated sibling takes the result. */
  | { readonly _tag: "Sibling"; readonly why: string }

const quoted = (path: string): string => `"${path}"`

const repairHint = (path: string, markers: "no-end" | "no-begin" | "two-begins"): string => {
  switch (markers) {
    case "no-end":
      return `${quoted(path)} has the companion's begin marker but its end marker (${END}) was deleted, so the ` +
        "generated part can no longer be told from your text and the note is left as it is. To repair it, put the " +
        `line ${END} back where the generated part ends, or delete the note to let the next run write it afresh`
    case "no-begin":
      return `${quoted(path)} has the companion's end marker (${END}) but its begin marker was deleted, so the ` +
        "generated part can no longer be told from your text and the note is left as it is. To repair it, delete " +
        "the generated part and its end marker (the note is then yours alone), or delete the note to let the next run " +
        "write it afresh"
    case "two-begins":
      return `${quoted(path)} holds two begin markers before one end marker (an end marker was deleted and a later ` +
        "run added a second block), so the note is left as it is. To repair it, delete the older generated part, from " +
        "the first \"%% arxiv-companion:begin\" line up to the line before the second one"
  }
}

/** How the write treats what it finds. */
export interface WriteRules {
  /** The concept note whose results these are: a note recording another source is never overwritten. */
  readonly source?: string | undefined
  /** A path never written, compared as macOS and Windows compare names (the concept note itself). */
  readonly never?: string | undefined
  /**
   * Set when this result holds nothing (e.g. no candidates), saying what was
   * searched: an earlier result with candidates is then kept, not emptied.
   */
  readonly emptyBecause?: string | undefined
}

/** Decide what to do at `path`, holding `existing` (or nothing), for this result. */
const place = (path: string, existing: string | undefined, note: GeneratedNote, now: string, rules: WriteRules): Placement => {
  if (existing === undefined) {
    const merged = mergeGenerated(undefined, note, now)
    return merged._tag === "Create" ? { _tag: "Write", content: merged.content, created: true } : { _tag: "Unchanged" }
  }
  const conventions = conventionsOf(existing)
  const text = toLf(existing, conventions)
  const found = inspect(text)
  if (found._tag === "User") {
    return {
      _tag: "NotOurs",
      why: `${quoted(path)} is a note of yours (it has no arxiv-companion block), so it was left untouched`
    }
  }
  if (rules.source !== undefined && found.source !== undefined && found.source !== rules.source) {
    return {
      _tag: "NotOurs",
      why: `${quoted(path)} holds the results for another note, [[${found.source}]], whose title gives the same ` +
        "file name, so it was left untouched"
    }
  }
  if (rules.emptyBecause !== undefined && (found.candidates ?? 0) > 0) {
    const updated = found.updated === undefined ? "" : `, updated ${found.updated}`
    return {
      _tag: "KeepEarlier",
      earlier: `This run found no candidates on arXiv (${rules.emptyBecause}), so the earlier results in ${quoted(path)} ` +
        `(${found.candidates} candidates, ${found.kept ?? 0} kept${updated}) were kept. Search wider (an earlier ` +
        "since date, more categories) to refresh them."
    }
  }
  if (found.markers !== "ok" || findBlock(text) === undefined) {
    return { _tag: "Sibling", why: repairHint(path, found.markers === "ok" ? "no-end" : found.markers) }
  }
  const merged = mergeGenerated(text, note, now)
  switch (merged._tag) {
    case "Unchanged":
      return { _tag: "Unchanged" }
    case "UserEdited":
      return { _tag: "Sibling", why: `You edited the generated block of ${quoted(path)}, so your version was kept` }
    default:
      return { _tag: "Write", content: fromLf(merged.content, conventions), created: false }
  }
}

// ---------------------------------------------------------------------------
// Paths

/** `X.md`, then `X (2).md`, … */
const slotPath = (base: string, n: number): string => (n === 1 ? base : base.replace(/\.md$/, ` (${n}).md`))

/** `<note> (YYYY-MM-DD).md`, then `<note> (YYYY-MM-DD 2).md`, … */
const datedPath = (path: string, today: string, n: number): string =>
  path.replace(/\.md$/, n === 1 ? ` (${today}).md` : ` (${today} ${n}).md`)

/**
 * The same file for the file system that may hold the vault: macOS and Windows
 * ignore case, and macOS Unicode normalisation, so compare as they do.
 */
export const sameFile = (a: string, b: string): boolean => {
  const fold = (p: string) => p.normalize("NFC").toUpperCase().toLowerCase()
  return fold(a) === fold(b)
}

// ---------------------------------------------------------------------------
// The write step

/**
 * Merge `note` into the vault at `target` (a vault-relative `.md` path), or
 * the first free or own numbered slot beside it. `nowIso` stamps `updated`;
 * `today` (YYYY-MM-DD) names a dated sibling; `onCall` counts vault calls.
 */
export const writeGenerated = (
  vault: VaultService,
  target: string,
  note: GeneratedNote,
  nowIso: string,
  today: string,
  onCall: () => void = () => undefined,
  rules: WriteRules = {}
): Effect.Effect<Written, VaultError> =>
  Effect.gen(function*() {
    const guard = (path: string) =>
      rules.never !== undefined && sameFile(path, rules.never)
        ? Effect.fail(
          new UnsafeWrite({
            path,
            reason: "it is the concept note itself (names that differ only in case or accents are one file on macOS and Windows)"
          })
        )
        : Effect.void
    const read = (path: string) =>
      Effect.sync(onCall).pipe(Effect.zipRight(vault.readNoteIfExists(path)), Effect.map((o) => (o._tag === "Some" ? o.value : undefined)))
    const write = (path: string, content: string) =>
      guard(path).pipe(Effect.zipRight(Effect.sync(onCall)), Effect.zipRight(vault.writeNote(path, content)))
    const after = (skipped: ReadonlyArray<string>, path: string, what: string): string | undefined =>
      skipped.length === 0 ? undefined : `${skipped.join("; ")}; ${what} ${quoted(path)}.`

    const skipped: Array<string> = []
    for (let slot = 1; slot <= MAX_SLOTS; slot++) {
      const path = slotPath(target, slot)
      yield* guard(path)
      const placement = place(path, yield* read(path), note, nowIso, rules)
      switch (placement._tag) {
        case "NotOurs":
          skipped.push(placement.why)
          continue
        case "KeepEarlier":
          return { path, status: "kept-earlier", notice: placement.earlier }
        case "Unchanged": {
          const notice = after(skipped, path, "the results are already current in")
          return { path, status: "unchanged", ...(notice === undefined ? {} : { notice }) }
        }
        case "Write": {
          yield* write(path, placement.content)
          const notice = after(skipped, path, "the results were written to")
          return { path, status: placement.created ? "created" : "updated", ...(notice === undefined ? {} : { notice }) }
        }
        case "Sibling": {
          // the note stays as it is; the result goes to a dated sibling, placed by the same rules,
          // so a sibling the user has edited too (or another note's) is never overwritten either
          const reasons = [...skipped, placement.why]
          for (let n = 1; n <= MAX_SLOTS; n++) {
            const sibling = datedPath(path, today, n)
            yield* guard(sibling)
            const next = place(sibling, yield* read(sibling), note, nowIso, rules)
            switch (next._tag) {
              case "Write":
                yield* write(sibling, next.content)
                return {
                  path: sibling,
                  status: "kept-user-edits",
                  notice: `${reasons.join("; ")}; the new results were written to ${quoted(sibling)}.`
                }
              case "Unchanged":
                return {
                  path: sibling,
                  status: "kept-user-edits",
                  notice: `${reasons.join("; ")}; the results in ${quoted(sibling)} are already current.`
                }
              case "KeepEarlier":
                return { path: sibling, status: "kept-earlier", notice: next.earlier }
              default:
                continue
            }
          }
          return {
            path,
            status: "kept-user-edits",
            notice: `${reasons.join("; ")}; ${MAX_SLOTS} dated copies for ${today} are taken too, so nothing was written.`
          }
        }
      }
    }
    return yield* new UnsafeWrite({
      path: target,
      reason: `${skipped[0] ?? "it is taken"}; the ${MAX_SLOTS - 1} numbered alternatives are taken too. ` +
        "Rename one of the notes, or move your own notes of that name, and run again"
    })
  })
