#!/usr/bin/env node
/**
 * The `arxiv-companion` command line. `--help` (or no arguments) and
 * `--version` are answered from static text (src/cli/help.ts, kept identical
 * to what @effect/cli prints by a test; plain text unless stdout is a terminal
 * with colours); everything else loads the commands.
 */
import { colourful, plain } from "./colour.js"
import { HELP, VERSION } from "./help.js"
import { helpWidth, readableHelp } from "./helpText.js"

const args = process.argv.slice(2)
if (args.length === 0 || (args.length === 1 && (args[0] === "--help" || args[0] === "-h"))) {
  process.stdout.write(readableHelp(colourful() ? HELP : plain(HELP), helpWidth()))
} else if (args.length === 1 && args[0] === "--version") {
  process.stdout.write(`${VERSION}\n\n`)
} else {
  void import("./commands.js").then(({ main }) => main(process.argv))
}
