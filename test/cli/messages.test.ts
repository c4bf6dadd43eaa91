/**
 * Messages a person can act on: the built CLI, as a new user drives it.
 * stdout carries only the result; a refused value is one line on stderr
 * naming the flag (or variable), the value and what is allowed.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { type ArxivStandIn, Fault, startArxivStandIn } from "../support/arxiv-standin.js"
import { ROOT, runCli, runCliInTerminal } from "../support/cli.js"

const PROMPT = "Find papers related to my 'Transformers Concept Note'"
const VAULT = join(ROOT, "examples", "vault")
/** What a colour terminal would get: an ANSI escape sequence. */
const ANSI = /\u001b\[/

let work: string
let arxiv: ArxivStandIn
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "companion-messages-"))
  arxiv = await startArxivStandIn({ corpus: "landmarks" })
})
afterAll(async () => {
  await arxiv.close()
  rmSync(work, { recursive: true, force: true })
})

describe("a refused option is one line naming the flag, the value and what is allowed", { timeout: 120_000 }, () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, Record<string, string>, string]> = [
    [["--max-results", "99"], {}, "Invalid --max-results: got 99; use an integer from 1 to 50."],
    [["--max-results", "abc"], {}, `Invalid --max-results: got "abc"; use an integer from 1 to 50.`],
    [["--relevance-threshold", "1.5"], {}, "Invalid --relevance-threshold: got 1.5; use a number from 0 to 1."],
    [["--foundational", "2.5"], {}, "Invalid --foundational: got 2.5; use an integer from 1 to 3."],
    [["--since", "yesterday"], {}, `Invalid --since: got "yesterday"; use a date YYYY-MM-DD, e.g. 2024-01-31.`],
    [[], { MAX_RESULTS: "lots" }, `Invalid MAX_RESULTS: got "lots"; use an integer from 1 to 50.`]
  ]
  for (const [flags, env, message] of cases) {
    it(`${[...flags, ...Object.entries(env).map(([k, v]) => `${k}=${v}`)].join(" ")}`, async () => {
      const r = await runCli(["run", PROMPT, "--vault", VAULT, "--offline", "--json", ...flags], env)
      expect(r.code).toBe(1)
      expect(r.stdout).toBe("")
      expect(r.stderr).toBe(`${message}\n`)
    })
  }
})

describe("the other commands' integer flags are refused the same way", { timeout: 120_000 }, () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
    [["search", "attention", "--max-results", "abc"], `Invalid --max-results: got "abc"; use an integer from 1 to 50.`],
    [["search", "attention", "--max-results", "99"], "Invalid --max-results: got 99; use an integer from 1 to 50."],
    [["ask", "how do transformers work?", "--top", "2.5"], "Invalid --top: got 2.5; use an integer from 1 to 20."],
    [["ask", "how do transformers work?", "--max-results", "0"], "Invalid --max-results: got 0; use an integer from 1 to 2000."]
  ]
  for (const [args, message] of cases) {
    it(args.join(" "), async () => {
      const r = await runCli([...args, "--offline"])
      expect(r.code).toBe(1)
      expect(r.stdout).toBe("")
      expect(r.stderr.trim()).toBe(message)
    })
  }
})

describe("stdout carries only the result", { timeout: 120_000 }, () => {
  it("--vault naming a file: one line on stderr naming --vault, nothing on stdout", async () => {
    const file = join(work, "not-a-folder.md")
    writeFileSync(file, "# a note\n")
    const r = await runCli(["run", PROMPT, "--vault", file, "--offline", "--json"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).toContain("is not a folder")
    expect(r.stderr).toContain("--vault")
  })

  it("an unknown subcommand: stderr says which exist, nothing on stdout", async () => {
    const r = await runCli(["frobnicate"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr).toContain("'run'")
    expect(r.stderr).not.toContain("level=ERROR")
  })

  it("--log-level debug: the log lines go to stderr, stdout stays one JSON document", async () => {
    // the first answer is a 503, so the adapter logs its retry at debug level
    arxiv.failNext(Fault.unavailable())
    const r = await runCli(["search", "attention", "--json", "--log-level", "debug"], {
      ARXIV_API_URL: arxiv.url,
      ARXIV_COMPANION_CONTACT: "tests@example.org",
      ARXIV_COMPANION_CACHE_DIR: join(work, "cache")
    })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/level=DEBUG .*attempt 2\//)
    expect(r.stdout).not.toContain("level=")
    expect(JSON.parse(r.stdout).papers.length).toBeGreaterThan(0)
  })
})

describe("configuration", { timeout: 120_000 }, () => {
  it("an LLM judge asked for but not configured: what to set, in one clean line", async () => {
    const r = await runCli(["run", PROMPT, "--vault", VAULT, "--offline", "--judge", "llm"], {
      OPENROUTER_API_KEY: undefined,
      LLM_BASE_URL: undefined,
      ARXIV_COMPANION_JUDGE: undefined
    })
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(
      "Invalid configuration: No LLM judge is configured: set OPENROUTER_API_KEY (and optionally OPENROUTER_MODEL), " +
        "or LLM_BASE_URL and LLM_MODEL for a local OpenAI-compatible server.\n"
    )
  })
})

describe("a bad environment variable is one line naming it, its value and what is allowed", { timeout: 120_000 }, () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, Record<string, string>, string]> = [
    [["run", PROMPT, "--vault", VAULT], { ARXIV_COMPANION_JUDGE: "foo" }, `Invalid ARXIV_COMPANION_JUDGE: got "foo"; use local or llm.`],
    [["run", PROMPT, "--vault", VAULT], { ARXIV_COMPANION_OFFLINE: "maybe" }, `Invalid ARXIV_COMPANION_OFFLINE: got "maybe"; use true or false.`],
    [
      ["run", PROMPT, "--vault", VAULT, "--offline"],
      { ARXIV_COMPANION_OFFLINE_CITATIONS: "scholar" },
      `Invalid ARXIV_COMPANION_OFFLINE_CITATIONS: got "scholar"; use all, semantic-scholar, google-scholar-2025, google-scholar.`
    ],
    [["search", "attention"], { ARXIV_COMPANION_OFFLINE: "maybe" }, `Invalid ARXIV_COMPANION_OFFLINE: got "maybe"; use true or false.`],
    [["ask", "what is attention", "--offline"], { ARXIV_COMPANION_QUERY_BUILDER: "gpt" }, `Invalid ARXIV_COMPANION_QUERY_BUILDER: got "gpt"; use rules or llm.`]
  ]
  for (const [args, env, message] of cases) {
    it(`${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ")} ${args[0]}`, async () => {
      const r = await runCli(args, env)
      expect(r.code).toBe(1)
      expect(r.stdout).toBe("")
      expect(r.stderr.trim()).toBe(message)
    })
  }

  it("a valid value is still read: ARXIV_COMPANION_OFFLINE=yes searches the recorded corpus", async () => {
    const r = await runCli(["search", "attention", "--json"], { ARXIV_COMPANION_OFFLINE: "yes", ARXIV_API_URL: "http://127.0.0.1:9/" })
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).papers.length).toBeGreaterThan(0)
  })

  it("the MCP bin says which variables are wrong, in words", async () => {
    const r = await new Promise<{ code: number; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [join(ROOT, "dist", "mcp.js")], {
        env: { ...process.env, ARXIV_COMPANION_OFFLINE: "maybe", ARXIV_COMPANION_JUDGE: "x" },
        timeout: 60_000
      }, (error, _stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stderr }))
      child.stdin?.end()
    })
    expect(r.code).toBe(2)
    expect(r.stderr.split("\n")[0]).toBe(
      `configuration: ARXIV_COMPANION_OFFLINE: Expected true or false, got "maybe"; ARXIV_COMPANION_JUDGE: Expected local or llm, got "x"`
    )
  })
})

describe("help", { timeout: 120_000 }, () => {
  // the top-level help is static text (src/cli/main.ts); a command's help is @effect/cli's
  for (const args of [["--help"], ["run", "--help"]]) {
    it(`${args.join(" ")}: plain text when piped`, async () => {
      const r = await runCli(args)
      expect(r.code).toBe(0)
      expect(r.stdout).toContain("--max-results")
      expect(r.stdout).not.toMatch(ANSI)
    })

    it(`${args.join(" ")}: colour on a terminal, none there with NO_COLOR`, async () => {
      const coloured = await runCliInTerminal(args)
      expect(coloured.code).toBe(0)
      expect(coloured.stdout).toContain("--max-results")
      expect(coloured.stdout).toMatch(ANSI)
      const plain = await runCliInTerminal(args, { NO_COLOR: "1" })
      expect(plain.code).toBe(0)
      expect(plain.stdout).toContain("--max-results")
      expect(plain.stdout).not.toMatch(ANSI)
    })
  }
})

describe("a mistyped flag or a bad argument is named as the user typed it", { timeout: 120_000 }, () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
    [["run", PROMPT, "--ofline"], "Received unknown argument: '--ofline'. Did you mean --offline?"],
    [["search", "attention", "--max-result", "3"], "Received unknown argument: '--max-result'. Did you mean --max-results?"],
    [["paper", "--offline", "12345"], `Invalid <arxiv-id>: "12345" is not an arXiv id; use the form 1706.03762 or hep-th/9901001 (arXiv: prefixes, URLs and v2 suffixes are accepted)`],
    [["bibtex", "--offline", "1409.0473", "nope"], `Invalid <arxiv-id>: "nope" is not an arXiv id; use the form 1706.03762 or hep-th/9901001 (arXiv: prefixes, URLs and v2 suffixes are accepted)`],
    // the README's example, as a user without --vault meets it
    [["run", "Find papers related to [[Attention]]", "--max-results", "abc"], `Invalid --max-results: got "abc"; use an integer from 1 to 50.`]
  ]
  for (const [args, message] of cases) {
    it(args.join(" "), async () => {
      const r = await runCli(args, { ARXIV_COMPANION_VAULT: undefined, OBSIDIAN_MCP_URL: undefined, OBSIDIAN_MCP_COMMAND: undefined })
      expect(r.code).toBe(1)
      expect(r.stdout).toBe("")
      expect(r.stderr.trim()).toBe(message)
    })
  }
})
