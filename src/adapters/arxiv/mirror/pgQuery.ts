/**
 * An arXiv query, as the query parser reads it (`ArxivQuery`), evaluated by
 * PostgreSQL full-text search over the mirror's `document` tsvector (PgIndex):
 * title words weigh A, abstract B, authors C, comments and journal reference
 * D; categories, ids and report numbers are lexemes of their own
 * (`cat=cs.lg`, `id=1412.8544`, `rn=…`) that no text can produce.
 *
 * - `ti: abs: au:` search their weight (`:A`, `:B`, `:C`), `co:` and `jr:`
 *   both weight D (one label for the two), `all:` and bare terms every text;
 * - words and phrases are normalised by the server (`phraseto_tsquery` with
 *   the mirror's configuration: Snowball English stems, no stop words), so a
 *   phrase is a phrase (`<->`) and `word*` a prefix (`:*`);
 * - `AND`, `OR`, `ANDNOT`, `-b` beside another term; date ranges ANDed with
 *   the whole query become SQL conditions, as for the SQLite mirror; a
 *   negation alone or a range inside an OR is refused with the same words.
 *
 * Two steps: `toPgQuery` (pure) makes an expression whose words the server
 * normalises; `renderTsQuery` writes the tsquery text from their normal forms.
 *
 * @since 0.3.0
 */
import type { ArxivQuery, TermNode } from "../../../core/arxivQuery.js"
import { splitConjuncts, UnsupportedQuery } from "./ftsQuery.js"

export { UnsupportedQuery }

/** A tsquery expression before the server has normalised its words. */
export type PgExpr =
  | { readonly _tag: "Words"; readonly text: string; readonly weights: string; readonly prefix: boolean }
  | { readonly _tag: "Lexemes"; readonly lexemes: ReadonlyArray<string>; readonly prefix: boolean }
  | { readonly _tag: "And" | "Or" | "AndNot"; readonly left: PgExpr; readonly right: PgExpr }

/** A query as PgIndex evaluates it. */
export interface PgQuery {
  /** The text part; undefined when the query is date ranges (and categories) only. */
  readonly expr: PgExpr | undefined
  readonly publishedFrom?: string | undefined
  readonly publishedTo?: string | undefined
  readonly updatedFrom?: string | undefined
  readonly updatedTo?: string | undefined
}

/** The weight labels each text field searches ("": every label). */
const FIELD_WEIGHTS: Readonly<Record<Exclude<TermNode["field"], "cat" | "id" | "rn">, string>> = {
  ti: "A",
  abs: "B",
  au: "C",
  co: "D",
  jr: "D",
  all: ""
}

/** Accents folded (é → e), as the SQLite mirror's tokenizer folds them; the index and the queries both. */
export const foldAccents = (s: string): string => s.normalize("NFKD").replace(/\p{M}+/gu, "")

/** The category's lexeme. */
export const categoryLexeme = (category: string): string => `cat=${category.toLowerCase()}`
/** The id's lexeme (a version suffix dropped: the mirror holds the current version). */
export const idLexeme = (id: string): string => `id=${id.toLowerCase().replace(/v\d+$/, "")}`
/** The lexemes of a report number: each run of letters and digits. */
export const reportLexemes = (report: string): Array<string> =>
  (foldAccents(report).toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => `rn=${w}`)

const HAS_TOKEN = /[\p{L}\p{N}]/u

const term = (node: TermNode): PgExpr => {
  if (!HAS_TOKEN.test(node.value)) throw new UnsupportedQuery(`"${node.value}" has no letter or digit to search for`)
  switch (node.field) {
    case "cat":
      return { _tag: "Lexemes", lexemes: [categoryLexeme(node.value)], prefix: node.prefix }
    case "id":
      return { _tag: "Lexemes", lexemes: [idLexeme(node.value)], prefix: node.prefix }
    case "rn":
      return { _tag: "Lexemes", lexemes: reportLexemes(node.value), prefix: node.prefix }
    default:
      return { _tag: "Words", text: foldAccents(node.value), weights: FIELD_WEIGHTS[node.field], prefix: node.prefix }
  }
}

const expression = (node: ArxivQuery): PgExpr => {
  switch (node._tag) {
    case "Term":
      return term(node)
    case "Range":
      throw new UnsupportedQuery(
        "the mirror applies a date range to the whole query only; write it beside the rest: (a OR b) AND submittedDate:[… TO …]"
      )
    case "Or":
      return { _tag: "Or", left: expression(node.left), right: expression(node.right) }
    case "AndNot":
      return { _tag: "AndNot", left: expression(node.left), right: expression(node.right) }
    case "And":
      if (node.right._tag === "Not") return { _tag: "AndNot", left: expression(node.left), right: expression(node.right.operand) }
      if (node.left._tag === "Not") return { _tag: "AndNot", left: expression(node.right), right: expression(node.left.operand) }
      return { _tag: "And", left: expression(node.left), right: expression(node.right) }
    case "Not":
      throw new UnsupportedQuery("the mirror cannot search for what a paper lacks alone; pair it with a term: a ANDNOT b, or a -b")
  }
}

/** The query as PgIndex evaluates it; an `UnsupportedQuery` says why it cannot be. */
export const toPgQuery = (node: ArxivQuery | undefined): PgQuery | UnsupportedQuery => {
  try {
    const { negative, positive, range } = splitConjuncts(node)
    let expr: PgExpr | undefined
    for (const p of positive) {
      const e = expression(p)
      expr = expr === undefined ? e : { _tag: "And", left: expr, right: e }
    }
    for (const n of negative) expr = { _tag: "AndNot", left: expr!, right: expression(n.operand) }
    return { expr, ...range }
  } catch (e) {
    if (e instanceof UnsupportedQuery) return e
    throw e
  }
}

/** The texts the server must normalise, each once. */
export const wordsOf = (expr: PgExpr | undefined): Array<string> => {
  const out = new Set<string>()
  const walk = (e: PgExpr): void => {
    if (e._tag === "Words") out.add(e.text)
    else if (e._tag !== "Lexemes") {
      walk(e.left)
      walk(e.right)
    }
  }
  if (expr !== undefined) walk(expr)
  return [...out]
}

/** A lexeme as a tsquery literal. */
const literal = (lexeme: string): string => `'${lexeme.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`

/** A quoted lexeme of a normalised tsquery (`'it''s'`). */
const QUOTED = /'(?:[^']|'')*'/g

/**
 * The tsquery text of `expr`, each word text replaced by its normal form
 * (`normalised`: the text of `phraseto_tsquery(config, text)`), restricted to
 * its weights. `withLexemes: false` leaves out the category, id and report
 * terms (the ranking query: those lexemes have no positions to rank by);
 * undefined when nothing is left.
 */
export const renderTsQuery = (
  expr: PgExpr,
  normalised: ReadonlyMap<string, string>,
  options: { readonly withLexemes: boolean } = { withLexemes: true }
): string | undefined | UnsupportedQuery => {
  try {
    const render = (e: PgExpr): string | undefined => {
      switch (e._tag) {
        case "Words": {
          const normal = normalised.get(e.text) ?? ""
          const quoted = [...normal.matchAll(QUOTED)]
          if (quoted.length === 0) throw new UnsupportedQuery(`"${e.text}" has no word the index holds`)
          let i = 0
          const out = normal.replace(QUOTED, (q) => {
            i++
            const star = e.prefix && i === quoted.length ? "*" : ""
            return star === "" && e.weights === "" ? q : `${q}:${star}${e.weights}`
          })
          return `(${out})`
        }
        case "Lexemes": {
          if (!options.withLexemes) return undefined
          if (e.lexemes.length === 0) throw new UnsupportedQuery("a report number needs a letter or digit")
          return `(${e.lexemes.map((l, i) => `${literal(l)}${e.prefix && i === e.lexemes.length - 1 ? ":*" : ""}`).join(" & ")})`
        }
        case "And":
        case "Or": {
          const l = render(e.left)
          const r = render(e.right)
          if (l === undefined || r === undefined) return l ?? r
          return `(${l} ${e._tag === "And" ? "&" : "|"} ${r})`
        }
        case "AndNot": {
          const l = render(e.left)
          const r = render(e.right)
          if (l === undefined) return undefined
          return r === undefined ? l : `(${l} & !${r})`
        }
      }
    }
    return render(expr)
  } catch (e) {
    if (e instanceof UnsupportedQuery) return e
    throw e
  }
}

/** The server's statistics of the index: its papers, and how often each common lexeme occurs (a share of papers). */
export interface LexemeStats {
  readonly papers: number
  readonly frequency: ReadonlyMap<string, number>
  /** The share below which a lexeme is not listed: one not listed is taken for half of it. */
  readonly floor: number
}

/** The lexemes of a normalised tsquery text (`'attent' <-> 'mechan'` → attent, mechan). */
const lexemesOf = (normal: string): Array<string> => [...normal.matchAll(QUOTED)].map((m) => m[0].slice(1, -1).replace(/''/g, "'"))

/** An upper estimate of the share of papers an expression matches (a phrase: its rarest word's). */
const share = (e: PgExpr, normalised: ReadonlyMap<string, string>, stats: LexemeStats): number => {
  switch (e._tag) {
    case "Words": {
      const lexemes = lexemesOf(normalised.get(e.text) ?? "")
      return lexemes.length === 0 ? 0 : Math.min(...lexemes.map((l) => stats.frequency.get(l) ?? stats.floor / 2))
    }
    case "Lexemes":
      return 1
    case "And":
      return Math.min(share(e.left, normalised, stats), share(e.right, normalised, stats))
    case "AndNot":
      return share(e.left, normalised, stats)
    case "Or":
      return Math.min(1, share(e.left, normalised, stats) + share(e.right, normalised, stats))
  }
}

/** The alternatives of a top-level OR. */
const alternativesOf = (e: PgExpr): Array<PgExpr> => (e._tag === "Or" ? [...alternativesOf(e.left), ...alternativesOf(e.right)] : [e])

/**
 * A wide OR narrowed to its rarest alternatives, as the SQLite mirror narrows one: when the OR of `expr` is
 * estimated (from the server's statistics) to match more than `want` papers, its alternatives are kept rarest
 * first until they are estimated to match `want`, and the narrowed expression is returned with the whole OR's
 * estimated matches; undefined when `expr` is not such an OR or is narrow enough.
 */
export const narrowOr = (
  expr: PgExpr,
  normalised: ReadonlyMap<string, string>,
  stats: LexemeStats,
  want: number
): { readonly expr: PgExpr; readonly estimated: number } | undefined => {
  const alternatives = alternativesOf(expr)
  if (alternatives.length < 2 || stats.papers <= 0 || want <= 0) return undefined
  const shares = alternatives.map((a) => ({ a, s: share(a, normalised, stats) }))
  // independent alternatives: the share matching none is the product of each one's complement
  const estimated = Math.round(stats.papers * (1 - shares.reduce((none, { s }) => none * (1 - s), 1)))
  if (estimated <= want) return undefined
  const kept: Array<PgExpr> = []
  let covered = 0
  for (const { a, s } of [...shares].sort((x, y) => x.s - y.s)) {
    if (covered * stats.papers >= want) break
    kept.push(a)
    covered += s
  }
  if (kept.length === alternatives.length) return undefined
  return { expr: kept.reduce((left, right) => ({ _tag: "Or", left, right })), estimated }
}
