/**
 * The MCP benches' client: the BUILT stdio bin (`dist/mcp.js`) over the real
 * SDK transport, live against a loopback arXiv stand-in, with OpenAlex
 * unreachable and no LLM judge, caching under `cacheHome`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
export const BIN = path.join(ROOT, "dist", "mcp.js")

/** Connect a client to the bin pointed at the arXiv stand-in at `arxivUrl`. */
export const connectToStandIn = async (arxivUrl: string, cacheHome: string, args: ReadonlyArray<string> = []): Promise<Client> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args],
    cwd: ROOT,
    env: {
      ...(process.env as Record<string, string>),
      ARXIV_API_URL: arxivUrl,
      XDG_CACHE_HOME: cacheHome,
      OPENALEX_API_URL: "http://127.0.0.1:9/",
      OPENROUTER_API_KEY: "",
      LLM_BASE_URL: ""
    },
    stderr: "ignore"
  })
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(transport)
  return client
}
