/**
 * Messages a model (and its user) can act on, from the built
 * `arxiv-companion-mcp --offline` over stdio, driven by the SDK's client.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { tempVault, text } from "./support.js"

const bin = join(fileURLToPath(new URL("../..", import.meta.url)), "dist", "mcp.js")

let client: Client
beforeAll(async () => {
  client = new Client({ name: "messages-test", version: "0.0.0" })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, "--offline", "--vault", tempVault()], stderr: "pipe" }))
}, 120_000)
afterAll(() => client.close())

const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult

describe("find_foundational_citations, offline", { timeout: 120_000 }, () => {
  // the offline data records these papers' reference lists (OpenAlex work ids) but none of the works they cite
  for (const [id, references] of [["1310.4546", 19], ["1609.08144", 4]] as const) {
    it(`${id}: returns the ${references} recorded references and says what is missing`, async () => {
      const r = await call("find_foundational_citations", { arxiv_id: id })
      assert.isNotTrue(r.isError, text(r))
      const s = r.structuredContent as { status: string; citations: Array<unknown>; unresolved?: Array<string>; note?: string }
      assert.strictEqual(s.status, "found")
      assert.deepStrictEqual(s.citations, [])
      assert.strictEqual(s.unresolved?.length, references)
      for (const w of s.unresolved ?? []) assert.match(w, /^W\d+$/)
      assert.strictEqual(
        s.note,
        `${references} references are recorded for ${id}; none of them is in the offline data (their titles and ` +
          "citation counts are unknown), so none can be ranked. Without offline mode, OpenAlex resolves them."
      )
      assert.include(text(r), s.note ?? "(no note)")
    })
  }

  it("a paper the offline data does not record: says so, without blaming the id", async () => {
    const r = await call("find_foundational_citations", { arxiv_id: "1706.03762" })
    assert.isTrue(r.isError)
    assert.include(text(r), "No offline citation data is recorded for 1706.03762.")
    assert.include(text(r), "without offline mode, OpenAlex is asked")
    assert.notInclude(text(r), "Check the id")
  })
})
