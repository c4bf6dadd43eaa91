#!/usr/bin/env node
/**
 * The `arxiv-companion-mcp` bin: the MCP server over stdio (default) or
 * Streamable HTTP (`--http --port N`, 127.0.0.1 unless `--host`).
 * `--offline` serves the recorded data. In stdio mode stdout carries only
 * the protocol: every log goes to stderr.
 *
 * Start-up is kept short: over stdio the bin answers `initialize` from
 * static data before the MCP SDK and the tools are loaded (with `--offline`
 * before Effect is, otherwise once the setup is read through Config); other
 * requests wait until they are (see earlyStdio.ts). The
 * adapters' layer is built on the first tool call and kept: one runtime for
 * the process.
 *
 * @since 0.1.0
 */
import { parseArgs } from "node:util"
import type { AskSetup } from "../layers.js"
import { SETUP } from "../setup.js"
import { earlyStdio } from "./earlyStdio.js"
import toolsList from "./tools-list.json" with { type: "json" }
import { initializeResult, instructions, SERVER_CAPABILITIES, SERVER_NAME, SERVER_VERSION } from "./info.js"

/** The setup's settings the bin takes as flags (src/setup.ts): each a switch or a value, named and checked as every face does. */
const SWITCHES = { offline: SETUP.offline, cache: SETUP.cache } as const
const VALUES = {
  vault: SETUP.vault,
  arxiv: SETUP.arxiv,
  citations: SETUP.citations,
  offlineCitations: SETUP.offlineCitations,
  judge: SETUP.judge,
  cacheDir: SETUP.cacheDir
} as const

/** One help line a flag, its description wrapped under it. */
const helpLine = (flag: string, description: string): string => {
  const words = description.split(" ")
  const lines: Array<string> = []
  let line = ""
  for (const word of words) {
    if (line !== "" && line.length + word.length + 1 > 88) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  lines.push(line)
  const indent = `\n${" ".repeat(21)}`
  return flag.length < 19 ? `  ${flag.padEnd(19)}${lines.join(indent)}` : `  ${flag}${indent}${lines.join(indent)}`
}

const USAGE = `Usage: arxiv-companion-mcp [options]

The arXiv toolset and study companion as an MCP server (stdio by default).

Options:
${Object.values(SWITCHES).map((s) => helpLine(`--${s.flag}`, s.description)).join("\n")}
${Object.values(VALUES).map((s) => helpLine(`--${s.flag} ${s.pseudoName}`, s.description)).join("\n")}
  --http             Serve Streamable HTTP instead of stdio
  --port N           HTTP port (default 3333; 0 picks a free one)
  --host H           HTTP address to bind (default 127.0.0.1); any other address needs a bearer token
  --token T          Bearer token HTTP clients must send (better: ARXIV_COMPANION_MCP_TOKEN); without one,
                     a non-loopback bind generates one and prints it once on stderr
  --allow-origin O   A browser origin allowed to call the HTTP endpoint (repeatable;
                     or ARXIV_COMPANION_MCP_ORIGINS, comma-separated)
  -h, --help         Show this help
  -v, --version      Show the version

Environment: ${[...Object.values(SWITCHES), ...Object.values(VALUES)].map((s) => s.env).join(", ").replace(/(.{60,}?), /g, "$1,\n")},
ARXIV_COMPANION_MCP_TOKEN, ARXIV_COMPANION_MCP_ORIGINS, and the adapters' own
(ARXIV_API_URL, OPENALEX_API_KEY, OPENROUTER_API_KEY / LLM_BASE_URL, OBSIDIAN_MCP_URL, ...).
`

const stderr = (line: string) => process.stderr.write(`[arxiv-companion-mcp] ${line}\n`)

const fail = (message: string): never => {
  process.stderr.write(`${message}\n\n${USAGE}`)
  process.exit(2)
}

const parse = () => {
  try {
    return parseArgs({
      options: {
        ...Object.fromEntries(Object.values(SWITCHES).map((s) => [s.flag, { type: "boolean" as const }])),
        ...Object.fromEntries(Object.values(VALUES).map((s) => [s.flag, { type: "string" as const }])),
        http: { type: "boolean" },
        port: { type: "string" },
        host: { type: "string" },
        token: { type: "string" },
        "allow-origin": { type: "string", multiple: true },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" }
      },
      strict: true,
      allowPositionals: false
    }).values
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e))
  }
}

/**
 * The setup (the flags, then the environment through `setupConfig`) and the
 * HTTP face's own settings (ARXIV_COMPANION_MCP_TOKEN, ARXIV_COMPANION_MCP_ORIGINS),
 * all read through Config; a bad value ends the bin with what to fix.
 */
const readConfig = async (overrides: AskSetup) => {
  const [Effect, Cause, Config, Option, Redacted, { describeConfigError, setupConfig }] = await Promise.all([
    import("effect/Effect"),
    import("effect/Cause"),
    import("effect/Config"),
    import("effect/Option"),
    import("effect/Redacted"),
    import("../layers.js")
  ])
  const exit = await Effect.runPromiseExit(Config.all({
    setup: setupConfig(overrides),
    environmentToken: Config.option(Config.redacted("ARXIV_COMPANION_MCP_TOKEN")).pipe(
      Config.map((t) => Option.getOrUndefined(Option.filter(Option.map(t, (r) => Redacted.value(r).trim()), (v) => v !== "")))
    ),
    environmentOrigins: Config.option(Config.string("ARXIV_COMPANION_MCP_ORIGINS")).pipe(
      Config.map((o) => Option.getOrElse(o, () => "").split(",").map((x) => x.trim()).filter((x) => x !== ""))
    )
  }))
  if (exit._tag === "Success") return exit.value
  // a bad variable in words (which, what it holds, what it should), not a cause's dump
  const failure = Cause.failureOption(exit.cause)
  return fail(`configuration: ${Option.isSome(failure) ? describeConfigError(failure.value) : Cause.pretty(exit.cause)}`)
}

/** The setup the flags ask for (the environment fills the rest): each value checked by its setting's words. */
const flagSetup = (args: Readonly<Record<string, string | boolean | ReadonlyArray<string> | undefined>>): AskSetup => {
  const setup: Record<string, unknown> = {}
  if (args[SWITCHES.offline.flag] === true) setup.offline = true
  if (args[SWITCHES.cache.flag] === true) setup.cache = false
  for (const [key, s] of Object.entries(VALUES)) {
    const text = args[s.flag]
    if (typeof text !== "string") continue
    const value = s.parse(text)
    if (value === undefined) fail(`--${s.flag} must be ${s.allowed}, got ${text}`)
    setup[key] = value
  }
  return setup as AskSetup
}

const main = async () => {
  const args = parse()
  if (args.help === true) return void process.stderr.write(USAGE)
  if (args.version === true) return void process.stderr.write(`${SERVER_VERSION}\n`)
  if (args.http !== true) {
    // stdout is the protocol: anything a library prints goes to stderr instead
    console.log = console.error
    console.info = console.error
    console.debug = console.error
  }
  const port = Number(args.port ?? "3333")
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, got ${args.port}`)
  // flags override the environment, read through Config as every face reads it (src/layers.ts)
  const overrides = flagSetup(args)
  const configRead = readConfig(overrides)
  // over stdio, read stdin at once: `initialize` is answered as soon as the setup says whether the
  // server is offline (at once with --offline, which no setting overrides); the SDK and the tools load meanwhile
  const transport = args.http === true ? undefined : earlyStdio({
    initialize: (version) =>
      overrides.offline === true
        ? initializeResult(version, true)
        : configRead.then(({ setup }) => initializeResult(version, setup.offline === true)),
    toolsList
  })
  const stdioModules = transport === undefined ? undefined : Promise.all([
    import("@modelcontextprotocol/sdk/server/mcp.js"),
    import("./server.js"),
    import("./runtime.js")
  ])
  const { environmentOrigins, environmentToken, setup } = await configRead
  const offline = setup.offline === true

  let close: () => Promise<void>
  let runtime: { dispose: () => Promise<void>; warm: () => Promise<void> } | undefined
  if (transport === undefined) {
    const [{ isLoopback, serveHttp }, { makeMcpServer }, { lazyRuntime }, { newToken }] = await Promise.all([
      import("./http.js"),
      import("./server.js"),
      import("./runtime.js"),
      import("../http/guard.js")
    ])
    const rt = lazyRuntime(setup)
    runtime = rt
    const host = args.host ?? "127.0.0.1"
    let token = args.token ?? environmentToken
    if (!isLoopback(host)) {
      stderr(
        `warning: serving on ${host}, reachable from other machines. Every request needs the bearer token; ` +
          "run_companion writes into the vault and live calls spend your API keys. Prefer 127.0.0.1 behind an " +
          "authenticating TLS proxy."
      )
      if (token === undefined) {
        token = newToken()
        stderr(`generated a bearer token for this run (shown once): Authorization: Bearer ${token}`)
      }
    }
    const origins = [
      ...(args["allow-origin"] ?? []),
      ...environmentOrigins
    ]
    const binding = await serveHttp(() => makeMcpServer(rt, { offline }), {
      host,
      port,
      token,
      allowedOrigins: origins,
      log: stderr
    })
    stderr(`listening on ${binding.url}${offline ? " (offline)" : ""}${token === undefined ? "" : " (bearer token required)"}`)
    close = binding.close
  } else {
    const [{ McpServer }, { registerAll }, { lazyRuntime }] = await stdioModules!
    const server = new McpServer(
      { name: SERVER_NAME, version: SERVER_VERSION },
      { capabilities: SERVER_CAPABILITIES, instructions: instructions(offline) }
    )
    const rt = lazyRuntime(setup)
    runtime = rt
    registerAll(server, rt)
    await server.connect(transport)
    close = () => server.close()
    process.stdin.on("end", () => void shutdown())
  }
  // build the adapters in the background so the first call is quick
  setTimeout(() => void runtime?.warm().catch((e: unknown) => stderr(`could not set up the adapters: ${String(e)}`)), 50)

  let closing = false
  const shutdown = async () => {
    if (closing) return
    closing = true
    await close().catch(() => undefined)
    await runtime?.dispose().catch(() => undefined)
    process.exit(0)
  }
  process.on("SIGINT", () => void shutdown())
  process.on("SIGTERM", () => void shutdown())
}

main().catch((e: unknown) => {
  stderr(`failed to start: ${e instanceof Error ? e.stack ?? e.message : String(e)}`)
  process.exit(1)
})
