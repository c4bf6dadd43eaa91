/**
 * An arXiv query, as the query parser reads it (`ArxivQuery`), evaluated by
 * SQLite FTS5: the text part becomes one MATCH expression with a column
 * filter per term, and the date ranges that restrict the whole query become
 * SQL conditions. Ranking stays BM25 with the index's column weights.
 *
 * - `ti: abs: au: co: jr: cat: rn: id:` search their column; `all:` (and a
 *   bare term) every column, as arXiv's `all:` does (no column filter: FTS5
 *   then reads no positions to match; the columns beyond title, abstract,
 *   authors, comments and journal reference weigh 0 in the ranking);
 * - phrases stay phrases, `word*` is a prefix, words are Porter-stemmed as
 *   arXiv's own search stems them; an `au:` phrase is one person's name, its
 *   words side by side in either order, an initial for any name it begins
 *   (`au:bahdanau_d`, `au:"Bahdanau Dzmitry"`);
 * - `a AND b`, `a OR b`, `a ANDNOT b`, and `-b` beside another term;
 * - `submittedDate:[… TO …]` / `lastUpdatedDate:[… TO …]` ANDed with the rest.
 *
 * A negation on its own or a date range inside an OR cannot be one MATCH:
 * such a query is refused with a line that says how to write it.
 *
 * Pure code.
 *
 * @since 0.3.0
 */
import type { ArxivQuery, TermNode } from "../../../core/arxivQuery.js"
import { categoryToken, type FtsColumn } from "./MirrorIndex.js"

/** The columns each query field searches. */
const FIELD_COLUMNS: Readonly<Record<TermNode["field"], ReadonlyArray<FtsColumn>>> = {
  ti: ["title"],
  abs: ["abstract"],
  au: ["authors"],
  co: ["comments"],
  jr: ["journal"],
  cat: ["categories"],
  rn: ["report"],
  id: ["ids"],
  all: []
}

/** A query as the index evaluates it. */
export interface FtsQuery {
  /** The MATCH expression; undefined when the query is date ranges only. */
  readonly match: string | undefined
  /**
   * When the text is one OR of alternatives (the companion's concept query):
   * each alternative as its own expression, and what every match must also
   * satisfy (the categories), so the index can narrow a wide OR.
   */
  readonly alternatives?: ReadonlyArray<string> | undefined
  /** The category filter ANDed into `match`, when there is one. */
  readonly within?: string | undefined
  /** `match` without `within` (undefined when the query is the categories alone): a ranking need not read them. */
  readonly text?: string | undefined
  readonly publishedFrom?: string | undefined
  readonly publishedTo?: string | undefined
  readonly updatedFrom?: string | undefined
  readonly updatedTo?: string | undefined
}

/** Why a query cannot be evaluated by the mirror, in words for the person who wrote it. */
export class UnsupportedQuery {
  readonly _tag = "UnsupportedQuery"
  constructor(readonly reason: string) {}
}

const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`

const HAS_TOKEN = /[\p{L}\p{N}]/u

const term = (node: TermNode): string => {
  const value = node.field === "cat" ? categoryToken(node.value) : node.value
  if (!HAS_TOKEN.test(value)) throw new UnsupportedQuery(`"${node.value}" has no letter or digit to search for`)
  const columns = FIELD_COLUMNS[node.field]
  const filter = columns.length === 0 ? "" : columns.length === 1 ? `${columns[0]!} : ` : `{${columns.join(" ")}} : `
  if (node.field === "au" && node.phrase && !node.prefix) {
    const words = value.split(/[^\p{L}\p{N}]+/u).filter((w) => w !== "")
    // one person's name, its words side by side in either order, an initial standing for any name it begins
    // (au:bahdanau_d, au:"Bahdanau Dzmitry"); side by side, as the column does not tell where one author ends
    if (words.length > 1) return `${filter}NEAR(${words.map((w) => (w.length === 1 ? `${quote(w)} *` : quote(w))).join(" ")}, 0)`
  }
  return `${filter}${quote(value)}${node.prefix ? " *" : ""}`
}

/** The text part of a query (no ranges left in it) as one FTS5 expression, fully parenthesised. */
const expression = (node: ArxivQuery): string => {
  switch (node._tag) {
    case "Term":
      return term(node)
    case "Range":
      throw new UnsupportedQuery(
        "the mirror applies a date range to the whole query only; write it beside the rest: (a OR b) AND submittedDate:[… TO …]"
      )
    case "Or":
      return `(${expression(node.left)} OR ${expression(node.right)})`
    case "AndNot":
      return `(${expression(node.left)} NOT ${expression(node.right)})`
    case "And":
      if (node.right._tag === "Not") return `(${expression(node.left)} NOT ${expression(node.right.operand)})`
      if (node.left._tag === "Not") return `(${expression(node.right)} NOT ${expression(node.left.operand)})`
      return `(${expression(node.left)} AND ${expression(node.right)})`
    case "Not":
      throw new UnsupportedQuery("the mirror cannot search for what a paper lacks alone; pair it with a term: a ANDNOT b, or a -b")
  }
}

/** The alternatives of an OR chain. */
const disjuncts = (node: ArxivQuery): Array<ArxivQuery> =>
  node._tag === "Or" ? [...disjuncts(node.left), ...disjuncts(node.right)] : [node]

/** The conjuncts of the top-level AND chain. */
const conjuncts = (node: ArxivQuery): Array<ArxivQuery> =>
  node._tag === "And" ? [...conjuncts(node.left), ...conjuncts(node.right)] : [node]

/** `YYYYMMDDHHMM` as `YYYY-MM-DD` (the index keeps days). */
const dayOf = (stamp: string): string => `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}`

const later = (a: string | undefined, b: string): string => (a === undefined || b > a ? b : a)
const earlier = (a: string | undefined, b: string): string => (a === undefined || b < a ? b : a)

/** The date bounds of a query, as a mirror's index filters on them. */
export interface DateRange {
  readonly publishedFrom?: string
  readonly publishedTo?: string
  readonly updatedFrom?: string
  readonly updatedTo?: string
}

/**
 * A query's top-level AND read apart, the same for every mirror engine: its date
 * ranges folded into one `DateRange`, the terms a paper must match and the
 * `ANDNOT` terms it must not. Throws `UnsupportedQuery` for a query of
 * negations alone.
 */
export const splitConjuncts = (node: ArxivQuery | undefined): {
  readonly range: DateRange
  readonly positive: ReadonlyArray<ArxivQuery>
  readonly negative: ReadonlyArray<Extract<ArxivQuery, { _tag: "Not" }>>
} => {
  const parts = node === undefined ? [] : conjuncts(node)
  let range: DateRange = {}
  for (const p of parts) {
    if (p._tag !== "Range") continue
    const from = p.from === "000000000000" ? undefined : dayOf(p.from)
    const to = p.to.startsWith("9999") ? undefined : dayOf(p.to)
    range = p.field === "submittedDate"
      ? {
        ...range,
        ...(from === undefined ? {} : { publishedFrom: later(range.publishedFrom, from) }),
        ...(to === undefined ? {} : { publishedTo: earlier(range.publishedTo, to) })
      }
      : {
        ...range,
        ...(from === undefined ? {} : { updatedFrom: later(range.updatedFrom, from) }),
        ...(to === undefined ? {} : { updatedTo: earlier(range.updatedTo, to) })
      }
  }
  const text = parts.filter((p) => p._tag !== "Range")
  const positive = text.filter((p) => p._tag !== "Not")
  const negative = text.filter((p): p is Extract<ArxivQuery, { _tag: "Not" }> => p._tag === "Not")
  if (positive.length === 0 && negative.length > 0) {
    throw new UnsupportedQuery("the mirror cannot search for what a paper lacks alone; pair it with a term: a ANDNOT b, or a -b")
  }
  return { range, positive, negative }
}

/**
 * The query as the index evaluates it, `categories` (any of them) ANDed in;
 * an `UnsupportedQuery` says why it cannot be.
 */
export const toFtsQuery = (node: ArxivQuery | undefined, categories: ReadonlyArray<string> = []): FtsQuery | UnsupportedQuery => {
  try {
    const { negative, positive, range } = splitConjuncts(node)
    let text = positive.length === 0 ? undefined : positive.map(expression).join(" AND ")
    for (const n of negative) text = `(${text}) NOT ${expression(n.operand)}`
    const filter = categories.length === 0
      ? undefined
      : `categories : (${categories.map((c) => quote(categoryToken(c))).join(" OR ")})`
    const match = filter === undefined ? text : text === undefined ? filter : `(${text}) AND ${filter}`
    const alternatives = positive.length === 1 && negative.length === 0 && positive[0]!._tag === "Or"
      ? disjuncts(positive[0]!).map(expression)
      : undefined
    return {
      match,
      ...range,
      ...(alternatives === undefined ? {} : { alternatives }),
      ...(filter === undefined ? {} : { within: filter, ...(text === undefined ? {} : { text }) })
    }
  } catch (e) {
    if (e instanceof UnsupportedQuery) return e
    throw e
  }
}
