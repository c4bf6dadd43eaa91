/**
 * A suggested reading order: the foundations first (the most important
 * chosen, then read oldest first), then the kept papers oldest first (a
 * paper is read after the ones it can build on), each with one line saying
 * why it comes there.
 *
 * @since 0.2.0
 */
import type { Foundations, ScoredPaper, SharedFoundations } from "./models.js"
import { ReadingStep } from "./models.js"
import { shorten } from "./text.js"

/** What the step of a relevant paper without a recorded citation count says of it. */
export const UNRECORDED_STEP = "impact not recorded, it takes one of the places"

/** How many foundations open the reading order at most. */
export const READING_FOUNDATIONS = 4

interface Candidate {
  readonly id: string
  readonly title: string
  readonly year: number | undefined
  readonly citedByCount: number
  readonly citedBy: ReadonlyArray<string>
}

const int = (n: number): string => n.toLocaleString("en-US")

/** "A", "A and B", "A, B and 2 more" (titles of kept papers). */
const naming = (ids: ReadonlyArray<string>, titleOf: (id: string) => string): string => {
  const names = ids.map((id) => `“${shorten(titleOf(id), 40)}”`)
  if (names.length <= 2) return names.join(" and ")
  return `${names.slice(0, 2).join(", ")} and ${names.length - 2} more`
}

const stepNumbers = (numbers: ReadonlyArray<number>): string =>
  numbers.length === 1 ? `step ${numbers[0]}` : `steps ${numbers.slice(0, -1).join(", ")} and ${numbers[numbers.length - 1]}`

/**
 * The reading order for `kept` (the papers in the places, in keep order: a relevant paper without a recorded
 * count that takes a place is read in its turn, marked so). Foundations
 * come from the shared foundations, then from each kept paper's foundational
 * citations: the `maxFoundations` most cited by kept papers (then most cited
 * overall) are chosen, and read oldest first; then the kept papers, oldest
 * first (the more relevant first on the same day).
 */
export const readingOrder = (
  kept: ReadonlyArray<ScoredPaper>,
  shared: SharedFoundations,
  foundations: ReadonlyArray<Foundations>,
  maxFoundations: number = READING_FOUNDATIONS
): ReadonlyArray<ReadingStep> => {
  const titleOf = (arxivId: string) => kept.find((k) => k.paper.arxivId === arxivId)?.paper.title ?? arxivId
  const pool = new Map<string, Candidate>()
  for (const f of shared.foundations) {
    if (f.title === undefined) continue
    pool.set(f.openalexId, {
      id: f.openalexId,
      title: f.title,
      year: f.publicationYear,
      citedByCount: f.citedByCount ?? 0,
      citedBy: f.citedBy
    })
  }
  for (const s of kept) {
    const own = foundations.find((f) => f.arxivId === s.paper.arxivId)
    for (const c of own?.citations ?? []) {
      const known = pool.get(c.openalexId)
      if (known !== undefined) {
        if (!known.citedBy.includes(s.paper.arxivId)) pool.set(c.openalexId, { ...known, citedBy: [...known.citedBy, s.paper.arxivId] })
        continue
      }
      pool.set(c.openalexId, { id: c.openalexId, title: c.title, year: c.publicationYear, citedByCount: c.citedByCount, citedBy: [s.paper.arxivId] })
    }
  }
  // a kept paper the others cite is read as a paper, in its own place
  const keptIds = new Set(kept.map((k) => k.paper.arxivId))
  // a year after a paper that cites the work is a bad record (OpenAlex gives word2vec 2025): unknown
  const yearOf = (c: Candidate): number | undefined => {
    const citing = c.citedBy.map((id) => Number(kept.find((k) => k.paper.arxivId === id)?.paper.published.slice(0, 4)))
    return c.year !== undefined && citing.every((y) => !(y < c.year!)) ? c.year : undefined
  }
  const chosen = [...pool.values()]
    .filter((c) => !kept.some((k) => k.paper.title.trim().toLowerCase() === c.title.trim().toLowerCase()))
    .sort((a, b) => b.citedBy.length - a.citedBy.length || b.citedByCount - a.citedByCount || a.id.localeCompare(b.id))
    .slice(0, Math.max(0, maxFoundations))
    .map((c) => ({ ...c, year: yearOf(c) }))
    .sort((a, b) => (a.year ?? 9999) - (b.year ?? 9999) || b.citedByCount - a.citedByCount || a.id.localeCompare(b.id))

  const steps: Array<ReadingStep> = chosen.map((c, i) => {
    const when = c.year === undefined ? "" : i === 0 ? `the oldest foundation (${c.year})` : `from ${c.year}`
    const by = c.citedBy.filter((id) => keptIds.has(id))
    const who = by.length >= 2
      ? `cited by ${by.length} of the kept papers (${naming(by, titleOf)})`
      : `cited by ${naming(by, titleOf)}`
    return new ReadingStep({
      kind: "foundation",
      id: c.id,
      title: c.title,
      ...(c.year === undefined ? {} : { year: c.year }),
      why: `${when === "" ? "A foundation" : `${when.charAt(0).toUpperCase()}${when.slice(1)}`}: ${who}; ${int(c.citedByCount)} citations in all.`
    })
  })
  const sameTitle = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase()
  const mostRelevant = kept[0]?.paper.arxivId
  // oldest first; on the same day the more relevant (kept's own order) first
  const inTime = kept.map((s, rank) => ({ s, rank })).sort((a, b) =>
    a.s.paper.published.slice(0, 10).localeCompare(b.s.paper.published.slice(0, 10)) || a.rank - b.rank
  ).map(({ s }) => s)
  inTime.forEach((s, i) => {
    // the foundations it cites, and the kept papers read before it that it cites
    const cites = foundations.find((f) => f.arxivId === s.paper.arxivId)?.citations ?? []
    const earlier = inTime.slice(0, i).flatMap((k, j) => (cites.some((c) => sameTitle(c.title, k.paper.title)) ? [chosen.length + j + 1] : []))
    const builds = [...chosen.flatMap((c, n) => (c.citedBy.includes(s.paper.arxivId) ? [n + 1] : [])), ...earlier]
    // a relevant paper without a recorded count that takes a place is read in its turn, and says why it is not "kept"
    const unrecorded = s.decision.kind === "impact-not-recorded"
    const place = i === 0 ? unrecorded ? "The earliest paper" : "The earliest kept paper" : "Next in time"
    const rank = s.paper.arxivId === mostRelevant && kept.length > 1 ? `${place}, the most relevant to your note` : place
    const then = `${unrecorded ? `; ${UNRECORDED_STEP}` : ""}${builds.length === 0 ? "" : `; builds on ${stepNumbers(builds)}`}`
    steps.push(
      new ReadingStep({
        kind: "paper",
        id: s.paper.arxivId,
        title: s.paper.title,
        year: Number(s.paper.published.slice(0, 4)),
        why: `${rank} (relevance ${s.judgement.relevance.toFixed(2)})${then}.`
      })
    )
  })
  return steps
}
