/**
 * How each Obsidian MCP server spells "list", "read" and "write": one profile
 * per server, chosen from the server's tools/list (or by configuration). The
 * calls are deterministic — no model guesses tool arguments.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { VaultError } from "../../core/errors.js"

/** The profiles this adapter knows. */
export const PROFILE_IDS = [
  "local-rest-api",
  "obsidian-mcp-server-3",
  "obsidian-mcp-server-2",
  "mcp-obsidian-python",
  "mcpvault",
  "server-filesystem"
] as const
/** A profile id (OBSIDIAN_MCP_PROFILE). */
export type ProfileId = typeof PROFILE_IDS[number]

/** What a tool call returned, when it did not fail. */
export interface ToolOutput {
  /** The text content items, joined with newlines. */
  readonly text: string
  /** structuredContent, when the server sent it. */
  readonly structured: unknown
}

/** The operation a call serves, so errors are classified right (a missing note only matters when reading). */
export type Operation = "list" | "read" | "write"

/** Calls one tool; an error result or protocol error fails with a classified VaultError. */
export type CallTool = (
  tool: string,
  args: Record<string, unknown>,
  operation: Operation,
  path?: string
) => Effect.Effect<ToolOutput, VaultError>

/** Tool names of the three operations (overridable by OBSIDIAN_MCP_TOOLS). */
export interface ToolNames {
  readonly list: string
  readonly read: string
  readonly write: string
}

/** The three operations over one server. Paths are vault-relative with `/`. */
export interface ProfileOps {
  /** Every file path in the vault (the adapter keeps the Markdown notes). */
  readonly list: () => Effect.Effect<ReadonlyArray<string>, VaultError>
  /** The note's exact text; NoteNotFound when it is missing. */
  readonly read: (path: string) => Effect.Effect<string, VaultError>
  /** Create or overwrite the note, creating its folders. */
  readonly write: (path: string, content: string) => Effect.Effect<void, VaultError>
}

/** A server profile. */
export interface Profile {
  readonly id: ProfileId
  readonly label: string
  readonly tools: ToolNames
  /** Extra tools that must also be present for detection. */
  readonly requires?: ReadonlyArray<string>
  readonly make: (server: ServerHandle) => Effect.Effect<ProfileOps, VaultError>
}

/** What a profile gets to build its operations. */
export interface ServerHandle {
  readonly call: CallTool
  readonly tools: ToolNames
  /** Every tool the server offers. */
  readonly available: ReadonlySet<string>
  /** The error for an answer the profile cannot read. */
  readonly unreadable: (path: string, out: ToolOutput) => VaultError
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const strings = (u: unknown): ReadonlyArray<string> => (Array.isArray(u) ? u.filter((x): x is string => typeof x === "string") : [])

const normalize = (p: string): string => p.replace(/\\/g, "/").replace(/^\.?\/+/, "").replace(/\/+$/, "")

const join = (dir: string, name: string): string => (dir === "" ? normalize(name) : `${dir}/${normalize(name)}`)

const isSkipped = (name: string): boolean => name.startsWith(".") || name === "node_modules"

/**
 * Walk a vault folder by folder. `listDir` returns a folder's entries, folders
 * ending with "/" (the Local REST API's convention).
 */
const walk = (listDir: (dir: string) => Effect.Effect<ReadonlyArray<string>, VaultError>) =>
  Effect.gen(function*() {
    const files: Array<string> = []
    const queue: Array<string> = [""]
    while (queue.length > 0) {
      const dir = queue.shift()!
      for (const entry of yield* listDir(dir)) {
        const isDir = entry.endsWith("/")
        const name = normalize(entry).split("/").pop() ?? ""
        if (name === "" || isSkipped(name)) continue
        // some servers answer with paths relative to the vault, others with names
        const full = normalize(entry).includes("/") ? normalize(entry) : join(dir, name)
        if (isDir) queue.push(full)
        else files.push(full)
      }
    }
    return files
  })

/** A JSON payload from a tool's structuredContent or its text. */
const payload = (out: ToolOutput): unknown => out.structured ?? parseJson(out.text)

/** The Local REST API plugin's own MCP endpoint (plugin ≥ 4.0, /mcp/). */
const localRestApi: Profile = {
  id: "local-rest-api",
  label: "Obsidian Local REST API (built-in MCP)",
  tools: { list: "vault_list", read: "vault_read", write: "vault_write" },
  make: ({ call, tools, unreadable }) =>
    Effect.succeed({
      list: () =>
        walk((dir) =>
          call(tools.list, dir === "" ? {} : { path: dir }, "list").pipe(
            Effect.map((out) => {
              const p = payload(out)
              return strings(isRecord(p) ? p.files : p)
            })
          )
        ),
      // NoteJson {content, path, frontmatter, ...}; a plain-text answer is taken as the note itself
      read: (path) =>
        call(tools.read, { path }, "read", path).pipe(
          Effect.flatMap((out) => {
            const p = payload(out)
            if (!isRecord(p)) return Effect.succeed(out.text)
            return typeof p.content === "string" ? Effect.succeed(p.content) : Effect.fail(unreadable(path, out))
          })
        ),
      write: (path, content) => call(tools.write, { path, content }, "write", path).pipe(Effect.asVoid)
    })
}

/** cyanheads/obsidian-mcp-server 3.x (Node ≥ 22). */
const cyanheads3: Profile = {
  id: "obsidian-mcp-server-3",
  label: "obsidian-mcp-server 3.x",
  tools: { list: "obsidian_list_notes", read: "obsidian_get_note", write: "obsidian_write_note" },
  make: ({ call, tools, unreadable }) =>
    Effect.succeed({
      list: () =>
        walk((dir) =>
          call(tools.list, dir === "" ? { depth: 1 } : { path: dir, depth: 1 }, "list").pipe(
            Effect.map((out) => {
              const p = payload(out)
              const entries = isRecord(p) && Array.isArray(p.entries) ? p.entries : []
              return entries.flatMap((e) =>
                isRecord(e) && typeof e.path === "string" ? [e.type === "directory" ? `${normalize(e.path)}/` : e.path] : []
              )
            })
          )
        ),
      read: (path) =>
        call(tools.read, { format: "content", target: { type: "path", path } }, "read", path).pipe(
          Effect.flatMap((out) => {
            const p = payload(out)
            const result = isRecord(p) ? p.result : undefined
            return isRecord(result) && typeof result.content === "string"
              ? Effect.succeed(result.content)
              : Effect.fail(unreadable(path, out))
          })
        ),
      write: (path, content) =>
        call(tools.write, { target: { type: "path", path }, content, overwrite: true }, "write", path).pipe(Effect.asVoid)
    })
}

/** Parse obsidian-mcp-server 2.x's box-drawing tree ("├── name", "│   └── sub/") into paths. */
export const parseTree = (tree: string): ReadonlyArray<string> => {
  const files: Array<string> = []
  const stack: Array<string> = []
  for (const line of tree.split("\n")) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.+)$/u.exec(line)
    if (m === null) continue
    const depth = [...m[1]!].length / 4
    const name = m[2]!
    stack.length = depth
    if (name.endsWith("/")) {
      stack.push(name.slice(0, -1))
    } else {
      files.push([...stack, name].join("/"))
    }
  }
  return files
}

/** cyanheads/obsidian-mcp-server 2.x (2.0.7 runs on Node 20). */
const cyanheads2: Profile = {
  id: "obsidian-mcp-server-2",
  label: "obsidian-mcp-server 2.x",
  tools: { list: "obsidian_list_notes", read: "obsidian_read_note", write: "obsidian_update_note" },
  make: ({ call, tools, unreadable }) =>
    Effect.succeed({
      list: () =>
        call(tools.list, { dirPath: "/", recursionDepth: -1 }, "list").pipe(
          Effect.map((out) => {
            const p = payload(out)
            const tree = isRecord(p) && typeof p.tree === "string" ? p.tree : out.text
            return parseTree(tree).filter((f) => f.split("/").every((s) => !isSkipped(s)))
          })
        ),
      read: (path) =>
        call(tools.read, { filePath: path, format: "markdown" }, "read", path).pipe(
          Effect.flatMap((out) => {
            const p = payload(out)
            return isRecord(p) && typeof p.content === "string"
              ? Effect.succeed(p.content)
              : Effect.fail(unreadable(path, out))
          })
        ),
      write: (path, content) =>
        call(tools.write, {
          targetType: "filePath",
          targetIdentifier: path,
          content,
          modificationType: "wholeFile",
          wholeFileMode: "overwrite",
          createIfNeeded: true,
          overwriteIfExists: true
        }, "write", path).pipe(Effect.asVoid)
    })
}

/** MarkusPfundstein/mcp-obsidian (Python, `uvx mcp-obsidian`). */
const pythonMcpObsidian: Profile = {
  id: "mcp-obsidian-python",
  label: "mcp-obsidian (Python)",
  tools: { list: "obsidian_list_files_in_vault", read: "obsidian_get_file_contents", write: "obsidian_put_content" },
  make: ({ available, call, tools }) =>
    Effect.succeed({
      list: () =>
        walk((dir) => {
          if (dir !== "" && !available.has("obsidian_list_files_in_dir")) return Effect.succeed([])
          const request = dir === ""
            ? call(tools.list, {}, "list")
            : call("obsidian_list_files_in_dir", { dirpath: dir }, "list")
          return request.pipe(Effect.map((out) => strings(payload(out))))
        }),
      read: (path) =>
        call(tools.read, { filepath: path }, "read", path).pipe(
          // it answers json.dumps(content): a JSON string literal
          Effect.map((out) => {
            const p = parseJson(out.text)
            return typeof p === "string" ? p : out.text
          })
        ),
      write: (path, content) => call(tools.write, { filepath: path, content }, "write", path).pipe(Effect.asVoid)
    })
}

/** @bitbonsai/mcpvault (formerly @mauricio.wolff/mcp-obsidian), a folder server. */
const mcpvault: Profile = {
  id: "mcpvault",
  label: "MCPVault (@bitbonsai/mcpvault)",
  tools: { list: "list_directory", read: "read_note", write: "write_note" },
  make: ({ available, call, tools }) =>
    Effect.succeed({
      list: () =>
        walk((dir) =>
          call(tools.list, { path: dir === "" ? "/" : dir }, "list").pipe(
            Effect.map((out) => {
              const p = payload(out)
              if (!isRecord(p)) return []
              return [...strings(p.dirs).map((d) => `${d}/`), ...strings(p.files)]
            })
          )
        ),
      // read_note splits frontmatter off; read_note_lines returns the file's exact text
      read: (path) =>
        available.has("read_note_lines")
          ? call("read_note_lines", { path, startLine: 1, endLine: Number.MAX_SAFE_INTEGER }, "read", path).pipe(
            Effect.map((out) => out.text)
          )
          : call(tools.read, { path }, "read", path).pipe(
            Effect.map((out) => {
              const p = payload(out)
              return isRecord(p) && typeof p.content === "string" ? p.content : out.text
            })
          ),
      write: (path, content) => call(tools.write, { path, content, mode: "overwrite" }, "write", path).pipe(Effect.asVoid)
    })
}

/** @modelcontextprotocol/server-filesystem: absolute paths under its allowed directory. */
const serverFilesystem: Profile = {
  id: "server-filesystem",
  label: "MCP filesystem server (@modelcontextprotocol/server-filesystem)",
  tools: { list: "directory_tree", read: "read_text_file", write: "write_file" },
  requires: ["list_allowed_directories", "create_directory"],
  make: ({ call, tools, unreadable }) =>
    Effect.gen(function*() {
      const allowed = yield* call("list_allowed_directories", {}, "list")
      const root = allowed.text.split("\n").map((l) => l.trim()).find((l) => l.startsWith("/") || /^[A-Za-z]:[\\/]/.test(l))
      if (root === undefined) {
        return yield* Effect.fail(unreadable("(allowed directories)", allowed))
      }
      const sep = root.includes("\\") && !root.includes("/") ? "\\" : "/"
      const abs = (path: string) => `${root.replace(/[\\/]+$/, "")}${sep}${path.split("/").join(sep)}`
      type Node = { name?: unknown; type?: unknown; children?: unknown }
      const flatten = (nodes: unknown, prefix: string): Array<string> =>
        Array.isArray(nodes)
          ? nodes.flatMap((n: Node) => {
            if (typeof n?.name !== "string" || isSkipped(n.name)) return []
            const path = prefix === "" ? n.name : `${prefix}/${n.name}`
            return n.type === "directory" ? flatten(n.children, path) : [path]
          })
          : []
      return {
        list: () =>
          call(tools.list, { path: root, excludePatterns: [".*", "node_modules"] }, "list").pipe(
            Effect.map((out) => {
              const p = isRecord(out.structured) && typeof out.structured.content === "string"
                ? parseJson(out.structured.content)
                : parseJson(out.text)
              return flatten(p, "")
            })
          ),
        read: (path) => call(tools.read, { path: abs(path) }, "read", path).pipe(Effect.map((out) => out.text)),
        write: (path, content) =>
          Effect.gen(function*() {
            const slash = path.lastIndexOf("/")
            if (slash > 0) yield* call("create_directory", { path: abs(path.slice(0, slash)) }, "write", path)
            yield* call(tools.write, { path: abs(path), content }, "write", path)
          })
      }
    })
}

/** Every profile, in detection order (most specific tool sets first). */
export const PROFILES: ReadonlyArray<Profile> = [
  localRestApi,
  cyanheads3,
  cyanheads2,
  pythonMcpObsidian,
  mcpvault,
  serverFilesystem
]

/** The first profile whose tools the server offers. */
export const detectProfile = (available: ReadonlySet<string>): Profile | undefined =>
  PROFILES.find((p) =>
    [p.tools.list, p.tools.read, p.tools.write, ...(p.requires ?? [])].every((t) => available.has(t))
  )
