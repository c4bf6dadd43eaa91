/**
 * ArxivPort over a lab's mirror on PostgreSQL (`--arxiv postgres://…`):
 * searches and id lookups answered by the database, no request to arXiv.
 *
 * The query (arXiv syntax, as the core writes it) is parsed with the same
 * parser as the corpus's and the SQLite mirror's, evaluated by PostgreSQL's
 * full-text search (`pgQuery.ts`), ranked by ts_rank_cd with the field
 * weights; categories and `since` filter it. Validation and lookups follow
 * the SQLite mirror (MirrorArxiv), so both refuse and answer alike.
 *
 * The pool is opened with the layer and connects on the first call; a
 * missing mirror or an unreachable server is one line saying what to do.
 *
 * @since 0.3.0
 */
import { Effect, Layer } from "effect"
import { lookupIds, queryText, validateSearch } from "../../../core/arxiv.js"
import { InvalidArgument } from "../../../core/errors.js"
import { type ArxivLookup, ArxivPort, type ArxivSearch, type ArxivSearchResult } from "../../../core/ports/ArxivPort.js"
import { lookupOf, paperOf } from "./MirrorArxiv.js"
import { openReader, type PgReader } from "./PgIndex.js"
import { toPgQuery, UnsupportedQuery } from "./pgQuery.js"

/** Options of the PostgreSQL mirror adapter. */
export interface PgArxivOptions {
  /** The database's URL (postgres://user:password@host:port/database). */
  readonly url: string
  /** Connections of this process's pool (default 4). */
  readonly connections?: number | undefined
  /** How many matches the cheap rank keeps for `ts_rank_cd` (PgIndex.RANK_POOL); 0 ranks every match by `ts_rank_cd`. */
  readonly rankPool?: number | undefined
  /** How many papers a wide OR is narrowed to, by its rarest alternatives (PgIndex.openReader); undefined: never narrowed. */
  readonly narrowTo?: number | undefined
}

/** The port over an open reader. */
export const fromReader = (reader: PgReader): ArxivPort["Type"] => {
  const search = Effect.fn("ArxivPort.search")(function*(request: ArxivSearch) {
    yield* validateSearch(request)
    const query = toPgQuery(request.query)
    if (query instanceof UnsupportedQuery) {
      return yield* new InvalidArgument({ argument: "query", reason: `${query.reason}; the query was: ${queryText(request.query)}` })
    }
    const start = request.start ?? 0
    const publishedFrom = request.since !== undefined && (query.publishedFrom === undefined || request.since > query.publishedFrom)
      ? request.since
      : query.publishedFrom
    const found = yield* reader.search({
      query: { ...query, publishedFrom },
      categories: request.categories,
      sortBy: request.sortBy ?? "relevance",
      sortOrder: request.sortOrder ?? "descending",
      start,
      limit: request.maxResults
    }).pipe(
      Effect.catchIf(
        (e): e is UnsupportedQuery => e instanceof UnsupportedQuery,
        (e) => new InvalidArgument({ argument: "query", reason: `${e.reason}; the query was: ${queryText(request.query)}` })
      )
    )
    return { papers: found.rows.map((row) => paperOf(row)), total: found.total, start } satisfies ArxivSearchResult
  })

  const getPapers = Effect.fn("ArxivPort.getPapers")(function*(ids: ReadonlyArray<string>) {
    const wanted = yield* lookupIds(ids)
    if (wanted.length === 0) return { papers: [], missing: [] } satisfies ArxivLookup
    const rows = yield* reader.byIds([...new Set(wanted.map((w) => w.bare))])
    return lookupOf(wanted, rows)
  })

  return ArxivPort.of({ search, getPapers })
}

/** The PostgreSQL mirror as a layer; its pool is closed when the layer is. */
export const layer = (options: PgArxivOptions): Layer.Layer<ArxivPort> =>
  Layer.scoped(ArxivPort, Effect.map(openReader(options.url, { connections: options.connections, rankPool: options.rankPool, narrowTo: options.narrowTo }), fromReader))
