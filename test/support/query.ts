/**
 * A query written in arXiv's syntax, read into the structured query the
 * ArxivPort takes (by the parser of typed queries), for tests that search.
 */
import { Either } from "effect"
import type { ArxivQuery } from "../../src/core/arxivQuery.js"
import { readQuery } from "../../src/adapters/query/queryParser.js"

/** `typed` as a structured query; throws when it does not parse. */
export const typedQuery = (typed: string): ArxivQuery => Either.getOrThrow(readQuery(typed))

/** `typed` as a structured query, absent for "" (a search of categories or dates alone). */
export const typedOrNone = (typed: string): ArxivQuery | undefined => (typed.trim() === "" ? undefined : typedQuery(typed))
