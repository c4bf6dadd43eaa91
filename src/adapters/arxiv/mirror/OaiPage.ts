/**
 * One OAI-PMH answer of arXiv (`verb=ListRecords`, `metadataPrefix=arXiv`),
 * read into records, deletions, the resumption token, or the error it is.
 *
 * arXiv's `arXiv` format carries the current version of each paper only:
 * `created` is the first version's date, `updated` the latest one's. A
 * deleted record (`deletedRecord` is persistent) is a header with
 * `status="deleted"` and no metadata. Old-style ids (`hep-th/9504118`) and new
 * ones (`1412.8544`) both come as `oai:arXiv.org:<id>`. The old server's token
 * carries `cursor` and `completeListSize`; the new one's carries
 * `expirationDate` (the next UTC midnight) and none of them. The list ends
 * with an empty token, or with none.
 *
 * Pure code: no I/O, no Effect.
 *
 * @since 0.3.0
 */
import { XMLParser, XMLValidator } from "fast-xml-parser"
import { parseArxivId } from "../../../core/arxiv.js"

/** A paper as the mirror keeps it. */
export interface MirrorRecord {
  /** The bare arXiv id (`1412.8544`, `hep-th/9504118`). */
  readonly id: string
  readonly title: string
  readonly abstract: string
  readonly authors: ReadonlyArray<string>
  /** The first version's date, YYYY-MM-DD. */
  readonly published: string
  /** The latest version's date, when there is more than one. */
  readonly updated?: string | undefined
  readonly categories: ReadonlyArray<string>
  readonly doi?: string | undefined
  readonly journalRef?: string | undefined
  readonly comments?: string | undefined
  readonly reportNo?: string | undefined
  readonly license?: string | undefined
  /** The OAI datestamp: the day the record last changed. */
  readonly datestamp: string
}

/** A record of the list: a paper, or the id of one arXiv removed. */
export type OaiEntry =
  | { readonly _tag: "Record"; readonly record: MirrorRecord }
  | { readonly _tag: "Deleted"; readonly id: string; readonly datestamp: string }

/** Where a list goes on: the token of the next page. */
export interface ResumptionToken {
  readonly value: string
  /** When the token stops working (the new server: the next UTC midnight). */
  readonly expirationDate?: string | undefined
  /** Records before this page (the old server only). */
  readonly cursor?: number | undefined
  /** Records in the whole list (the old server only). */
  readonly completeListSize?: number | undefined
}

/** What one answer is. */
export type OaiAnswer =
  | {
    readonly _tag: "Page"
    readonly responseDate: string | undefined
    readonly entries: ReadonlyArray<OaiEntry>
    /** The next page's token; undefined when the list is complete. */
    readonly token: ResumptionToken | undefined
    /** The token's attributes even when the list is complete (counts for progress). */
    readonly completeListSize?: number | undefined
  }
  | {
    /** An OAI-PMH error: badArgument, badResumptionToken, noRecordsMatch, ... */
    readonly _tag: "OaiError"
    readonly code: string
    readonly message: string
  }

/** Why an answer could not be read (a truncated or garbled page). */
export class OaiPageUnreadable {
  readonly _tag = "OaiPageUnreadable"
  constructor(readonly reason: string) {}
}

const ARRAYS = new Set(["record", "author", "setSpec", "error"])

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
  // ids such as 1412.8544 and dates stay text
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ARRAYS.has(name)
})

type Node = Record<string, unknown>

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value)

/** The text of an element: a string, or the `#text` of one with attributes. */
const text = (value: unknown): string | undefined => {
  if (typeof value === "string") return value
  if (typeof value === "number") return String(value)
  if (isNode(value) && value["#text"] !== undefined) return text(value["#text"])
  return undefined
}

/** Whitespace folded to single spaces, trimmed; undefined when nothing is left. */
const clean = (value: unknown): string | undefined => {
  const t = text(value)?.replace(/\s+/g, " ").trim()
  return t === undefined || t === "" ? undefined : t
}

const day = (value: unknown): string | undefined => {
  const t = clean(value)
  return t !== undefined && /^\d{4}-\d{2}-\d{2}/.test(t) ? t.slice(0, 10) : undefined
}

const count = (value: unknown): number | undefined => {
  const t = typeof value === "string" ? value.trim() : undefined
  return t !== undefined && /^\d+$/.test(t) ? Number(t) : undefined
}

/** The bare id of `oai:arXiv.org:<id>` (or of a bare id). */
export const idOfIdentifier = (identifier: string): string | undefined =>
  parseArxivId(identifier.replace(/^oai:arXiv\.org:/i, ""))?.id

/** "Forenames Keyname Suffix" of one `<author>`. */
const authorName = (author: unknown): string | undefined => {
  if (!isNode(author)) return clean(author)
  const name = [clean(author["forenames"]), clean(author["keyname"]), clean(author["suffix"])].filter((p) => p !== undefined).join(" ")
  return name === "" ? undefined : name
}

const asArray = (value: unknown): ReadonlyArray<unknown> =>
  value === undefined || value === "" ? [] : Array.isArray(value) ? value : [value]

const entryOf = (record: unknown): OaiEntry | string => {
  if (!isNode(record) || !isNode(record["header"])) return "a record without a header"
  const header = record["header"]
  const identifier = clean(header["identifier"])
  const id = identifier === undefined ? undefined : idOfIdentifier(identifier)
  if (id === undefined) return `a record whose identifier is not an arXiv id (${identifier ?? "none"})`
  const datestamp = day(header["datestamp"])
  if (datestamp === undefined) return `record ${id} has no datestamp`
  if (header["@_status"] === "deleted") return { _tag: "Deleted", id, datestamp }
  const metadata = isNode(record["metadata"]) ? record["metadata"]["arXiv"] : undefined
  if (!isNode(metadata)) return `record ${id} has no arXiv metadata`
  const published = day(metadata["created"])
  const title = clean(metadata["title"])
  if (published === undefined || title === undefined) return `record ${id} has no ${published === undefined ? "created date" : "title"}`
  const authors = isNode(metadata["authors"])
    ? asArray(metadata["authors"]["author"]).map(authorName).filter((a): a is string => a !== undefined)
    : []
  return {
    _tag: "Record",
    record: {
      id,
      title,
      abstract: clean(metadata["abstract"]) ?? "",
      authors,
      published,
      updated: day(metadata["updated"]),
      categories: (clean(metadata["categories"]) ?? "").split(" ").filter((c) => c !== ""),
      doi: clean(metadata["doi"]),
      journalRef: clean(metadata["journal-ref"]),
      comments: clean(metadata["comments"]),
      reportNo: clean(metadata["report-no"]),
      license: clean(metadata["license"]),
      datestamp
    }
  }
}

/**
 * Read one answer. A body that is not well-formed XML (a page cut off in
 * transfer) or not an OAI-PMH answer is `OaiPageUnreadable`; an OAI-PMH error
 * is an answer of its own (the caller decides: `noRecordsMatch` is an empty
 * list, `badResumptionToken` a restart).
 */
export const parseOaiPage = (xml: string): OaiAnswer | OaiPageUnreadable => {
  const valid = XMLValidator.validate(xml)
  if (valid !== true) {
    return new OaiPageUnreadable(`the page is not well-formed XML (${valid.err.msg}, line ${valid.err.line})`)
  }
  const root = (parser.parse(xml) as Node)["OAI-PMH"]
  if (!isNode(root)) return new OaiPageUnreadable("the answer is not an OAI-PMH document")
  const errors = asArray(root["error"])
  if (errors.length > 0) {
    const first = errors[0]
    return {
      _tag: "OaiError",
      code: isNode(first) && typeof first["@_code"] === "string" ? first["@_code"] : "unknown",
      message: clean(first) ?? ""
    }
  }
  const list = root["ListRecords"]
  if (!isNode(list)) {
    // `<ListRecords/>` (nothing inside) reads as ""
    if (list === "") return { _tag: "Page", responseDate: clean(root["responseDate"]), entries: [], token: undefined }
    return new OaiPageUnreadable("the answer has no ListRecords")
  }
  const entries: Array<OaiEntry> = []
  for (const record of asArray(list["record"])) {
    const entry = entryOf(record)
    if (typeof entry === "string") return new OaiPageUnreadable(entry)
    entries.push(entry)
  }
  const rawToken = list["resumptionToken"]
  const value = clean(rawToken)
  const attributes = isNode(rawToken) ? rawToken : {}
  const completeListSize = count(attributes["@_completeListSize"])
  const token: ResumptionToken | undefined = value === undefined ? undefined : {
    value,
    expirationDate: clean(attributes["@_expirationDate"]),
    cursor: count(attributes["@_cursor"]),
    completeListSize
  }
  return { _tag: "Page", responseDate: clean(root["responseDate"]), entries, token, completeListSize }
}
