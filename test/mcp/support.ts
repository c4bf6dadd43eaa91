/**
 * Helpers for the MCP tests: a real SDK Client linked to the server over
 * InMemoryTransport, on one runtime built from the offline layers.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { type Layer, ManagedRuntime } from "effect"
import { cpSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { allPortsLayer as mcpLayer } from "../../src/layers.js"
import { makeMcpServer, type McpPorts } from "../../src/mcp/server.js"

/** A fresh copy of the demo vault in a temporary folder. */
export const tempVault = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-vault-"))
  cpSync(fileURLToPath(new URL("../../examples/vault", import.meta.url)), dir, { recursive: true })
  return dir
}

/** A connected client and what to close. */
export interface Connected {
  readonly client: Client
  readonly close: () => Promise<void>
  readonly defects: Array<string>
}

/** Connect a client to a server running on `layer` (default: offline over a temp copy of the demo vault). */
export const connect = async (layer?: Layer.Layer<McpPorts, unknown>): Promise<Connected> => {
  const runtime = ManagedRuntime.make(layer ?? mcpLayer({ offline: true, vault: tempVault(), judge: "local" }))
  const defects: Array<string> = []
  const server = makeMcpServer(runtime, { offline: true, logDefect: (context) => defects.push(context) })
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  const client = new Client({ name: "test", version: "0.0.0" })
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)])
  return {
    client,
    defects,
    close: async () => {
      await client.close()
      await server.close()
      await runtime.dispose()
    }
  }
}

/** Call a tool and return its result, typed. */
export const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> =>
  (await client.callTool({ name, arguments: args })) as CallToolResult

/** The text of a result's first content block. */
export const text = (result: CallToolResult): string => {
  const first = result.content[0]
  return first !== undefined && first.type === "text" ? first.text : ""
}
