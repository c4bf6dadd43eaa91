/**
 * The `arxiv-companion` command tree, and running it. Each command loads
 * the modules it works with when it runs.
 *
 * @since 0.1.0
 */
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { withWaitReporter } from "../core/waiting.js"
import { askCommand } from "./ask.js"
import { digestCommand } from "./digest.js"
import { mirrorCommand } from "./mirror.js"
import { runCommand } from "./run.js"
import { asCli } from "./terminal.js"
import { bibtexCommand, paperCommand, searchCommand } from "./tools.js"
import { uiCommand } from "./ui.js"
import { VERSION } from "./help.js"
import { helpWidth, readableHelp } from "./helpText.js"
import { flagsOf, withSuggestion } from "./suggest.js"

/** Each subcommand's flags, read off its help when a message needs them. */
const SUBCOMMAND_FLAGS: Readonly<Record<string, () => ReadonlyArray<string>>> = {
  run: () => flagsOf(runCommand),
  ask: () => flagsOf(askCommand),
  search: () => flagsOf(searchCommand),
  paper: () => flagsOf(paperCommand),
  bibtex: () => flagsOf(bibtexCommand),
  ui: () => flagsOf(uiCommand),
  digest: () => flagsOf(digestCommand)
}

/** Every command. */
export const cli = Command.make("arxiv-companion").pipe(
  Command.withDescription("A study companion for Obsidian concept notes: related arXiv papers, scored and written back."),
  Command.withSubcommands([runCommand, askCommand, searchCommand, paperCommand, bibtexCommand, uiCommand, mirrorCommand, digestCommand])
)

/**
 * A console whose error lines about an unknown flag or subcommand of `argv`
 * suggest the closest one (@effect/cli's own line, then "Did you mean …?").
 */
const suggesting = (argv: ReadonlyArray<string>) => (base: Console.Console): Console.Console => {
  const typed = argv[2]
  const flags = () => (typed === undefined ? undefined : SUBCOMMAND_FLAGS[typed])?.() ?? flagsOf(cli)
  const fix = (args: ReadonlyArray<unknown>) =>
    args.length === 1 && typeof args[0] === "string"
      ? [withSuggestion(args[0], flags, Object.keys(SUBCOMMAND_FLAGS), typed)]
      : args
  // help (the only output when --help or -h is given) is made readable at the terminal's width
  const helping = argv.slice(2).some((a) => a === "--help" || a === "-h")
  const log = (args: ReadonlyArray<unknown>) =>
    helping && args.length === 1 && typeof args[0] === "string" ? [readableHelp(args[0], helpWidth())] : args
  return { ...base, error: (...args) => base.error(...fix(args)), log: (...args) => base.log(...log(args)) }
}

/** The CLI as @effect/cli runs it. */
export const runCli = Command.run(cli, { name: "arxiv-companion", version: VERSION })

/**
 * Run the command line `argv` (as `process.argv`) to its end, setting the exit
 * code: the result alone on stdout, logs and messages on stderr.
 */
export const main = (argv: ReadonlyArray<string>): void =>
  asCli(Console.consoleWith((base) => Effect.withConsole(runCli(argv), suggesting(argv)(base))).pipe(
    // while a call waits for an upstream (arXiv's slot, a Retry-After, a retry), say so on stderr
    withWaitReporter((wait) => Console.error(wait.message))
  )).pipe(
    Effect.provide(NodeContext.layer),
    NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
  )
