/**
 * `mirror sync --citations` and `--citations mirror`, as a user runs them:
 * a mirror harvested from the loopback OAI-PMH stand-in (the recorded pages
 * and real metadata rows, as the other mirror tests build it), counted by the
 * built CLI against the loopback OpenAlex stand-in (test/support), whose
 * records for the mirrored papers are shaped from a recorded arXiv work
 * (`arxivWorkLike`); every tenth paper has none, as OpenAlex misses some.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { matchCounts, NO_KEY_MESSAGE } from "../../src/adapters/arxiv/mirror/CitationSync.js"
import * as Mirror from "../../src/adapters/arxiv/mirror/Mirror.js"
import { MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"
import { CLI, runCli } from "../support/cli.js"
import { metadataRecords, recordedRecords, startStandIn } from "../support/oai-standin.js"
import { arxivWorkLike, Fault, loadPool, type OpenAlexStandIn, startOpenAlexStandIn } from "../support/openalex-standin.js"

const KEY = "test-key-7f3a"
const root = mkdtempSync(join(tmpdir(), "arxiv-mirror-citations-"))
/** The harvested mirror, never counted: each test counts a copy of it. */
const pristine = join(root, "pristine")
let held: Array<{ readonly id: string; readonly published: string }> = []
let known = new Set<string>()
let openalex: OpenAlexStandIn
let env: Record<string, string | undefined>
/** What the stand-in answers with, when a test says so; consumed one per request. */
let faultAt: { readonly request: number; readonly fault: ReturnType<typeof Fault.hang> } | undefined
let seen = 0

const copyOf = (name: string): string => {
  const dir = join(root, name)
  cpSync(pristine, dir, { recursive: true })
  return dir
}

const status = async (dir: string) => {
  const r = await runCli(["mirror", "status", "--dir", dir, "--json"], env)
  assert.strictEqual(r.code, 0, r.stderr)
  return JSON.parse(r.stdout) as {
    records: number
    citations: { counted: number; notFound: number; uncounted: number; oldest?: string; newest?: string }
  }
}

const requestsSince = (n: number) => openalex.worksRequests().slice(n)

beforeAll(async () => {
  const records = [...metadataRecords(), ...recordedRecords("ListRecords_200_2018.xml")]
  const sets = [...new Set(records.flatMap((r) => r.sets))]
  const oai = await startStandIn(records, 1000)
  try {
    await Effect.runPromise(
      Mirror.sync({ dir: pristine, oaiUrl: oai.url, minInterval: "20 millis", sets }).pipe(
        Effect.provide(Layer.mergeAll(NodeContext.layer, NodeHttpClient.layerUndici))
      )
    )
  } finally {
    await oai.close()
  }
  const index = MirrorIndex.open(pristine, { create: false })
  try {
    held = index.search({ sortBy: "submittedDate", sortOrder: "ascending", start: 0, limit: 10_000 }).rows.map((r) => ({
      id: r.id,
      published: r.published
    }))
  } finally {
    index.close()
  }
  const works = held.flatMap((p, i) =>
    i % 10 === 9 ? [] : [arxivWorkLike(p.id, { w: 9_100_000_000 + i, citedByCount: 3 + ((i * 37) % 400), published: p.published })]
  )
  known = new Set(held.filter((_, i) => i % 10 !== 9).map((p) => p.id))
  openalex = await startOpenAlexStandIn({
    works,
    requiredKey: KEY,
    failWhen: () => {
      seen++
      if (faultAt !== undefined && seen === faultAt.request) return faultAt.fault
      return undefined
    }
  })
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
}, 180_000)

afterAll(async () => {
  await openalex?.close()
  rmSync(root, { recursive: true, force: true })
})

describe("mirror sync --citations", () => {
  it("without OPENALEX_API_KEY: one line, exit 0, no request, nothing stored", async () => {
    const dir = copyOf("nokey")
    const before = openalex.requests.length
    const r = await runCli(["mirror", "sync", "--citations", "--dir", dir], { ...env, OPENALEX_API_KEY: undefined })
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(r.stdout.trim(), NO_KEY_MESSAGE)
    assert.strictEqual(r.stdout.trim().split("\n").length, 1)
    assert.strictEqual(openalex.requests.length, before)
    const s = await status(dir)
    assert.strictEqual(s.citations.counted + s.citations.notFound, 0)
    assert.strictEqual(s.citations.uncounted, held.length)
  }, 120_000)

  it("counts every paper in ceil(n/50) requests of 50 DOIs, stores each with its date, then has nothing new to ask", async () => {
    assert.isAbove(held.length, 100, "the test mirror holds a few batches")
    const dir = copyOf("full")
    const before = openalex.worksRequests().length
    const r = await runCli(["mirror", "sync", "--citations", "--dir", dir], env)
    assert.strictEqual(r.code, 0, r.stderr)
    const sent = requestsSince(before)
    assert.strictEqual(sent.length, Math.ceil(held.length / 50))
    const asked: Array<string> = []
    for (const q of sent) {
      assert.strictEqual(q.path, "/works")
      assert.strictEqual(q.params["api_key"], KEY)
      assert.strictEqual(q.params["per_page"], "100")
      assert.include(q.params["select"]!.split(","), "counts_by_year")
      const dois = q.params["filter"]!.replace(/^doi:/, "").split("|")
      assert.isAtMost(dois.length, 50)
      asked.push(...dois)
      assert.strictEqual(q.status, 200)
    }
    assert.sameMembers(asked, held.map((p) => `10.48550/arxiv.${p.id.toLowerCase()}`))
    assert.match(r.stderr, /^citations: request 1 of at most 1,000 · /m)
    assert.match(
      r.stdout,
      new RegExp(`: ${known.size} papers counted, ${held.length - known.size} unknown to OpenAlex, after ${sent.length} of 1,000 requests`)
    )
    assert.match(r.stdout, /Every paper has a count fetched since \d{4}-\d\d-\d\d\./)

    const today = new Date().toISOString().slice(0, 10)
    const s = await status(dir)
    assert.strictEqual(s.citations.counted, known.size)
    assert.strictEqual(s.citations.notFound, held.length - known.size)
    assert.strictEqual(s.citations.uncounted, 0)
    assert.strictEqual(s.citations.oldest?.slice(0, 10), today)
    const text = await runCli(["mirror", "status", "--dir", dir], env)
    assert.include(text.stdout, `citation counts: ${known.size} of ${held.length} records, the oldest fetched ${today}`)

    // the counts as stored: each paper's own, with its counts by year and its references
    const index = MirrorIndex.open(dir, { create: false })
    try {
      const first = held[0]!
      const c = index.countsByIds([first.id]).get(first.id)
      assert.strictEqual(c?.citedByCount, 3)
      assert.strictEqual(c?.openalexId, "W9100000000")
      assert.isAbove(c?.countsByYear?.length ?? 0, 0)
      assert.isAbove(c?.referencedWorks?.length ?? 0, 0)
      const missing = held[9]!
      assert.isUndefined(index.countsByIds([missing.id]).get(missing.id)?.citedByCount)
    } finally {
      index.close()
    }

    // a second sync finds nothing due: no request
    const again = openalex.worksRequests().length
    const second = await runCli(["mirror", "sync", "--citations", "--dir", dir], env)
    assert.strictEqual(second.code, 0, second.stderr)
    assert.strictEqual(openalex.worksRequests().length, again)
    assert.match(second.stdout, /0 papers counted, 0 unknown to OpenAlex, after 0 of 1,000 requests/)

    // asked to: --older-than 0 refreshes the oldest counts first, within the budget
    const refresh = await runCli(["mirror", "sync", "--citations", "--dir", dir, "--older-than", "0", "--budget", "2"], env)
    assert.strictEqual(refresh.code, 0, refresh.stderr)
    const refreshed = requestsSince(again)
    assert.strictEqual(refreshed.length, 2)
    assert.match(refresh.stdout, /after 2 of 2 requests \(0 left of this sync's budget\)/)
    assert.match(refresh.stdout, new RegExp(`${held.length - 100} papers left to count`))
  }, 180_000)

  it("with --categories: harvests, then counts what it harvested, in one command (one JSON document)", async () => {
    const cs = [...metadataRecords(), ...recordedRecords("ListRecords_200_2018.xml")].filter((r) => r.sets.includes("cs"))
    const oai = await startStandIn(cs, 1000)
    try {
      const dir = join(root, "harvest-and-count")
      const before = openalex.worksRequests().length
      const r = await runCli(["mirror", "sync", "--categories", "cs.IT,cs.DM", "--citations", "--dir", dir, "--json"], { ...env, ARXIV_OAI_URL: oai.url })
      assert.strictEqual(r.code, 0, r.stderr)
      const outcome = JSON.parse(r.stdout) as { _tag: string; records: number; citations: { _tag: string; requests: number; counted: number; notFound: number } }
      assert.strictEqual(outcome._tag, "Synced")
      assert.isAbove(outcome.records, 0)
      assert.strictEqual(outcome.citations._tag, "Counted")
      assert.strictEqual(outcome.citations.counted + outcome.citations.notFound, outcome.records)
      assert.strictEqual(outcome.citations.requests, Math.ceil(outcome.records / 50))
      assert.strictEqual(openalex.worksRequests().length - before, outcome.citations.requests)
    } finally {
      await oai.close()
    }
  }, 180_000)

  it("stops at its budget and says what is left; the next sync goes on with the papers never counted", async () => {
    const dir = copyOf("budget")
    const before = openalex.worksRequests().length
    const dry = await runCli(["mirror", "sync", "--citations", "--dir", dir, "--dry-run"], env)
    assert.strictEqual(dry.code, 0, dry.stderr)
    assert.match(dry.stdout, new RegExp(`^Would count ${held.length} papers in .*budget \\(never counted, or counted before \\d{4}-\\d\\d-\\d\\d\\): ${Math.ceil(held.length / 50)} OpenAlex requests of at most 1,000\\.$`, "m"))
    assert.strictEqual(openalex.worksRequests().length, before, "a dry run asks nothing")
    const r = await runCli(["mirror", "sync", "--citations", "--dir", dir, "--budget", "3", "--json"], env)
    assert.strictEqual(r.code, 0, r.stderr)
    const outcome = JSON.parse(r.stdout) as { requests: number; budget: number; counted: number; notFound: number; leftToCount: number }
    assert.strictEqual(requestsSince(before).length, 3)
    assert.strictEqual(outcome.requests, 3)
    assert.strictEqual(outcome.counted + outcome.notFound, 150)
    assert.strictEqual(outcome.leftToCount, held.length - 150)
    const first = requestsSince(before).flatMap((q) => q.params["filter"]!.replace(/^doi:/, "").split("|"))
    const next = openalex.worksRequests().length
    const rest = await runCli(["mirror", "sync", "--citations", "--dir", dir], env)
    assert.strictEqual(rest.code, 0, rest.stderr)
    const second = requestsSince(next).flatMap((q) => q.params["filter"]!.replace(/^doi:/, "").split("|"))
    assert.strictEqual(requestsSince(next).length, Math.ceil((held.length - 150) / 50))
    assert.strictEqual(second.filter((d) => first.includes(d)).length, 0, "no paper counted twice")
    assert.strictEqual((await status(dir)).citations.uncounted, 0)
  }, 180_000)

  it("a failed batch keeps the batches stored before it, says so in one line, and the next sync goes on", async () => {
    const dir = copyOf("failed")
    seen = 0
    faultAt = { request: 3, fault: Fault.invalidFilter() }
    try {
      const r = await runCli(["mirror", "sync", "--citations", "--dir", dir], env)
      assert.strictEqual(r.code, 1)
      const lines = r.stderr.trim().split("\n").filter((l) => !l.startsWith("citations: request"))
      assert.strictEqual(lines.length, 1, r.stderr)
      assert.match(lines[0]!, /2 batches \(100 papers\) stored before it are kept in .*; run `mirror sync --citations` again to go on/)
    } finally {
      faultAt = undefined
    }
    const s = await status(dir)
    assert.strictEqual(s.citations.counted + s.citations.notFound, 100)
    // a key OpenAlex rejects: nothing more stored, one line saying what to check
    seen = 0
    faultAt = { request: 1, fault: Fault.badKey() }
    try {
      const r = await runCli(["mirror", "sync", "--citations", "--dir", dir], env)
      assert.strictEqual(r.code, 1)
      assert.strictEqual(r.stderr.trim().split("\n").length, 1, r.stderr)
      assert.match(r.stderr, /OpenAlex rejected the API key in OPENALEX_API_KEY .*; 0 batches \(0 papers\) stored before it are kept/)
      assert.notInclude(r.stderr, KEY)
    } finally {
      faultAt = undefined
    }
    assert.strictEqual((await status(dir)).citations.counted + (await status(dir)).citations.notFound, 100)
    const before = openalex.worksRequests().length
    const again = await runCli(["mirror", "sync", "--citations", "--dir", dir], env)
    assert.strictEqual(again.code, 0, again.stderr)
    assert.strictEqual(requestsSince(before).length, Math.ceil((held.length - 100) / 50))
    assert.strictEqual((await status(dir)).citations.uncounted, 0)
  }, 180_000)

  it("a sync killed while a batch is in flight keeps the batches before it, never half of one", async () => {
    const dir = copyOf("killed")
    seen = 0
    faultAt = { request: 4, fault: Fault.hang() }
    try {
      const child = spawn(process.execPath, [CLI, "mirror", "sync", "--citations", "--dir", dir], {
        env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter((e): e is [string, string] => e[1] !== undefined)),
        stdio: ["ignore", "ignore", "pipe"]
      })
      await new Promise<void>((resolve) => {
        let text = ""
        child.stderr.on("data", (d: Buffer) => {
          text += d.toString()
          // the third batch is stored (its line is printed after its commit); the fourth request hangs
          if (/citations: request 3 /.test(text)) {
            const wait = setInterval(() => {
              if (seen >= 4) {
                clearInterval(wait)
                child.kill("SIGKILL")
                resolve()
              }
            }, 20)
          }
        })
      })
      await new Promise((resolve) => child.on("exit", resolve))
    } finally {
      faultAt = undefined
    }
    const s = await status(dir)
    assert.strictEqual(s.citations.counted + s.citations.notFound, 150)
  }, 180_000)
})

describe("matching OpenAlex's records back to the mirror's ids", () => {
  it("a merged record (recorded: word2vec, another DOI and year 2025) is matched through its arXiv locations, its date not taken", () => {
    const merged = loadPool().get("W2153579005")!
    const own = loadPool().get("W2525778437")!
    const [word2vec, gnmt, none] = matchCounts(["1310.4546", "1609.08144", "1706.03762"], [merged, own] as unknown as Parameters<typeof matchCounts>[1], "2026-12-01T00:00:00.000Z")
    assert.strictEqual(word2vec?.openalexId, "W2153579005")
    assert.strictEqual(word2vec?.citedByCount, merged["cited_by_count"])
    assert.isUndefined(word2vec?.publicationDate, "a merged record's date can be another version's")
    assert.strictEqual(gnmt?.openalexId, "W2525778437")
    assert.strictEqual(gnmt?.publicationDate, "2016-09-26")
    assert.isUndefined(none?.citedByCount, "no record: OpenAlex had no work for it")
    assert.strictEqual(none?.fetchedAt, "2026-12-01T00:00:00.000Z")
  })
})

describe("--citations mirror", () => {
  let dir: string
  let vault: string
  beforeAll(async () => {
    dir = copyOf("read")
    const r = await runCli(["mirror", "sync", "--citations", "--dir", dir], env)
    assert.strictEqual(r.code, 0, r.stderr)
    vault = join(root, "vault")
    mkdirSync(vault, { recursive: true })
    writeFileSync(
      join(vault, "Channel Capacity.md"),
      "# Channel capacity\n\nThe capacity of a noisy channel: Shannon's coding theorem, mutual information, " +
        "entropy, Gaussian interference channels, quantum channels and the capacity per unit cost.\n"
    )
  }, 180_000)

  const run = (more: ReadonlyArray<string>) =>
    runCli(
      ["run", "Find papers related to my 'Channel Capacity' note", "--vault", vault, "--arxiv", `mirror:${dir}`, "--judge", "local", "--json", ...more],
      env
    )

  type Report = {
    candidates: Array<{
      paper: { arxivId: string }
      impact: { status: string; citationCount?: number; asOf: string; source?: { name: string; recordedOn?: string } }
    }>
  }

  for (const [name, flags] of [["asked for", ["--citations", "mirror"]], ["implied by --arxiv mirror:DIR when it holds counts", []]] as const) {
    it(`${name}: a run makes 0 OpenAlex requests and reports the stored counts with their date`, async () => {
      const before = openalex.requests.length
      const r = await run(flags)
      assert.strictEqual(r.code, 0, r.stderr)
      assert.strictEqual(openalex.requests.length, before, "no OpenAlex request")
      const report = JSON.parse(r.stdout) as Report
      const today = new Date().toISOString().slice(0, 10)
      const assessed = report.candidates.filter((c) => c.impact.status === "known" || c.impact.status === "unknown")
      assert.isAbove(assessed.length, 0)
      for (const c of assessed) {
        if (known.has(c.paper.arxivId)) {
          assert.strictEqual(c.impact.status, "known", c.paper.arxivId)
          assert.strictEqual(c.impact.source?.name, "OpenAlex, via the mirror")
          assert.strictEqual(c.impact.source?.recordedOn, today)
          assert.strictEqual(c.impact.asOf, today)
        } else {
          assert.strictEqual(c.impact.status, "unknown", c.paper.arxivId)
          assert.strictEqual(c.impact.source?.name, "the mirror's OpenAlex counts")
        }
      }
      assert.isAbove(assessed.filter((c) => c.impact.status === "known").length, 0)
    }, 180_000)
  }

  it("on a mirror without counts: --citations mirror says impact not recorded, naming the mirror; unsaid, OpenAlex is asked", async () => {
    const bare = copyOf("uncounted")
    const own = join(root, "vault-uncounted")
    cpSync(vault, own, { recursive: true })
    rmSync(join(own, "Channel Capacity — Related Papers.md"), { force: true })
    const args = ["run", "Find papers related to my 'Channel Capacity' note", "--vault", own, "--arxiv", `mirror:${bare}`, "--judge", "local"]
    const before = openalex.requests.length
    const r = await runCli([...args, "--citations", "mirror", "--json"], env)
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(openalex.requests.length, before, "no OpenAlex request")
    const report = JSON.parse(r.stdout) as Report
    const unknown = report.candidates.filter((c) => c.impact.status === "unknown")
    assert.isAbove(unknown.length, 0)
    for (const c of unknown) assert.strictEqual(c.impact.source?.name, "the mirror's OpenAlex counts")
    assert.strictEqual(report.candidates.filter((c) => c.impact.status === "known").length, 0)
    const text = await runCli([...args, "--citations", "mirror"], env)
    assert.strictEqual(text.code, 0, text.stderr)
    assert.match(text.stdout, /Relevant, impact not recorded/)
    const note = readFileSync(join(own, "Channel Capacity — Related Papers.md"), "utf8")
    assert.include(note, `no citation count is recorded for this paper in the mirror's OpenAlex counts (${bare}, counted by mirror sync --citations)`)
    const implied = await runCli([...args, "--json"], env)
    assert.strictEqual(implied.code, 0, implied.stderr)
    assert.isAbove(openalex.requests.length, before, "a mirror without counts does not imply --citations mirror")
  }, 180_000)

  it("--citations openalex still asks OpenAlex; --citations mirror without a mirror is one line saying what to add", async () => {
    const before = openalex.requests.length
    const live = await run(["--citations", "openalex"])
    assert.strictEqual(live.code, 0, live.stderr)
    assert.isAbove(openalex.requests.length, before)
    const bad = await runCli(["run", "Find papers related to my 'Channel Capacity' note", "--vault", vault, "--citations", "mirror", "--arxiv", "corpus", "--json"], env)
    assert.strictEqual(bad.code, 1)
    assert.strictEqual(bad.stderr.trim().split("\n").length, 1, bad.stderr)
    assert.match(bad.stderr, /--citations mirror reads the counts of a mirror: add --arxiv mirror\[:DIR\] or postgres:\/\//)
  }, 180_000)
})
