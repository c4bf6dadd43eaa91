/**
 * arXiv's rule counts every process of the user: several built CLI processes
 * at once against the loopback arXiv stand-in share one budget through the
 * lease (UpstreamLease.ts) — request starts spaced across processes, never
 * two in flight, a Retry-After one of them heard holding back the others,
 * identical cold searches made once. ARXIV_MIN_INTERVAL makes the spacing
 * 1 s here (arXiv's own 3 s is enforced against arxiv.org whatever it says);
 * the gaps are checked as lower bounds only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type ArxivStandIn, Fault, startArxivStandIn } from "../support/arxiv-standin.js"
import { runCli } from "../support/cli.js"

let work: string
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "arxiv-companion-lease-"))
})
afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

const fresh = (name: string) => fs.mkdtempSync(path.join(work, `${name}-`))

const envFor = (standIn: ArxivStandIn, leaseDir: string, cacheDir: string, interval = "1 second") => ({
  ARXIV_API_URL: standIn.url,
  ARXIV_MIN_INTERVAL: interval,
  ARXIV_COMPANION_LEASE_DIR: leaseDir,
  ARXIV_COMPANION_CACHE_DIR: cacheDir,
  ARXIV_COMPANION_CONTACT: "tests@example.org"
})

const search = (query: string, env: Record<string, string>) =>
  runCli(["search", query, "--max-results", "3", "--json"], env)

const gapsOf = (standIn: ArxivStandIn) => {
  const arrivals = standIn.requests.map((r) => r.at).sort((a, b) => a - b)
  return arrivals.slice(1).map((a, i) => a - arrivals[i]!)
}

describe("one politeness budget for every process of the user", { timeout: 120_000 }, () => {
  it("five CLI runs of different searches: request starts 1 s apart across processes, never two in flight", async () => {
    const standIn = await startArxivStandIn({ latencyMillis: 300, padSearches: true, corpus: "landmarks" })
    try {
      const lease = fresh("lease")
      const runs = await Promise.all(
        ["attention", "transformer", "adversarial", "residual", "dropout"].map((q) => search(`all:${q}`, envFor(standIn, lease, fresh("cache"))))
      )
      for (const run of runs) expect(run.code, run.stderr).toBe(0)
      expect(standIn.requests.length).toBe(5)
      const gaps = gapsOf(standIn)
      expect(Math.min(...gaps), `gaps ${gaps.map((g) => g.toFixed(0)).join(", ")} ms`).toBeGreaterThanOrEqual(1000)
      expect(standIn.maxInFlight()).toBe(1)
      // the lease is a state file and its lock beside it, nothing else
      expect(fs.readdirSync(lease).filter((f) => !f.endsWith(".lock")).length).toBe(1)
    } finally {
      await standIn.close()
    }
  })

  it("five CLI runs of the same search sharing a cache folder: arXiv is asked once, the others read its answer", async () => {
    const standIn = await startArxivStandIn({ latencyMillis: 500, padSearches: true, corpus: "landmarks" })
    try {
      const env = envFor(standIn, fresh("lease"), fresh("cache"))
      const runs = await Promise.all(Array.from({ length: 5 }, () => search("all:attention", env)))
      for (const run of runs) expect(run.code, run.stderr).toBe(0)
      expect(standIn.requests.length).toBe(1)
      const answers = new Set(runs.map((r) => JSON.stringify(JSON.parse(r.stdout).papers)))
      expect(answers.size).toBe(1)
    } finally {
      await standIn.close()
    }
  })

  it("a Retry-After one process heard holds back the user's other processes", async () => {
    const standIn = await startArxivStandIn({ padSearches: true, corpus: "landmarks" })
    try {
      standIn.failNext(Fault.rateLimited("4"))
      const lease = fresh("lease")
      const first = search("all:attention", envFor(standIn, lease, fresh("cache"), "200 millis"))
      while (standIn.requests[0]?.status === undefined) await new Promise((r) => setTimeout(r, 20))
      const heldAt = standIn.requests[0]!.at
      const second = search("all:dropout", envFor(standIn, lease, fresh("cache"), "200 millis"))
      const runs = await Promise.all([first, second])
      for (const run of runs) expect(run.code, run.stderr).toBe(0)
      expect(standIn.requests.length).toBe(3)
      for (const later of standIn.requests.slice(1)) expect(later.at - heldAt).toBeGreaterThanOrEqual(4000)
    } finally {
      await standIn.close()
    }
  })

  it("a lease folder other users can write is not used: one warning, and the run goes on", async () => {
    const standIn = await startArxivStandIn({ padSearches: true, corpus: "landmarks" })
    try {
      const lease = fresh("lease")
      fs.chmodSync(lease, 0o777)
      const run = await search("all:attention", envFor(standIn, lease, fresh("cache")))
      expect(run.code, run.stderr).toBe(0)
      const warning = run.stderr.split("\n").filter((l) => l.includes(lease))
      expect(warning.length, run.stderr).toBe(1)
      expect(warning[0]).toContain("can be written by other users")
      expect(fs.readdirSync(lease)).toEqual([])
      expect(standIn.requests.length).toBe(1)
    } finally {
      await standIn.close()
    }
  })
})
