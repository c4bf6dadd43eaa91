/**
 * The structured arXiv query: terms and phrases in arXiv's fields, date
 * ranges, and the boolean tree over them. The local index (the recorded
 * corpus, a mirror) evaluates it directly; `render` writes it in arXiv's
 * `search_query` syntax for the live API; the parser of that syntax
 * (src/adapters/query/queryParser.ts, reached through the QueryBuilderPort)
 * reads what a person types into one. The ArxivPort takes it as its query.
 *
 * @since 0.1.0
 */

/** The searchable fields of an arXiv record. */
export type TextField = "ti" | "abs" | "au" | "co" | "jr" | "cat" | "rn" | "id" | "all"

/** The date fields a range can filter on. */
export type DateField = "submittedDate" | "lastUpdatedDate"

/** A word, phrase or wildcard in one field. `value` is the text, unquoted. */
export interface TermNode {
  readonly _tag: "Term"
  readonly field: TextField
  readonly value: string
  readonly phrase: boolean
  readonly prefix: boolean
}

/** An inclusive date range; `from`/`to` are 12-digit `YYYYMMDDHHMM` strings. */
export interface RangeNode {
  readonly _tag: "Range"
  readonly field: DateField
  readonly from: string
  readonly to: string
}

/** A query: a term, a range, or a boolean combination. `AndNot` is `left AND NOT right`; `Not` is everything but its operand. */
export type ArxivQuery =
  | TermNode
  | RangeNode
  | { readonly _tag: "And"; readonly left: ArxivQuery; readonly right: ArxivQuery }
  | { readonly _tag: "Or"; readonly left: ArxivQuery; readonly right: ArxivQuery }
  | { readonly _tag: "AndNot"; readonly left: ArxivQuery; readonly right: ArxivQuery }
  | { readonly _tag: "Not"; readonly operand: ArxivQuery }

/** A word in a field (`ti:attention`); `prefix` makes it a wildcard (`ti:translat*`). */
export const term = (field: TextField, value: string, prefix = false): ArxivQuery => ({ _tag: "Term", field, value, phrase: false, prefix })

/** A phrase in a field (`abs:"dark matter"`). */
export const phrase = (field: TextField, value: string): ArxivQuery => ({ _tag: "Term", field, value, phrase: true, prefix: false })

/** A date range over a date field, both ends included (`YYYYMMDDHHMM`). */
export const range = (field: DateField, from: string, to: string): ArxivQuery => ({ _tag: "Range", field, from, to })

const fold = (tag: "And" | "Or") => (first: ArxivQuery, ...rest: ReadonlyArray<ArxivQuery>): ArxivQuery =>
  rest.reduce((left, right) => ({ _tag: tag, left, right }), first)

/** Every one of the queries (left to right). */
export const and = fold("And")

/** Any of the queries (left to right). */
export const or = fold("Or")

/** `left` but not `right`. */
export const andNot = (left: ArxivQuery, right: ArxivQuery): ArxivQuery => ({ _tag: "AndNot", left, right })

/** Everything but `operand`. */
export const not = (operand: ArxivQuery): ArxivQuery => ({ _tag: "Not", operand })

// arXiv writes a name of several words with underscores (`au:del_maestro`); one with a hyphen stays quoted
const NAME_WORDS = /^[^\s"*:()[\]+-]+(?: [^\s"*:()[\]+-]+)+$/

const leaf = (query: TermNode | RangeNode, names = true): string => {
  if (query._tag === "Range") return `${query.field}:[${query.from} TO ${query.to}]`
  const v = !query.phrase
    ? query.value
    : names && query.field === "au" && NAME_WORDS.test(query.value)
    ? query.value.replace(/ /g, "_")
    : `"${query.value}"`
  return `${query.field}:${v}${query.prefix ? "*" : ""}`
}

/** The operands of a left-leaning chain of one connective (`a OR b OR c` is `Or(Or(a, b), c)`), left to right. */
const chain = (query: ArxivQuery, tag: "And" | "Or"): ReadonlyArray<ArxivQuery> => {
  const operands: Array<ArxivQuery> = []
  let q = query
  while (q._tag === tag) {
    operands.unshift(q.right)
    q = q.left
  }
  operands.unshift(q)
  return operands
}

const grouped = (query: ArxivQuery): string => `(${render(query)})`

/**
 * The query in arXiv's `search_query` syntax, as the live API receives it.
 * A chain of ORs is written flat (`all:a OR all:b OR ti:c`), a combination
 * inside it in parentheses; every operand of an AND or ANDNOT is
 * parenthesised (`(ti:gan) AND (all:a OR all:b)`), so arXiv's own precedence
 * never decides what a query means. The parser of typed queries
 * (src/adapters/query/queryParser.ts) reads the text back into the same tree.
 */
export const render = (query: ArxivQuery): string => {
  switch (query._tag) {
    case "Term":
    case "Range":
      return leaf(query)
    case "Not":
      return `-${query.operand._tag === "Term" || query.operand._tag === "Range" || query.operand._tag === "Not" ? render(query.operand) : grouped(query.operand)}`
    case "Or":
      return chain(query, "Or").map((q) => q._tag === "Term" || q._tag === "Range" || q._tag === "Not" ? render(q) : grouped(q)).join(" OR ")
    case "And":
      return chain(query, "And").map(grouped).join(" AND ")
    case "AndNot":
      return `${grouped(query.left)} ANDNOT ${grouped(query.right)}`
  }
}

/** The query written with every combination in parentheses (`((a OR b) AND c)`): its tree at a glance, for tests and messages. */
export const show = (query: ArxivQuery): string => {
  switch (query._tag) {
    case "Term":
    case "Range":
      return leaf(query, false)
    case "Not":
      return `-${show(query.operand)}`
    case "And":
      return `(${show(query.left)} AND ${show(query.right)})`
    case "Or":
      return `(${show(query.left)} OR ${show(query.right)})`
    case "AndNot":
      return `(${show(query.left)} ANDNOT ${show(query.right)})`
  }
}
