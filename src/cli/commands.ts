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
import { mirrorCommand } from "./mirror.js"
import { runCommand } from "./run.js"
import { asCli } from "./terminal.js"
import { bibtexCommand, paperCommand, searchCommand } from "./tools.js"
import { uiCommand } from "./ui.js"
import { VERSION } from "./help.js"

/** Every command. */
export const cli = Command.make("arxiv-companion").pipe(
  Command.withDescription("A study companion for Obsidian concept notes: related arXiv papers, scored and written back."),
  Command.withSubcommands([runCommand, askCommand, searchCommand, paperCommand, bibtexCommand, uiCommand, mirrorCommand])
)

/** The CLI as @effect/cli runs it. */
export const runCli = Command.run(cli, { name: "arxiv-companion", version: VERSION })

/**
 * Run the command line `argv` (as `process.argv`) to its end, setting the exit
 * code: the result alone on stdout, logs and messages on stderr.
 */
export const main = (argv: ReadonlyArray<string>): void =>
  asCli(runCli(argv).pipe(
    // while a call waits for an upstream (arXiv's slot, a Retry-After, a retry), say so on stderr
    withWaitReporter((wait) => Console.error(wait.message))
  )).pipe(
    Effect.provide(NodeContext.layer),
    NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
  )
