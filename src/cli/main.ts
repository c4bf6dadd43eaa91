#!/usr/bin/env node
/**
 * The `arxiv-companion` command line.
 */
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { askCommand } from "./ask.js"
import { runCommand } from "./run.js"
import { bibtexCommand, paperCommand, searchCommand } from "./tools.js"
import { uiCommand } from "./ui.js"

const cli = Command.make("arxiv-companion").pipe(
  Command.withDescription("A study companion for Obsidian concept notes: related arXiv papers, scored and written back."),
  Command.withSubcommands([runCommand, askCommand, searchCommand, paperCommand, bibtexCommand, uiCommand])
)

const main = Command.run(cli, { name: "arxiv-companion", version: "0.1.0" })

main(process.argv).pipe(
  Effect.tapErrorCause(() => Effect.sync(() => { if (process.exitCode === undefined || process.exitCode === 0) process.exitCode = 1 })),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: false, disablePrettyLogger: true })
)
