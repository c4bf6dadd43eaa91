/**
 * The digest without --offline, against the loopback arXiv and OpenAlex
 * stand-ins: one arXiv request per note at arXiv's 3 s pace (the shared
 * lease), the time said before starting, progress with the time left, an
 * interrupted digest resumed without repeating its finished notes; and on a
 * local mirror, 0 requests to the arXiv API.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { type ArxivStandIn, startArxivStandIn } from "../support/arxiv-standin.js"
import { CLI, ROOT, runCli } from "../support/cli.js"
import { metadataRecords, recordedRecords, type StandIn, startStandIn } from "../support/oai-standin.js"
import { type OpenAlexStandIn, startOpenAlexStandIn } from "../support/openalex-standin.js"

let arxiv: ArxivStandIn
let openalex: OpenAlexStandIn
let work: string

beforeAll(async () => {
  arxiv = await startArxivStandIn({ padSearches: true, corpus: "landmarks" })
  openalex = await startOpenAlexStandIn({ requiredKey: "test-key" })
  work = mkdtempSync(join(tmpdir(), "companion-digest-live-"))
})
afterAll(async () => {
  await Promise.all([arxiv.close(), openalex.close()])
  rmSync(work, { recursive: true, force: true })
})

const freshVault = (name: string): string => {
  const vault = join(work, name)
  cpSync(join(ROOT, "examples", "vault"), vault, { recursive: true })
  rmSync(join(vault, "Transformers Concept Note — Related Papers.md"), { force: true })
  return vault
}

const envFor = (lease: string): Record<string, string | undefined> => ({
  HOME: work,
  ARXIV_API_URL: arxiv.url,
  ARXIV_COMPANION_CONTACT: "tests@example.org",
  ARXIV_COMPANION_LEASE_DIR: lease,
  ARXIV_COMPANION_CACHE: "false",
  OPENALEX_API_URL: openalex.url,
  OPENALEX_API_KEY: "test-key",
  ARXIV_COMPANION_OFFLINE: undefined,
  ARXIV_COMPANION_ARXIV: undefined,
  OPENROUTER_API_KEY: undefined,
  LLM_BASE_URL: undefined
})

const arrivalsSince = (from: number): ReadonlyArray<number> => arxiv.requests.slice(from).map((r) => r.at).sort((a, b) => a - b)
const gaps = (at: ReadonlyArray<number>): ReadonlyArray<number> => at.slice(1).map((a, i) => a - at[i]!)

// each note waits arXiv's 3 s: a digest of 4 notes takes ~12 s, more on a busy machine
describe("arxiv-companion digest, live, against loopback stand-ins", { timeout: 240_000 }, () => {
  it("makes one arXiv request per note, 3 s apart, says the time first and the time left as it goes", async () => {
    const vault = freshVault("vault-paced")
    const from = arxiv.requests.length
    const fromOpenAlex = openalex.requests.length
    const r = await runCli(["digest", "--vault", vault, "--judge", "local", "--since", "2010-01-01", "--json"], envFor(join(work, "lease-paced")))
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toContain("test-key")
    expect(r.stderr).toMatch(/^Digest: 4 of 5 concept notes to search; 1 not searched \(listed with why\); 4 arXiv requests at arXiv's pace of one per 3 s: about 12 s$/m)
    expect(r.stderr).toMatch(/^\[#{5}-{15}\] 1\/4 .*: \d+ new · about \d+ s left$/m)
    expect(r.stderr).toMatch(/^\[#{20}\] 4\/4 .*: \d+ new$/m)
    const result = JSON.parse(r.stdout) as { notes_covered: number; calls: { arxiv: number; openalex: number } }
    expect(result.notes_covered).toBe(4)
    const at = arrivalsSince(from)
    expect(at.length).toBe(4)
    expect(result.calls.arxiv).toBe(4)
    for (const gap of gaps(at)) expect(gap).toBeGreaterThanOrEqual(2_950)
    // OpenAlex: at most one batched impact lookup per note
    const impactLookups = openalex.requests.slice(fromOpenAlex)
    expect(impactLookups.length).toBeLessThanOrEqual(4)
    expect(result.calls.openalex).toBe(impactLookups.length)
  })

  it("resumes an interrupted digest without repeating the notes it had finished", async () => {
    const vault = freshVault("vault-resume")
    const lease = join(work, "lease-resume")
    const env = envFor(lease)
    const args = ["digest", "--vault", vault, "--judge", "local", "--since", "2010-01-01", "--json"]
    const from = arxiv.requests.length
    // arXiv leaves every request after the second unanswered, so that the third note cannot finish before the kill
    // below, however late a busy machine delivers the progress line (the third request comes 3 s after the second)
    const hold = setInterval(() => {
      if (arxiv.requests.length - from >= 2) {
        arxiv.failAlways({ _tag: "Hang" })
        clearInterval(hold)
      }
    }, 5)
    try {
      // the student's machine goes down after the second note
      await new Promise<void>((resolve, reject) => {
        const merged = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined)) as Record<string, string>
        const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: merged, stdio: ["ignore", "pipe", "pipe"] })
        let stderr = ""
        let stdout = ""
        child.stdout.setEncoding("utf8")
        child.stdout.on("data", (chunk: string) => (stdout += chunk))
        child.stderr.setEncoding("utf8")
        child.stderr.on("data", (chunk: string) => {
          stderr += chunk
          if (/^\[.*\] 2\/4 /m.test(stderr)) child.kill("SIGKILL")
        })
        child.on("exit", (code, signal) =>
          /^\[.*\] 2\/4 /m.test(stderr)
            ? resolve()
            : reject(new Error(`the digest ended (${code ?? signal}) before its second note: ${stderr}${stdout.slice(0, 2_000)}`)))
      })
    } finally {
      clearInterval(hold)
      arxiv.failAlways(undefined)
    }
    // two notes' requests answered; a third, if the digest had sent it before the kill, was never answered
    const sent = arxiv.requests.slice(from)
    expect(sent.filter((r) => r.fault === undefined).length).toBe(2)
    expect(sent.length).toBeLessThanOrEqual(3)
    for (const r of sent.slice(2)) expect(r.fault).toBe("Hang")
    const state = readFileSync(join(vault, "arXiv Companion", "Digest State.md"), "utf8")
    expect(state).toContain("is in progress: 2 notes done")

    const resumedFrom = arxiv.requests.length
    const r = await runCli(args, env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/^Digest: 2 of 5 concept notes to search; resuming: 2 already done; 1 not searched \(listed with why\); 2 arXiv requests at arXiv's pace of one per 3 s: about 6 s$/m)
    expect(arxiv.requests.length - resumedFrom).toBe(2)
    const result = JSON.parse(r.stdout) as { notes_covered: number; resumed: number }
    expect(result.notes_covered).toBe(4)
    expect(result.resumed).toBe(2)
    const digest = readFileSync(join(vault, `arXiv Digest ${new Date().toISOString().slice(0, 10)}.md`), "utf8")
    for (const title of ["Generative Adversarial Networks", "Word Embeddings", "Reading List", "Transformers Concept Note"]) {
      expect(digest).toMatch(new RegExp(`^## \\[\\[${title}\\]\\]$|\\[\\[${title}\\]\\]`, "m"))
    }
    // finished: the record holds each note's date and no digest in progress
    const after = readFileSync(join(vault, "arXiv Companion", "Digest State.md"), "utf8")
    expect(after).not.toContain("in progress")
    expect(after).not.toContain("\"pending\"")
  })
})

describe("arxiv-companion digest on a local mirror", { timeout: 240_000 }, () => {
  it("makes 0 requests to the arXiv API", async () => {
    const records = [...metadataRecords(), ...recordedRecords("ListRecords_200_2018.xml")].filter((r) => r.sets.includes("cs"))
    const dir = join(work, "mirror-case")
    const mirror = join(dir, "mirror")
    mkdirSync(dir, { recursive: true })
    const oai: StandIn = await startStandIn(records, 25)
    let apiRequests = 0
    const api: Server = createServer((_, res) => {
      apiRequests++
      res.writeHead(500).end("the arXiv API must not be asked")
    })
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve))
    try {
      const env = {
        ...envFor(join(work, "lease-mirror")),
        ARXIV_OAI_URL: oai.url,
        ARXIV_API_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}/api/query`,
        XDG_DATA_HOME: join(dir, "data")
      }
      const sync = await runCli(["mirror", "sync", "--categories", "cs.IT,cs.DM", "--dir", mirror], env)
      expect(sync.code, sync.stderr).toBe(0)
      const vault = join(dir, "vault")
      mkdirSync(vault, { recursive: true })
      writeFileSync(
        join(vault, "Channel Capacity.md"),
        "# Channel capacity\n\nThe capacity of a noisy channel: Shannon's coding theorem, mutual information, " +
          "entropy, Gaussian interference channels, quantum channels and the capacity per unit cost.\n"
      )
      writeFileSync(join(vault, "Graph Colouring.md"), "# Graph colouring\n\nChromatic number, proper colourings of graphs, list colouring, planar graphs and the four colour theorem; edge colouring.\n")
      const r = await runCli(
        ["digest", "--vault", vault, "--offline", "--arxiv", `mirror:${mirror}`, "--categories", "cs.IT,cs.DM", "--since", "2007-01-01", "--json"],
        env
      )
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toMatch(/^Digest: 2 of 2 concept notes to search; 0 arXiv requests \(a local backend\)$/m)
      const result = JSON.parse(r.stdout) as {
        notes_covered: number
        notes: ReadonlyArray<{ candidates: number; papers: ReadonlyArray<{ arxiv_id: string }> }>
        calls: { arxiv: number }
      }
      expect(result.notes_covered).toBe(2)
      // each note searched the mirror once (its one "arXiv request" is the mirror's), and judged what it holds
      expect(result.calls.arxiv).toBe(2)
      expect(result.notes.every((n) => n.candidates > 0)).toBe(true)
      const held = new Set(records.map((x) => x.id))
      for (const id of result.notes.flatMap((n) => n.papers.map((p) => p.arxiv_id))) expect(held.has(id), `${id} is not from the mirror`).toBe(true)
      expect(apiRequests).toBe(0)
    } finally {
      await oai.close()
      await new Promise<void>((resolve) => api.close(() => resolve()))
    }
  })
})
