/**
 * arXiv identifiers and query strings, shared by every ArxivPort adapter.
 *
 * @since 0.1.0
 */
import type { Keyword } from "./keywords.js"

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

/** The arXiv abstract page of a paper. */
export const absUrl = (arxivId: string): string => `https://arxiv.org/abs/${arxivId}`

/** A category code like `cs.LG`, `stat.ML`, `hep-th` or `math.AG`. */
export const isCategoryCode = (s: string): boolean => /^[a-z-]+(\.[A-Za-z-]+)?$/.test(s)

const quoteTerm = (term: string): string => (term.includes(" ") ? `"${term}"` : term)

/** The arXiv query for a concept's keywords: any of them, anywhere in the record. */
export const keywordQuery = (keywords: ReadonlyArray<Keyword>, limit = 6): string =>
  keywords
    .slice(0, limit)
    .map((k) => `all:${quoteTerm(k.term)}`)
    .join(" OR ")

/**
 * The full search_query arXiv receives: the user's text in parentheses (so
 * arXiv's AND precedence cannot change its meaning), then the categories and
 * the first-version date range.
 */
export const buildSearchQuery = (
  query: string,
  categories: ReadonlyArray<string>,
  since?: string,
  until?: string
): string => {
  // an empty "()" is a syntax error for arXiv: a query of categories alone is valid
  const parts = query.trim() === "" ? [] : [`(${query.trim()})`]
  if (categories.length > 0) parts.push(`(${categories.map((c) => `cat:${c}`).join(" OR ")})`)
  if (since !== undefined) {
    const from = since.replace(/-/g, "")
    const to = (until ?? "9999-12-31").replace(/-/g, "")
    parts.push(`submittedDate:[${from}0000 TO ${to}2359]`)
  }
  return parts.join(" AND ")
}
