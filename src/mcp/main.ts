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
import type { CompanionSetup } from "../layers.js"
import { earlyStdio } from "./earlyStdio.js"
import toolsList from "./tools-list.json" with { type: "json" }
import { initializeResult, instructions, SERVER_CAPABILITIES, SERVER_NAME, SERVER_VERSION } from "./info.js"

const USAGE = `Usage: arxiv-companion-mcp [options]

The arXiv toolset and study companion as an MCP server (stdio by default).

Options:
  --offline          Serve the recorded data (arXiv to April 2017, recorded citations); no network
  --arxiv B          Where arXiv's papers come from: live, corpus, mirror or mirror:DIR (a local mirror,
                     see \`arxiv-companion mirror sync\`), postgres://… (a lab's mirror; \`mirror sync --to\`);
                     or ARXIV_COMPANION_ARXIV; citations stay as chosen
  --http             Serve Streamable HTTP instead of stdio
  --port N           HTTP port (default 3333; 0 picks a free one)
  --host H           HTTP address to bind (default 127.0.0.1); any other address needs a bearer token
  --token T          Bearer token HTTP clients must send (better: ARXIV_COMPANION_MCP_TOKEN); without one,
                     a non-loopback bind generates one and prints it once on stderr
  --allow-origin O   A browser origin allowed to call the HTTP endpoint (repeatable;
                     or ARXIV_COMPANION_MCP_ORIGINS, comma-separated)
  --vault DIR        The Obsidian vault run_companion writes into (or ARXIV_COMPANION_VAULT)
  --judge local|llm  The relevance judge (default: llm when configured, else local)
  --no-cache         Do not keep live responses on disk
  -h, --help         Show this help
  -v, --version      Show the version

Environment: ARXIV_COMPANION_VAULT, ARXIV_COMPANION_ARXIV, ARXIV_COMPANION_OFFLINE=true, ARXIV_COMPANION_JUDGE,
ARXIV_COMPANION_CACHE=false, ARXIV_COMPANION_CACHE_DIR, ARXIV_COMPANION_OFFLINE_CITATIONS,
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
        offline: { type: "boolean" },
        arxiv: { type: "string" },
        http: { type: "boolean" },
        port: { type: "string" },
        host: { type: "string" },
        token: { type: "string" },
        "allow-origin": { type: "string", multiple: true },
        vault: { type: "string" },
        judge: { type: "string" },
        "no-cache": { type: "boolean" },
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
const readConfig = async (overrides: CompanionSetup, arxivFlag: string | undefined) => {
  const [Effect, Cause, Config, Option, Redacted, { ARXIV_BACKEND, describeConfigError, setupConfig }] = await Promise.all([
    import("effect/Effect"),
    import("effect/Cause"),
    import("effect/Config"),
    import("effect/Option"),
    import("effect/Redacted"),
    import("../layers.js")
  ])
  const arxiv = arxivFlag === undefined ? undefined : ARXIV_BACKEND.parse(arxivFlag)
  if (arxivFlag !== undefined && arxiv === undefined) fail(`--arxiv must be ${ARXIV_BACKEND.allowed}, got ${arxivFlag}`)
  const exit = await Effect.runPromiseExit(Config.all({
    setup: setupConfig({ ...overrides, arxiv }),
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
  const judge: "local" | "llm" | undefined = args.judge === undefined
    ? undefined
    : args.judge === "local" || args.judge === "llm"
    ? args.judge
    : fail("--judge must be local or llm")
  const port = Number(args.port ?? "3333")
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, got ${args.port}`)
  // flags override the environment, read through Config as every face reads it (src/layers.ts)
  const configRead = readConfig({
    ...(args.offline === true ? { offline: true } : {}),
    vault: args.vault,
    judge,
    ...(args["no-cache"] === true ? { cache: false } : {})
  }, args.arxiv)
  // over stdio, read stdin at once: `initialize` is answered as soon as the setup says whether the
  // server is offline (at once with --offline, which no setting overrides); the SDK and the tools load meanwhile
  const transport = args.http === true ? undefined : earlyStdio({
    initialize: (version) =>
      args.offline === true
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
