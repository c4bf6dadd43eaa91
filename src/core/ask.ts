/**
 * Ask a research question: question → arXiv query → the first results
 * re-ranked by the judge against the question → the top papers.
 *
 * Touches the world only through the ports: QueryBuilderPort writes the
 * query, ArxivPort runs it (one request), LlmJudgePort re-ranks.
 *
 * @since 0.1.0
 */
import { Effect, Option, Schema } from "effect"
import { answerDocument, answerNote, answerNotePath } from "./answerNote.js"
import { buildSearchQuery } from "./arxiv.js"
import * as Dates from "./dates.js"
import {
  type ArxivError,
  InvalidArgument,
  JudgeFailed,
  NotEnoughInformation,
  type PageNotSaved,
  UpstreamUnavailable,
  type VaultError
} from "./errors.js"
import { IsoDate, type Paper } from "./models.js"
import { ArxivPort } from "./ports/ArxivPort.js"
import { LlmJudgePort } from "./ports/LlmJudgePort.js"
import { PagePort, type PublishedPage } from "./ports/PagePort.js"
import { type BuiltQuery, QueryBuilderPort } from "./ports/QueryBuilderPort.js"
import { VaultPort } from "./ports/VaultPort.js"
import { wordCount } from "./question.js"
import { extractiveSummary } from "./summary.js"
import { fitTo } from "./text.js"
import { writeGenerated, type Written } from "./writeBack.js"

/** Limits of one question. */
export class AskOptions extends Schema.Class<AskOptions>("AskOptions")({
  /** Papers kept after re-ranking, 1..20 (default 3). */
  top: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 20)), { default: () => 3 }),
  /** arXiv results re-ranked, 1..50 (default 50). */
  maxResults: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 50)), { default: () => 50 }),
  /** Restrict to any of these categories; empty (default) searches all of arXiv. */
  categories: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /** Only papers first submitted on or after this date. */
  since: Schema.optional(IsoDate)
}) {}

/** One paper of an answer: rank after re-ranking, where arXiv ranked it, and the judge's view. */
export interface AskedPaper {
  readonly paper: Paper
  /** 1-based rank in arXiv's results. */
  readonly searchRank: number
  readonly relevance: number
  readonly rationale: string
  /** A short summary of the paper (whole sentences of its abstract). */
  readonly summary?: string | undefined
}

/** How the query was made and what was sent. */
export interface QueryReport extends Omit<BuiltQuery, "fallback" | "query"> {
  /** The query the builder wrote (before categories and dates were added). */
  readonly written: string
  /** The full search_query arXiv received. */
  readonly sent: string
}

/** The answer to one question. */
export interface AskAnswer {
  readonly question: string
  readonly query: QueryReport
  /** How many papers arXiv says match the query in all. */
  readonly total: number
  /** How many were re-ranked. */
  readonly candidates: number
  readonly judge: string
  /** The top papers, most relevant first. */
  readonly papers: ReadonlyArray<AskedPaper>
  /** Said when the answer is empty: why, and what to try. */
  readonly message?: string | undefined
}

/** Errors of `askArxiv`. */
export type AskError = NotEnoughInformation | ArxivError | JudgeFailed

/** Whether arXiv refused the query itself (syntax, unknown field), as opposed to being unavailable. */
const rejectedQuery = (e: ArxivError): boolean =>
  (e instanceof InvalidArgument && e.argument === "query") || (e instanceof UpstreamUnavailable && e.status === 400)

/**
 * Answer a research question with the most relevant arXiv papers.
 *
 * NotEnoughInformation for an empty or one-word question, or one that names
 * nothing to search for. A query arXiv rejects is replaced once by the
 * rule-based query (when the builder gave one), and the report says so. No
 * results is an empty, successful answer with a `message`.
 */
export const askArxiv = Effect.fn("Ask.run")(function*(question: string, options: AskOptions = new AskOptions({})) {
  const words = wordCount(question)
  if (words < 2) {
    return yield* new NotEnoughInformation({
      detail: words === 0
        ? "the question is empty. Ask what you want to find, e.g. \"what are the main ways to stabilise GAN training?\""
        : `"${question.trim()}" is one word. Say what you want to know about it, e.g. "how is ${question.trim()} trained?" or "papers by <author> on ${question.trim()}".`
    })
  }
  const builder = yield* QueryBuilderPort
  const arxiv = yield* ArxivPort
  const judge = yield* LlmJudgePort

  const built = yield* builder.build(question)
  const notes = [...built.notes]
  let written = built.query
  let fellBack = built.fellBack
  const search = (query: string) =>
    arxiv.search({ query, categories: options.categories, since: options.since, maxResults: options.maxResults, sortBy: "relevance" })
  const found = yield* search(written).pipe(
    Effect.catchIf(
      (e) => built.fallback !== undefined && rejectedQuery(e),
      (e) => {
        notes.push(`arXiv rejected the query (${e.message}); the rule-based query was sent instead.`)
        written = built.fallback!
        fellBack = true
        return search(written)
      }
    )
  )

  const candidates = found.papers
  const judgements = candidates.length === 0 ? [] : yield* judge.judge(
    { title: question, text: [question, ...built.keywords].join("\n"), keywords: built.keywords },
    candidates
  )
  // judgements are matched by id, so a judge that reorders or skips papers cannot mismatch them
  const byId = new Map(judgements.map((j) => [j.arxivId, j]))
  const unjudged = candidates.filter((p) => !byId.has(p.arxivId)).map((p) => p.arxivId)
  if (unjudged.length > 0) return yield* new JudgeFailed({ model: judge.name, reason: `no judgement for ${unjudged.join(", ")}` })
  const ranked = candidates
    .map((paper, i) => ({ paper, searchRank: i + 1, judgement: byId.get(paper.arxivId)! }))
    .map(({ judgement, paper, searchRank }) => ({ paper, searchRank, relevance: judgement.relevance, rationale: judgement.rationale }))
    .sort((a, b) => b.relevance - a.relevance || a.searchRank - b.searchRank)
    .slice(0, options.top)
    // the shared extractive summariser: whole sentences of the abstract, chosen with the question's key terms
    .map((p) => ({ ...p, summary: extractiveSummary(p.paper, built.keywords).text }))

  const { fallback: _fallback, query: _query, ...how } = built
  return {
    question,
    query: { ...how, fellBack, notes, written, sent: buildSearchQuery(written, options.categories, options.since) },
    total: found.total,
    candidates: candidates.length,
    judge: judge.name,
    papers: ranked,
    ...(ranked.length === 0
      ? { message: "arXiv has no paper matching this query. Try fewer or broader terms, or drop an author or a date." }
      : {})
  } satisfies AskAnswer
}) as (
  question: string,
  options?: AskOptions
) => Effect.Effect<AskAnswer, AskError, QueryBuilderPort | ArxivPort | LlmJudgePort>

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
