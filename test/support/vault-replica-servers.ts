/**
 * Replicas of the tool surfaces of two Obsidian MCP servers that cannot run in
 * this test environment, for profile tests only:
 * - cyanheads/obsidian-mcp-server 3.x (needs Node ≥ 22): obsidian_list_notes,
 *   obsidian_get_note, obsidian_write_note with output schemas and
 *   structuredContent; errors are isError results whose structuredContent does
 *   NOT match the success schema (the trap that makes the SDK's callTool throw).
 * - MarkusPfundstein/mcp-obsidian (Python): obsidian_list_files_in_vault,
 *   obsidian_list_files_in_dir, obsidian_get_file_contents (answers
 *   json.dumps(content)), obsidian_put_content; errors "Error <errorCode>: <message>".
 *
 * Argument and answer shapes follow each project's published source. Both
 * talk to the Local REST API stand-in over HTTP, as the real servers talk to
 * the plugin, so keys and missing notes fail the way they would.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { z } from "zod"

/** Where the replica's REST API is. */
export interface RestTarget {
  readonly baseUrl: string
  readonly apiKey: string
}

const encodePath = (p: string) => p.split("/").map(encodeURIComponent).join("/")

const rest = (target: RestTarget) => async (method: string, path: string, body?: string) => {
  const response = await fetch(`${target.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${target.apiKey}`, ...(body === undefined ? {} : { "Content-Type": "text/markdown" }) },
    ...(body === undefined ? {} : { body })
  })
  const text = await response.text()
  if (!response.ok) {
    let error: { message?: string; errorCode?: number } = {}
    try {
      error = JSON.parse(text)
    } catch {
      // not JSON
    }
    return { ok: false as const, status: response.status, errorCode: error.errorCode ?? -1, message: error.message ?? "<unknown>" }
  }
  return { ok: true as const, text }
}

/** A client-side transport linked to a fresh server. */
const linked = (server: McpServer): Transport => {
  const [client, serverSide] = InMemoryTransport.createLinkedPair()
  void server.connect(serverSide)
  return client
}

/** A replica of obsidian-mcp-server 3.x's three note tools. */
export const cyanheads3Replica = (target: RestTarget): Transport => {
  const call = rest(target)
  const server = new McpServer({ name: "obsidian-mcp-server", version: "3.1.0" })
  const Target = z.object({ type: z.literal("path"), path: z.string() })
  const fail = (reason: string, message: string) => ({
    isError: true,
    content: [{ type: "text" as const, text: `Error: ${message}` }],
    structuredContent: { error: { code: reason === "note_missing" ? -32001 : -32603, reason, message } }
  })
  const failFor = (r: { status: number; message: string }, path: string) =>
    r.status === 404
      ? fail("note_missing", `Note '${path}' not found.`)
      : r.status === 401
      ? fail("unauthorized", "Obsidian rejected the API key (401). Check OBSIDIAN_API_KEY.")
      : fail("upstream_error", r.message)
  server.registerTool("obsidian_get_note", {
    description: "Read a note from the vault.",
    inputSchema: { format: z.enum(["content", "full", "document-map", "section"]), target: Target },
    outputSchema: { result: z.object({ format: z.literal("content"), path: z.string(), content: z.string() }) }
  }, async ({ target: t }) => {
    const r = await call("GET", `/vault/${encodePath(t.path)}`)
    if (!r.ok) return failFor(r, t.path)
    const result = { format: "content" as const, path: t.path, content: r.text }
    return { content: [{ type: "text", text: `**${t.path}** (format: content)\n\n${r.text}` }], structuredContent: { result } }
  })
  server.registerTool("obsidian_write_note", {
    description: "Create or overwrite a note.",
    inputSchema: { target: Target, content: z.string(), overwrite: z.boolean().default(false) },
    outputSchema: { path: z.string(), sectionTargeted: z.boolean(), created: z.boolean() }
  }, async ({ content, overwrite, target: t }) => {
    const exists = await call("GET", `/vault/${encodePath(t.path)}`)
    if (exists.ok && !overwrite) return fail("file_exists", `Note '${t.path}' already exists.`)
    const r = await call("PUT", `/vault/${encodePath(t.path)}`, content)
    if (!r.ok) return failFor(r, t.path)
    const out = { path: t.path, sectionTargeted: false, created: !exists.ok }
    return { content: [{ type: "text", text: `**Wrote ${t.path}**` }], structuredContent: out }
  })
  server.registerTool("obsidian_list_notes", {
    description: "List notes and subdirectories at a vault path.",
    inputSchema: { path: z.string().optional(), depth: z.number().int().min(1).max(20).default(2) },
    outputSchema: {
      path: z.string(),
      entries: z.array(z.object({ path: z.string(), type: z.enum(["file", "directory"]), truncated: z.boolean().optional() }))
    }
  }, async ({ depth, path }) => {
    const entries: Array<{ path: string; type: "file" | "directory"; truncated?: boolean }> = []
    const walk = async (dir: string, level: number): Promise<ReturnType<typeof fail> | undefined> => {
      const r = await call("GET", dir === "" ? "/vault/" : `/vault/${encodePath(dir)}/`)
      if (!r.ok) return failFor(r, dir)
      for (const raw of (JSON.parse(r.text) as { files: Array<string> }).files) {
        const isDir = raw.endsWith("/")
        const full = dir === "" ? raw.replace(/\/$/, "") : `${dir}/${raw.replace(/\/$/, "")}`
        entries.push({ path: full, type: isDir ? "directory" : "file", ...(isDir && level >= depth ? { truncated: true } : {}) })
        if (isDir && level < depth) await walk(full, level + 1)
      }
      return undefined
    }
    const failed = await walk((path ?? "").replace(/^\/+|\/+$/g, ""), 1)
    if (failed !== undefined) return failed
    return { content: [{ type: "text", text: entries.map((e) => e.path).join("\n") }], structuredContent: { path: path ?? "", entries } }
  })
  return linked(server)
}

/** A replica of the Python mcp-obsidian's list/get/put tools. */
export const pythonMcpObsidianReplica = (target: RestTarget): Transport => {
  const call = rest(target)
  const server = new McpServer({ name: "mcp-obsidian", version: "0.2.2" })
  const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] })
  const raise = (r: { errorCode: number; message: string }) => ({ isError: true, ...text(`Error ${r.errorCode}: ${r.message}`) })
  server.tool("obsidian_list_files_in_vault", "Lists all files and directories in the root directory of your Obsidian vault.", {}, async () => {
    const r = await call("GET", "/vault/")
    return r.ok ? text(JSON.stringify((JSON.parse(r.text) as { files: unknown }).files, null, 2)) : raise(r)
  })
  server.tool(
    "obsidian_list_files_in_dir",
    "Lists all files and directories that exist in a specific Obsidian directory.",
    { dirpath: z.string() },
    async ({ dirpath }) => {
      const r = await call("GET", `/vault/${dirpath}/`)
      return r.ok ? text(JSON.stringify((JSON.parse(r.text) as { files: unknown }).files, null, 2)) : raise(r)
    }
  )
  server.tool("obsidian_get_file_contents", "Return the content of a single file in your vault.", { filepath: z.string() }, async ({ filepath }) => {
    const r = await call("GET", `/vault/${encodePath(filepath)}`)
    return r.ok ? text(JSON.stringify(r.text, null, 2)) : raise(r)
  })
  server.tool(
    "obsidian_put_content",
    "Creates a new file, or COMPLETELY OVERWRITES the content of an existing file.",
    { filepath: z.string(), content: z.string() },
    async ({ content, filepath }) => {
      const r = await call("PUT", `/vault/${encodePath(filepath)}`, content)
      return r.ok ? text(`Successfully uploaded content to ${filepath}`) : raise(r)
    }
  )
  return linked(server)
}
