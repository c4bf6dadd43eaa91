/**
 * `arxiv-companion ask "<question>"`: the most relevant arXiv papers for a
 * research question.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Layer, Option } from "effect"
import { askLayer, askSaveLayer, SETUP, speechLayer } from "../layers.js"
import { reportFailure } from "./failure.js"
import { integerFlag, setupFlag } from "./env.js"
import { json, setupFlags, setupOf } from "./run.js"

const question = Args.text({ name: "question" }).pipe(
  Args.withDescription("A research question, e.g. \"what are the main ways to stabilise GAN training?\" or \"papers by Hinton on capsules\"."),
  Args.optional
)
const audio = Options.file("audio").pipe(
  Options.optional,
  Options.withDescription("Ask by voice: a recording of the question (WAV; Ogg, FLAC, AIFF or MP3 with sox). Printed as \"Heard: …\" first.")
)
const speak = Options.boolean("speak").pipe(Options.withDescription("Read the answer aloud (through paplay, aplay, play or ffplay; else says where the audio is)."))
const speakTo = Options.text("speak-to").pipe(
  Options.withPseudoName("file"),
  Options.optional,
  Options.withDescription("Write the spoken answer to this file (.wav, or .ogg); never over an existing file.")
)
const top = integerFlag("top", { min: 1, max: 20, fallback: 3 }, "Papers to answer with, 1..20 (default 3).")
const maxResults = integerFlag("max-results", { min: 1, max: 2000, fallback: 300 }, "Papers the pool's arXiv request asks for and the judge reads, 1..2000 (default 300).")
const categories = Options.text("categories").pipe(
  Options.withPseudoName("list"),
  Options.optional,
  Options.withDescription("Comma-separated arXiv categories to search (default: all).")
)
const since = Options.text("since").pipe(Options.withPseudoName("YYYY-MM-DD"), Options.optional, Options.withDescription("Only papers first submitted on or after YYYY-MM-DD."))

const queryBuilder = setupFlag(SETUP.queryBuilder)
const save = Options.text("save").pipe(
  Options.withPseudoName("title"),
  Options.optional,
  Options.withDescription("Also write the answer as a note with this title into the vault (--vault or ARXIV_COMPANION_VAULT).")
)
const notion = Options.boolean("notion").pipe(
  Options.withDescription("Also publish the answer as a Notion page under NOTION_PARENT_PAGE_ID (needs NOTION_TOKEN).")
)

/** The `ask` command. */
export const askCommand = Command.make(
  "ask",
  { question, audio, speak, speakTo, top, maxResults, categories, since, save, notion, ...setupFlags, json, queryBuilder },
  (a) =>
    Effect.flatMap(Effect.all([Effect.promise(() => import("../tools/ask.js")), Effect.promise(() => import("./voice.js"))]), ([{ askArxivTool, renderAnswer }, voice]) => voice.askedQuestion(a.question, a.audio, a.speakTo, a.json).pipe(Effect.flatMap(({ question, heard }) => askArxivTool({
      question,
      top: a.top,
      max_results: a.maxResults,
      categories: Option.getOrUndefined(Option.map(a.categories, (c) => c.split(",").map((s) => s.trim()).filter((s) => s !== ""))),
      since_date: Option.getOrUndefined(a.since),
      save_as: Option.getOrUndefined(a.save),
      notion: a.notion
    }).pipe(
      Effect.flatMap((r) => Console.log(a.json ? JSON.stringify(heard === undefined ? r : { heard, ...r }, null, 2) : renderAnswer(r)).pipe(Effect.as(r))),
      Effect.flatMap((r) => voice.spokenAnswer(r, a.speak, Option.getOrUndefined(a.speakTo)))
    )),
      Effect.provide(Layer.unwrapEffect(Effect.sync(() => {
        const setup = { ...setupOf(a), queryBuilder: Option.getOrUndefined(a.queryBuilder) }
        return Layer.mergeAll(askLayer(setup), askSaveLayer(setup, { note: Option.isSome(a.save), page: a.notion }), speechLayer())
      }))),
      Effect.catchAll(reportFailure)
    ))
).pipe(Command.withDescription("Ask a research question: the most relevant arXiv papers, re-ranked, with links."))
