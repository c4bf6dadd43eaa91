/**
 * category_trends: what a category has been publishing lately.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { range } from "../core/arxivQuery.js"
import * as Dates from "../core/dates.js"
import type { Paper } from "../core/models.js"
import { ArxivPort } from "../core/ports/ArxivPort.js"
import { dailyCounts, topTitleTerms, windowStart } from "../core/trends.js"
import { categoryArg, dateArg, intArg } from "./arguments.js"
import type { TrendsResult } from "./schemas.js"

/** Arguments of {@link categoryTrends}. */
export interface CategoryTrendsInput {
  readonly category: string
  /** 1..90 days, default 30. */
  readonly window_days?: number | undefined
  /** Papers to sample, 10..200, default 100 (50 per arXiv request). */
  readonly sample_size?: number | undefined
  /** Last day of the window (YYYY-MM-DD), default today. */
  readonly until_date?: string | undefined
}

const PAGE = 50

/**
 * Daily submission counts and the most used title terms of a category over
 * a window, from a sample of its newest papers. An empty window is a success.
 */
export const categoryTrends = Effect.fn("Tools.categoryTrends")(function*(input: CategoryTrendsInput) {
  const arxiv = yield* ArxivPort
  const category = yield* categoryArg(input.category)
  const days = yield* intArg("window_days", input.window_days, 1, 90, 30)
  const sampleSize = yield* intArg("sample_size", input.sample_size, 10, 200, 100)
  const today = yield* Dates.today
  const to = (yield* dateArg("until_date", input.until_date)) ?? today
  const from = windowStart(to, days)
  // an explicit end goes into the query so that newer papers do not fill the sample
  const query = to === today ? undefined : range("submittedDate", `${from.replace(/-/g, "")}0000`, `${to.replace(/-/g, "")}2359`)
  const sample: Array<Paper> = []
  let total = 0
  while (sample.length < sampleSize) {
    const page = yield* arxiv.search({
      query,
      categories: [category],
      since: from,
      maxResults: Math.min(PAGE, sampleSize - sample.length),
      start: sample.length,
      sortBy: "submittedDate",
      sortOrder: "descending"
    })
    total = page.total
    sample.push(...page.papers)
    if (page.papers.length === 0 || sample.length >= total) break
  }
  const inWindow = sample.filter((p) => p.published >= from && p.published <= to)
  let note: string | undefined
  if (inWindow.length === 0) {
    const newest = yield* arxiv.search({ categories: [category], maxResults: 1, sortBy: "submittedDate", sortOrder: "descending" })
    const date = newest.papers[0]?.published
    note = date === undefined
      ? `No ${category} papers found at all.`
      : `No ${category} papers between ${from} and ${to}; the newest is from ${date}. Pass until_date=${date} to look at the window before it.`
  }
  const terms = topTitleTerms(inWindow.map((p) => p.title))
  return {
    category,
    from,
    to,
    total: Math.max(total, inWindow.length),
    sampled: inWindow.length,
    daily_counts: dailyCounts(inWindow.map((p) => p.published), from, to),
    top_terms: terms.terms,
    top_phrases: terms.phrases,
    ...(note === undefined ? {} : { note })
  } satisfies TrendsResult
})
