/**
 * A lab's mirror on PostgreSQL as its users run it: the built CLI harvests
 * from the loopback OAI-PMH stand-in into a real PostgreSQL server the test
 * starts (`mirror sync --to postgres://…`), a second harvester process is
 * refused by the advisory lock with the holder's name, a SIGKILLed sync is
 * resumed, and `--arxiv postgres://…` makes search, paper, run, ask and the
 * MCP server read the database, with 0 requests to the arXiv API (a counting
 * server stands at ARXIV_API_URL), as a read-only role.
 * Skipped with the reason when PostgreSQL's binaries are missing, failed
 * under CI=true.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CLI, runCli } from "../support/cli.js"
import { metadataRecords, recordedRecords, type StandIn, startStandIn } from "../support/oai-standin.js"
import { type PgServer, postgresUnavailable, requirePostgresInCi, startPostgres } from "../support/postgres.js"

requirePostgresInCi()
const unavailable = postgresUnavailable()

const records = [...metadataRecords(), ...recordedRecords("ListRecords_200_2018.xml")].filter((r) => r.sets.includes("cs"))
const dir = mkdtempSync(join(tmpdir(), "arxiv-mirror-pg-cli-"))
let server: PgServer
let lab: string
/** The users' role: it may read the mirror, not write it. */
let reader: string
let oai: StandIn
let api: Server
let apiRequests = 0
let env: Record<string, string | undefined>

const childEnv = (more: Record<string, string | undefined> = {}) =>
  Object.fromEntries(Object.entries({ ...process.env, ...env, ...more }).filter((e): e is [string, string] => e[1] !== undefined))

describe.skipIf(unavailable !== undefined)(`a lab's mirror on PostgreSQL, from the CLI${unavailable === undefined ? "" : ` (skipped: ${unavailable})`}`, () => {
  beforeAll(async () => {
    server = await startPostgres()
    // the README's set-up: an owner role that syncs, a read-only role for the lab's users
    server.psql("postgres", "CREATE ROLE arxiv_owner LOGIN PASSWORD 'owner-secret'; CREATE ROLE arxiv_reader LOGIN PASSWORD 'read-only'")
    server.psql("postgres", "CREATE DATABASE lab OWNER arxiv_owner")
    server.psql(
      "lab",
      `CREATE SCHEMA arxiv_mirror AUTHORIZATION arxiv_owner;
       GRANT USAGE ON SCHEMA arxiv_mirror TO arxiv_reader;
       ALTER DEFAULT PRIVILEGES FOR ROLE arxiv_owner IN SCHEMA arxiv_mirror GRANT SELECT ON TABLES TO arxiv_reader;`
    )
    lab = `postgres://arxiv_owner:owner-secret@127.0.0.1:${server.port}/lab`
    reader = `postgres://arxiv_reader:read-only@127.0.0.1:${server.port}/lab`
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
  }, 180_000)

  afterAll(async () => {
    await oai?.close()
    await new Promise<void>((resolve) => (api === undefined ? resolve() : api.close(() => resolve())))
    server?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it("mirror sync --to harvests into the database; status --to says what it holds; a read-only role reads it and may not sync", async () => {
    const dry = await runCli(["mirror", "sync", "--categories", "cs.IT,cs.DM", "--to", lab, "--dry-run"], env)
    assert.strictEqual(dry.code, 0, dry.stderr)
    assert.match(dry.stdout, /^Would harvest into postgres:\/\/arxiv_owner:\*\*\*@127\.0\.0\.1:\d+\/lab from/m)
    assert.notInclude(dry.stdout, "owner-secret")
    assert.match(dry.stdout, /cs \(keeping cs\.DM, cs\.IT\): every record from the beginning/)
    assert.strictEqual(oai.received.length, 0)

    const r = await runCli(["mirror", "sync", "--categories", "cs.IT,cs.DM", "--to", lab], env)
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(oai.received.length, 2)
    assert.match(r.stderr, /^cs: page 2 · \d+ records .* · list done$/m)
    assert.match(r.stdout, /^Mirror in postgres:\/\/arxiv_owner:\*\*\*@127\.0\.0\.1:\d+\/lab: \d+ records after 2 requests\.$/m)

    const status = await runCli(["mirror", "status", "--to", lab, "--json"], env)
    assert.strictEqual(status.code, 0, status.stderr)
    const s = JSON.parse(status.stdout) as { records: number; categories: Array<{ category: string }>; newestDatestamp: string }
    const kept = records.filter((x) => x.categories.some((c) => c === "cs.IT" || c === "cs.DM"))
    assert.strictEqual(s.records, kept.length)
    assert.includeMembers(s.categories.map((c) => c.category), ["cs.IT", "cs.DM"])
    assert.strictEqual(s.newestDatestamp, kept.map((x) => x.datestamp).sort().at(-1))
    const again = await runCli(["mirror", "sync", "--categories", "cs.IT,cs.DM", "--to", lab, "--dry-run"], env)
    assert.match(again.stdout, /records changed since \d{4}-\d\d-\d\d/)

    // the read-only role reads what the owner's sync created (the schema's default privileges)
    const readOnlyStatus = await runCli(["mirror", "status", "--to", reader], env)
    assert.strictEqual(readOnlyStatus.code, 0, readOnlyStatus.stderr)
    assert.match(readOnlyStatus.stdout, new RegExp(`records: ${kept.length}\\n`))
    assert.notInclude(readOnlyStatus.stdout, "read-only@")
    const refused = await runCli(["mirror", "sync", "--categories", "cs.IT", "--to", reader], env)
    assert.strictEqual(refused.code, 1)
    assert.strictEqual(refused.stderr.trim().split("\n").length, 1, refused.stderr)
    assert.match(refused.stderr, /permission denied .*a read-only role may search the mirror but not sync it/)
  }, 120_000)

  it("search, paper, run and ask read the database with --arxiv postgres://… (or ARXIV_COMPANION_ARXIV): 0 arXiv API requests", async () => {
    const search = await runCli(["search", "ti:channel AND ti:capacity", "--arxiv", reader, "--categories", "", "--json"], env)
    assert.strictEqual(search.code, 0, search.stderr)
    const found = JSON.parse(search.stdout) as { total: number; papers: Array<{ arxiv_id: string }> }
    assert.include(found.papers.map((p) => p.arxiv_id), "0704.0046")

    const paper = await runCli(["paper", "1412.8544", "0704.9999"], { ...env, ARXIV_COMPANION_ARXIV: reader })
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
      ["run", "Find papers related to my 'Channel Capacity' note", "--vault", vault, "--offline", "--arxiv", reader, "--categories", "cs.IT,cs.DM", "--json"],
      env
    )
    assert.strictEqual(run.code, 0, run.stderr)
    const report = JSON.parse(run.stdout) as { candidates: Array<{ paper: { arxivId: string }; foundBy?: Array<string> }> }
    const held = new Set(records.map((x) => x.id))
    const fromArxiv = report.candidates.filter((c) => (c.foundBy ?? ["arxiv-search"]).some((f) => f.startsWith("arxiv-")))
    assert.isAbove(fromArxiv.length, 0)
    for (const c of fromArxiv) assert.isTrue(held.has(c.paper.arxivId), `${c.paper.arxivId} is not from the mirror`)
    assert.include(fromArxiv.map((c) => c.paper.arxivId), "0704.0046")

    const ask = await runCli(["ask", "What is known about the capacity of interference channels?", "--arxiv", reader, "--offline", "--json"], env)
    assert.strictEqual(ask.code, 0, ask.stderr)
    const answer = JSON.parse(ask.stdout) as { total: number; papers: Array<{ arxiv_id: string }> }
    assert.isAbove(answer.papers.length, 0)
    assert.isAbove(answer.total, 0)
    assert.isAtMost(answer.total, held.size)
    assert.strictEqual(apiRequests, 0)
  }, 180_000)

  it("the MCP server reads the database with --arxiv postgres://…", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI.replace(/cli\.js$/, "mcp.js"), "--offline", "--arxiv", reader],
      env: childEnv(),
      stderr: "pipe"
    })
    const client = new Client({ name: "mirror-pg-test", version: "0.0.0" })
    await client.connect(transport)
    try {
      const r = (await client.callTool({ name: "get_paper", arguments: { arxiv_id: "1412.8544" } })) as CallToolResult
      assert.isNotTrue(r.isError)
      assert.strictEqual((r.structuredContent as { title: string }).title, "A Kochen-Specker system has at least 22 vectors (extended abstract)")
      assert.strictEqual(apiRequests, 0)
    } finally {
      await client.close()
    }
  }, 60_000)

  it("a second harvester process exits in one line naming the first (application_name, pid, address); SIGKILLed, the first's lock is freed and the next sync resumes", async () => {
    const url = server.createDatabase("lab_lock")
    const s = await startStandIn(records, 10)
    try {
      const child = spawn(process.execPath, [CLI, "mirror", "sync", "--sets", "cs", "--to", url], {
        env: childEnv({ ARXIV_OAI_URL: s.url }),
        stdio: ["ignore", "ignore", "pipe"]
      })
      let seen = ""
      child.stderr.on("data", (d: Buffer) => void (seen += d.toString()))
      const exited = new Promise((resolve) => child.on("exit", resolve))
      while (!/cs: page 1 /.test(seen)) {
        if (child.exitCode !== null) throw new Error(`the first sync ended early: ${seen}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const second = await runCli(["mirror", "sync", "--sets", "cs", "--to", url], { ...env, ARXIV_OAI_URL: s.url })
      assert.strictEqual(second.code, 1)
      const line = second.stderr.trim()
      assert.strictEqual(line.split("\n").length, 1, line)
      assert.match(
        line,
        new RegExp(
          `a sync holds the mirror's lock in postgres://postgres@127\\.0\\.0\\.1:${server.port}/lab_lock \\(application_name "arxiv-companion mirror sync on .+ pid ${child.pid}", server pid \\d+, from 127\\.0\\.0\\.1,`
        )
      )
      assert.match(line, /wait for it to end, or stop it\.$/)
      while (!/cs: page 2 /.test(seen)) await new Promise((resolve) => setTimeout(resolve, 50))
      child.kill("SIGKILL")
      await exited
      const fetched = s.received.length
      assert.isAtLeast(fetched, 2)
      const again = await runCli(["mirror", "sync", "--sets", "cs", "--to", url], { ...env, ARXIV_OAI_URL: s.url })
      assert.strictEqual(again.code, 0, again.stderr)
      assert.match(again.stderr, /^cs: page [3-9] /m)
      const tokens = s.received.map((r) => r.params.get("resumptionToken") ?? "list")
      assert.strictEqual(new Set(tokens).size, tokens.length, "no page asked for twice")
      const status = JSON.parse((await runCli(["mirror", "status", "--to", url, "--json"], env)).stdout) as { records: number }
      assert.strictEqual(status.records, records.length)
    } finally {
      await s.close()
    }
  }, 180_000)
})
