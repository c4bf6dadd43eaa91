/**
 * VaultPort over an Obsidian MCP server, through the MCP SDK Client: a command
 * launched over stdio (OBSIDIAN_MCP_COMMAND) or a Streamable HTTP endpoint
 * (OBSIDIAN_MCP_URL, e.g. the Local REST API plugin's own `/mcp/`).
 *
 * Calls are deterministic: a profile maps list/read/write onto the server's
 * tools, detected from tools/list or set by OBSIDIAN_MCP_PROFILE. Tool results
 * are read raw (not through `callTool`, which rejects some servers' error
 * results), so a missing note, a refused key and an unreachable server stay
 * three distinct typed errors — never an empty note.
 *
 * The connection opens on first use (a prompt that names no note never starts
 * the server) and closes with the layer's scope; a dropped connection is
 * reopened by the next call.
 *
 * @since 0.1.0
 */
import { HttpClient } from "@effect/platform"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { Config, ConfigError, Duration, Effect, Either, Layer, Option, Redacted, SynchronizedRef } from "effect"
import { NoteNotFound, UnsafeWrite, type VaultError, VaultUnauthorized, VaultUnavailable } from "../../core/errors.js"
import { VaultPort, type VaultService } from "../../core/ports/VaultPort.js"
import { firstChars } from "../../core/text.js"
import {
  detectProfile,
  type Operation,
  type Profile,
  type ProfileId,
  PROFILE_IDS,
  type ProfileOps,
  PROFILES,
  type ToolNames,
  type ToolOutput
} from "./McpVaultProfiles.js"
import { VERSION } from "../../version.js"
import { isListedNote, isReadablePath, noteRefOf, sortNotes, titleOf, unsafeWriteReason } from "./vaultPath.js"

/** How to reach the server. */
export type McpConnection =
  | {
    readonly _tag: "Stdio"
    readonly command: string
    readonly args: ReadonlyArray<string>
    /** Extra environment for the child (OBSIDIAN_API_KEY, OBSIDIAN_BASE_URL, ...). */
    readonly env?: Readonly<Record<string, string>>
    readonly cwd?: string
  }
  | {
    readonly _tag: "Http"
    readonly url: string
    readonly apiKey?: Redacted.Redacted<string>
  }
  | {
    /** A ready transport (tests, embedding in a host that already has one). */
    readonly _tag: "Transport"
    readonly name: string
    readonly make: () => Transport
  }

/** Options of the MCP vault. */
export interface McpVaultOptions {
  readonly connection: McpConnection
  /** Force a profile instead of detecting it from tools/list. */
  readonly profile?: ProfileId
  /** Rename the profile's list/read/write tools (servers behind a prefixing proxy). */
  readonly tools?: Partial<ToolNames>
  /** Per request; default 30 s. */
  readonly timeout?: Duration.DurationInput
  /**
   * The Local REST API base URL and key, checked with `GET /` before a stdio
   * server is launched, so a stopped Obsidian or a wrong key is told apart at
   * once (obsidian-mcp-server 2.x would retry for 15 s, then just exit).
   */
  readonly restApi?: { readonly baseUrl: string; readonly apiKey?: Redacted.Redacted<string> }
}

const describeConnection = (c: McpConnection): string =>
  c._tag === "Stdio"
    ? `MCP server \`${[c.command, ...c.args].join(" ")}\``
    : c._tag === "Http"
    ? `MCP endpoint ${c.url}`
    : c.name

/**
 * The MCP SDK's client and zod, loaded on the first connection: a process
 * that never reaches a vault over MCP never loads them.
 */
const loadSdk = Effect.promise(async () => {
  const [client, stdio, http, { z }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("zod")
  ])
  /** A lenient tools/call result: any content, structuredContent kept raw, isError kept. */
  const RawToolResult = z.object({
    content: z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough()).optional(),
    structuredContent: z.unknown().optional(),
    isError: z.boolean().optional()
  }).passthrough()
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    RawToolResult
  }
})
type Sdk = Effect.Effect.Success<typeof loadSdk>

const UNAUTHORIZED = /unauthori[sz]ed|\b401\b|40101|invalid api key|authorization required|authentication (?:failed|issue|required)|\bforbidden\b|\b403\b|api key/i
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|network error|no response received|fetch failed|socket hang up|not running|timed? ?out|\b503\b|service unavailable|request failed|connection closed|max retries exceeded/i
/** Undici's words for a keep-alive connection the server had closed when the request went out on it. */
const STALE_CONNECTION = /UND_ERR_SOCKET|other side closed/
const TLS_PROBLEM = /cert|self.signed|\bTLS\b|\bSSL\b|signature/i
const MISSING = /not[ _-]?found|no such file|ENOENT|does not exist|doesn't exist|note_missing|40400|\b404\b/i

/** Shell-like split of a command line: spaces separate, quotes group, backslash escapes. */
export const splitCommand = (line: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  let current = ""
  let quote: "'" | "\"" | undefined
  let started = false
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
      else if (ch === "\\" && quote === "\"" && i + 1 < line.length) current += line[++i]
      else current += ch
    } else if (ch === "'" || ch === "\"") {
      quote = ch
      started = true
    } else if (ch === "\\" && i + 1 < line.length) {
      current += line[++i]
      started = true
    } else if (/\s/.test(ch)) {
      if (started) out.push(current)
      current = ""
      started = false
    } else {
      current += ch
      started = true
    }
  }
  if (started) out.push(current)
  return out
}

interface Live {
  readonly client: Client
  /** Ends the session (HTTP: DELETE, so the server frees it) and closes the client (stdio: stops the child). */
  readonly close: Effect.Effect<void>
  readonly ops: ProfileOps
  readonly profile: Profile
  readonly isOpen: () => boolean
}

/**
 * Build the MCP vault. Nothing is launched or dialled until the first call;
 * the connection is closed when the surrounding scope closes.
 */
export const make = Effect.fn("McpVault.make")(function*(options: McpVaultOptions) {
  const name = describeConnection(options.connection)
  const timeoutMs = Duration.toMillis(Duration.decode(options.timeout ?? Duration.seconds(30)))
  const c = options.connection
  const secrets = [
    c._tag === "Http" && c.apiKey !== undefined ? Redacted.value(c.apiKey) : undefined,
    c._tag === "Stdio" ? c.env?.OBSIDIAN_API_KEY : undefined,
    options.restApi?.apiKey === undefined ? undefined : Redacted.value(options.restApi.apiKey)
  ].filter((k): k is string => k !== undefined && k.length >= 4)
  const scrub = (text: string): string =>
    firstChars(secrets.reduce((t, key) => t.split(key).join("***"), text).replace(/Bearer\s+\S+/gi, "Bearer ***"), 1000)

  const unavailable = (reason: string) => new VaultUnavailable({ vault: name, reason: scrub(reason) })
  const unauthorized = (reason: string) => new VaultUnauthorized({ vault: name, reason: scrub(reason) })

  /** Translate an error message from a server or the transport. */
  const classify = (text: string, operation: Operation | "connect", path?: string): VaultError => {
    if (UNAUTHORIZED.test(text)) return unauthorized(text)
    if (UNREACHABLE.test(text)) return unavailable(text)
    if (operation === "read" && path !== undefined && MISSING.test(text)) {
      return new NoteNotFound({ title: titleOf(path), closest: [] })
    }
    return unavailable(operation === "connect" ? text : `the server refused to ${operation}${path === undefined ? "" : ` "${path}"`}: ${text}`)
  }

  const errorText = (error: unknown): string => {
    if (error instanceof Error) {
      const cause = (error as { cause?: unknown }).cause
      const code = (error as { code?: unknown }).code
      const causeText = cause instanceof Error ? ` (${(cause as { code?: string }).code ?? cause.message})` : ""
      const status = typeof code === "number" && code >= 100 && code < 600 ? ` HTTP ${code}` : ""
      return `${error.message}${status}${causeText}`
    }
    return String(error)
  }

  const httpClient = yield* Effect.serviceOption(HttpClient.HttpClient)

  /** GET / of the Local REST API: not answering → Unavailable, authenticated:false → Unauthorized. */
  const preflight = Effect.gen(function*() {
    if (options.restApi === undefined || Option.isNone(httpClient)) return
    const { apiKey, baseUrl } = options.restApi
    const url = `${baseUrl.replace(/\/+$/, "")}/`
    const request = httpClient.value.get(url, {
      headers: apiKey === undefined ? {} : { authorization: `Bearer ${Redacted.value(apiKey)}` }
    }).pipe(
      Effect.flatMap((response) => response.json),
      Effect.timeout(Duration.seconds(10)),
      Effect.either
    )
    const result = yield* request
    if (result._tag === "Left") {
      const error = result.left
      const text = errorText(error)
      // a TLS complaint (self-signed certificate) says nothing about Obsidian: let the server try
      if (TLS_PROBLEM.test(text)) return
      const refused = error._tag === "TimeoutException" || (error._tag === "RequestError" && error.reason === "Transport")
      if (refused) {
        return yield* unavailable(
          `Obsidian's Local REST API does not answer at ${url}. Open Obsidian and enable the Local REST API plugin (or check OBSIDIAN_BASE_URL).`
        )
      }
      return
    }
    const body = result.right as { service?: unknown; authenticated?: unknown }
    if (body?.service === "Obsidian Local REST API" && body.authenticated === false) {
      return yield* unauthorized(`the Local REST API at ${url} did not accept the key`)
    }
  })

  const openTransport = ({ getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport }: Sdk): Transport => {
    const c = options.connection
    switch (c._tag) {
      case "Stdio":
        return new StdioClientTransport({
          command: c.command,
          args: [...c.args],
          env: { ...getDefaultEnvironment(), ...c.env },
          ...(c.cwd === undefined ? {} : { cwd: c.cwd }),
          stderr: "pipe"
        })
      case "Http":
        return new StreamableHTTPClientTransport(new URL(c.url), {
          requestInit: {
            headers: c.apiKey === undefined ? {} : { Authorization: `Bearer ${Redacted.value(c.apiKey)}` }
          }
        })
      case "Transport":
        return c.make()
    }
  }

  const connect = Effect.gen(function*() {
    if (options.connection._tag === "Stdio") yield* preflight
    const sdk = yield* loadSdk
    const { Client, RawToolResult, StdioClientTransport, StreamableHTTPClientTransport } = sdk
    const transport = openTransport(sdk)
    let stderrTail = ""
    if (transport instanceof StdioClientTransport) {
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderrTail = (stderrTail + chunk.toString("utf8")).slice(-4000)
      })
    }
    const client = new Client({ name: "arxiv-companion", version: VERSION }, { capabilities: {} })
    let open = true
    const failConnect = (error: unknown): VaultError => {
      const text = errorText(error)
      const code = (error as { code?: unknown })?.code
      if (code === 401 || code === 403) {
        const said = /"message"\s*:\s*"([^"]*)"/.exec(text)?.[1]
        return unauthorized(`it answered HTTP ${code}${said === undefined ? "" : ` (${said})`}`)
      }
      if (code === "ENOENT" || /spawn .* ENOENT/.test(text)) {
        return unavailable(`could not start the command (not found). Check OBSIDIAN_MCP_COMMAND: ${text}`)
      }
      if (code === 404) return unavailable(`no MCP endpoint at this URL (${text}). The Local REST API serves it at /mcp/ from plugin 4.0`)
      if (TLS_PROBLEM.test(text)) {
        return unavailable(
          `the server's certificate is not trusted (${text}). For the Local REST API use its HTTP port ` +
            "(http://127.0.0.1:27123/mcp/, enable it in the plugin's settings) or trust its certificate with NODE_EXTRA_CA_CERTS"
        )
      }
      const tail = stderrTail.trim().split("\n").slice(-3).join(" | ")
      const classified = classify(`${text}${tail === "" ? "" : ` — server said: ${tail}`}`, "connect")
      const hint = options.connection._tag === "Http"
        ? "Is Obsidian running with the Local REST API plugin (4.0 or later) enabled, and OBSIDIAN_MCP_URL right?"
        : options.connection._tag === "Stdio"
        ? "Check OBSIDIAN_MCP_COMMAND and what the server needs (a vault path, OBSIDIAN_API_KEY, a running Obsidian)."
        : "Is the server running?"
      return classified._tag === "VaultUnavailable" ? unavailable(`could not connect: ${firstChars(classified.reason, 500)}. ${hint}`) : classified
    }
    yield* Effect.tryPromise({
      try: () => client.connect(transport, { timeout: timeoutMs }),
      catch: failConnect
    }).pipe(Effect.tapError(() => Effect.promise(() => client.close().catch(() => undefined))))
    client.onclose = () => {
      open = false
    }
    const closeClient = Effect.promise(async () => {
      if (open && transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined)
      await client.close().catch(() => undefined)
    })

    const available = new Set<string>()
    let cursor: string | undefined
    do {
      const page = yield* Effect.tryPromise({
        try: () => client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs }),
        catch: failConnect
      }).pipe(Effect.tapError(() => closeClient))
      for (const t of page.tools) available.add(t.name)
      cursor = page.nextCursor
    } while (cursor !== undefined)

    const forced = options.profile === undefined ? undefined : PROFILES.find((p) => p.id === options.profile)
    const profile = forced ?? detectProfile(available)
    if (profile === undefined) {
      yield* closeClient
      return yield* unavailable(
        `its tools (${[...available].slice(0, 12).join(", ")}) match no known Obsidian server. ` +
          `Set OBSIDIAN_MCP_PROFILE to one of ${PROFILE_IDS.join(", ")} and OBSIDIAN_MCP_TOOLS (list=...,read=...,write=...) to map them.`
      )
    }
    const tools: ToolNames = { ...profile.tools, ...options.tools }

    const request = (tool: string, args: Record<string, unknown>) =>
      Effect.tryPromise({
        try: () =>
          client.request(
            { method: "tools/call", params: { name: tool, arguments: args } },
            RawToolResult,
            { timeout: timeoutMs }
          ),
        catch: (error) => error
      })
    const call = (tool: string, args: Record<string, unknown>, operation: Operation, path?: string) =>
      request(tool, args).pipe(
        // An HTTP server closes a keep-alive connection it has not heard on for a while (Node's default: 5 s); a
        // request sent on it in the same instant fails before the server reads it. Sent again on a new
        // connection, once; any other failure is classified as it is.
        Effect.catchIf(
          (error) => options.connection._tag === "Http" && STALE_CONNECTION.test(errorText(error)),
          () => request(tool, args)
        ),
        Effect.mapError((error) => classify(errorText(error), operation, path)),
        Effect.flatMap((result): Effect.Effect<ToolOutput, VaultError> => {
          const text = (result.content ?? []).flatMap((c) => (c.type === "text" && typeof c.text === "string" ? [c.text] : []))
            .join("\n")
          if (result.isError === true) {
            const detail = text === "" ? JSON.stringify(result.structuredContent ?? {}) : text
            return Effect.fail(classify(detail, operation, path))
          }
          return Effect.succeed({ text, structured: result.structuredContent })
        }),
        Effect.withSpan("McpVault.call", { attributes: { tool } })
      )

    const ops = yield* profile.make({
      call,
      tools,
      available,
      unreadable: (path, out) => unavailable(`could not read the server's answer for "${path}": ${firstChars(out.text, 200)}`)
    }).pipe(Effect.tapError(() => closeClient))
    return { client, close: closeClient, ops, profile, isOpen: () => open } satisfies Live
  })

  const state = yield* SynchronizedRef.make(Option.none<Live>())
  yield* Effect.addFinalizer(() =>
    SynchronizedRef.get(state).pipe(
      Effect.flatMap(Option.match({
        onNone: () => Effect.void,
        onSome: (live) => live.close
      }))
    )
  )
  const live = SynchronizedRef.modifyEffect(state, (current) =>
    Option.isSome(current) && current.value.isOpen()
      ? Effect.succeed([current.value, current] as const)
      : connect.pipe(Effect.map((l) => [l, Option.some(l)] as const)))
  const withOps = <A>(f: (ops: ProfileOps) => Effect.Effect<A, VaultError>) => Effect.flatMap(live, (l) => f(l.ops))

  const readNoteIfExists = Effect.fn("McpVault.readNoteIfExists")(function*(path: string) {
    if (!isReadablePath(path)) return Option.none<string>()
    return yield* withOps((ops) => ops.read(path)).pipe(
      Effect.map(Option.some),
      Effect.catchTag("NoteNotFound", () => Effect.succeed(Option.none<string>()))
    )
  })

  const service: VaultService = {
    name,
    listNotes: Effect.fn("McpVault.listNotes")(function*() {
      const files = yield* withOps((ops) => ops.list())
      return sortNotes([...new Set(files)].filter(isListedNote).map(noteRefOf))
    }),
    readNote: Effect.fn("McpVault.readNote")(function*(path: string) {
      const text = yield* readNoteIfExists(path)
      if (Option.isNone(text)) return yield* new NoteNotFound({ title: titleOf(path), closest: [] })
      return text.value
    }),
    readNoteIfExists,
    writeNote: Effect.fn("McpVault.writeNote")(function*(path: string, content: string) {
      const reason = unsafeWriteReason(path)
      if (reason !== undefined) return yield* new UnsafeWrite({ path, reason })
      yield* withOps((ops) => ops.write(path, content))
    })
  }
  return service
})

/** The MCP vault as a VaultPort; the connection lives as long as the layer. HttpClient is optional (preflight only). */
export const layer = (options: McpVaultOptions): Layer.Layer<VaultPort> => Layer.scoped(VaultPort, make(options))

/** The environment variables the MCP vault reads. */
export const ConfigNames = {
  command: "OBSIDIAN_MCP_COMMAND",
  url: "OBSIDIAN_MCP_URL",
  apiKey: "OBSIDIAN_API_KEY",
  baseUrl: "OBSIDIAN_BASE_URL",
  profile: "OBSIDIAN_MCP_PROFILE",
  tools: "OBSIDIAN_MCP_TOOLS",
  timeoutMs: "OBSIDIAN_MCP_TIMEOUT_MS"
} as const

/** Variables passed through to a launched server when set (besides the key and base URL). */
const PASS_THROUGH = ["OBSIDIAN_VERIFY_SSL", "OBSIDIAN_HOST", "OBSIDIAN_PORT", "OBSIDIAN_PROTOCOL", "OBSIDIAN_ENABLE_CACHE"] as const

const parseTools = (spec: string): Partial<ToolNames> => {
  const out: { list?: string; read?: string; write?: string } = {}
  for (const part of spec.split(",")) {
    const [k, v] = part.split("=").map((s) => s.trim())
    if ((k === "list" || k === "read" || k === "write") && v !== undefined && v !== "") out[k] = v
  }
  return out
}

/**
 * Options from the environment: OBSIDIAN_MCP_URL (Streamable HTTP, bearer
 * OBSIDIAN_API_KEY) or OBSIDIAN_MCP_COMMAND (stdio; OBSIDIAN_API_KEY,
 * OBSIDIAN_BASE_URL and OBSIDIAN_VERIFY_SSL/HOST/PORT/PROTOCOL passed through;
 * OBSIDIAN_ENABLE_CACHE defaults to false), OBSIDIAN_MCP_PROFILE,
 * OBSIDIAN_MCP_TOOLS ("list=...,read=...,write=..."), OBSIDIAN_MCP_TIMEOUT_MS.
 * None when neither URL nor command is set.
 */
export const optionsConfig: Config.Config<Option.Option<McpVaultOptions>> = Config.all({
  command: Config.option(Config.string(ConfigNames.command)),
  url: Config.option(Config.string(ConfigNames.url)),
  apiKey: Config.option(Config.redacted(ConfigNames.apiKey)),
  baseUrl: Config.option(Config.string(ConfigNames.baseUrl)),
  profile: Config.option(Config.literal(...PROFILE_IDS)(ConfigNames.profile)),
  tools: Config.option(Config.string(ConfigNames.tools)),
  timeoutMs: Config.option(Config.integer(ConfigNames.timeoutMs)),
  passThrough: Config.all(PASS_THROUGH.map((k) => Config.option(Config.string(k))))
}).pipe(
  Config.map((c): Option.Option<McpVaultOptions> => {
    const common = {
      ...(Option.isSome(c.profile) ? { profile: c.profile.value } : {}),
      ...(Option.isSome(c.tools) ? { tools: parseTools(c.tools.value) } : {}),
      ...(Option.isSome(c.timeoutMs) ? { timeout: Duration.millis(c.timeoutMs.value) } : {})
    }
    if (Option.isSome(c.url)) {
      return Option.some({
        connection: { _tag: "Http", url: c.url.value, ...(Option.isSome(c.apiKey) ? { apiKey: c.apiKey.value } : {}) },
        ...common
      })
    }
    if (Option.isNone(c.command)) return Option.none()
    const [command, ...args] = splitCommand(c.command.value)
    if (command === undefined) return Option.none()
    const env: Record<string, string> = { OBSIDIAN_ENABLE_CACHE: "false" }
    if (Option.isSome(c.apiKey)) env.OBSIDIAN_API_KEY = Redacted.value(c.apiKey.value)
    if (Option.isSome(c.baseUrl)) env.OBSIDIAN_BASE_URL = c.baseUrl.value
    PASS_THROUGH.forEach((k, i) => {
      const v = c.passThrough[i]
      if (v !== undefined && Option.isSome(v)) env[k] = v.value
    })
    return Option.some({
      connection: { _tag: "Stdio", command, args, env },
      ...(Option.isSome(c.baseUrl)
        ? { restApi: { baseUrl: c.baseUrl.value, ...(Option.isSome(c.apiKey) ? { apiKey: c.apiKey.value } : {}) } }
        : {}),
      ...common
    })
  })
)

/**
 * The MCP vault configured from the environment (see `optionsConfig`). Fails
 * with a ConfigError when neither OBSIDIAN_MCP_URL nor OBSIDIAN_MCP_COMMAND is set.
 */
export const layerConfig: Layer.Layer<VaultPort, ConfigError.ConfigError> = Layer.scoped(
  VaultPort,
  Effect.flatMap(
    optionsConfig.pipe(
      Config.mapOrFail(Option.match({
        onNone: () =>
          Either.left(ConfigError.MissingData([], `Set ${ConfigNames.url} or ${ConfigNames.command} to reach the vault over MCP.`)),
        onSome: Either.right
      }))
    ),
    make
  )
)
