#!/usr/bin/env node
/**
 * The `arxiv-companion-mcp` bin: the MCP server over stdio (default) or
 * Streamable HTTP (`--http --port N`, 127.0.0.1 unless `--host`).
 * `--offline` serves the recorded data. In stdio mode stdout carries only
 * the protocol: every log goes to stderr.
 *
 * The server answers `initialize` at once; the adapters' layer is loaded and
 * built on the first tool call, and then kept (one runtime for the process).
 *
 * @since 0.1.0
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { Config, Effect, Exit, Layer, Logger, ManagedRuntime, Option } from "effect"
import { parseArgs } from "node:util"
import { makeMcpServer, type McpPorts, type McpRuntime, SERVER_VERSION } from "./server.js"

const USAGE = `Usage: arxiv-companion-mcp [options]

The arXiv toolset and study companion as an MCP server (stdio by default).

Options:
  --offline          Serve the recorded data (arXiv to April 2017, recorded citations); no network
  --http             Serve Streamable HTTP instead of stdio
  --port N           HTTP port (default 3333; 0 picks a free one)
  --host H           HTTP address to bind (default 127.0.0.1)
  --vault DIR        The Obsidian vault run_companion writes into (or ARXIV_COMPANION_VAULT)
  --judge local|llm  The relevance judge (default: llm when configured, else local)
  --no-cache         Do not keep live responses on disk
  -h, --help         Show this help
  -v, --version      Show the version
`

const stderr = (line: string) => process.stderr.write(`[arxiv-companion-mcp] ${line}\n`)

const parse = () => {
  try {
    return parseArgs({
      options: {
        offline: { type: "boolean" },
        http: { type: "boolean" },
        port: { type: "string" },
        host: { type: "string" },
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
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n\n${USAGE}`)
    process.exit(2)
  }
}

const main = async () => {
  const args = parse()
  if (args.help === true) {
    process.stderr.write(USAGE)
    return
  }
  if (args.version === true) {
    process.stderr.write(`${SERVER_VERSION}\n`)
    return
  }
  if (args.http !== true) {
    // stdout is the protocol: anything a library prints goes to stderr instead
    console.log = console.error
    console.info = console.error
    console.debug = console.error
  }
  const env = Effect.runSync(Effect.all({
    vault: Config.option(Config.string("ARXIV_COMPANION_VAULT")),
    offline: Config.boolean("ARXIV_COMPANION_OFFLINE").pipe(Config.withDefault(false))
  }).pipe(Effect.orElseSucceed(() => ({ vault: Option.none<string>(), offline: false }))))
  const offline = args.offline === true || env.offline
  const vault = args.vault ?? Option.getOrUndefined(env.vault)
  const judge = args.judge === "local" || args.judge === "llm" ? args.judge : undefined
  if (args.judge !== undefined && judge === undefined) {
    process.stderr.write(`--judge must be local or llm\n\n${USAGE}`)
    process.exit(2)
  }
  const port = Number(args.port ?? "3333")
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port must be a port number, got ${args.port}\n`)
    process.exit(2)
  }

  // one runtime for the process, its layer loaded on first use
  let runtime: Promise<ManagedRuntime.ManagedRuntime<McpPorts, unknown>> | undefined
  const getRuntime = () =>
    runtime ??= import("./layer.js").then(({ mcpLayer }) =>
      ManagedRuntime.make(
        Layer.merge(
          mcpLayer({ vault, offline, judge, ...(args["no-cache"] === true ? { cache: false } : {}) }),
          Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.stringLogger))
        )
      )
    )
  const lazyRuntime: McpRuntime = {
    runPromiseExit: (effect, options) =>
      getRuntime().then(
        (rt) => rt.runPromiseExit(effect, options),
        (e: unknown) => Exit.die(e)
      )
  }
  const serverOptions = { offline }

  let close: () => Promise<void>
  if (args.http === true) {
    const { serveHttp } = await import("./http.js")
    const binding = await serveHttp(() => makeMcpServer(lazyRuntime, serverOptions), { host: args.host, port, log: stderr })
    stderr(`listening on ${binding.url}${offline ? " (offline)" : ""}`)
    close = binding.close
  } else {
    const server = makeMcpServer(lazyRuntime, serverOptions)
    const transport = new StdioServerTransport()
    await server.connect(transport)
    close = () => server.close()
    process.stdin.on("end", () => void shutdown())
  }
  // warm the layer in the background so the first call is quick
  setImmediate(() => void getRuntime().catch((e: unknown) => stderr(`could not set up the adapters: ${String(e)}`)))

  let closing = false
  const shutdown = async () => {
    if (closing) return
    closing = true
    await close().catch(() => undefined)
    if (runtime !== undefined) await (await runtime).dispose().catch(() => undefined)
    process.exit(0)
  }
  process.on("SIGINT", () => void shutdown())
  process.on("SIGTERM", () => void shutdown())
}

main().catch((e: unknown) => {
  stderr(`failed to start: ${e instanceof Error ? e.stack ?? e.message : String(e)}`)
  process.exit(1)
})
