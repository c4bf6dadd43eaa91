/**
 * The structured arXiv query: terms and phrases in arXiv's fields, date
 * ranges, and the boolean tree over them. The local index (the recorded
 * corpus, a mirror) evaluates it directly; `render` writes it in arXiv's
 * `search_query` syntax for the live API; the parser of that syntax
 * (src/adapters/query/queryParser.ts) reads what a person types into one.
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

/** The query in arXiv's `search_query` syntax, fully parenthesised: what the parser reads back into the same query. */
export const render = (query: ArxivQuery): string => {
  switch (query._tag) {
    case "Term": {
      const v = query.phrase ? `"${query.value}"` : query.value
      return `${query.field}:${v}${query.prefix ? "*" : ""}`
    }
    case "Range":
      return `${query.field}:[${query.from} TO ${query.to}]`
    case "Not":
      return `-${render(query.operand)}`
    case "And":
      return `(${render(query.left)} AND ${render(query.right)})`
    case "Or":
      return `(${render(query.left)} OR ${render(query.right)})`
    case "AndNot":
      return `(${render(query.left)} ANDNOT ${render(query.right)})`
  }
}
