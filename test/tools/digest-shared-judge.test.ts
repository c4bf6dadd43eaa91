/**
 * The digest judges a chunk of notes at once: a paper that is a candidate of several notes is prepared once by the
 * local judge (`judge.many`) and scored against each. The digest it writes is the one a judge without the batch
 * writes (a digest of ten eval notes with many shared candidates, both ways, by the real local judge over the
 * recorded corpus), and `many` answers exactly what `judge` answers, concept by concept, for any papers.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { conceptWords, passesGate } from "../../src/core/digestAnnounce.js"
import { Adapters, ArxivPort, Digest, type JudgeMany, Layers, LlmJudgePort, type LlmJudgeService, Tools } from "../../src/index.js"

const { LocalJudge } = Adapters
const notesDir = fileURLToPath(new URL("../../eval/retrieval/notes", import.meta.url))
const NOTES: ReadonlyArray<readonly [file: string, title: string]> = [
  ["gan-training.md", "GAN training"],
  ["conditional-gans.md", "Conditional GANs and image translation"],
  ["variational-autoencoders.md", "Variational autoencoders"],
  ["normalizing-flows.md", "Normalizing flows"],
  ["style-transfer.md", "Style transfer"],
  ["super-resolution.md", "Super-resolution"],
  ["semantic-segmentation.md", "Semantic segmentation"],
  ["instance-segmentation.md", "Instance segmentation"],
  // two notes whose titles many of their candidates do not name (the title check removes some)
  ["synthetic-data.md", "Learning from synthetic data"],
  ["monocular-depth.md", "Monocular depth estimation"]
]

const vaultOfNotes = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "digest-shared-"))
  for (const [file, title] of NOTES) writeFileSync(join(dir, `${title}.md`), readFileSync(join(notesDir, file), "utf8"))
  return dir
}

/** A dry digest since 2016-06-01 with the given judge (the offline layer's arXiv, citations and vault). */
const digestWith = (vault: string, judge: (base: LlmJudgeService) => LlmJudgeService) =>
  Effect.gen(function*() {
    const base = yield* LlmJudgePort
    const checked = yield* Tools.digestInput({ since_date: "2016-06-01", dry_run: true })
    return yield* Digest.digestVault(checked).pipe(Effect.provide(Layer.succeed(LlmJudgePort, judge(base))))
  }).pipe(Effect.provide(Layers.OfflineLayer({ vault })))

describe("the digest's shared judging", { timeout: 240_000 }, () => {
  it("writes the same digest with the batch as one judge call per note does, and the batch shares papers between notes", async () => {
    const vault = vaultOfNotes()
    try {
      const batches: Array<ReadonlyArray<ReadonlyArray<string>>> = []
      const batched = await Effect.runPromise(digestWith(vault, (base) => {
        const many = base.judge.many
        if (many === undefined) throw new Error("the local judge has no batch")
        const watched: JudgeMany = (items) => {
          batches.push(items.map((i) => i.papers.map((p) => p.arxivId)))
          return many(items)
        }
        return { ...base, judge: Object.assign((c: Parameters<LlmJudgeService["judge"]>[0], p: Parameters<LlmJudgeService["judge"]>[1]) => base.judge(c, p), { many: watched }) }
      }))
      let single = 0
      const oneByOne = await Effect.runPromise(digestWith(vault, (base) => ({
        ...base,
        // a wrapper of `judge` drops the batch with it: one call per note
        judge: (c, p) => Effect.sync(() => single++).pipe(Effect.zipRight(base.judge(c, p)))
      })))

      // the batch was used for every note (in one batch, unless a search under load took 2 s and closed a chunk),
      // and papers were candidates of more than one note of a batch
      expect(batches.reduce((s, b) => s + b.length, 0)).toBe(NOTES.length)
      expect(batches.some((b) => new Set(b.flat()).size < b.flat().length)).toBe(true)
      expect(single).toBe(NOTES.length)

      // and the digest is the same, to the byte
      expect(batched.markdown).toBe(oneByOne.markdown)
      expect(batched.notes).toEqual(oneByOne.notes)
      expect(batched.calls).toEqual(oneByOne.calls)
      expect(batched.notes.reduce((s, n) => s + n.papers.length, 0)).toBeGreaterThan(0)
    } finally {
      rmSync(vault, { recursive: true, force: true })
    }
  })

  it("`many` answers what `judge` answers for each concept, whatever papers it is given, one of them twice", async () => {
    const vault = vaultOfNotes()
    try {
      await Effect.runPromise(Effect.gen(function*() {
        const arxiv = yield* ArxivPort
        const pool = (yield* arxiv.search({ query: undefined, categories: ["cs.CV", "cs.LG", "cs.CL"], since: "2016-06-01", maxResults: 120, sortBy: "relevance" })).papers
        expect(pool.length).toBeGreaterThan(60)
        // a second text under an id already given (another record of it) is judged on its own text
        const twin = { arxivId: pool[0]!.arxivId, title: pool[1]!.title, abstract: pool[1]!.abstract }
        const concepts = NOTES.map(([file, title]) => ({ title, text: readFileSync(join(notesDir, file), "utf8"), keywords: [title.toLowerCase()] }))
        for (const judge of [LocalJudge.makeWith(), LocalJudge.makeWith({ ranker: LocalJudge.arxivRanker() })]) {
          // seeded choices: each concept gets an overlapping slice of the pool, some papers twice, one the twin
          let seed = 7
          const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
          const items = concepts.map((concept, i) => {
            const papers = pool.filter(() => random() < 0.4).slice(0, 40)
            return { concept, papers: i % 3 === 0 ? [...papers, twin, papers[0]!] : papers }
          })
          const together = yield* judge.judge.many!(items)
          const apart = yield* Effect.forEach(items, (item) => judge.judge(item.concept, item.papers))
          expect(together.length).toBe(items.length)
          expect(together).toEqual(apart)
        }
      }).pipe(Effect.provide(Layers.OfflineLayer({ vault }))))
    } finally {
      rmSync(vault, { recursive: true, force: true })
    }
  })

  it("announces by default only papers whose title or first sentence names half of the note's title words, at most 5 a note, and says so", async () => {
    const vault = vaultOfNotes()
    try {
      const run = (announceRule?: Digest.AnnounceRule) =>
        Effect.runPromise(Effect.gen(function*() {
          const checked = yield* Tools.digestInput({ since_date: "2016-06-01", dry_run: true })
          const report = yield* Digest.digestVault({ ...checked, ...(announceRule === undefined ? {} : { announceRule }) })
          const arxiv = yield* ArxivPort
          const ids = [...new Set(report.notes.flatMap((n) => n.papers.map((p) => p.arxivId)))]
          const found = ids.length === 0 ? [] : (yield* arxiv.getPapers(ids)).papers
          return { report, text: new Map(found.map((p) => [p.arxivId.replace(/v\d+$/, ""), p])) }
        }).pipe(Effect.provide(Layers.OfflineLayer({ vault }))))
      expect(Digest.DIGEST_ANNOUNCE).toEqual({ gate: "half", cap: 5 })
      const gated = await run()
      const open = await run({ gate: "none" })
      expect(gated.report.markdown).toContain("A paper is announced only when its title or first sentence names at least half of its note's title words.")
      expect(gated.report.markdown).toContain("At most 5 papers a note are announced, the most relevant first.")
      expect(open.report.markdown).not.toContain("first sentence names")
      expect(open.report.markdown).not.toContain("At most")
      // the cap: 5 a note by default, the most relevant of what the gate alone would announce
      const uncapped = await run({ gate: "half" })
      for (const n of gated.report.notes) {
        expect(n.papers.length).toBeLessThanOrEqual(5)
        const all = uncapped.report.notes.find((u) => u.path === n.path)!.papers
        expect(n.papers.map((p) => p.arxivId)).toEqual(all.slice(0, 5).map((p) => p.arxivId))
      }
      expect(uncapped.report.notes.some((n) => n.papers.length > 5)).toBe(true)
      let failing = 0
      for (const n of open.report.notes) {
        const words = conceptWords(n.title)
        const kept = gated.report.notes.find((g) => g.path === n.path)!.papers
        for (const p of kept) expect(passesGate("half", words, open.text.get(p.arxivId) ?? gated.text.get(p.arxivId)!)).toBe(true)
        failing += n.papers.filter((p) => !passesGate("half", words, open.text.get(p.arxivId)!)).length
      }
      // without the gate, papers that fail it are announced: the gate is what removes them
      expect(failing).toBeGreaterThan(0)
      expect(gated.report.notes.reduce((s, n) => s + n.papers.length, 0)).toBeGreaterThan(0)
    } finally {
      rmSync(vault, { recursive: true, force: true })
    }
  })
})
