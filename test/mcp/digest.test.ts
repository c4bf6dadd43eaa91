/**
 * digest_vault over MCP: the SDK client linked to the server, the offline
 * layers over a copy of the demo vault. The digest is written into the vault,
 * structuredContent matches the output schema, progress is heard per note.
 */
import type { Progress } from "@modelcontextprotocol/sdk/types.js"
import { Schema } from "effect"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { allPortsLayer as mcpLayer } from "../../src/layers.js"
import * as Tools from "../../src/tools/index.js"
import { type Connected, connect, tempVault, text } from "./support.js"

let vault: string
let connected: Connected

beforeAll(async () => {
  vault = tempVault()
  rmSync(join(vault, "Transformers Concept Note — Related Papers.md"), { force: true })
  connected = await connect(mcpLayer({ offline: true, vault, judge: "local" }))
})
afterAll(async () => {
  await connected.close()
  rmSync(vault, { recursive: true, force: true })
})

describe("digest_vault", { timeout: 120_000 }, () => {
  it("writes the digest, returns its papers per note as structuredContent, and reports progress per note", async () => {
    const heard: Array<Progress> = []
    const result = await connected.client.callTool(
      { name: "digest_vault", arguments: { since_date: "2016-06-01", notes: "{Generative*,Papers/**}" } },
      undefined,
      { onprogress: (p) => void heard.push(p), timeout: 110_000 }
    )
    assert.isNotTrue(result.isError, JSON.stringify(result.content))
    const r = Schema.decodeUnknownSync(Tools.DigestToolResult)(result.structuredContent)
    assert.strictEqual(r.digest_note, `arXiv Digest ${new Date().toISOString().slice(0, 10)}.md`)
    assert.strictEqual(r.status, "created")
    assert.deepEqual(r.notes.map((n) => n.note).sort(), ["Generative Adversarial Networks.md", "Papers/Word Embeddings.md"])
    assert.isAbove(r.new_papers, 0)
    const digest = readFileSync(join(vault, r.digest_note), "utf8")
    for (const n of r.notes) for (const p of n.papers) assert.include(digest, `https://arxiv.org/abs/${p.arxiv_id}`)
    assert.match(text(result as never), /^Wrote arXiv Digest .* \(created\): \d+ new papers\./)
    // progress: the plan, each note, the note written, strictly increasing
    const messages = heard.map((p) => p.message ?? "")
    assert.match(messages[0]!, /^Digest: 2 of 2 concept notes to search; one arXiv request each$/)
    assert.isTrue(messages.some((m) => /^\[#{20}\] 2\/2 /.test(m)), messages.join("\n"))
    assert.match(messages.at(-1)!, /^Digest created: arXiv Digest/)
    const values = heard.map((p) => p.progress)
    assert.deepEqual(values, [...values].sort((a, b) => a - b))
    assert.strictEqual(new Set(values).size, values.length)
  })

  it("refuses a future --since in one line, writing nothing", async () => {
    const result = await connected.client.callTool({ name: "digest_vault", arguments: { since_date: "2999-01-01", dry_run: false } })
    assert.isTrue(result.isError)
    assert.match(text(result as never), /^Invalid since_date: 2999-01-01 is in the future/)
    assert.isFalse(existsSync(join(vault, "arXiv Digest 2999-01-01.md")))
  })
})
