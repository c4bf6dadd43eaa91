/**
 * arXiv identifiers and query strings, shared by every ArxivPort adapter.
 *
 * @since 0.1.0
 */
import { Either } from "effect"
import { and, type ArxivQuery, or, phrase, render, term, type TextField } from "./arxivQuery.js"
import { isCalendarDate } from "./dates.js"
import { InvalidArgument } from "./errors.js"
import type { Keyword } from "./keywords.js"
import { MAX_QUERY_CHARS } from "./limits.js"
import type { ArxivSearch } from "./ports/ArxivPort.js"
import { stripMarks } from "./text.js"

const MODERN = /^(\d{4}\.\d{4,5})(v\d+)?$/
const LEGACY = /^([a-z-]+(?:\.[A-Z]{2})?\/\d{7})(v\d+)?$/

/** A normalised arXiv id: the bare id and its version, if any. */
export interface ArxivId {
  readonly id: string
  readonly version: string | undefined
}

/**
 * Normalise an arXiv id as users write it: `arXiv:` prefixes, abs/pdf/html
 * URLs, `.pdf` suffixes and versions. Undefined for anything that is not an id.
 */
export const parseArxivId = (input: string): ArxivId | undefined => {
  let s = input.trim()
  s = s.replace(/^arxiv:\s*/i, "")
  s = s.replace(/^(?:https?:\/\/)?(?:www\.|export\.)?arxiv\.org\/(?:abs|pdf|html)\//i, "")
  s = s.replace(/[?#].*$/, "")
  s = s.replace(/\.pdf$/i, "").replace(/\/+$/, "")
  const modern = MODERN.exec(s)
  if (modern !== null) return { id: modern[1]!, version: modern[2] }
  const legacy = LEGACY.exec(s)
  if (legacy !== null) return { id: legacy[1]!, version: legacy[2] }
  return undefined
}

/**
 * The month a paper was first submitted, from its id (`1706.03762` →
 * 2017-06-01, `hep-th/9901001` → 1999-01-01): exact to the month, no lookup.
 */
export const firstVersionFromId = (arxivId: string): string | undefined => {
  const m = /^(\d{2})(\d{2})\.\d{4,5}$/.exec(arxivId) ?? /\/(\d{2})(\d{2})\d{3}$/.exec(arxivId)
  if (m === null) return undefined
  const yy = Number(m[1])
  const year = yy >= 91 ? 1900 + yy : 2000 + yy
  return `${year}-${m[2]}-01`
}

/** The arXiv abstract page of a paper. */
export const absUrl = (arxivId: string): string => `https://arxiv.org/abs/${arxivId}`

/** A category code like `cs.LG`, `stat.ML`, `hep-th` or `math.AG`. */
export const isCategoryCode = (s: string): boolean => /^[a-z-]+(\.[A-Za-z-]+)?$/.test(s)

/**
 * The longest search query accepted (characters; src/core/limits.ts): the
 * offline search evaluates it recursively. Checked before any work.
 */
export { MAX_QUERY_CHARS }

/** The most categories one search may filter on (arXiv has about 150). */
export const MAX_CATEGORIES = 200

/** The most entries arXiv serves in one request. */
export const ARXIV_MAX_PAGE = 2000

/** One id of a lookup: its bare form, and the form it is reported as missing under. */
export interface LookupId {
  readonly bare: string
  readonly asked: string
}

/**
 * The ids of a lookup, each once, for the adapters that look papers up locally (the offline corpus, a mirror):
 * reported as the live adapter sends them (modern ids keep their version), or the first input that is not an id.
 */
export const lookupIds = (ids: ReadonlyArray<string>): Either.Either<ReadonlyArray<LookupId>, InvalidArgument> => {
  const wanted: Array<LookupId> = []
  for (const input of ids) {
    const parsed = parseArxivId(input)
    if (parsed === undefined) {
      return Either.left(
        new InvalidArgument({
          argument: "id",
          reason: `"${input}" is not an arXiv id (e.g. 1409.0473, 2104.12255v1 or hep-th/9901001).`
        })
      )
    }
    const asked = parsed.id.includes("/") ? parsed.id : parsed.id + (parsed.version ?? "")
    if (!wanted.some((w) => w.asked === asked)) wanted.push({ bare: parsed.id, asked })
  }
  return Either.right(wanted)
}

/**
 * Check a search before anything is sent: every ArxivPort adapter (live and
 * offline) rejects the same requests with the same InvalidArgument.
 */
export const validateSearch = (request: ArxivSearch): Either.Either<ArxivSearch, InvalidArgument> => {
  const bad = (argument: string, reason: string) => Either.left(new InvalidArgument({ argument, reason }))
  if (request.query === undefined && request.categories.length === 0 && request.since === undefined) {
    return bad("query", "the search is empty; give at least one term, category or date.")
  }
  const length = request.query === undefined ? 0 : render(request.query).length
  if (length > MAX_QUERY_CHARS) {
    return bad(
      "query",
      `the query is too long (${length.toLocaleString("en-US")} characters; at most ${
        MAX_QUERY_CHARS.toLocaleString("en-US")
      } characters). Keep the few terms that matter, or split it into several searches.`
    )
  }
  if (request.categories.length > MAX_CATEGORIES) {
    return bad("category", `${request.categories.length} categories is too many (at most ${MAX_CATEGORIES}).`)
  }
  if (!Number.isInteger(request.maxResults) || request.maxResults < 1 || request.maxResults > ARXIV_MAX_PAGE) {
    return bad("max_results", `${request.maxResults} is outside 1..${ARXIV_MAX_PAGE}.`)
  }
  const start = request.start ?? 0
  if (!Number.isInteger(start) || start < 0) return bad("start", `${start} is not a non-negative integer.`)
  if (start + request.maxResults > 30000) {
    return bad("start", "arXiv serves at most 30,000 results per query; refine the query instead of paging further.")
  }
  for (const c of request.categories) {
    if (!isCategoryCode(c)) {
      return bad("category", `"${c}" is not an arXiv category code (e.g. cs.LG, stat.ML, hep-th).`)
    }
  }
  if (request.since !== undefined && !isCalendarDate(request.since)) {
    return bad("since", `"${request.since}" is not a date; use YYYY-MM-DD, e.g. 2024-01-31.`)
  }
  return Either.right(request)
}

// arXiv reads a bare hyphen as NOT ("r-cnn" would be r ANDNOT cnn): hyphenated words are quoted like phrases
const wordIn = (field: TextField, word: string): ArxivQuery =>
  /[\s-]/.test(word) ? phrase(field, word.replace(/"/g, ""))
  // a trailing "*" is a prefix (a stem: "catastroph*")
  : /^[^*]+\*$/.test(word) ? term(field, word.slice(0, -1), true)
  : term(field, word)

/** How many of a concept's keywords its arXiv query uses (measured on the tuning notes, eval/README.md). */
export const CONCEPT_QUERY_TERMS = 20

/**
 * The companion's arXiv query for a concept: any of its most informative
 * keywords anywhere in the record, phrases quoted. Ranked by relevance, a
 * paper that uses many of the note's terms comes first, so a wide OR of
 * informative terms favours papers about the concept (on the tuning notes it
 * found more landmarks than two or three central phrases, alone, ANDed in
 * pairs or boosted in titles; eval/README.md). `titleWords` (the words of
 * the note's central concepts, see `centralWords`) join as `ti:` clauses: a
 * paper titled by the concept ranks higher. The workflow adds them when the
 * note cites authors, whose own search then takes the second request.
 */
export const conceptQuery = (
  keywords: ReadonlyArray<Keyword>,
  limit = CONCEPT_QUERY_TERMS,
  titleWords: ReadonlyArray<string> = []
): ArxivQuery | undefined => {
  const clauses = [...keywords.slice(0, limit).map((k) => wordIn("all", k.term)), ...titleWords.map((w) => wordIn("ti", w))]
  return clauses.length === 0 ? undefined : or(clauses[0]!, ...clauses.slice(1))
}

/** An author clause: `au:` and the surname, letters folded to ASCII ("Bucilă" → `au:Bucila`), hyphenated ones quoted. */
export const authorClause = (surname: string): ArxivQuery => wordIn("au", stripMarks(surname).replace(/[^A-Za-z-]/g, ""))

/**
 * The companion's second arXiv query: papers whose title holds a word of the
 * note's central concepts (`words`, see `centralWords`) or that an author the
 * note cites wrote (`surnames`, see `citedAuthors`), among those the concept
 * query matches, so that papers *about* the concept rank first and a
 * landmark that names the concept in its title, or that the note names by
 * its authors, but uses few of the note's other terms is not lost far down
 * the first query's ranking. Undefined when there is neither a word to put
 * in the title nor an author. The workflow asks for one or the other: the
 * authors when the note cites any (title matches, three times an author
 * match in a relevance ranking, would take their places), else the words.
 *
 * `expansion` (terms the first search's best papers share that the note
 * does not use, see `expansionTerms`) widens the request past the concept
 * query: `((ti:w1 OR …) AND (<concept>)) OR all:e1 OR …`, so a landmark
 * written in other words than the note's ("entailment" for "natural
 * language inference") can be found.
 */
export const titleQuery = (
  words: ReadonlyArray<string>,
  keywords: ReadonlyArray<Keyword>,
  limit = CONCEPT_QUERY_TERMS,
  surnames: ReadonlyArray<string> = [],
  expansion: ReadonlyArray<string> = []
): ArxivQuery | undefined => {
  const concept = conceptQuery(keywords, limit)
  if (concept === undefined) return undefined
  const clauses = [...words.map((w) => wordIn("ti", w)), ...surnames.map(authorClause)]
  const titled = clauses.length === 0 ? undefined : and(or(clauses[0]!, ...clauses.slice(1)), concept)
  const widened = [...(titled === undefined ? [] : [titled]), ...expansion.map((e) => wordIn("all", e))]
  return widened.length === 0 ? undefined : or(widened[0]!, ...widened.slice(1))
}

/** A search's query as arXiv syntax, for messages ("" for a search of categories or dates alone). */
export const queryText = (query: ArxivQuery | undefined): string => (query === undefined ? "" : render(query))

/**
 * The full search_query arXiv receives: the query rendered in parentheses (so
 * arXiv's AND precedence cannot change its meaning), then the categories and
 * the first-version date range.
 */
export const buildSearchQuery = (
  query: ArxivQuery | undefined,
  categories: ReadonlyArray<string>,
  since?: string,
  until?: string
): string => {
  // an empty "()" is a syntax error for arXiv: a query of categories alone is valid
  const parts = query === undefined ? [] : [`(${render(query)})`]
  if (categories.length > 0) parts.push(`(${categories.map((c) => `cat:${c}`).join(" OR ")})`)
  if (since !== undefined) {
    const from = since.replace(/-/g, "")
    const to = (until ?? "9999-12-31").replace(/-/g, "")
    parts.push(`submittedDate:[${from}0000 TO ${to}2359]`)
  }
  return parts.join(" AND ")
}
