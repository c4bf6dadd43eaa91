/**
 * arXiv tools over ArxivPort: search, lookups, recent papers, BibTeX and the
 * category list.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { absUrl, buildSearchQuery } from "../core/arxiv.js"
import { bibtexFile } from "../core/bibtex.js"
import { ARXIV_CATEGORIES } from "../core/categories.js"
import { type ArxivError, InvalidArgument, PaperNotFound } from "../core/errors.js"
import type { Paper } from "../core/models.js"
import { ArxivPort } from "../core/ports/ArxivPort.js"
import { QueryBuilderPort } from "../core/ports/QueryBuilderPort.js"
import { arxivIdArg, arxivIdsArg, categoriesArg, categoryArg, dateArg, intArg, textArg } from "./arguments.js"
import type {
  BibtexResult,
  CategoriesResult,
  PaperDetail,
  PaperSummary,
  PapersResult,
  RecentResult,
  SearchResult
} from "./schemas.js"

/** The categories searched when none are given. */
export const DEFAULT_CATEGORIES: ReadonlyArray<string> = ["cs.LG", "cs.AI", "cs.CL", "stat.ML"]

/**
 * Cut a text to `max` characters (code points, at a word boundary), marking
 * the cut with "…": never inside an emoji or another character outside the BMP.
 */
export const capText = (text: string, max: number | undefined): string => {
  if (max === undefined || text.length <= max) return text
  const chars = Array.from(text)
  if (chars.length <= max) return text
  const cut = chars.slice(0, Math.max(0, max))
  const space = cut.lastIndexOf(" ")
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).join("").trimEnd()}…`
}

/** A paper as a list entry, the abstract capped at `abstractMaxChars`. */
export const toSummary = (p: Paper, abstractMaxChars?: number): PaperSummary => ({
  arxiv_id: p.arxivId,
  title: p.title,
  abstract: capText(p.abstract, abstractMaxChars),
  authors: p.authors,
  published_date: p.published,
  categories: p.categories
})

/** A paper with every recorded field and its links. */
export const toDetail = (p: Paper, abstractMaxChars?: number): PaperDetail => ({
  ...toSummary(p, abstractMaxChars),
  ...(p.updated === undefined ? {} : { updated_date: p.updated }),
  ...(p.primaryCategory === undefined ? {} : { primary_category: p.primaryCategory }),
  ...(p.doi === undefined ? {} : { doi: p.doi }),
  ...(p.journalRef === undefined ? {} : { journal_ref: p.journalRef }),
  ...(p.comment === undefined ? {} : { comment: p.comment }),
  abs_url: absUrl(p.arxivId),
  pdf_url: `https://arxiv.org/pdf/${p.arxivId}`
})

/** Arguments of {@link searchPapers}. */
export interface SearchPapersInput {
  /** Free text or arXiv syntax (ti:, abs:, au:, cat:, AND/OR/ANDNOT). */
  readonly query: string
  /** Any of these categories; [] searches all. Default cs.LG, cs.AI, cs.CL, stat.ML. */
  readonly categories?: ReadonlyArray<string> | undefined
  /** First version on or after this date (YYYY-MM-DD). */
  readonly since_date?: string | undefined
  /** 1..50, default 10. */
  readonly max_results?: number | undefined
  /** Offset of the first result, default 0. */
  readonly start?: number | undefined
  /** Relevance, or newest first by first or last version. */
  readonly sort_by?: "relevance" | "submitted" | "updated" | undefined
  readonly abstract_max_chars?: number | undefined
}

const SORT = { relevance: "relevance", submitted: "submittedDate", updated: "lastUpdatedDate" } as const

/** Search arXiv. An empty result is a success with `total: 0`. */
export const searchPapers = Effect.fn("Tools.searchPapers")(function*(input: SearchPapersInput) {
  const arxiv = yield* ArxivPort
  const typed = yield* textArg("query", input.query, "a few words, e.g. \"graph neural networks\", or arXiv syntax such as ti:transformer AND au:vaswani")
  const categories = yield* categoriesArg(input.categories ?? DEFAULT_CATEGORIES)
  const since = yield* dateArg("since_date", input.since_date)
  const maxResults = yield* intArg("max_results", input.max_results, 1, 50, 10)
  const start = yield* intArg("start", input.start, 0, 29_950, 0)
  // what was typed, read as arXiv reads it (the query port's parser): every backend searches the same query
  const query = yield* (yield* QueryBuilderPort).read(typed)
  const found = yield* arxiv.search({
    query,
    categories,
    since,
    maxResults,
    start,
    sortBy: SORT[input.sort_by ?? "relevance"],
    sortOrder: "descending"
  })
  return {
    query: buildSearchQuery(query, categories, since),
    total: found.total,
    start: found.start,
    papers: found.papers.map((p) => toSummary(p, input.abstract_max_chars))
  } satisfies SearchResult
})

/** Arguments of {@link getPaper}. */
export interface GetPaperInput {
  readonly arxiv_id: string
  readonly abstract_max_chars?: number | undefined
}

/** One paper by id; PaperNotFound when arXiv has none. */
export const getPaper = Effect.fn("Tools.getPaper")(function*(input: GetPaperInput) {
  const arxiv = yield* ArxivPort
  const id = yield* arxivIdArg(input.arxiv_id)
  const found = yield* arxiv.getPapers([id])
  const paper = found.papers[0]
  if (paper === undefined) return yield* new PaperNotFound({ id, source: "arXiv" })
  return toDetail(paper, input.abstract_max_chars)
})

/** Arguments of {@link getPapers}. */
export interface GetPapersInput {
  /** 1..50 arXiv ids (or abs/pdf URLs). */
  readonly arxiv_ids: ReadonlyArray<string>
  readonly abstract_max_chars?: number | undefined
}

/** The papers arXiv has for 1..50 ids, in the order asked, and the ids it lacks; PaperNotFound when it has none. */
const papersAsked = Effect.fn("Tools.papersAsked")(function*(input: ReadonlyArray<string>) {
  const arxiv = yield* ArxivPort
  const ids = yield* arxivIdsArg(input, "arxiv_ids")
  const found = yield* arxiv.getPapers(ids)
  const byId = new Map(found.papers.map((p) => [p.arxivId, p]))
  const papers = ids.flatMap((id) => byId.get(id) ?? [])
  if (papers.length === 0) return yield* new PaperNotFound({ id: ids.join(", "), source: "arXiv" })
  return { papers, missing: ids.filter((id) => !byId.has(id)) }
})

/** Several papers by id, in the order asked; the ids arXiv lacks are listed in `missing`. */
export const getPapers = Effect.fn("Tools.getPapers")(function*(input: GetPapersInput) {
  const { missing, papers } = yield* papersAsked(input.arxiv_ids)
  return { papers: papers.map((p) => toDetail(p, input.abstract_max_chars)), missing } satisfies PapersResult
})

/** Arguments of {@link getRecent}. */
export interface GetRecentInput {
  readonly category: string
  /** Only papers first submitted on or after this date (YYYY-MM-DD). */
  readonly since_date?: string | undefined
  /** 1..50, default 10. */
  readonly max_results?: number | undefined
  readonly abstract_max_chars?: number | undefined
}

/** The newest papers of a category, newest first. */
export const getRecent = Effect.fn("Tools.getRecent")(function*(input: GetRecentInput) {
  const arxiv = yield* ArxivPort
  const category = yield* categoryArg(input.category)
  const since = yield* dateArg("since_date", input.since_date)
  const count = yield* intArg("max_results", input.max_results, 1, 50, 10)
  const found = yield* arxiv.search({
    categories: [category],
    since,
    maxResults: count,
    sortBy: "submittedDate",
    sortOrder: "descending"
  })
  return {
    category,
    total: found.total,
    papers: found.papers.map((p) => toSummary(p, input.abstract_max_chars))
  } satisfies RecentResult
})

/** Arguments of {@link exportBibtex}. */
export interface ExportBibtexInput {
  /** 1..50 arXiv ids (or abs/pdf URLs). */
  readonly arxiv_ids: ReadonlyArray<string>
}

/** BibTeX for papers (metadata only), in the order asked; missing ids listed. */
export const exportBibtex = Effect.fn("Tools.exportBibtex")(function*(input: ExportBibtexInput) {
  const { missing, papers } = yield* papersAsked(input.arxiv_ids)
  const file = bibtexFile(papers)
  return {
    bibtex: file.text,
    entries: papers.map((p, i) => ({ arxiv_id: p.arxivId, key: file.keys[i]! })),
    missing
  } satisfies BibtexResult
})

/** Arguments of {@link listCategories}. */
export interface ListCategoriesInput {
  /** Only this group or archive: "Computer Science", "physics", "cs", "math", ... */
  readonly group?: string | undefined
}

/** The arXiv categories, optionally of one group or archive. */
export const listCategories = (input: ListCategoriesInput = {}): Effect.Effect<CategoriesResult, InvalidArgument> => {
  const g = input.group?.trim().toLowerCase()
  const categories = g === undefined || g === ""
    ? ARXIV_CATEGORIES
    : ARXIV_CATEGORIES.filter((c) =>
      c.group.toLowerCase().startsWith(g) || c.code.toLowerCase().split(".")[0] === g
    )
  if (categories.length === 0) {
    const groups = [...new Set(ARXIV_CATEGORIES.map((c) => c.group))].join(", ")
    return Effect.fail(new InvalidArgument({ argument: "group", reason: `no group "${input.group}"; use one of ${groups}, or an archive such as cs, math, stat` }))
  }
  return Effect.succeed({ categories: categories.map((c) => ({ code: c.code, name: c.name, group: c.group })) })
}

/** Errors of the paper tools. */
export type PaperToolError = ArxivError | PaperNotFound
