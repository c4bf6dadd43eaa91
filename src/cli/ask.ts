/**
 * `arxiv-companion ask "<question>"`: the most relevant arXiv papers for a
 * research question.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { askLayer } from "../layers.js"
import { type AskResult, askArxivTool } from "../tools/ask.js"
import { reportFailure } from "./failure.js"
import { cacheDir, judge, json, noCache, offline } from "./run.js"

const question = Args.text({ name: "question" }).pipe(
  Args.withDescription("A research question, e.g. \"what are the main ways to stabilise GAN training?\" or \"papers by Hinton on capsules\".")
)
const top = Options.integer("top").pipe(Options.withDefault(3), Options.withDescription("Papers to keep after re-ranking, 1..20 (default 3)."))
const maxResults = Options.integer("max-results").pipe(
  Options.withDefault(50),
  Options.withDescription("arXiv results to re-rank, 1..50 (default 50).")
)
const categories = Options.text("categories").pipe(
  Options.optional,
  Options.withDescription("Comma-separated arXiv categories to search (default: all).")
)
const since = Options.text("since").pipe(Options.optional, Options.withDescription("Only papers first submitted on or after YYYY-MM-DD."))

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim()

/** The answer as text: the query sent, then each paper with its links. */
export const renderAnswer = (r: AskResult): string => {
  const lines = [`Question: ${r.question}`, `arXiv query (${r.query_builder.name}): ${r.query}`]
  for (const note of r.query_builder.notes) lines.push(`  note: ${note}`)
  lines.push(`${r.candidates} of ${r.total} matching papers re-ranked by ${r.judge}.`, "")
  if (r.message !== undefined) lines.push(r.message)
  r.papers.forEach((p, i) => {
    const authors = `${p.authors.slice(0, 3).join(", ")}${p.authors.length > 3 ? " et al." : ""}`
    lines.push(`${i + 1}. ${oneLine(p.title)} (${p.published_date})`)
    lines.push(`   ${authors}`)
    lines.push(`   relevance ${p.relevance.toFixed(2)} · ${p.abs_url} · ${p.pdf_url}`)
    lines.push(`   ${oneLine(p.rationale)}`)
  })
  return lines.join("\n")
}

/** The `ask` command. */
export const askCommand = Command.make(
  "ask",
  { question, top, maxResults, categories, since, offline, json, judge, noCache, cacheDir },
  (a) =>
    askArxivTool({
      question: a.question,
      top: a.top,
      max_results: a.maxResults,
      categories: Option.getOrUndefined(Option.map(a.categories, (c) => c.split(",").map((s) => s.trim()).filter((s) => s !== ""))),
      since_date: Option.getOrUndefined(a.since)
    }).pipe(
      Effect.flatMap((r) => Console.log(a.json ? JSON.stringify(r, null, 2) : renderAnswer(r))),
      Effect.provide(askLayer({
        offline: a.offline,
        judge: Option.getOrUndefined(a.judge),
        cache: a.noCache ? false : undefined,
        cacheDir: Option.getOrUndefined(a.cacheDir)
      })),
      Effect.catchAll(reportFailure)
    )
).pipe(Command.withDescription("Ask a research question: the most relevant arXiv papers, re-ranked, with links."))
