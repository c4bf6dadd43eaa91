/**
 * The digest's announcing bar: a digest announces a paper only at relevance DIGEST_RELEVANCE or more (the run's
 * bar when that is higher), by the real local judge over the recorded corpus. The judge is watched (its answers
 * recorded as they pass, unchanged) to see which papers a run's bar of 0.5 would have kept and the digest did not.
 * A judge that names its own bar for its relevance scale (`digestRelevance`) is announced at that bar instead.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Digest, type Judgement, Layers, LlmJudgePort, Tools } from "../../src/index.js"

const demo = fileURLToPath(new URL("../../examples/vault", import.meta.url))

/** The digest of the demo vault's GAN note since 2016-06-01, dry, with every judgement the judge gave. */
const digestWatched = (vault: string, relevanceThreshold?: number, digestRelevance?: number, maxResults?: number) =>
  Effect.gen(function*() {
    const judge = yield* LlmJudgePort
    const seen = new Map<string, Judgement>()
    const watched = Layer.succeed(LlmJudgePort, {
      ...judge,
      ...(digestRelevance === undefined ? {} : { digestRelevance }),
      judge: (concept, papers) => Effect.tap(judge.judge(concept, papers), (js) => Effect.sync(() => js.forEach((j) => seen.set(j.arxivId, j))))
    })
    const checked = yield* Tools.digestInput({ since_date: "2016-06-01", notes: "Generative*", dry_run: true, ...(maxResults === undefined ? {} : { max_results: maxResults }) })
    const options = relevanceThreshold === undefined ? checked.options : { ...checked.options, relevanceThreshold }
    const report = yield* Digest.digestVault({ ...checked, options }).pipe(Effect.provide(watched))
    return { report, seen }
  }).pipe(Effect.provide(Layers.OfflineLayer({ vault })))

describe("the digest's announcing bar", { timeout: 180_000 }, () => {
  it("announces only papers at relevance 0.7 or more, though the run's bar of 0.5 would keep more, and says so in the note", async () => {
    const vault = mkdtempSync(join(tmpdir(), "digest-bar-"))
    cpSync(demo, vault, { recursive: true })
    try {
      const { report, seen } = await Effect.runPromise(digestWatched(vault))
      const papers = report.notes[0]!.papers
      expect(Digest.DIGEST_RELEVANCE).toBe(0.7)
      expect(papers.length).toBeGreaterThan(0)
      for (const p of papers) expect(p.relevance).toBeGreaterThanOrEqual(Digest.DIGEST_RELEVANCE)
      // papers the run's bar passes and the digest's does not: judged, not announced
      const between = [...seen.values()].filter((j) => j.relevance >= 0.5 && j.relevance < Digest.DIGEST_RELEVANCE)
      expect(between.length).toBeGreaterThan(0)
      const announced = new Set(papers.map((p) => p.arxivId))
      for (const j of between) expect(announced.has(j.arxivId)).toBe(false)
      expect(report.markdown).toContain("relevance at least 0.70 and impact")

      // a run's bar above the digest's is the one that holds
      const strict = await Effect.runPromise(digestWatched(vault, 0.9))
      for (const p of strict.report.notes[0]!.papers) expect(p.relevance).toBeGreaterThanOrEqual(0.9)
      expect(strict.report.notes[0]!.papers.length).toBeLessThanOrEqual(papers.length)
      expect(strict.report.markdown).toContain("relevance at least 0.90 and impact")
    } finally {
      rmSync(vault, { recursive: true, force: true })
    }
  })

  it("announces at the bar the judge names for its own relevance scale, in place of the default", async () => {
    const vault = mkdtempSync(join(tmpdir(), "digest-bar-"))
    cpSync(demo, vault, { recursive: true })
    try {
      // up to 50 papers a note, so that the cap of 10 does not hide what a bar takes away
      const at = (digestRelevance?: number, relevanceThreshold?: number) => Effect.runPromise(digestWatched(vault, relevanceThreshold, digestRelevance, 50))
      const byDefault = (await at()).report.notes[0]!.papers
      const high = await at(0.8)
      const higher = await at(0.9)
      const highPapers = high.report.notes[0]!.papers
      for (const p of highPapers) expect(p.relevance).toBeGreaterThanOrEqual(0.8)
      for (const p of higher.report.notes[0]!.papers) expect(p.relevance).toBeGreaterThanOrEqual(0.9)
      expect(high.report.markdown).toContain("relevance at least 0.80 and impact")
      expect(higher.report.markdown).toContain("relevance at least 0.90 and impact")
      // the default (0.7) announces papers the judge's 0.8 does not, and 0.8 more than 0.9: each bar is the one used
      expect(byDefault.some((p) => p.relevance < 0.8)).toBe(true)
      expect(highPapers.length).toBeLessThan(byDefault.length)
      expect(higher.report.notes[0]!.papers.length).toBeLessThan(highPapers.length)
      const defaultIds = new Set(byDefault.map((p) => p.arxivId))
      for (const p of highPapers) expect(defaultIds.has(p.arxivId)).toBe(true)
      // a bar below the default is the one said, too
      expect((await at(0.6)).report.markdown).toContain("relevance at least 0.60 and impact")
      // the run's bar above the judge's still holds
      const strict = await at(0.6, 0.9)
      for (const p of strict.report.notes[0]!.papers) expect(p.relevance).toBeGreaterThanOrEqual(0.9)
      expect(strict.report.markdown).toContain("relevance at least 0.90 and impact")
    } finally {
      rmSync(vault, { recursive: true, force: true })
    }
  })
})
