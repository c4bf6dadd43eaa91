/**
 * The digest's announcing bar: a digest announces a paper only at the judge's own bar for its relevance scale
 * (`digestRelevance`; DIGEST_RELEVANCE for a judge that names none), or the run's bar when that is higher, by the
 * real local judge over the recorded corpus. The local judge names one per relevance: the fixed map's
 * (`LocalJudge.fixedDigestRelevance`) and the learned one's, beside its weights in data/judge/ranker.json. The judge
 * is watched (its answers recorded as they pass, unchanged) to see which papers a run's bar of 0.5 would have kept
 * and the digest did not.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Adapters, Digest, type Judgement, Layers, LlmJudgePort, type LlmJudgeService, Tools } from "../../src/index.js"

const { LocalJudge } = Adapters
const demo = fileURLToPath(new URL("../../examples/vault", import.meta.url))

interface Watch {
  /** the run's bar (default: the run's own, 0.5) */
  readonly relevanceThreshold?: number
  /** the bar the judge names: a number, "none" for no bar of its own, absent for the judge's own */
  readonly digestRelevance?: number | "none"
  readonly maxResults?: number
  /** the announcing rule without its cap of 5 a note, so that the cap does not hide what a bar takes away */
  readonly uncapped?: boolean
  /** the judge (default: the layer's, the local judge with its fixed relevance) */
  readonly judge?: LlmJudgeService
}

/** The digest of the demo vault's GAN note since 2016-06-01, dry, with every judgement the judge gave. */
const digestWatched = (vault: string, w: Watch = {}) =>
  Effect.gen(function*() {
    const judge = w.judge ?? (yield* LlmJudgePort)
    const seen = new Map<string, Judgement>()
    const digestRelevance = w.digestRelevance === undefined ? judge.digestRelevance : w.digestRelevance === "none" ? undefined : w.digestRelevance
    const watched = Layer.succeed(LlmJudgePort, {
      ...judge,
      digestRelevance,
      judge: (concept, papers) => Effect.tap(judge.judge(concept, papers), (js) => Effect.sync(() => js.forEach((j) => seen.set(j.arxivId, j))))
    })
    const checked = yield* Tools.digestInput({ since_date: "2016-06-01", notes: "Generative*", dry_run: true, ...(w.maxResults === undefined ? {} : { max_results: w.maxResults }) })
    const options = w.relevanceThreshold === undefined ? checked.options : { ...checked.options, relevanceThreshold: w.relevanceThreshold }
    const announceRule = w.uncapped === true ? { gate: Digest.DIGEST_ANNOUNCE.gate } : undefined
    const report = yield* Digest.digestVault({ ...checked, options, ...(announceRule === undefined ? {} : { announceRule }) }).pipe(Effect.provide(watched))
    return { report, seen }
  }).pipe(Effect.provide(Layers.OfflineLayer({ vault })))

const withDemo = async (body: (vault: string) => Promise<void>) => {
  const vault = mkdtempSync(join(tmpdir(), "digest-bar-"))
  cpSync(demo, vault, { recursive: true })
  try {
    await body(vault)
  } finally {
    rmSync(vault, { recursive: true, force: true })
  }
}

describe("the digest's announcing bar", { timeout: 180_000 }, () => {
  it("announces at the fixed relevance's bar by default, though the run's bar of 0.5 would keep more, and says so in the note", () =>
    withDemo(async (vault) => {
      const bar = LocalJudge.fixedDigestRelevance
      expect(bar).toBe(0.7)
      const { report, seen } = await Effect.runPromise(digestWatched(vault))
      const papers = report.notes[0]!.papers
      expect(papers.length).toBeGreaterThan(0)
      for (const p of papers) expect(p.relevance).toBeGreaterThanOrEqual(bar)
      // papers the run's bar passes and the digest's does not: judged, not announced
      const between = [...seen.values()].filter((j) => j.relevance >= 0.5 && j.relevance < bar)
      expect(between.length).toBeGreaterThan(0)
      const announced = new Set(papers.map((p) => p.arxivId))
      for (const j of between) expect(announced.has(j.arxivId)).toBe(false)
      expect(report.markdown).toContain("relevance at least 0.70 and impact")

      // a run's bar above the digest's is the one that holds
      const strict = await Effect.runPromise(digestWatched(vault, { relevanceThreshold: 0.9 }))
      for (const p of strict.report.notes[0]!.papers) expect(p.relevance).toBeGreaterThanOrEqual(0.9)
      expect(strict.report.notes[0]!.papers.length).toBeLessThanOrEqual(papers.length)
      expect(strict.report.markdown).toContain("relevance at least 0.90 and impact")
    }))

  it("announces the learned relevance at the bar beside its weights, and a ranker's own bar when it names another", () =>
    withDemo(async (vault) => {
      const ranker = LocalJudge.arxivRanker()
      const bar = ranker.digestRelevance
      expect(typeof bar, "data/judge/ranker.json names the learned relevance's bar (eval/digest/bars.ts --write-ranker)").toBe("number")
      const at = (r: typeof ranker) => Effect.runPromise(digestWatched(vault, { judge: LocalJudge.makeWith({ ranker: r }), maxResults: 50, uncapped: true }))
      const learned = await at(ranker)
      const papers = learned.report.notes[0]!.papers
      expect(papers.length).toBeGreaterThan(0)
      for (const p of papers) expect(p.relevance).toBeGreaterThanOrEqual(bar!)
      expect(learned.report.markdown).toContain(`relevance at least ${bar!.toFixed(2)} and impact`)
      const announced = new Set(papers.map((p) => p.arxivId))
      const between = [...learned.seen.values()].filter((j) => j.relevance >= 0.5 && j.relevance < bar!)
      expect(between.length).toBeGreaterThan(0)
      for (const j of between) expect(announced.has(j.arxivId)).toBe(false)

      // the same weights with a stricter bar of their own: that bar, and fewer papers
      const strict = await at({ ...ranker, digestRelevance: 0.9 })
      expect(strict.report.markdown).toContain("relevance at least 0.90 and impact")
      const strictPapers = strict.report.notes[0]!.papers
      for (const p of strictPapers) expect(p.relevance).toBeGreaterThanOrEqual(0.9)
      expect(strictPapers.length).toBeLessThan(papers.length)
      // a ranker that names no bar (a refit not yet measured) is announced at the digest's default
      const { digestRelevance: _, ...unmeasured } = ranker
      const none = await at(unmeasured)
      expect(none.report.markdown).toContain(`relevance at least ${Digest.DIGEST_RELEVANCE.toFixed(2)} and impact`)
      for (const p of none.report.notes[0]!.papers) expect(p.relevance).toBeGreaterThanOrEqual(Digest.DIGEST_RELEVANCE)
    }))

  it("announces at the bar the judge names for its own relevance scale, in place of the default", () =>
    withDemo(async (vault) => {
      // up to 50 papers a note and no cap of the announcing rule, so that no cap hides what a bar takes away
      const at = (digestRelevance: number | "none", relevanceThreshold?: number) =>
        Effect.runPromise(
          digestWatched(vault, { digestRelevance, maxResults: 50, uncapped: true, ...(relevanceThreshold === undefined ? {} : { relevanceThreshold }) })
        )
      // a judge that names no bar is announced at DIGEST_RELEVANCE
      expect(Digest.DIGEST_RELEVANCE).toBe(0.7)
      const none = await at("none")
      const byDefault = none.report.notes[0]!.papers
      for (const p of byDefault) expect(p.relevance).toBeGreaterThanOrEqual(0.7)
      expect(none.report.markdown).toContain("relevance at least 0.70 and impact")
      // 0.85, not 0.8: on the recorded corpus through the mirror's engine, every paper the default announces for
      // this note is at 0.82 or more, so 0.8 would announce the same ones
      const high = await at(0.85)
      const higher = await at(0.9)
      const highPapers = high.report.notes[0]!.papers
      for (const p of highPapers) expect(p.relevance).toBeGreaterThanOrEqual(0.85)
      for (const p of higher.report.notes[0]!.papers) expect(p.relevance).toBeGreaterThanOrEqual(0.9)
      expect(high.report.markdown).toContain("relevance at least 0.85 and impact")
      expect(higher.report.markdown).toContain("relevance at least 0.90 and impact")
      // the default (0.7) announces papers the judge's 0.85 does not, and 0.85 more than 0.9: each bar is the one used
      expect(byDefault.some((p) => p.relevance < 0.85)).toBe(true)
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
    }))
})
