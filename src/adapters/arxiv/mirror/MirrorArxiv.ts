/**
 * ArxivPort over a local mirror (`arxiv-companion mirror sync`): searches and
 * id lookups answered by the mirror's index, no request to arXiv.
 *
 * The query (arXiv syntax, as the core writes it) is parsed with the same
 * parser as the recorded corpus's and evaluated by FTS5 (`ftsQuery.ts`),
 * ranked by BM25 with field weights (title 3, abstract and authors 1);
 * categories and `since` filter it. Validation follows the live adapter, so
 * every backend refuses the same requests with the same words.
 *
 * The index is opened on the first call (read-only) and kept open for the
 * process; a missing mirror is one line saying how to build it.
 *
 * @since 0.3.0
 */
import type { Path } from "@effect/platform"
import { Effect, Layer } from "effect"
import { type LookupId, lookupIds, queryText, validateSearch } from "../../../core/arxiv.js"
import { InvalidArgument, UpstreamUnavailable } from "../../../core/errors.js"
import { Paper } from "../../../core/models.js"
import { type ArxivLookup, ArxivPort, type ArxivSearch, type ArxivSearchResult, type ArxivService } from "../../../core/ports/ArxivPort.js"
import { toFtsQuery, UnsupportedQuery } from "./ftsQuery.js"
import { failureReason, IndexUnavailable, MIRROR_SERVICE, MirrorIndex, type PaperRow } from "./MirrorIndex.js"
import { defaultMirrorDir } from "./mirrorDir.js"

/** Options of the mirror adapter. */
export interface MirrorArxivOptions {
  /** The mirror's directory (see `defaultMirrorDir`). */
  readonly dir: string
}

/**
 * A stored row as the core's Paper. arXiv's format lists a paper's primary category first, so a mirror names it
 * (`primary`); the recorded corpus lists every paper's categories sorted, and so names none.
 */
export const paperOf = (row: PaperRow, options: { readonly primary: boolean } = { primary: true }): Paper => {
  const categories = row.categories.split(" ").filter((c) => c !== "")
  return new Paper({
    arxivId: row.id,
    title: row.title,
    abstract: row.abstract,
    authors: JSON.parse(row.authors) as Array<string>,
    published: row.published,
    ...(row.updated === null ? {} : { updated: row.updated }),
    categories,
    ...(categories[0] === undefined || !options.primary ? {} : { primaryCategory: categories[0] }),
    ...(row.doi === null ? {} : { doi: row.doi }),
    ...(row.journal_ref === null ? {} : { journalRef: row.journal_ref }),
    ...(row.comments === null ? {} : { comment: row.comments })
  })
}

/**
 * The lookup's answer from the stored rows of the ids asked for: each paper once, in the order asked; an id the
 * mirror does not hold is missing, as it was asked. The mirror holds the current version: any version of a
 * mirrored paper is that paper.
 */
export const lookupOf = (
  wanted: ReadonlyArray<LookupId>,
  rows: ReadonlyArray<PaperRow>,
  options: { readonly primary: boolean } = { primary: true }
): ArxivLookup => {
  const byId = new Map(rows.map((r) => [r.id, paperOf(r, options)]))
  const papers: Array<Paper> = []
  const missing: Array<string> = []
  for (const w of wanted) {
    const paper = byId.get(w.bare)
    if (paper === undefined) missing.push(w.asked)
    else if (!papers.includes(paper)) papers.push(paper)
  }
  return { papers, missing }
}

/** Indexes opened by this process, one per directory, shared by every layer. */
const opened = new Map<string, MirrorIndex>()

/** The indexes this process holds open (to close them, e.g. before removing a mirror); forgotten once listed. */
export const openedIndexes = (): ReadonlyArray<MirrorIndex> => {
  const all = [...opened.values()]
  opened.clear()
  return all
}

/** Close the index of `dir` this process holds open, if any, and forget it (a stale index about to be replaced). */
export const forgetIndex = (dir: string): void => {
  opened.get(dir)?.close()
  opened.delete(dir)
}

/** The index of `dir`, opened read-only on first use and then shared (the arXiv and the citation adapters alike). */
export const openIndex = (dir: string): Effect.Effect<MirrorIndex, UpstreamUnavailable> =>
  Effect.try({
    try: () => {
      const known = opened.get(dir)
      if (known !== undefined) return known
      const index = MirrorIndex.open(dir, { create: false })
      opened.set(dir, index)
      return index
    },
    catch: (e) =>
      new UpstreamUnavailable({ service: MIRROR_SERVICE, reason: e instanceof IndexUnavailable ? e.reason : String(e) })
  })

const readFailure = (dir: string) => (e: unknown) =>
  new UpstreamUnavailable({ service: MIRROR_SERVICE, reason: failureReason(dir, e, "the index", "read") })

/**
 * The port over an index (opened by `index` on the first call): a mirror's, or the recorded corpus's (CorpusArxiv),
 * which is one; `primary`: whether the first category of a paper is its primary one (see `paperOf`).
 */
export const portOver = (
  index: Effect.Effect<MirrorIndex, UpstreamUnavailable>,
  options: { readonly primary: boolean } = { primary: true }
): ArxivService => {
  const search = Effect.fn("ArxivPort.search")(function*(request: ArxivSearch) {
    yield* validateSearch(request)
    const fts = toFtsQuery(request.query, request.categories)
    if (fts instanceof UnsupportedQuery) {
      return yield* new InvalidArgument({ argument: "query", reason: `${fts.reason}; the query was: ${queryText(request.query)}` })
    }
    const idx = yield* index
    const start = request.start ?? 0
    const publishedFrom = request.since !== undefined && (fts.publishedFrom === undefined || request.since > fts.publishedFrom)
      ? request.since
      : fts.publishedFrom
    const found = yield* Effect.try({
      try: () =>
        idx.search({
          match: fts.match,
          alternatives: fts.alternatives,
          within: fts.within,
          text: fts.text,
          publishedFrom,
          publishedTo: fts.publishedTo,
          updatedFrom: fts.updatedFrom,
          updatedTo: fts.updatedTo,
          sortBy: request.sortBy ?? "relevance",
          sortOrder: request.sortOrder ?? "descending",
          start,
          limit: request.maxResults
        }),
      catch: readFailure(idx.dir)
    })
    return { papers: found.rows.map((row) => paperOf(row, options)), total: found.total, start } satisfies ArxivSearchResult
  })

  const getPapers = Effect.fn("ArxivPort.getPapers")(function*(ids: ReadonlyArray<string>) {
    const wanted = yield* lookupIds(ids)
    if (wanted.length === 0) return { papers: [], missing: [] } satisfies ArxivLookup
    const idx = yield* index
    const rows = yield* Effect.try({ try: () => idx.byIds([...new Set(wanted.map((w) => w.bare))]), catch: readFailure(idx.dir) })
    return lookupOf(wanted, rows, options)
  })

  return ArxivPort.of({ search, getPapers })
}

/** Build the adapter. Nothing is opened until the first call. */
export const make = Effect.fn("MirrorArxiv.make")(function*(options: MirrorArxivOptions) {
  return portOver(openIndex(options.dir))
})

/** The mirror adapter as a layer. */
export const layer = (options: MirrorArxivOptions): Layer.Layer<ArxivPort> => Layer.effect(ArxivPort, make(options))

/** The mirror of `dir`, else of the default directory (`defaultMirrorDir`). */
export const layerConfig = (dir?: string | undefined): Layer.Layer<ArxivPort, never, Path.Path> =>
  Layer.unwrapEffect(
    Effect.map(dir === undefined ? defaultMirrorDir : Effect.succeed(dir), (d) => layer({ dir: d }))
  )
