/**
 * The mirror end to end, as a user runs it: the built CLI harvests from a
 * loopback OAI-PMH stand-in (`mirror sync`), says what it holds (`mirror
 * status`), and `--arxiv mirror:DIR` makes search, paper, run and the MCP
 * server read it with 0 requests to the arXiv API (a counting server stands
 * at ARXIV_API_URL).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CLI, runCli } from "../support/cli.js"
import { metadataRecords, recordedRecords, type StandIn, startStandIn } from "../support/oai-standin.js"

const records = [...metadataRecords(), ...recordedRecords("ListRecords_200_2018.xml")].filter((r) => r.sets.includes("cs"))
const dir = mkdtempSync(join(tmpdir(), "arxiv-mirror-cli-"))
const mirror = join(dir, "mirror")
let oai: StandIn
let api: Server
let apiRequests = 0
let env: Record<string, string | undefined>

beforeAll(async () => {
  oai = await startStandIn(records, 25)
  api = createServer((_, res) => {
    apiRequests++
    res.writeHead(500).end("the arXiv API must not be asked")
  })
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve))
  env = {
    ARXIV_OAI_URL: oai.url,
    ARXIV_API_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}/api/query`,
    ARXIV_COMPANION_CACHE: "false",
    ARXIV_COMPANION_ARXIV: undefined,
    ARXIV_COMPANION_OFFLINE: undefined,
    XDG_DATA_HOME: join(dir, "data")
  }
})

afterAll(async () => {
  await oai.close()
  await new Promise<void>((resolve) => api.close(() => resolve()))
  rmSync(dir, { recursive: true, force: true })
})

describe("arxiv-companion mirror", () => {
  it("sync harvests the categories' set with progress on stderr; status says what the mirror holds", async () => {
    const dry = await runCli(["mirror", "sync", "--categories", "cs.IT,cs.DM", "--dir", mirror, "--dry-run"], env)
    assert.strictEqual(dry.code, 0, dry.stderr)
    assert.match(dry.stdout, /cs \(keeping cs\.DM, cs\.IT\): every record from the beginning/)
    assert.strictEqual(oai.received.length, 0)

    const r = await runCli(["mirror", "sync", "--categories", "cs.IT,cs.DM", "--dir", mirror], env)
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(oai.received.length, 2)
    assert.match(r.stderr, /^cs: page 1 · 25 records \(\d+ new, 0 updated, 0 deleted\) · \d+ s( · about \d+ s left)?$/m, r.stderr)
    assert.match(r.stderr, /^cs: page 2 · \d+ records .* · list done$/m)
    assert.match(r.stdout, /^Mirror in .*mirror: \d+ records after 2 requests\.$/m)

    const status = await runCli(["mirror", "status", "--dir", mirror, "--json"], env)
    assert.strictEqual(status.code, 0, status.stderr)
    const s = JSON.parse(status.stdout) as { records: number; categories: Array<{ category: string }>; newestDatestamp: string; sizeBytes: number }
    const kept = records.filter((x) => x.categories.some((c) => c === "cs.IT" || c === "cs.DM"))
    assert.strictEqual(s.records, kept.length)
    assert.includeMembers(s.categories.map((c) => c.category), ["cs.IT", "cs.DM"])
    assert.strictEqual(s.newestDatestamp, kept.map((x) => x.datestamp).sort().at(-1))
    assert.isAbove(s.sizeBytes, 10_000)
    const text = await runCli(["mirror", "status", "--dir", mirror], env)
    assert.match(text.stdout, /records: \d+\n  size on disk: \d+ KB\n  newest datestamp: \d{4}-\d\d-\d\d/)
    assert.match(text.stdout, /harvest cs \(cs\.DM, cs\.IT\): complete up to \d{4}-\d\d-\d\d/)
  }, 180_000)

  it("search, paper and run read the mirror with --arxiv mirror:DIR (or ARXIV_COMPANION_ARXIV): 0 arXiv API requests", async () => {
    const search = await runCli(["search", "ti:channel AND ti:capacity", "--arxiv", `mirror:${mirror}`, "--categories", "", "--json"], env)
    assert.strictEqual(search.code, 0, search.stderr)
    const found = JSON.parse(search.stdout) as { total: number; papers: Array<{ arxiv_id: string }> }
    assert.include(found.papers.map((p) => p.arxiv_id), "0704.0046")

    const paper = await runCli(["paper", "1412.8544", "0704.9999"], { ...env, ARXIV_COMPANION_ARXIV: `mirror:${mirror}` })
    assert.strictEqual(paper.code, 0, paper.stderr)
    assert.include(paper.stdout, "A Kochen-Specker system has at least 22 vectors")
    assert.include(paper.stdout, "Not found on arXiv: 0704.9999")

    const vault = join(dir, "vault")
    mkdirSync(vault, { recursive: true })
    writeFileSync(
      join(vault, "Channel Capacity.md"),
      "# Channel capacity\n\nThe capacity of a noisy channel: Shannon's coding theorem, mutual information, " +
        "entropy, Gaussian interference channels, quantum channels and the capacity per unit cost.\n"
    )
    const run = await runCli(
      ["run", "Find papers related to my 'Channel Capacity' note", "--vault", vault, "--offline", "--arxiv", `mirror:${mirror}`, "--categories", "cs.IT,cs.DM", "--json"],
      env
    )
    assert.strictEqual(run.code, 0, run.stderr)
    const report = JSON.parse(run.stdout) as { candidates: Array<{ paper: { arxivId: string }; foundBy?: Array<string> }> }
    const held = new Set(records.map((x) => x.id))
    const fromArxiv = report.candidates.filter((c) => (c.foundBy ?? ["arxiv-search"]).some((f) => f.startsWith("arxiv-")))
    assert.isAbove(fromArxiv.length, 0)
    // the arXiv searches' candidates are the mirror's papers; the most-cited channel is the citations' (recorded here)
    for (const c of fromArxiv) assert.isTrue(held.has(c.paper.arxivId), `${c.paper.arxivId} is not from the mirror`)
    assert.include(fromArxiv.map((c) => c.paper.arxivId), "0704.0046")
    assert.strictEqual(apiRequests, 0)
  }, 120_000)

  it("ask reads the mirror too", async () => {
    const r = await runCli(["ask", "What is known about the capacity of interference channels?", "--arxiv", `mirror:${mirror}`, "--offline", "--json"], env)
    assert.strictEqual(r.code, 0, r.stderr)
    const held = new Set(records.map((x) => x.id))
    const answer = JSON.parse(r.stdout) as { total: number; papers: Array<{ arxiv_id: string }> }
    assert.isAbove(answer.papers.length, 0)
    // the search matched the mirror's records (with 0 API requests); the most-cited channel, from the recorded
    // citation data as for a run, may bring papers the mirror does not hold
    assert.isAbove(answer.total, 0)
    assert.isAtMost(answer.total, held.size)
    assert.strictEqual(apiRequests, 0)
  }, 180_000)

  it("the MCP server reads the mirror with --arxiv mirror:DIR", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI.replace(/cli\.js$/, "mcp.js"), "--offline", "--arxiv", `mirror:${mirror}`],
      env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter((e): e is [string, string] => e[1] !== undefined)),
      stderr: "pipe"
    })
    const client = new Client({ name: "mirror-test", version: "0.0.0" })
    await client.connect(transport)
    try {
      const r = (await client.callTool({ name: "get_paper", arguments: { arxiv_id: "1412.8544" } })) as CallToolResult
      assert.isNotTrue(r.isError)
      assert.strictEqual((r.structuredContent as { title: string }).title, "A Kochen-Specker system has at least 22 vectors (extended abstract)")
      assert.strictEqual(apiRequests, 0)
    } finally {
      await client.close()
    }
  }, 180_000)

  it("a bad --arxiv value or a missing mirror is one line saying what to do", async () => {
    const bad = await runCli(["search", "capacity", "--arxiv", "mirrors"], env)
    assert.strictEqual(bad.code, 1)
    assert.match(bad.stderr.trim(), /^Invalid --arxiv: got "mirrors"; use live, corpus, mirror or mirror:DIR\.$/)
    const missing = await runCli(["search", "capacity", "--arxiv", "mirror"], env)
    assert.strictEqual(missing.code, 1)
    assert.strictEqual(missing.stderr.trim().split("\n").length, 1)
    assert.match(missing.stderr, /no mirror in .*data\/arxiv-companion\/mirror .*mirror sync --categories/)
    const scope = await runCli(["mirror", "sync", "--dir", mirror], env)
    assert.strictEqual(scope.code, 1)
    assert.match(scope.stderr.trim(), /^Invalid scope: say what to mirror: --categories cs\.LG,cs\.CL/)
  }, 180_000)
})

describe("a sync killed for real", () => {
  it("SIGKILL between pages: the next sync takes the dead process's lock over and resumes at the next page", async () => {
    const { spawn } = await import("node:child_process")
    const killedDir = join(dir, "killed")
    const s = await startStandIn(records, 10)
    try {
      const child = spawn(process.execPath, [CLI, "mirror", "sync", "--sets", "cs", "--dir", killedDir], {
        env: Object.fromEntries(Object.entries({ ...process.env, ...env, ARXIV_OAI_URL: s.url }).filter((e): e is [string, string] => e[1] !== undefined)),
        stdio: ["ignore", "ignore", "pipe"]
      })
      await new Promise<void>((resolve) => {
        let seen = ""
        child.stderr.on("data", (d: Buffer) => {
          seen += d.toString()
          if (/cs: page 2 /.test(seen)) {
            child.kill("SIGKILL")
            resolve()
          }
        })
      })
      await new Promise((resolve) => child.on("exit", resolve))
      assert.strictEqual(s.received.length, 2)
      const again = await runCli(["mirror", "sync", "--sets", "cs", "--dir", killedDir], { ...env, ARXIV_OAI_URL: s.url })
      assert.strictEqual(again.code, 0, again.stderr)
      assert.match(again.stderr, /^cs: page 3 /m)
      const tokens = s.received.map((r) => r.params.get("resumptionToken") ?? "list")
      assert.strictEqual(new Set(tokens).size, tokens.length, "no page asked for twice")
      const status = JSON.parse((await runCli(["mirror", "status", "--dir", killedDir, "--json"], env)).stdout) as { records: number }
      assert.strictEqual(status.records, records.length)
    } finally {
      await s.close()
    }
  }, 120_000)
})
