/**
 * The CLI without --offline, pointed at loopback stand-ins that replay real
 * recorded arXiv and OpenAlex answers and run a scripted OpenAI-compatible judge.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { type ArxivStandIn, Fault, startArxivStandIn } from "../support/arxiv-standin.js"
import { type LlmStandIn, startLlmStandIn } from "../support/llm-standin.js"
import { Fault as OpenAlexFault, type OpenAlexStandIn, startOpenAlexStandIn } from "../support/openalex-standin.js"

const root = join(import.meta.dirname, "..", "..")
const cli = join(root, "dist", "cli.js") // built by test/support/build.ts

let arxiv: ArxivStandIn
let openalex: OpenAlexStandIn
let llm: LlmStandIn
let work: string

const run = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: root, env: { PATH: process.env["PATH"] ?? "", HOME: work, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    })
  })

beforeAll(async () => {
  arxiv = await startArxivStandIn({ padSearches: true, corpus: "landmarks" })
  openalex = await startOpenAlexStandIn({ requiredKey: "test-key" })
  llm = await startLlmStandIn({})
  work = mkdtempSync(join(tmpdir(), "companion-cli-live-"))
})
afterAll(async () => {
  await Promise.all([arxiv.close(), openalex.close(), llm.close()])
  rmSync(work, { recursive: true, force: true })
})

describe("arxiv-companion run, live, against loopback stand-ins", { timeout: 120_000 }, () => {
  it("writes the same kind of note as offline mode, and a warm rerun makes no upstream call", async () => {
    const vault = join(work, "vault")
    cpSync(join(root, "examples", "vault"), vault, { recursive: true })
    rmSync(join(vault, "Transformers Concept Note — Related Papers.md"), { force: true })
    // the student names a paper by its arXiv link: it is listed as already in the note and seeds "builds on"
    const concept = join(vault, "Transformers Concept Note.md")
    writeFileSync(concept, `${readFileSync(concept, "utf8")}- GNMT: https://arxiv.org/abs/1609.08144v2\n`)
    const env = {
      ARXIV_API_URL: arxiv.url,
      ARXIV_COMPANION_CONTACT: "tests@example.org",
      OPENALEX_API_URL: openalex.url,
      OPENALEX_API_KEY: "test-key",
      LLM_BASE_URL: llm.url,
      LLM_MODEL: "scripted-judge",
      ARXIV_COMPANION_CACHE_DIR: join(work, "cache")
    }
    const args = ["run", "Find papers related to my 'Transformers Concept Note'", "--vault", vault, "--json"]
    const cold = await run(args, env)
    expect(cold.stderr).not.toContain("test-key")
    expect(cold.code).toBe(0)
    const report = JSON.parse(cold.stdout)
    expect(report.candidates.length).toBeGreaterThan(0)
    // the request budget of a cold run: at most 2 to arXiv and 3 to OpenAlex
    expect(arxiv.requests.length).toBeLessThanOrEqual(2)
    expect(report.calls.arxiv).toBe(arxiv.requests.length)
    // the stand-in holds fewer matching papers than the pool of 1000: the first request took every one of
    // them, so the title search (which could only return some of them again) is not sent
    expect(arxiv.requests.length).toBe(1)
    expect(report.titleQuery).toBeUndefined()
    expect(openalex.requests.length).toBeLessThanOrEqual(3)
    // the second channel: one works search for the note's key phrases, arXiv-only, most cited first
    const citedSearches = openalex.requests.filter((r) => r.params["search"] !== undefined)
    expect(citedSearches.length).toBe(1)
    expect(citedSearches[0]!.params["filter"]).toBe("indexed_in:arxiv")
    expect(citedSearches[0]!.params["sort"]).toBe("cited_by_count:desc")
    expect(report.citedQuery).toContain(citedSearches[0]!.params["search"])
    // every candidate says which channel found it; the named paper is not one of them
    for (const c of report.candidates) expect(c.foundBy.length).toBeGreaterThan(0)
    expect(report.candidates.map((c: { paper: { arxivId: string } }) => c.paper.arxivId)).not.toContain("1609.08144")
    expect(report.alreadyInNote).toContainEqual({
      arxivId: "1609.08144",
      title: "Google's Neural Machine Translation System: Bridging the Gap between Human and Machine Translation",
      mention: "arxiv-url",
      text: "https://arxiv.org/abs/1609.08144v2"
    })
    // the demo note names Bahdanau et al. by its title in italics: found by a channel, it is recognised too
    expect(report.alreadyInNote).toContainEqual(expect.objectContaining({ arxivId: "1409.0473", mention: "title" }))
    for (const n of report.alreadyInNote) {
      expect(report.candidates.map((c: { paper: { arxivId: string } }) => c.paper.arxivId)).not.toContain(n.arxivId)
    }
    // its recorded references were looked up with the survivors' (one works batch)
    expect(report.foundations.find((f: { arxivId: string }) => f.arxivId === "1609.08144")?.status).toBe("found")
    expect(arxiv.requests[0]!.headers["user-agent"]).toContain("tests@example.org")
    // one arXiv request for a pool of 1000, in every machine-learning category
    expect(arxiv.requests[0]!.params["max_results"]).toBe("1000")
    expect(decodeURIComponent(arxiv.requests[0]!.params["search_query"] ?? "")).toContain("cat:cs.CV")
    // the model judges the pool's best 30 (by the local judge), 10 papers per call, then writes the summaries of
    // the papers in the places (the kept and those without a count that take a place) in one more call, if any
    expect(report.candidates.length).toBeLessThanOrEqual(30)
    const inPlaces = report.survivors.length + report.unrecordedInPlaces.length
    expect(llm.completions().length).toBe(Math.ceil(report.candidates.length / 10) + (inPlaces > 0 ? 1 : 0))
    // impact for the relevant candidates in one batched OpenAlex request (+ one for references when a survivor has some)
    const impactRequests = openalex.requests.filter((r) => (r.params["filter"] ?? "").startsWith("doi:"))
    expect(impactRequests.length).toBe(1)
    const note = readFileSync(join(vault, "Transformers Concept Note — Related Papers.md"), "utf8")
    expect(note).toContain("[[Transformers Concept Note]]")
    expect(note).toContain("## Already in your note")
    expect(note).toContain("> Most-cited search: ")
    expect(note).toContain("judge: \"scripted-judge")
    expect(note).not.toContain("test-key")

    const before = { arxiv: arxiv.requests.length, openalex: openalex.requests.length, judge: llm.completions().length }
    const warm = await run(args, env)
    expect(warm.code).toBe(0)
    expect(JSON.parse(warm.stdout).written.status).toBe("unchanged")
    expect(arxiv.requests.length).toBe(before.arxiv)
    expect(openalex.requests.length).toBe(before.openalex)
    expect(llm.completions().length).toBe(before.judge)
  })

  it("asks arXiv a second time, for the authors the note cites or else for titles naming its central concepts, when the pool did not take every match; warm, nothing", async () => {
    const env = {
      ARXIV_API_URL: arxiv.url,
      OPENALEX_API_URL: openalex.url,
      OPENALEX_API_KEY: "test-key",
      LLM_BASE_URL: llm.url,
      LLM_MODEL: "scripted-judge",
      ARXIV_COMPANION_CACHE_DIR: join(work, "cache-title")
    }
    const args = (vault: string) => ["run", "Find papers related to my 'Transformers Concept Note'", "--vault", vault, "--json", "--pool-size", "20"]
    const coldRun = async (vault: string, cache: string) => {
      const before = { arxiv: arxiv.requests.length, openalex: openalex.requests.length }
      const cold = await run(args(vault), { ...env, ARXIV_COMPANION_CACHE_DIR: join(work, cache) })
      expect(cold.code, cold.stderr).toBe(0)
      const report = JSON.parse(cold.stdout)
      // the request budget of a cold run: 2 to arXiv, at most 3 to OpenAlex
      const sent = arxiv.requests.slice(before.arxiv)
        .map((r) => ({ query: decodeURIComponent(r.params["search_query"] ?? ""), max: r.params["max_results"] }))
      expect(sent.length).toBe(2)
      expect(report.calls.arxiv).toBe(2)
      expect(openalex.requests.length - before.openalex).toBeLessThanOrEqual(3)
      expect(report.calls.openalex).toBe(openalex.requests.length - before.openalex)
      expect(sent[0]!.query).toBe(report.query)
      expect(sent[1]!.query).toBe(report.titleQuery)
      const channels = new Set(report.candidates.flatMap((c: { foundBy?: Array<string> }) => c.foundBy ?? []))
      return { report, sent, channels, note: readFileSync(join(vault, "Transformers Concept Note — Related Papers.md"), "utf8") }
    }
    const concept = (query: string) => query.slice(query.indexOf(") AND (all:") + ") AND (".length, query.indexOf(")) AND (cat:"))

    // the demo note cites "Vaswani et al.": the second request asks for that author alone, 5 places, among the
    // papers the concept query matches, in the same categories; the central words boost the first request's titles
    const vault = join(work, "vault-title")
    cpSync(join(root, "examples", "vault"), vault, { recursive: true })
    rmSync(join(vault, "Transformers Concept Note — Related Papers.md"), { force: true })
    const cited = await coldRun(vault, "cache-title")
    expect(cited.report.citedAuthors.map((a: { surname: string }) => a.surname)).toEqual(["Vaswani"])
    expect(cited.sent.map((r) => r.max)).toEqual(["20", "5"])
    expect(cited.sent[1]!.query).toMatch(/^\(\(au:Vaswani\) AND \(all:/)
    expect(cited.sent[0]!.query.startsWith(`(${concept(cited.sent[1]!.query)} OR ti:`)).toBe(true)
    const categories = cited.report.query.slice(cited.report.query.indexOf(") AND (cat:") + ") AND ".length)
    expect(cited.sent[1]!.query.endsWith(`)) AND ${categories}`)).toBe(true)
    expect(cited.channels.has("arxiv-author")).toBe(true)
    expect(cited.channels.has("arxiv-title")).toBe(false)
    expect(cited.note).toContain("> Author search: `(au:Vaswani)")
    expect(cited.note).toContain("> Authors your note cites, searched for: Vaswani")

    const warmBefore = { arxiv: arxiv.requests.length, openalex: openalex.requests.length }
    const warm = await run(args(vault), env)
    expect(warm.code, warm.stderr).toBe(0)
    expect(JSON.parse(warm.stdout).written.status).toBe("unchanged")
    expect(arxiv.requests.length).toBe(warmBefore.arxiv)
    expect(openalex.requests.length).toBe(warmBefore.openalex)

    // the same note citing no one: the second request asks for the central words in titles (50 places, at most
    // the pool), ANDed with the concept query, which is then unboosted
    const plain = join(work, "vault-title-plain")
    cpSync(vault, plain, { recursive: true })
    rmSync(join(plain, "Transformers Concept Note — Related Papers.md"), { force: true })
    const source = join(plain, "Transformers Concept Note.md")
    writeFileSync(source, readFileSync(source, "utf8").replace("Vaswani et al. — ", ""))
    const titled = await coldRun(plain, "cache-title-plain")
    expect(titled.report.citedAuthors).toEqual([])
    expect(titled.sent.map((r) => r.max)).toEqual(["20", "20"])
    expect(titled.sent[1]!.query).toMatch(/^\(\(ti:\S.*\) AND \(all:/)
    expect(titled.sent[0]!.query).toBe(`(${concept(titled.sent[1]!.query)}) AND ${categories}`)
    expect(titled.channels.has("arxiv-title")).toBe(true)
    expect(titled.note).toContain("> Title search: `(ti:")
  })

  it("goes on uncached, with one warning line, when --cache-dir cannot be used", async () => {
    const vault = join(work, "vault-nocache")
    cpSync(join(root, "examples", "vault"), vault, { recursive: true })
    const file = join(work, "a-file")
    writeFileSync(file, "not a folder")
    const env = {
      ARXIV_API_URL: arxiv.url,
      OPENALEX_API_URL: openalex.url,
      OPENALEX_API_KEY: "test-key",
      LLM_BASE_URL: llm.url,
      LLM_MODEL: "scripted-judge"
    }
    for (const dir of [join(file, "cache"), "/proc/arxiv-companion-nope"]) {
      const before = arxiv.requests.length
      const args = ["run", "Find papers related to my 'Transformers Concept Note'", "--vault", vault, "--json", "--cache-dir", dir]
      const result = await run(args, env)
      expect(result.code, result.stderr).toBe(0)
      // the report is the JSON document on stdout (log lines go elsewhere, or at least not inside it)
      const report = result.stdout.slice(result.stdout.indexOf("\n{") + 1 || result.stdout.indexOf("{"))
      expect(JSON.parse(report).candidates.length).toBeGreaterThan(0)
      expect(arxiv.requests.length).toBe(before + 1)
      const said = `${result.stderr}${result.stdout}`.split("\n").filter((l) => l.includes(dir))
      expect(said.length, result.stderr).toBe(1)
      expect(said[0]).toContain("cache")
      expect(result.stderr).not.toMatch(/ENOTDIR: not a directory|\n\s+at /)
    }
  }, 60_000)

  it("says on stderr why a search waits: arXiv's transient failure and the retry", async () => {
    arxiv.failNext(Fault.unavailable())
    const before = arxiv.requests.length
    const result = await run(["search", "attention is all you need", "--max-results", "3", "--json"], {
      ARXIV_API_URL: arxiv.url,
      ARXIV_COMPANION_CACHE: "off"
    })
    expect(result.code, result.stderr).toBe(0)
    expect(arxiv.requests.length).toBe(before + 2)
    expect(result.stderr).toMatch(/^arXiv: HTTP 503; trying again in \d+ s \(attempt 2 of 4\)$/m)
    expect(result.stdout).toContain("\"papers\"")
  }, 60_000)
})

describe("arxiv-companion run when the last OpenAlex lookup fails", { timeout: 120_000 }, () => {
  it("keeps the run: writes the note with the foundations marked unavailable, saying why", async () => {
    // every references lookup (works by OpenAlex id) fails; the impact lookup and the works search answer
    const failing = await startOpenAlexStandIn({
      requiredKey: "test-key",
      failWhen: (r) => (r.params["filter"] ?? "").startsWith("openalex:") ? OpenAlexFault.unavailable() : undefined
    })
    try {
      const vault = join(work, "vault-no-references")
      cpSync(join(root, "examples", "vault"), vault, { recursive: true })
      rmSync(join(vault, "Transformers Concept Note — Related Papers.md"), { force: true })
      const result = await run(["run", "Find papers related to my 'Transformers Concept Note'", "--vault", vault, "--json"], {
        ARXIV_API_URL: arxiv.url,
        ARXIV_COMPANION_CACHE: "off",
        OPENALEX_API_URL: failing.url,
        OPENALEX_API_KEY: "test-key"
      })
      expect(failing.requests.some((r) => (r.params["filter"] ?? "").startsWith("openalex:"))).toBe(true)
      expect(result.code, result.stderr).toBe(0)
      const report = JSON.parse(result.stdout)
      expect(report.survivors.length).toBeGreaterThan(0)
      expect(report.written.status).toBe("created")
      const unavailable = report.foundations.filter((f: { status: string }) => f.status === "unavailable")
      expect(unavailable.length).toBeGreaterThan(0)
      for (const f of unavailable) expect(f.reason).toMatch(/OpenAlex/)
      const note = readFileSync(join(vault, "Transformers Concept Note — Related Papers.md"), "utf8")
      expect(note).toMatch(/^- Builds on: unavailable this time — .*OpenAlex.* Run the companion again to fill it in\.$/m)
    } finally {
      await failing.close()
    }
  })
})
