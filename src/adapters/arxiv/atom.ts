/**
 * arXiv's Atom feed, parsed with fast-xml-parser and decoded with Schema.
 *
 * Both feed formats arXiv has served are read: today's (namespaces declared
 * once on `<feed>`, https links, "arXiv Query:" titles) and the pre-2020 one
 * (an `xmlns:opensearch` / `xmlns:arxiv` declaration on each element, http
 * links). Namespace prefixes are dropped, so `opensearch:totalResults` and
 * `arxiv:primary_category` read the same in both.
 *
 * @since 0.1.0
 */
import { Either, ParseResult, Schema } from "effect"
import type * as Fxp from "fast-xml-parser"
import { createRequire } from "node:module"
import { parseArxivId } from "../../core/arxiv.js"
import { Paper } from "../../core/models.js"
import { firstChars } from "../../core/text.js"

/** One paper of a feed, with the version the feed's entry id names. */
export interface AtomEntry {
  readonly paper: Paper
  readonly version: string | undefined
}

/** An error entry, as arXiv sends with HTTP 400 (`.../api/errors#incorrect_id_format_for_abc`). */
export interface AtomError {
  readonly id: string
  readonly message: string
}

/** A decoded feed. */
export interface AtomFeed {
  /** `opensearch:totalResults`: how many papers match in all (may exceed what is retrievable). */
  readonly total: number
  readonly start: number
  readonly itemsPerPage: number | undefined
  readonly entries: ReadonlyArray<AtomEntry>
  readonly errors: ReadonlyArray<AtomError>
}

/** Why a body is not a feed; `detail` is short enough for an error message. */
export class AtomParseError extends Error {
  readonly _tag = "AtomParseError"
  constructor(readonly detail: string) {
    super(`not an arXiv Atom feed: ${detail}`)
  }
}

/**
 * fast-xml-parser (its one-file CommonJS build) is loaded at the first feed parsed, not when the
 * package is imported: only the live arXiv adapter reads Atom, and a library import that never
 * goes live should not open its ~30 modules.
 */
let fxp: { readonly parser: Fxp.XMLParser; readonly validator: typeof Fxp.XMLValidator } | undefined
const xml = () => {
  if (fxp !== undefined) return fxp
  const { XMLParser, XMLValidator } = createRequire(import.meta.url)("fast-xml-parser") as typeof Fxp
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    textNodeName: "#text",
    isArray: (name, jpath) =>
      jpath === "feed.entry" || name === "author" || name === "link" || name === "category"
  })
  return (fxp = { parser, validator: XMLValidator })
}

/** An element's text, whether it came as a string or as `{ "#text": ..., "@_type": ... }`. */
const Text = Schema.transform(
  Schema.Union(
    Schema.String,
    Schema.Struct({ "#text": Schema.optional(Schema.Unknown) }, { key: Schema.String, value: Schema.Unknown })
  ),
  Schema.String,
  {
    strict: true,
    decode: (u) => (typeof u === "string" ? u : u["#text"] === undefined ? "" : String(u["#text"])),
    encode: (s) => s
  }
)

const Term = Schema.Struct({ "@_term": Schema.String })

const RawEntry = Schema.Struct({
  id: Text,
  title: Schema.optional(Text),
  summary: Schema.optional(Text),
  published: Schema.optional(Text),
  updated: Schema.optional(Text),
  author: Schema.optional(Schema.Array(Schema.Struct({ name: Schema.optional(Text) }))),
  category: Schema.optional(Schema.Array(Term)),
  primary_category: Schema.optional(Term),
  doi: Schema.optional(Text),
  journal_ref: Schema.optional(Text),
  comment: Schema.optional(Text)
})
type RawEntry = typeof RawEntry.Type

const Count = Schema.transformOrFail(Text, Schema.Number, {
  strict: true,
  decode: (s, _, ast) => {
    const n = Number(s.trim())
    return s.trim() !== "" && Number.isFinite(n)
      ? ParseResult.succeed(n)
      : ParseResult.fail(new ParseResult.Type(ast, s, `"${s}" is not a count`))
  },
  encode: (n) => ParseResult.succeed(String(n))
})

const RawFeed = Schema.Struct({
  feed: Schema.Struct({
    totalResults: Schema.optional(Count),
    startIndex: Schema.optional(Count),
    itemsPerPage: Schema.optional(Count),
    entry: Schema.optional(Schema.Array(RawEntry))
  })
})

const collapse = (s: string | undefined): string => (s ?? "").replace(/\s+/g, " ").trim()
const isoDay = (s: string | undefined): string | undefined => {
  const m = /^(\d{4}-\d{2}-\d{2})/.exec((s ?? "").trim())
  return m?.[1]
}
const optionalText = (s: string | undefined): string | undefined => {
  const c = collapse(s)
  return c === "" ? undefined : c
}

const isErrorEntry = (entry: RawEntry): boolean => /\/api\/errors(#|$)/.test(entry.id)

const toEntry = (entry: RawEntry): AtomEntry | string => {
  const parsed = parseArxivId(entry.id)
  if (parsed === undefined) return `entry id "${entry.id}" is not an arXiv id`
  const published = isoDay(entry.published) ?? isoDay(entry.updated)
  if (published === undefined) return `entry ${parsed.id} has no publication date`
  const categories = [...new Set((entry.category ?? []).map((c) => c["@_term"]))]
  const primary = entry.primary_category?.["@_term"]
  const fields = {
    arxivId: parsed.id,
    title: collapse(entry.title),
    abstract: collapse(entry.summary),
    authors: (entry.author ?? []).map((a) => collapse(a.name)).filter((n) => n !== ""),
    published,
    updated: isoDay(entry.updated),
    categories: primary !== undefined && !categories.includes(primary) ? [primary, ...categories] : categories,
    primaryCategory: primary,
    doi: optionalText(entry.doi),
    journalRef: optionalText(entry.journal_ref),
    comment: optionalText(entry.comment)
  }
  const decoded = Schema.decodeUnknownEither(Paper)(
    Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
  )
  return Either.isRight(decoded)
    ? { paper: decoded.right, version: parsed.version }
    : `entry ${parsed.id}: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`
}

/**
 * Parse and decode an Atom body (already decoded as UTF-8). Fails with
 * `AtomParseError` on anything that is not a well-formed arXiv feed: plain
 * text ("Rate exceeded."), HTML, truncated or malformed XML, an entry without
 * id or date.
 */
export const parseFeed = (body: string): Either.Either<AtomFeed, AtomParseError> => {
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body
  if (!/^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*<feed[\s>]/.test(text)) {
    const preview = firstChars(collapse(text), 60)
    return Either.left(new AtomParseError(preview === "" ? "empty body" : `body starts with "${preview}"`))
  }
  const valid = xml().validator.validate(text)
  if (valid !== true) {
    return Either.left(new AtomParseError(`${valid.err.msg} (line ${valid.err.line})`))
  }
  let raw: unknown
  try {
    raw = xml().parser.parse(text)
  } catch (e) {
    return Either.left(new AtomParseError(e instanceof Error ? e.message : String(e)))
  }
  const decoded = Schema.decodeUnknownEither(RawFeed)(raw)
  if (Either.isLeft(decoded)) {
    return Either.left(new AtomParseError(ParseResult.TreeFormatter.formatErrorSync(decoded.left)))
  }
  const feed = decoded.right.feed
  const rawEntries = feed.entry ?? []
  const entries: Array<AtomEntry> = []
  const errors: Array<AtomError> = []
  for (const e of rawEntries) {
    if (isErrorEntry(e)) {
      errors.push({ id: e.id, message: collapse(e.summary) || collapse(e.title) || e.id })
      continue
    }
    const entry = toEntry(e)
    if (typeof entry === "string") return Either.left(new AtomParseError(entry))
    entries.push(entry)
  }
  return Either.right({
    total: feed.totalResults ?? rawEntries.length,
    start: feed.startIndex ?? 0,
    itemsPerPage: feed.itemsPerPage,
    entries,
    errors
  })
}
