/**
 * Citation counts for a lab's mirror on PostgreSQL, as its users run them: a
 * real server the test starts, a mirror harvested into it from the loopback
 * OAI-PMH stand-in, counted by the built CLI (`mirror sync --citations --to
 * postgres://…`) against the loopback OpenAlex stand-in, read by a run with
 * `--arxiv postgres://…` (which implies `--citations mirror` once the mirror
 * holds counts) with 0 OpenAlex requests. Skipped with the reason when
 * PostgreSQL's binaries are missing, failed under CI=true.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Mirror from "../../src/adapters/arxiv/mirror/Mirror.js"
import { runCli } from "../support/cli.js"
import { metadataRecords, recordedRecords, startStandIn } from "../support/oai-standin.js"
import { arxivWorkLike, type OpenAlexStandIn, startOpenAlexStandIn } from "../support/openalex-standin.js"
import { type PgServer, postgresUnavailable, requirePostgresInCi, startPostgres } from "../support/postgres.js"

requirePostgresInCi()
const unavailable = postgresUnavailable()

const KEY = "test-key-pg-41"
const root = mkdtempSync(join(tmpdir(), "arxiv-mirror-pg-citations-"))
let server: PgServer
let url: string
let openalex: OpenAlexStandIn
let env: Record<string, string | undefined>
let held: Array<{ id: string; published: string }> = []
const known = new Set<string>()

describe.skipIf(unavailable !== undefined)(`citation counts for a PostgreSQL mirror${unavailable === undefined ? "" : ` (skipped: ${unavailable})`}`, () => {
  beforeAll(async () => {
    server = await startPostgres({ fsync: false })
    url = server.createDatabase("counts")
    const records = [...metadataRecords(), ...recordedRecords("ListRecords_200_2018.xml")]
    const oai = await startStandIn(records, 1000)
    try {
      await Effect.runPromise(
        Mirror.sync({ to: url, oaiUrl: oai.url, minInterval: "20 millis", sets: [...new Set(records.flatMap((r) => r.sets))] }).pipe(
          Effect.provide(Layer.mergeAll(NodeContext.layer, NodeHttpClient.layerUndici))
        )
      )
    } finally {
      await oai.close()
    }
    held = server.psql("counts", "SELECT id || ' ' || published FROM arxiv_mirror.papers ORDER BY id")
      .trim().split("\n").map((l) => l.trim()).filter((l) => l !== "" && !/^\(\d+ rows?\)$/.test(l) && !/^-+$/.test(l) && l !== "?column?")
      .map((l) => ({ id: l.split(" ")[0]!, published: l.split(" ")[1]! }))
    const works = held.flatMap((p, i) => {
      if (i % 10 === 9) return []
      known.add(p.id)
      return [arxivWorkLike(p.id, { w: 9_200_000_000 + i, citedByCount: 5 + ((i * 53) % 300), published: p.published })]
    })
    openalex = await startOpenAlexStandIn({ works, requiredKey: KEY })
    env = {
      OPENALEX_API_URL: openalex.url,
      OPENALEX_API_KEY: KEY,
      ARXIV_API_URL: "http://127.0.0.1:9/api/query",
      ARXIV_COMPANION_LEASE_DIR: join(root, "leases"),
      ARXIV_COMPANION_CACHE: "false",
      ARXIV_COMPANION_ARXIV: undefined,
      ARXIV_COMPANION_CITATIONS: undefined,
      ARXIV_COMPANION_OFFLINE: undefined,
      OPENROUTER_API_KEY: undefined,
      LLM_BASE_URL: undefined,
      XDG_DATA_HOME: join(root, "data")
    }
  }, 300_000)

  afterAll(async () => {
    await openalex?.close()
    server?.stop()
    rmSync(root, { recursive: true, force: true })
  })

  it("counts the database's papers in ceil(n/50) requests, status shows them, a run reads them with 0 OpenAlex requests", async () => {
    assert.isAbove(held.length, 100)
    const before = openalex.worksRequests().length
    const r = await runCli(["mirror", "sync", "--citations", "--to", url], env)
    assert.strictEqual(r.code, 0, r.stderr)
    const sent = openalex.worksRequests().slice(before)
    assert.strictEqual(sent.length, Math.ceil(held.length / 50))
    assert.sameMembers(sent.flatMap((q) => q.params["filter"]!.replace(/^doi:/, "").split("|")), held.map((p) => `10.48550/arxiv.${p.id.toLowerCase()}`))
    assert.match(r.stdout, new RegExp(`: ${known.size} papers counted, ${held.length - known.size} unknown to OpenAlex, after ${sent.length} of 1,000 requests`))

    const today = new Date().toISOString().slice(0, 10)
    const status = await runCli(["mirror", "status", "--to", url, "--json"], env)
    assert.strictEqual(status.code, 0, status.stderr)
    const s = JSON.parse(status.stdout) as { citations: { counted: number; notFound: number; uncounted: number; oldest: string } }
    assert.strictEqual(s.citations.counted, known.size)
    assert.strictEqual(s.citations.notFound, held.length - known.size)
    assert.strictEqual(s.citations.uncounted, 0)
    assert.strictEqual(s.citations.oldest.slice(0, 10), today)

    // a second sync has nothing due
    const again = openalex.worksRequests().length
    const second = await runCli(["mirror", "sync", "--citations", "--to", url], env)
    assert.strictEqual(second.code, 0, second.stderr)
    assert.strictEqual(openalex.worksRequests().length, again)

    const vault = join(root, "vault")
    mkdirSync(vault, { recursive: true })
    writeFileSync(
      join(vault, "Channel Capacity.md"),
      "# Channel capacity\n\nThe capacity of a noisy channel: Shannon's coding theorem, mutual information, " +
        "entropy, Gaussian interference channels, quantum channels and the capacity per unit cost.\n"
    )
    const requests = openalex.requests.length
    const run = await runCli(["run", "Find papers related to my 'Channel Capacity' note", "--vault", vault, "--arxiv", url, "--judge", "local", "--json"], env)
    assert.strictEqual(run.code, 0, run.stderr)
    assert.strictEqual(openalex.requests.length, requests, "no OpenAlex request")
    const report = JSON.parse(run.stdout) as {
      candidates: Array<{ paper: { arxivId: string }; impact: { status: string; source?: { name: string; recordedOn?: string } } }>
    }
    const assessed = report.candidates.filter((c) => c.impact.status === "known")
    assert.isAbove(assessed.length, 0)
    for (const c of assessed) {
      assert.isTrue(known.has(c.paper.arxivId))
      assert.strictEqual(c.impact.source?.name, "OpenAlex, via the mirror")
      assert.strictEqual(c.impact.source?.recordedOn, today)
    }
  }, 300_000)
})
