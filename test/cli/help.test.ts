/**
 * `arxiv-companion --help`, `-h`, no arguments and `--version` are answered
 * from static text, without loading the commands: that text must stay what
 * @effect/cli renders from the command tree (without colour when piped).
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../src/cli/commands.js"
import { plain } from "../../src/cli/colour.js"
import { HELP, VERSION } from "../../src/cli/help.js"
import { readableHelp } from "../../src/cli/helpText.js"

const root = join(import.meta.dirname, "..", "..")

/** What @effect/cli prints for these arguments, in this process (its Console writes through `console.log`). */
const rendered = async (args: ReadonlyArray<string>): Promise<string> => {
  let out = ""
  const log = console.log
  console.log = (...parts: Array<unknown>) => void (out += `${parts.map(String).join(" ")}\n`)
  try {
    await Effect.runPromise(runCli(["node", "arxiv-companion", ...args]).pipe(Effect.provide(NodeContext.layer)))
  } finally {
    console.log = log
  }
  return out
}

/** help.ts's HELP for this text: a line per line of help, the version line naming VERSION (so a release needs no regeneration). */
const helpSource = (help: string): string => {
  const versionLine = `arxiv-companion ${VERSION}`
  const lines = help.split("\n")
  assert.include(lines, versionLine, "the help has no version line to take VERSION")
  return "/** The top-level help, a line per line (ANSI styles included). */\n" +
    "export const HELP = [\n" +
    lines.map((l) => l === versionLine ? "  `arxiv-companion ${VERSION}`" : `  ${JSON.stringify(l)}`).join(",\n") +
    "\n].join(\"\\n\")\n"
}

describe("the CLI's static help", () => {
  it("is what @effect/cli renders for --help, and for -h and no arguments alike (UPDATE_CLI_HELP=1 rewrites it)", async () => {
    const help = await rendered(["--help"])
    if (process.env["UPDATE_CLI_HELP"] === "1") {
      const file = join(root, "src", "cli", "help.ts")
      const text = readFileSync(file, "utf8")
      writeFileSync(file, text.slice(0, text.indexOf("/** The top-level help")) + helpSource(help))
    }
    assert.strictEqual(HELP, help, "src/cli/help.ts is stale: UPDATE_CLI_HELP=1 npx vitest run test/cli/help.test.ts")
    assert.strictEqual(await rendered(["-h"]), help)
    assert.strictEqual(await rendered([]), help)
    assert.include(help, "COMMANDS")
  })

  it("the built bin prints it, and the version as @effect/cli does", async () => {
    const bin = (args: ReadonlyArray<string>) => execFileSync(process.execPath, [join(root, "dist", "cli.js"), ...args], { encoding: "utf8" })
    // piped, so without colour (test/cli/messages.test.ts: colour on a terminal) and at 80 columns
    const piped = readableHelp(plain(HELP), 80)
    assert.strictEqual(bin(["--help"]), piped)
    assert.strictEqual(bin(["-h"]), piped)
    assert.strictEqual(bin([]), piped)
    assert.strictEqual(bin(["--version"]), await rendered(["--version"]))
    assert.strictEqual(bin(["--version"]).trim(), VERSION)
    assert.strictEqual(VERSION, (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version)
    // anything else goes to the commands: a subcommand's help is @effect/cli's
    assert.include(bin(["run", "--help"]), "--max-results")
  }, 60_000)
})

describe("help a person reads", () => {
  const bin = (args: ReadonlyArray<string>) => execFileSync(process.execPath, [join(root, "dist", "cli.js"), ...args], { encoding: "utf8" })
  const EXAMPLE_OF: Record<string, RegExp> = {
    run: /^\$ arxiv-companion run "Find papers related to my 'Transformers Concept Note'"/m,
    ask: /^\$ arxiv-companion ask "/m,
    search: /^\$ arxiv-companion search "/m,
    paper: /^\$ arxiv-companion paper 1706\.03762/m,
    bibtex: /^\$ arxiv-companion bibtex 1706\.03762/m,
    ui: /^\$ arxiv-companion ui --vault/m
  }

  it("is wrapped to 80 columns when piped, and lists each command with an example", () => {
    const help = bin(["--help"])
    for (const line of help.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80)
    for (const command of Object.keys(EXAMPLE_OF)) expect(help).toContain(`e.g. arxiv-companion ${command} `)
  })

  for (const command of Object.keys(EXAMPLE_OF)) {
    it(`${command} --help: kinds in words, an example, at most 80 columns`, () => {
      const help = bin([command, "--help"])
      for (const line of help.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80)
      expect(help).toMatch(EXAMPLE_OF[command]!)
      expect(help).not.toContain("A user-defined piece of text.")
      if (command === "run") {
        expect(help).toContain("[--max-results integer]")
        expect(help).toContain("[--relevance-threshold number]")
        expect(help).toContain("[--since YYYY-MM-DD]")
        expect(help).toMatch(/^--max-results integer\n\n {2}An integer\.\n\n {2}Papers kept at most, best first, 1\.\.50 \(default 10\)/m)
      }
    })
  }
})
