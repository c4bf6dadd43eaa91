/**
 * ask_arxiv: a research question answered with the most relevant arXiv
 * papers — the one use case behind the library's `askArxiv`, the CLI's
 * `ask` and the MCP tool.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { ASK_POOL_SIZE, type AskAnswer, askArxiv, AskOptions, type Saved, saveAnswer } from "../core/ask.js"
import { absUrl } from "../core/arxiv.js"
import { categoriesArg, dateArg, intArg, promptArg, textArg } from "./arguments.js"
import { MAX_PROMPT_CHARS } from "../core/limits.js"
import { ordinal } from "../core/rules.js"

/** Arguments of {@link askArxivTool} (snake_case, as MCP hosts send them). */
export interface AskInput {
  /** The research question, e.g. "what are the main ways to stabilise GAN training?" */
  readonly question: string
  /** Papers answered with, 1..20 (default 3). */
  readonly top?: number | undefined
  /** Papers the pool's arXiv request asks for and the judge reads, 1..2000 (default 300). */
  readonly max_results?: number | undefined
  /** Only these categories (default: all of arXiv). */
  readonly categories?: ReadonlyArray<string> | undefined
  /** Only papers first submitted on or after YYYY-MM-DD. */
  readonly since_date?: string | undefined
  /** Save the answer as a note with this title in the vault. */
  readonly save_as?: string | undefined
  /** Publish the answer as a Notion page. */
  readonly notion?: boolean | undefined
}

/** One paper of an answer. */
export const AskedPaper = Schema.Struct({
  arxiv_id: Schema.String,
  title: Schema.String,
  authors: Schema.Array(Schema.String),
  published_date: Schema.String,
  relevance: Schema.Number,
  /** Whole sentences of the abstract: what the paper does and its key result. */
  summary: Schema.String,
  /** Why it answers the question, in one line ("introduced …; on …; cited N times a year"). */
  rationale: Schema.String,
  abs_url: Schema.String,
  pdf_url: Schema.String
})

/** A relevant paper without a recorded citation count, listed right after the answer's papers. */
export const UnrecordedPaper = Schema.Struct({
  arxiv_id: Schema.String,
  title: Schema.String,
  relevance: Schema.Number,
  /** Its place by relevance alone (1-based); a counted paper of near-equal relevance came first. */
  place: Schema.Int,
  rationale: Schema.String
})

/** The answer to a question: the query sent and who wrote it, and the top papers. */
export const AskResult = Schema.Struct({
  question: Schema.String,
  /** The search_query of the pool's arXiv request. */
  query: Schema.String,
  /** The second arXiv request's search_query (the title search), when one was sent. */
  second_query: Schema.optional(Schema.String),
  /** The most-cited channel's search, as run. */
  cited_query: Schema.optional(Schema.String),
  /**
   * The field's words: those the most cited relevant papers' titles share and the question lacks, with which the
   * pool was judged again to order the places after the first three (absent: none were used).
   */
  field_words: Schema.optional(Schema.Array(Schema.String)),
  /** Who wrote the query: "rules" or the model. */
  builder: Schema.String,
  /** True when the model's query was unusable and the rule-based one was sent. */
  fell_back: Schema.Boolean,
  /** What happened on the way (a retry, a fallback and why). */
  notes: Schema.Array(Schema.String),
  total: Schema.NonNegativeInt,
  candidates: Schema.NonNegativeInt,
  judge: Schema.String,
  papers: Schema.Array(AskedPaper),
  /** Relevant papers, impact not recorded, whose relevance places them among the top: listed after it. */
  unrecorded: Schema.Array(UnrecordedPaper),
  message: Schema.optional(Schema.String),
  /** The vault note written: path and created/updated/unchanged/kept-user-edits. */
  note: Schema.optional(Schema.Struct({ path: Schema.String, status: Schema.String })),
  notion_url: Schema.optional(Schema.String)
})
export type AskResult = typeof AskResult.Type

const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim()

const paperOf = ({ paper, relevance, summary, why }: AskAnswer["papers"][number]): typeof AskedPaper.Type => ({
  arxiv_id: paper.arxivId,
  title: oneLine(paper.title),
  authors: paper.authors,
  published_date: paper.published,
  relevance: Math.round(relevance * 1000) / 1000,
  summary: summary ?? "",
  rationale: why,
  abs_url: absUrl(paper.arxivId),
  pdf_url: `https://arxiv.org/pdf/${paper.arxivId}`
})

/** The answer as tool data. */
export const toAskResult = (answer: AskAnswer, saved: Saved = {}): AskResult => ({
  question: answer.question,
  query: answer.query.sent,
  ...(answer.query.second === undefined ? {} : { second_query: answer.query.second }),
  ...(answer.query.cited === undefined ? {} : { cited_query: answer.query.cited }),
  ...(answer.query.fieldWords === undefined ? {} : { field_words: answer.query.fieldWords }),
  builder: answer.query.builder,
  fell_back: answer.query.fellBack,
  notes: answer.query.notes,
  total: answer.total,
  candidates: answer.candidates,
  judge: answer.judge,
  papers: answer.papers.map(paperOf),
  unrecorded: answer.unrecorded.map((p) => {
    const { arxiv_id, title, relevance, rationale } = paperOf(p)
    return { arxiv_id, title, relevance, place: p.place ?? answer.papers.length, rationale }
  }),
  ...(answer.message === undefined ? {} : { message: answer.message }),
  ...(saved.note === undefined ? {} : { note: { path: saved.note.path, status: saved.note.status } }),
  ...(saved.page === undefined ? {} : { notion_url: saved.page.url })
})

/** Options of a question from tool arguments (checked; unset ones take the defaults). */
export const askOptions = Effect.fn("Tools.askOptions")(function*(input: Omit<AskInput, "question">) {
  const top = yield* intArg("top", input.top, 1, 20, 3)
  const maxResults = yield* intArg("max_results", input.max_results, 1, 2000, ASK_POOL_SIZE)
  const categories = input.categories === undefined ? [] : yield* categoriesArg(input.categories)
  const since = yield* dateArg("since_date", input.since_date)
  return new AskOptions({ top, maxResults, categories, ...(since === undefined ? {} : { since }) })
})

/**
 * Answer a research question with the most relevant arXiv papers; with
 * `save_as` / `notion`, also save the answer (the vault and the page service
 * are optional services: asking for one that is not provided says how to
 * configure it).
 */
export const askArxivTool = Effect.fn("Tools.askArxiv")(function*(input: AskInput) {
  if (input.question.length > MAX_PROMPT_CHARS) {
    yield* promptArg("question", input.question, "a research question, e.g. \"what are the main ways to stabilise GAN training?\"")
  }
  const options = yield* askOptions(input)
  if (input.save_as !== undefined) yield* textArg("save_as", input.save_as, "a note title, e.g. \"GAN training\"")
  const answer = yield* askArxiv(input.question, options)
  const saved = input.save_as === undefined && input.notion !== true
    ? {}
    : yield* saveAnswer(answer, { note: input.save_as, page: input.notion === true })
  return toAskResult(answer, saved)
})

/** The answer as text: the query sent, then each paper with its links. */
export const renderAnswer = (r: AskResult): string => {
  const lines = [`Question: ${r.question}`, `arXiv query (${r.builder}): ${r.query}`]
  if (r.second_query !== undefined) lines.push(`arXiv title search: ${r.second_query}`)
  if (r.cited_query !== undefined) lines.push(`Most cited: ${r.cited_query}`)
  if (r.field_words !== undefined) lines.push(`The field's words (places 4 on): ${r.field_words.join(", ")}`)
  for (const note of r.notes) lines.push(`  note: ${note}`)
  lines.push(`${r.candidates} candidates (${r.total} matching the query) judged by ${r.judge}.`, "")
  if (r.message !== undefined) lines.push(r.message)
  r.papers.forEach((p, i) => {
    const authors = `${p.authors.slice(0, 3).join(", ")}${p.authors.length > 3 ? " et al." : ""}`
    lines.push(`${i + 1}. ${oneLine(p.title)} (${p.published_date})`)
    lines.push(`   ${authors}`)
    lines.push(`   relevance ${p.relevance.toFixed(2)} · ${p.abs_url} · ${p.pdf_url}`)
    if (p.rationale !== "") lines.push(`   Why: ${oneLine(p.rationale)}`)
    if (p.summary !== "") lines.push(`   ${oneLine(p.summary)}`)
  })
  if (r.unrecorded.length > 0) {
    lines.push("", `Relevant, impact not recorded (by relevance among the top ${r.papers.length}; no citation count to check, so a paper as relevant with a count came first):`)
    for (const p of r.unrecorded) {
      lines.push(`- ${oneLine(p.title)} · by relevance ${ordinal(p.place)} · relevance ${p.relevance.toFixed(2)} · ${absUrl(p.arxiv_id)}`)
      if (p.rationale !== "") lines.push(`  Why: ${oneLine(p.rationale)}`)
    }
  }
  if (r.note !== undefined || r.notion_url !== undefined) lines.push("")
  if (r.note !== undefined) {
    const verb = ({ created: "Wrote", updated: "Updated", unchanged: "Unchanged (no rewrite):" } as Record<string, string>)[r.note.status] ??
      "You edited the saved answer, so it was kept; this answer was written to"
    lines.push(`${verb} ${r.note.path}`)
  }
  if (r.notion_url !== undefined) lines.push(`Notion page: ${r.notion_url}`)
  return lines.join("\n")
}
