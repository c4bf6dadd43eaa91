/**
 * What the digest's grid scripts (bars.ts, rechoose.ts) share: a dry digest of the graded notes under one judge and
 * one announcement rule, with arXiv's searches and the judge's answers kept across the grid's settings (the same
 * notes ask the same searches and judge the same papers each time), and the titles and abstracts of the papers
 * announced without a grade, for the blind sheets.
 */
import { Effect, Layer } from "effect"
import { ArxivPort, type ArxivSearch, type ArxivSearchResult, Digest, type Judgement, LlmJudgePort, type LlmJudgeService, Tools } from "../../src/index.js"

type Arxiv = ArxivPort["Type"]

/** `arxiv` with each search answered once: a search asked again is the first answer. */
export const keptSearches = (arxiv: Arxiv): Arxiv => {
  const searched = new Map<string, ArxivSearchResult>()
  return {
    ...arxiv,
    search: (q: ArxivSearch) =>
      Effect.suspend(() => {
        const key = JSON.stringify(q)
        const hit = searched.get(key)
        return hit !== undefined ? Effect.succeed(hit) : Effect.tap(arxiv.search(q), (r) => Effect.sync(() => searched.set(key, r)))
      })
  }
}

/** `base`'s judgements, each (concept, paper) judged once. */
export const keptJudgements = (base: LlmJudgeService): LlmJudgeService["judge"] => {
  const judged = new Map<string, Judgement>()
  return (concept, papers) =>
    Effect.gen(function*() {
      const key = (id: string) => `${concept.title}\u0000${concept.text}\u0000${id}`
      const missing = papers.filter((p) => !judged.has(key(p.arxivId)))
      if (missing.length > 0) {
        const answers = yield* base.judge(concept, missing)
        answers.forEach((j) => judged.set(key(j.arxivId), j))
      }
      return papers.map((p) => judged.get(key(p.arxivId))!)
    })
}

/** A dry digest since `since` with `base`'s judge (answering through `judge`) at relevance bar `bar` and `rule`. */
export const dryDigest = (
  since: string,
  base: LlmJudgeService,
  judge: LlmJudgeService["judge"],
  bar: number,
  rule: NonNullable<Parameters<typeof Digest.digestVault>[0]["announceRule"]>,
  arxiv: Arxiv
) =>
  Effect.gen(function*() {
    const service: LlmJudgeService = { ...base, judge, digestRelevance: bar }
    const checked = yield* Tools.digestInput({ since_date: since, dry_run: true })
    const report = yield* Digest.digestVault({ ...checked, announceRule: rule }).pipe(
      Effect.provide(Layer.mergeAll(Layer.succeed(LlmJudgePort, service), Layer.succeed(ArxivPort, arxiv)))
    )
    if (report.written !== undefined || report.state !== undefined) throw new Error("a dry digest wrote into the vault")
    return report
  })

/** The titles and abstracts of `ids` (bare arXiv ids) into `into`, 50 a request. */
export const readAbstracts = (arxiv: Arxiv, ids: ReadonlyArray<string>, into: Map<string, { title: string; published: string; abstract: string }>) =>
  Effect.gen(function*() {
    for (let i = 0; i < ids.length; i += 50) {
      const r = yield* arxiv.getPapers(ids.slice(i, i + 50))
      for (const p of r.papers) into.set(p.arxivId.replace(/v\d+$/, ""), { title: p.title, published: p.published, abstract: p.abstract })
    }
  })
