/**
 * Category trends from a sample of recent papers: submissions per day and
 * the terms their titles use most.
 *
 * @since 0.1.0
 */
import { dayNumber as dayOfIso, isoOfDayNumber as isoOfDay } from "./dates.js"
import { STOP_WORDS, words } from "./text.js"

/** The first day of a window of `days` days ending on `to` (both inclusive). */
export const windowStart = (to: string, days: number): string => isoOfDay(dayOfIso(to) - Math.max(1, days) + 1)

/** Add `days` (may be negative) to a `YYYY-MM-DD` date. */
export const addDays = (iso: string, days: number): string => isoOfDay(dayOfIso(iso) + days)

/** Papers per day, for every day from `from` to `to` (inclusive), zero days included. */
export const dailyCounts = (
  dates: ReadonlyArray<string>,
  from: string,
  to: string
): ReadonlyArray<{ readonly date: string; readonly count: number }> => {
  const start = dayOfIso(from)
  const end = dayOfIso(to)
  const counts = new Map<number, number>()
  for (const d of dates) {
    const day = dayOfIso(d)
    if (day >= start && day <= end) counts.set(day, (counts.get(day) ?? 0) + 1)
  }
  const out: Array<{ date: string; count: number }> = []
  for (let day = start; day <= end; day++) out.push({ date: isoOfDay(day), count: counts.get(day) ?? 0 })
  return out
}

/** Words that say nothing about a field's topics in paper titles. */
const TITLE_BOILERPLATE: ReadonlySet<string> = new Set(
  ("approach approaches based towards toward new novel study studies analysis paper method methods via beyond " +
    "efficient effective improved improving improve simple learning-based case results framework frameworks " +
    "problem problems model-based large-scale one two three first").split(" ")
)

const titleTokens = (title: string): ReadonlyArray<string | undefined> =>
  // undefined marks a break: a stop word between two terms ends a phrase
  words(title).map((w) =>
    w.length < 3 || /^\d+$/.test(w) || STOP_WORDS.has(w) || TITLE_BOILERPLATE.has(w) ? undefined : w
  )

/** A term and the number of titles it occurs in. */
export interface TermCount {
  readonly term: string
  readonly count: number
}

const top = (counts: Map<string, number>, n: number, min: number): ReadonlyArray<TermCount> =>
  [...counts.entries()]
    .filter(([, c]) => c >= min)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, n)
    .map(([term, count]) => ({ term, count }))

/**
 * The words and two-word phrases that occur in most titles (each counted once
 * per title), stop words and title boilerplate left out. Phrases need at
 * least two titles.
 */
export const topTitleTerms = (
  titles: ReadonlyArray<string>,
  n = 15
): { readonly terms: ReadonlyArray<TermCount>; readonly phrases: ReadonlyArray<TermCount> } => {
  const terms = new Map<string, number>()
  const phrases = new Map<string, number>()
  for (const title of titles) {
    const tokens = titleTokens(title)
    const seenTerms = new Set<string>()
    const seenPhrases = new Set<string>()
    tokens.forEach((t, i) => {
      if (t === undefined) return
      seenTerms.add(t)
      const next = tokens[i + 1]
      if (next !== undefined && next !== t) seenPhrases.add(`${t} ${next}`)
    })
    for (const t of seenTerms) terms.set(t, (terms.get(t) ?? 0) + 1)
    for (const p of seenPhrases) phrases.set(p, (phrases.get(p) ?? 0) + 1)
  }
  return { terms: top(terms, n, 1), phrases: top(phrases, n, 2) }
}
