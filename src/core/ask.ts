/**
 * Ask a research question: the question is read as a small concept (its
 * informative terms and phrases weighed against arXiv statistics, the
 * authors it names, quoted phrases, categories and years), then goes through
 * the same stages as a note's run (stages.ts): the pool (one arXiv request),
 * the title search on the central concepts, the most-cited channel, the
 * judge and impact; the top papers are chosen by the keep rule ({@link answerRanking}).
 *
 * Touches the world only through the ports: QueryBuilderPort reads the
 * question (and a model may write the pool's query), ArxivPort searches (at
 * most two requests), OpenAlexPort brings the most cited works and impact,
 * LlmJudgePort judges, TermStatsPort weighs the title search's feedback terms.
 *
 * @since 0.1.0
 */
import { Effect, Option, Schema } from "effect"
import { answerDocument, answerNote, answerNotePath } from "./answerNote.js"
import { buildSearchQuery } from "./arxiv.js"
import type { Channel } from "./channels.js"
import * as Dates from "./dates.js"
import {
  type ArxivError,
  InvalidArgument,
  type JudgeFailed,
  NotEnoughInformation,
  type OpenAlexError,
  type PageNotSaved,
  type VaultError
} from "./errors.js"
import { CompanionOptions, IsoDate, Judgement, type Paper, type ScoredPaper } from "./models.js"
import type { ArxivPort } from "./ports/ArxivPort.js"
import { LlmJudgePort } from "./ports/LlmJudgePort.js"
import { describeReading, englishQuestionOf, isTranslated } from "./language.js"
import { NoteLanguagePort } from "./ports/NoteLanguagePort.js"
import type { OpenAlexPort } from "./ports/OpenAlexPort.js"
import { PagePort, type PublishedPage } from "./ports/PagePort.js"
import { type BuiltQuery, QueryBuilderPort } from "./ports/QueryBuilderPort.js"
import { TermStatsPort } from "./ports/TermStatsPort.js"
import { VaultPort } from "./ports/VaultPort.js"
import { plainlyEnglish, type QuestionConcept, type QuestionFit, questionFit, relevanceOfFit, whyItAnswers, wordCount } from "./question.js"
import { clearedBothBars, keepBest, keepOrder, NEAR_EQUAL_RELEVANCE } from "./rules.js"
import * as Stages from "./stages.js"
import { extractiveSummary } from "./summary.js"
import { fitTo } from "./text.js"
import { writeGenerated, type Written } from "./writeBack.js"

/**
 * How many papers a question's pool asks arXiv for by default. A question names fewer terms than a note, and its
 * answer is a handful: on the 38 tuning questions a pool of 200 to 1000 gave the same answers' recall (top 3 58–59 %,
 * top 10 69 %, eval/ask/README.md), while the local judge's time grows with the pool (half of a cold `ask`).
 */
export const ASK_POOL_SIZE = 300

/** Limits of one question. */
export class AskOptions extends Schema.Class<AskOptions>("AskOptions")({
  /** Papers answered with, 1..20 (default 3). */
  top: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 20)), { default: () => 3 }),
  /** Papers the pool's arXiv request asks for, 1..2000 (default {@link ASK_POOL_SIZE}). */
  maxResults: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 2000)), { default: () => ASK_POOL_SIZE }),
  /** Restrict to any of these categories; empty (default) searches all of arXiv. */
  categories: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /** Only papers first submitted on or after this date. */
  since: Schema.optional(IsoDate),
  /**
   * Order the places after the first three with the field's words too (default true): the words the titles of the
   * most cited relevant papers share, read beside the question's own by a judge that offers it (the local judge).
   * The first three places are always the question's own words'.
   */
  fieldWords: Schema.optionalWith(Schema.Boolean, { default: () => true })
}) {}

/**
 * The field's words (eleventh round, eval/ask/README.md): from the titles of the 10 most cited relevant candidates
 * (by citations a year), the words at least 2 of them share, fewer than 5 % of the reference corpus's abstracts use
 * and the question and its judge words lack, the first 3 by titles × rarity; the first 3 places are never re-ranked.
 * Chosen by leave-one-file-out cross-validation over the 115 tuning questions among k 5/10/20, 2/3 titles, 5 %/2 %,
 * once/twice, the feedback judge's relevance or the larger of both.
 */
const FIELD_WORDS = { papers: 10, least: 2, share: 0.05, count: 3, locked: 3 } as const

/** One paper of an answer: rank after re-ranking, where arXiv ranked it, and the judge's view. */
export interface AskedPaper {
  readonly paper: Paper
  /** 1-based rank in the pool's arXiv results (absent: another channel found it). */
  readonly searchRank?: number | undefined
  readonly relevance: number
  /** How central the paper is to the question, 0..1 (its title names the key terms): weighed into its relevance. */
  readonly centrality: number
  readonly rationale: string
  /** One line saying why it answers the question ("introduced …"). */
  readonly why: string
  /** Citations per year, when a count is recorded. */
  readonly citationsPerYear?: number | undefined
  /** Whether the keep rule kept it (relevance and impact cleared, within the top). */
  readonly kept: boolean
  /** The keep rule's decision: kept, cut by the cap, impact not recorded (relevant, no count) or dropped. */
  readonly decision: ScoredPaper["decision"]["kind"]
  /** For a paper listed after the answer (impact not recorded): the place its relevance alone gives it, 1-based. */
  readonly place?: number | undefined
  /** The channels that found it. */
  readonly foundBy: ReadonlyArray<Channel>
  /** A short summary of the paper (whole sentences of its abstract). */
  readonly summary?: string | undefined
}

/** How the query was made and what was sent. */
export interface QueryReport extends Omit<BuiltQuery, "fallback" | "query" | "concept"> {
  /** The pool's query as the builder wrote it (before categories and dates were added). */
  readonly written: string
  /** The full search_query the pool's request sent. */
  readonly sent: string
  /** The second arXiv request's full search_query (the title or author search), when it was sent. */
  readonly second?: string | undefined
  /** The most-cited channel's search, as the service ran it. */
  readonly cited?: string | undefined
  /**
   * The field's words: those the titles of the answer's most cited relevant papers share and the question lacks,
   * with which the pool was judged again to order the places after the first three (absent: none were used).
   */
  readonly fieldWords?: ReadonlyArray<string> | undefined
}

/** The answer to one question. */
export interface AskAnswer {
  readonly question: string
  readonly query: QueryReport
  /** How many papers arXiv says match the pool's query in all. */
  readonly total: number
  /** How many were judged. */
  readonly candidates: number
  readonly judge: string
  /** The top papers by the keep rule ({@link answerRanking}). */
  readonly papers: ReadonlyArray<AskedPaper>
  /**
   * Relevant papers without a recorded citation count whose relevance alone places them among the top, but that a
   * counted paper of near-equal relevance preceded: listed right after the top (at most `top`), each with its place,
   * so none is lost silently. Empty when there are none.
   */
  readonly unrecorded: ReadonlyArray<AskedPaper>
  /** arXiv requests made for this question (0 when every answer came from the cache). */
  readonly arxivRequests: number
  /** Said when the answer is empty: why, and what to try. */
  readonly message?: string | undefined
}

/** Errors of `askArxiv`. */
export type AskError = NotEnoughInformation | ArxivError | OpenAlexError | JudgeFailed

/** Whether a most-cited work matches what the question requires (authors, quoted phrases, categories, years). */
const admitsQuestion = (concept: QuestionConcept) => (paper: Paper): boolean => {
  const fold = (s: string) => s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
  const authors = paper.authors.map(fold)
  const text = fold(`${paper.title} ${paper.abstract}`).replace(/\s+/g, " ")
  return concept.authors.every((a) => authors.some((name) => name.split(/\s+/).includes(fold(a)) || name.endsWith(` ${fold(a)}`))) &&
    concept.phrases.every((p) => text.includes(fold(p).replace(/\s+/g, " "))) &&
    (concept.categories.length === 0 || paper.categories.length === 0 || paper.categories.some((c) => concept.categories.includes(c))) &&
    (concept.from === undefined || paper.published >= concept.from) &&
    (concept.until === undefined || paper.published <= concept.until)
}

/**
 * A question's answer order of the papers that lead it (those that cleared both bars and the relevant ones without a
 * recorded count): the keep rule's order ({@link keepOrder}, rules.ts): relevance first; within a run of near-equal
 * relevance (each within {@link NEAR_EQUAL_RELEVANCE}, 0.05, of the run's most relevant paper) by citations a year,
 * a paper without a count (new, or not recorded) after the counted ones of its run: a missing count is never read as a
 * low one, so it loses only a near tie. Impact thus reorders papers only within the band: a paper more than 0.05 less
 * relevant than another never comes before it, whatever the counts. Impact weighed on relevance without a bound let a
 * famous paper pass one 0.13 more relevant; bounded by the band, min(0.05, w · log10(1 + citations a year)) for
 * w = 0.01 – 0.1, it answered fewer of the tuning questions' papers than this order (eval/ask/README.md, sixth round).
 *
 * @internal
 */
export const answerRanking = (papers: ReadonlyArray<ScoredPaper>): ReadonlyArray<ScoredPaper> => keepOrder(papers)

/** How many of the concept's keywords the most-cited channel searches for (most informative first). */
const CITED_PHRASES = 4

/**
 * The papers of an answer, by the keep rule (rules.ts): those that cleared both bars and the relevant papers whose
 * citation count is not recorded, in keep order (relevance first; impact breaks near-ties only, and a paper without
 * a count loses only a near tie, as a new paper does: a missing count is never read as a low one, so a clearly more
 * relevant paper is never placed below a counted one), then the others in keep order (every candidate: the answer
 * is the first `top`); how many lead; and the relevant papers without a count whose relevance alone places them
 * among the first `top` but who lost their place by a near tie (`keepBest`'s "listed right after them", at most
 * `top`), so none is lost silently. Never by the upstream's order.
 */
const answerOrder = (
  scored: ReadonlyArray<ScoredPaper>,
  top: number,
  relevanceThreshold: number
): { readonly order: ReadonlyArray<ScoredPaper>; readonly leading: number; readonly listed: ReadonlyArray<ScoredPaper> } => {
  const outcome = keepBest(scored, { maxResults: top, relevanceThreshold })
  const lead = answerRanking(outcome.candidates.filter((s) => clearedBothBars(s) || s.decision.kind === "impact-not-recorded"))
  const shown = new Set(lead.map((s) => s.paper.arxivId))
  const answered = new Set(lead.slice(0, top).map((s) => s.paper.arxivId))
  return {
    order: [...lead, ...keepOrder(outcome.candidates.filter((s) => !shown.has(s.paper.arxivId)))],
    leading: lead.length,
    listed: outcome.unrecordedAmongKept.filter((s) => !answered.has(s.paper.arxivId)).slice(0, top)
  }
}

/** The least a question's weight leaves of a judge's relevance (a paper naming none of its terms). */
const UNFIT = relevanceOfFit(1, { centrality: 0, density: 0, title: 0, covered: 0 })

/**
 * Answer a research question with the papers a student should read.
 *
 * NotEnoughInformation for an empty or one-word question, or one that names
 * nothing to search for. A query arXiv rejects is replaced once by the
 * rule-based query (when the builder gave one), and the report says so. No
 * results is an empty, successful answer with a `message`.
 */
export const askArxiv = (question: string, options: AskOptions = new AskOptions({})) =>
  askArxivTraced(question, options).pipe(Effect.map((t) => t.answer))

/** An answer with how it was reached: every candidate in answer order (for the eval's per-question diagnosis). */
export interface AskTrace {
  readonly answer: AskAnswer
  readonly concept: QuestionConcept
  /** Every judged candidate in answer order (the answer's papers first). */
  readonly order: ReadonlyArray<ScoredPaper>
  /** The judge's own relevance of each candidate, before the question's centrality weighs it. */
  readonly judgeRelevance: ReadonlyMap<string, number>
  readonly centrality: ReadonlyMap<string, number>
  /** Each candidate's fit to the question (centrality, title share, coverage). */
  readonly fits: ReadonlyMap<string, QuestionFit>
  /** Each pool paper's 1-based rank in the pool's arXiv results. */
  readonly poolRank: ReadonlyMap<string, number>
}

/**
 * {@link askArxiv} with its trace: the same answer, plus every candidate in
 * answer order and the judge's relevance before centrality (eval/ask.ts
 * reports where a missed paper ranked and why).
 *
 * @internal
 */
export const askArxivTraced = Effect.fn("Ask.run")(function*(question: string, options: AskOptions = new AskOptions({})) {
  const words = wordCount(question)
  if (words < 2) {
    return yield* new NotEnoughInformation({
      detail: words === 0
        ? "the question is empty. Ask what you want to find, e.g. \"what are the main ways to stabilise GAN training?\""
        : `"${question.trim()}" is one word. Say what you want to know about it, e.g. "how is ${question.trim()} trained?" or "papers by <author> on ${question.trim()}".`
    })
  }
  const builder = yield* QueryBuilderPort
  const thresholds = new CompanionOptions({})
  let arxivRequests = 0
  const count: Stages.Count = (port) => {
    if (port === "arxiv") arxivRequests++
  }

  // 0. a question in another language is read into English terms first (when the layer has a reader), as a note is;
  // a plainly English one needs no reading (the offline reader's detector alone costs half a second to load)
  const reader = yield* Effect.serviceOption(NoteLanguagePort)
  const reading = Option.isSome(reader) && !plainlyEnglish(question) ? yield* reader.value.read({ title: "", text: question }) : undefined
  const translated = reading !== undefined && isTranslated(reading.reading)
  const asked = translated ? englishQuestionOf(reading.text) : question

  // 1. the concept: the question read like a small note (and, with a model, the pool's query it wrote)
  const built = yield* builder.build(asked)
  const concept = built.concept
  const notes = [
    ...(translated ? [`The question is in ${describeReading(reading.reading)}; it was searched as "${asked}".`] : []),
    ...(translated ? reading.reading.notes : []),
    ...built.notes
  ]
  let fellBack = built.fellBack

  // 2. plan and search: the pool, the title search on the central words, the most cited works on the key phrases
  const plan = (query: BuiltQuery["search"]["query"]): Stages.SearchPlan => ({
    query,
    categories: options.categories,
    since: options.since,
    poolSize: options.maxResults,
    keywords: concept.keywords,
    central: concept.central,
    surnames: [],
    required: built.search.required,
    citedPhrases: concept.keywords.slice(0, CITED_PHRASES).map((k) => k.term),
    citedLimit: Stages.CITED_LIMIT,
    admitCited: (p) => Stages.admitFor(options.categories, options.since)(p) && admitsQuestion(concept)(p),
    // the stems the corpus uses beside the question's words widen the title search (the same request)
    widen: (concept.related ?? []).map((s) => `${s}*`)
  })
  const searched = yield* Stages.search({ ...plan(built.search.query), fallback: built.search.fallback }, count)
  if (searched.rejected !== undefined) {
    notes.push(`arXiv rejected the query (${searched.rejected}); the rule-based query was sent instead.`)
    fellBack = true
  }
  const written = searched.rejected === undefined ? built.query : built.fallback ?? built.query

  // 3. judge the pool against the question
  // the judge reads the question's words and the stems the corpus uses beside them (question.ts `relatedStems`)
  const judgeWords = [...built.keywords, ...(concept.related ?? [])]
  const judgeConcept = { title: question, text: judgeWords.join("\n"), keywords: judgeWords }
  const judgedRaw = yield* Stages.judge(judgeConcept, searched.merged.papers, options.top, count)
  // a short question saturates a judge: its relevance is weighed by how much of the question each paper covers
  // and how central it is. The weight is at most 1, so a paper the judge put below the relevance bar stays below
  // it: only the others' fit is read at first (once each; the judgements are rebuilt without re-validating what
  // the judge returned), the rest's only when the answer must reach past the relevant papers.
  const fitOf = questionFit(concept)
  const fits = new Map<string, QuestionFit>()
  const fitCandidates = (raw: Stages.Judged, all: boolean) => {
    for (const p of raw.candidates) {
      if (!fits.has(p.arxivId) && (all || raw.judgements.get(p.arxivId)!.relevance >= thresholds.relevanceThreshold)) {
        fits.set(p.arxivId, fitOf(p))
      }
    }
  }
  // a question is not a note's title: the judge's concept gate (measured on notes, eval/precision/README.md prec13)
  // is not read here, the relevance before it is
  const weighed = (raw: Stages.Judged): Stages.Judged => ({
    ...raw,
    judgements: new Map([...raw.judgements].map(([id, { conceptGate: _, ...j }]) => {
      const fit = fits.get(id)
      return [id, new Judgement({ ...j, relevance: fit === undefined ? j.relevance * UNFIT : relevanceOfFit(j.relevance, fit) }, true)] as const
    }))
  })

  // 4. impact of the relevant candidates (the same whichever irrelevant papers' fit is read), then the keep rule
  const today = yield* Dates.today
  const rank = (raw: Stages.Judged, previous?: Stages.Impacts) =>
    Effect.gen(function*() {
      fitCandidates(raw, false)
      let judged = weighed(raw)
      const found = yield* Stages.impact(judged, searched.merged, thresholds.relevanceThreshold, [], searched.cited?.papers[0]?.impact.source, count, previous)
      let scored = Stages.decideAll(judged, searched.merged, found, today, thresholds)
      let answered = answerOrder(scored, options.top, thresholds.relevanceThreshold)
      if (answered.leading < options.top && fits.size < raw.candidates.length) {
        fitCandidates(raw, true)
        judged = weighed(raw)
        scored = Stages.decideAll(judged, searched.merged, found, today, thresholds)
        answered = answerOrder(scored, options.top, thresholds.relevanceThreshold)
      }
      return { judged, found, scored, answered }
    })
  const first = yield* rank(judgedRaw)
  const judged = first.judged
  let order = first.answered.order
  let listed = first.answered.listed

  // 5. the field's words: the words the titles of the most cited relevant papers share, which the question lacks,
  // read by the judge beside the question's own; the pool judged again with them orders the places after the first
  // three, which stay the question's own (eval/ask/README.md, eleventh round)
  const judgePort = yield* LlmJudgePort
  const termStats = yield* TermStatsPort
  let fieldWords: ReadonlyArray<string> = []
  // (an answer of 3 papers or fewer is the first three: nothing to re-rank)
  if (options.fieldWords && options.top > FIELD_WORDS.locked && judgePort.fieldWords === true && termStats.sharedWords !== undefined) {
    const cited = first.scored
      .filter((s) => s.judgement.relevance >= thresholds.relevanceThreshold && first.found.impacts.has(s.paper.arxivId) && s.impact.citationsPerYear !== undefined)
      .sort((a, b) => b.impact.citationsPerYear! - a.impact.citationsPerYear! || a.paper.arxivId.localeCompare(b.paper.arxivId))
      .slice(0, FIELD_WORDS.papers)
    const words = yield* termStats.sharedWords(cited.map((s) => s.paper.title.replace(/\s+/g, " ")), [question, ...judgeWords], FIELD_WORDS)
    if (words.length > 0) {
      const fed = [...judgeWords, ...words]
      const fedRaw = yield* Stages.judge({ title: question, text: fed.join("\n"), keywords: fed }, searched.merged.papers, options.top, count)
      const second = yield* rank(fedRaw, first.found)
      const locked = order.slice(0, FIELD_WORDS.locked)
      const lockedIds = new Set(locked.map((s) => s.paper.arxivId))
      order = [...locked, ...second.answered.order.filter((s) => !lockedIds.has(s.paper.arxivId))]
      const answeredIds = new Set(order.slice(0, options.top).map((s) => s.paper.arxivId))
      listed = second.answered.listed.filter((s) => !answeredIds.has(s.paper.arxivId))
      fieldWords = words
    }
  }
  const central = new Map([...fits].map(([id, f]) => [id, f.centrality] as const))
  const poolRank = new Map(searched.pool.papers.map((p, i) => [p.arxivId, i + 1]))
  const askedPaper = (s: ScoredPaper): AskedPaper => ({
    paper: s.paper,
    searchRank: poolRank.get(s.paper.arxivId),
    relevance: s.judgement.relevance,
    centrality: central.get(s.paper.arxivId) ?? 0,
    rationale: s.judgement.rationale,
    why: whyItAnswers(s.paper, concept, s.impact.citationsPerYear, s.decision.kind === "impact-not-recorded"),
    ...(s.impact.citationsPerYear === undefined ? {} : { citationsPerYear: s.impact.citationsPerYear }),
    kept: s.decision.kept,
    decision: s.decision.kind,
    ...(s.decision.kind === "impact-not-recorded" && s.decision.rank !== undefined ? { place: s.decision.rank } : {}),
    foundBy: s.foundBy ?? ["arxiv-search"],
    // the shared extractive summariser: whole sentences of the abstract, chosen with the question's key terms
    summary: extractiveSummary(s.paper, built.keywords).text
  })
  const ranked: ReadonlyArray<AskedPaper> = order.slice(0, options.top).map(askedPaper)
  const unrecorded: ReadonlyArray<AskedPaper> = listed.map(askedPaper)

  const { fallback: _fallback, query: _query, concept: _concept, ...how } = built
  const answer = {
    question,
    query: {
      ...how,
      fellBack,
      notes,
      written,
      sent: buildSearchQuery(searched.query, options.categories, options.since),
      ...(searched.second === undefined ? {} : { second: buildSearchQuery(searched.second.query, options.categories, options.since) }),
      ...(searched.cited === undefined ? {} : { cited: searched.cited.query }),
      ...(fieldWords.length === 0 ? {} : { fieldWords })
    },
    total: searched.pool.total,
    candidates: judged.candidates.length,
    judge: judged.judge,
    papers: ranked,
    unrecorded,
    arxivRequests,
    ...(ranked.length === 0
      ? { message: "arXiv has no paper matching this query. Try fewer or broader terms, or drop an author or a date." }
      : {})
  } satisfies AskAnswer
  return {
    answer,
    concept,
    order,
    judgeRelevance: new Map([...judgedRaw.judgements].map(([id, j]) => [id, j.relevance] as const)),
    centrality: central,
    fits,
    poolRank
  } satisfies AskTrace
}) as (
  question: string,
  options?: AskOptions
) => Effect.Effect<AskTrace, AskError, QueryBuilderPort | ArxivPort | OpenAlexPort | LlmJudgePort | TermStatsPort>

/** Where to save an answer. */
export interface SaveTargets {
  /** Write a note with this title into the vault. */
  readonly note?: string | undefined
  /** Publish a page (titled like the note, else by the question). */
  readonly page?: boolean | undefined
}

/** Where an answer was saved. */
export interface Saved {
  readonly note?: Written | undefined
  readonly page?: PublishedPage | undefined
}

const titleOfQuestion = (question: string): string => {
  const flat = question.replace(/\s+/g, " ").trim()
  return fitTo(flat, 100)
}

/**
 * Save an answer: a note in the vault (merged by the safe-write rules: the
 * user's edits are never overwritten) and/or a page (Notion). The vault and
 * the page service are optional services: asking for one that is not
 * provided is an InvalidArgument saying how to configure it.
 */
export const saveAnswer = Effect.fn("Ask.save")(function*(answer: AskAnswer, targets: SaveTargets) {
  let note: Written | undefined
  let page: PublishedPage | undefined
  if (targets.note !== undefined) {
    const title = targets.note.trim()
    if (title === "") return yield* new InvalidArgument({ argument: "save", reason: "the note title is empty; give one, e.g. --save \"GAN training\"" })
    const vault = yield* Effect.serviceOption(VaultPort)
    if (Option.isNone(vault)) {
      return yield* new InvalidArgument({ argument: "save", reason: "no vault is configured; pass --vault DIR or set ARXIV_COMPANION_VAULT" })
    }
    const nowIso = yield* Dates.now
    note = yield* writeGenerated(vault.value, answerNotePath(title), answerNote(answer, title), nowIso, nowIso.slice(0, 10))
  }
  if (targets.page === true) {
    const pages = yield* Effect.serviceOption(PagePort)
    if (Option.isNone(pages)) {
      return yield* new InvalidArgument({ argument: "notion", reason: "no page service is configured; set NOTION_TOKEN and NOTION_PARENT_PAGE_ID" })
    }
    page = yield* pages.value.createPage(targets.note?.trim() || titleOfQuestion(answer.question), answerDocument(answer))
  }
  return { ...(note === undefined ? {} : { note }), ...(page === undefined ? {} : { page }) } satisfies Saved
}) as (answer: AskAnswer, targets: SaveTargets) => Effect.Effect<Saved, InvalidArgument | VaultError | PageNotSaved>
