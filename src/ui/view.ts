/**
 * What the page shows: a companion report or an answer to a question, as
 * plain cards (JSON-ready), so the page's script only lays them out.
 *
 * @since 0.1.0
 */
import { absUrl } from "../core/arxiv.js"
import { countsLine, describeSource } from "../core/compose.js"
import { describeReading, type NoteReading } from "../core/language.js"
import type { CompanionReport, Foundations, ScoredPaper } from "../core/models.js"
import type { AskResult } from "../tools/ask.js"
import { mostRelevantDropped, notKept } from "../tools/companion.js"
import { ordinal } from "../core/rules.js"

/** One paper on the page. */
export interface PaperCard {
  readonly arxivId: string
  readonly title: string
  readonly authors: ReadonlyArray<string>
  readonly year: number | undefined
  readonly published: string
  readonly relevance: number
  readonly novelty?: number | undefined
  readonly rationale: string
  /** What the paper does and its key result, in a few sentences. */
  readonly summary?: string | undefined
  /** Absent for answers to a question (no citation lookup there). */
  readonly impact?: {
    /** One sentence, with the day the paper's age is counted to. */
    readonly text: string
    readonly citationsPerYear?: number | undefined
    readonly citationCount?: number | undefined
    /** Where the count came from, e.g. "Semantic Scholar, recorded 2024-02-15". */
    readonly source?: string | undefined
    /** The day the paper's age was counted to. */
    readonly asOf: string
  } | undefined
  readonly links: { readonly abs: string; readonly pdf: string; readonly doi?: string | undefined }
  /** How it was found: "the arXiv search", "the most cited works on the note's phrases", or both. */
  readonly foundBy?: string | undefined
  /** For a relevant paper without a recorded count that takes a place: its place in keep order, and that it is not counted as kept. */
  readonly place?: string | undefined
  /** The well-established works it builds on (note runs only). */
  readonly foundations?: {
    readonly text: string
    readonly works: ReadonlyArray<{ readonly title: string; readonly year?: number | undefined; readonly citedByCount: number }>
  } | undefined
}

/** How a note in another language was read, as the CLI and the generated note say it. */
export interface LanguageView {
  /** ISO 639-1 code of the note's language (for the page's `lang` attribute on the note's words). */
  readonly code: string
  readonly name: string
  /** The language as the detector said it: "Russian, by eld 2.1 (small)" ("(uncertain)" when it was not sure). */
  readonly detected: string
  /** The CLI's "Note language:" line: the language, its mix, and how it was read. */
  readonly line: string
  /** Who read it: the offline glossary, cognates and transliteration, or the model named. */
  readonly reader: { readonly kind: "offline"; readonly text: string } | { readonly kind: "model"; readonly model: string; readonly text: string }
  /** The English terms read from the note's words, and the words they came from ("(the note)" for a model). */
  readonly terms: ReadonlyArray<{ readonly source: string; readonly english: string; readonly via: string }>
  /** The note's words with no English reading. */
  readonly unread: ReadonlyArray<string>
  /** What happened on the way (a model's retry or fallback, a language without a glossary). */
  readonly notes: ReadonlyArray<string>
}

/** A note run's result. */
export interface NoteView {
  readonly kind: "note"
  readonly note: { readonly title: string; readonly path: string }
  /** The note's language and how it was read; absent for an English note. */
  readonly language?: LanguageView | undefined
  readonly keywords: ReadonlyArray<string>
  readonly query: string
  readonly candidates: number
  /** The run's counts as the note and the CLI say them ("10 kept of the 26 that cleared both bars (…); 16 cut by the cap of 10"). */
  readonly counts: string
  readonly papers: ReadonlyArray<PaperCard>
  /**
   * The relevant papers without a recorded count that take one of the places, as cards right after the kept ones
   * (summary and foundations as a kept paper has them; `place` says why it is not counted as kept).
   */
  readonly placed: ReadonlyArray<PaperCard>
  /** Relevant papers without a recorded count whose relevance places them among the kept, listed right after them. */
  readonly unrecorded: ReadonlyArray<{ readonly arxivId: string; readonly title: string; readonly relevance: number; readonly inPlaces: boolean }>
  /** The most relevant candidates not kept (at most 20, `unrecorded` left out), most relevant first. */
  readonly dropped: ReadonlyArray<{ readonly arxivId: string; readonly title: string; readonly reasons: ReadonlyArray<string> }>
  /** How many candidates were not kept in all (`unrecorded` left out). */
  readonly droppedTotal: number
  /** Papers the note already names: never recommended, listed so the user sees they were recognised. */
  readonly alreadyInNote: ReadonlyArray<{ readonly arxivId: string; readonly title: string }>
  /** The citation map as Mermaid flowchart source; absent when no paper was kept. */
  readonly map?: string | undefined
  /** What writing does: the target note and whether it is created, updated, unchanged or a sibling. */
  readonly write: { readonly path: string; readonly status: CompanionReport["written"]["status"]; readonly pending: boolean }
}

/** An answer to a question. */
export interface AskView {
  readonly kind: "ask"
  readonly question: string
  readonly query: string
  readonly candidates: number
  readonly total: number
  readonly judge: string
  readonly message?: string | undefined
  readonly papers: ReadonlyArray<PaperCard>
  /** Relevant papers without a recorded count whose relevance places them among the top (listed after it). */
  readonly unrecorded: ReadonlyArray<{ readonly arxivId: string; readonly title: string; readonly relevance: number; readonly place: number }>
}

const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim()
const year = (date: string): number | undefined => {
  const y = Number(date.slice(0, 4))
  return Number.isInteger(y) && y > 0 ? y : undefined
}
const links = (id: string, doi?: string) => ({
  abs: absUrl(id),
  pdf: `https://arxiv.org/pdf/${id}`,
  ...(doi === undefined ? {} : { doi: `https://doi.org/${doi}` })
})
const fixed = (n: number, d: number) => n.toFixed(d)
const CHANNELS = {
  "arxiv-search": "the arXiv search",
  "arxiv-title": "the arXiv title search on the note's central concepts and related terms",
  "arxiv-author": "the arXiv search for the authors the note cites",
  "most-cited": "the most cited works on the note's phrases"
} as const

const impactOf = (s: ScoredPaper): PaperCard["impact"] => {
  const i = s.impact
  const source = i.status !== "known" || i.source === undefined ? undefined : describeSource(i.source)
  const text = i.status === "unknown"
    ? i.exempt
      ? `No citation count recorded; a new paper (${fixed(i.ageYears, 1)} years old on ${i.asOf}), exempt from the impact bar`
      : "Impact unknown: no citation count recorded"
    : `${fixed(i.citationsPerYear ?? 0, 1)} citations/year: ${(i.citationCount ?? 0).toLocaleString("en-US")} citations in ${fixed(i.ageYears, 1)} years to ${i.asOf}${
      i.exempt ? " (a new paper, exempt from the impact bar)" : ""
    }`
  return { text, citationsPerYear: i.citationsPerYear, citationCount: i.citationCount, source, asOf: i.asOf }
}

const foundationsOf = (f: Foundations | undefined): PaperCard["foundations"] => {
  const works = (f?.citations ?? []).map((c) => ({
    title: oneLine(c.title) || c.openalexId,
    year: c.publicationYear,
    citedByCount: c.citedByCount
  }))
  const text = f === undefined || f.status === "not-recorded"
    ? "No reference list recorded for this paper."
    : f.status === "unavailable"
    ? `Unavailable this time: ${f.reason ?? "the citation lookup failed"}`
    : works.length > 0
    ? "Builds on:"
    : f.status === "no-references"
    ? "No references listed."
    : "No reference resolved."
  return { text, works }
}

/** What the page says of a note's language: only for a note in another language, as the CLI does. */
export const languageView = (reading: NoteReading | undefined): LanguageView | undefined => {
  if (reading === undefined || reading.detected.language === "en") return undefined
  const d = reading.detected
  const reader: LanguageView["reader"] = reading.reader !== "offline"
    ? { kind: "model", model: reading.reader, text: `the language model ${reading.reader}` }
    : reading.dictionary === "glossary"
    ? { kind: "offline", text: `offline: the ${d.name} glossary, cognates and transliteration` }
    : { kind: "offline", text: `offline: the note's English words only (no ${d.name} glossary offline)` }
  return {
    code: d.language,
    name: d.name,
    detected: `${d.name}${d.reliable ? "" : " (uncertain)"}, by ${d.detector}`,
    line: describeReading(reading),
    reader,
    terms: reading.terms.map((t) => ({ source: t.source, english: t.english, via: t.via })),
    unread: reading.unread,
    notes: reading.notes
  }
}

/** The cards of a companion run (kept papers in the report's order) and what writing it would do. */
export const noteView = (report: CompanionReport, pending: boolean): NoteView => {
  const byId = new Map(report.candidates.map((c) => [c.paper.arxivId, c]))
  const foundations = new Map(report.foundations.map((f) => [f.arxivId, f]))
  const summaries = new Map(report.summaries.map((s) => [s.arxivId, s.text]))
  const language = languageView(report.language)
  // a kept paper's card; a paper that takes a place without a recorded count has the same
  const cardOf = (s: ScoredPaper): PaperCard => {
    const id = s.paper.arxivId
    return {
      arxivId: id,
      title: oneLine(s.paper.title),
      authors: s.paper.authors,
      year: year(s.paper.published),
      published: s.paper.published,
      relevance: s.judgement.relevance,
      novelty: s.judgement.novelty,
      rationale: s.judgement.rationale,
      summary: summaries.get(id),
      impact: impactOf(s),
      links: links(id, s.paper.doi),
      foundBy: (s.foundBy ?? ["arxiv-search"]).map((c) => CHANNELS[c]).join(" and "),
      foundations: foundationsOf(foundations.get(id))
    }
  }
  return {
    kind: "note",
    note: { title: report.note.title, path: report.note.path },
    ...(language === undefined ? {} : { language }),
    keywords: report.keywords,
    query: report.query,
    candidates: report.candidates.length,
    counts: countsLine(report.counts, report.options),
    papers: report.survivors.flatMap((id) => {
      const s = byId.get(id)
      return s === undefined ? [] : [cardOf(s)]
    }),
    placed: report.unrecordedInPlaces.flatMap((id) => {
      const s = byId.get(id)
      const competing = report.counts.clearedBothBars + report.counts.impactNotRecorded
      return s === undefined ? [] : [{
        ...cardOf(s),
        place: `Takes a place${s.decision.rank === undefined ? "" : `: ${ordinal(s.decision.rank)} of ${competing} in keep order`}; impact not recorded, so not counted as kept`
      }]
    }),
    unrecorded: report.unrecordedAmongKept.flatMap((id) => {
      const c = byId.get(id)
      return c === undefined
        ? []
        : [{ arxivId: id, title: oneLine(c.paper.title), relevance: c.judgement.relevance, inPlaces: report.unrecordedInPlaces.includes(id) }]
    }),
    dropped: mostRelevantDropped(report.candidates, undefined, report.unrecordedAmongKept)
      .map((c) => ({ arxivId: c.paper.arxivId, title: oneLine(c.paper.title), reasons: c.decision.reasons })),
    droppedTotal: notKept(report.candidates, report.unrecordedAmongKept).length,
    alreadyInNote: report.alreadyInNote.map((n) => ({ arxivId: n.arxivId, title: oneLine(n.title ?? "") || n.text })),
    ...(report.citationMap === "" ? {} : { map: report.citationMap }),
    write: { path: report.written.path, status: report.written.status, pending }
  }
}

/** The cards of an answer to a question. */
export const askView = (answer: AskResult): AskView => ({
  kind: "ask",
  question: answer.question,
  query: answer.query,
  candidates: answer.candidates,
  total: answer.total,
  judge: answer.judge,
  ...(answer.message === undefined ? {} : { message: answer.message }),
  papers: answer.papers.map((p) => ({
    arxivId: p.arxiv_id,
    title: p.title,
    authors: p.authors,
    year: year(p.published_date),
    published: p.published_date,
    relevance: p.relevance,
    rationale: p.rationale,
    summary: p.summary,
    links: { abs: p.abs_url, pdf: p.pdf_url }
  })),
  unrecorded: answer.unrecorded.map((p) => ({ arxivId: p.arxiv_id, title: p.title, relevance: p.relevance, place: p.place }))
})
