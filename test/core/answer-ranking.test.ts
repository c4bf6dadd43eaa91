/**
 * ask's answer order (`answerRanking`, src/core/ask.ts): the keep rule's order, so impact reorders papers only
 * within the band of near-equal relevance, and a paper without a recorded count loses only near ties.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { answerRanking } from "../../src/core/ask.js"
import { Judgement, Paper, ScoredPaper } from "../../src/core/models.js"
import type { ImpactAssessment } from "../../src/core/models.js"
import { clearedBothBars, decide, keepBest, NEAR_EQUAL_RELEVANCE } from "../../src/core/rules.js"
import { landmarks, s2Source } from "./fixtures.js"

const thresholds = { citationsPerYearThreshold: 5, exemptYears: 1, relevanceThreshold: 0.5 }

const scored = (arxivId: string, relevance: number, perYear: number | undefined, exempt = false): ScoredPaper => {
  const impact: ImpactAssessment = perYear === undefined
    ? { status: "unknown", ageYears: exempt ? 0.5 : 5, exempt, pass: exempt, asOf: "2024-02-15", source: s2Source }
    : { status: "known", citationCount: Math.round(perYear * 5), ageYears: 5, citationsPerYear: perYear, exempt: false, pass: perYear >= 5, asOf: "2024-02-15" }
  const judgement = new Judgement({ arxivId, relevance, novelty: 0.5, rationale: "test" })
  return new ScoredPaper({
    paper: new Paper({ ...landmarks[0]!, arxivId }),
    judgement,
    impact,
    decision: decide(judgement, impact, thresholds)
  })
}

/** The papers that lead a question's answer, as ask chooses them: cleared both bars, or relevant without a count. */
const leading = (all: ReadonlyArray<ScoredPaper>): ReadonlyArray<ScoredPaper> =>
  keepBest(all, { maxResults: 10, relevanceThreshold: thresholds.relevanceThreshold }).candidates
    .filter((s) => clearedBothBars(s) || s.decision.kind === "impact-not-recorded")

const ids = (list: ReadonlyArray<ScoredPaper>) => list.map((s) => s.paper.arxivId)

describe("answerRanking (ask's answer order)", () => {
  it("lets a famous paper pass a slightly more relevant one, never one more than the band (0.05) more relevant", () => {
    // 0.04 apart: near-equal, the paper cited 10,000 times a year comes first
    assert.deepStrictEqual(ids(answerRanking(leading([scored("2001.00001", 0.9, 6), scored("2001.00002", 0.86, 10_000)]))), [
      "2001.00002",
      "2001.00001"
    ])
    // 0.13 apart, 1,000 citations a year against 6 (impact weighed without a bound, 0.05 · log10(1 + 1,000) = 0.15,
    // put the famous paper first): relevance decides
    assert.deepStrictEqual(ids(answerRanking(leading([scored("2001.00001", 0.9, 6), scored("2001.00002", 0.77, 1_000)]))), [
      "2001.00001",
      "2001.00002"
    ])
    // 0.06 apart, 150,000 citations a year against 6: relevance decides
    assert.deepStrictEqual(ids(answerRanking(leading([scored("2001.00002", 0.74, 150_000), scored("2001.00001", 0.8, 6)]))), [
      "2001.00001",
      "2001.00002"
    ])
  })

  it("puts a relevant paper without a recorded count after a counted one of near-equal relevance, before one clearly less relevant", () => {
    const order = answerRanking(leading([
      scored("2001.00001", 0.9, undefined), // no count recorded
      scored("2001.00002", 0.88, 50), // near-equal: the count wins the tie
      scored("2001.00003", 0.84, 100_000) // 0.06 below: whatever its count, after
    ]))
    assert.deepStrictEqual(ids(order), ["2001.00002", "2001.00001", "2001.00003"])
    assert.strictEqual(order[1]!.decision.kind, "impact-not-recorded")
  })

  const paperArb = fc.record({
    // (fc.double leans to its extremes and to tiny values; integers spread evenly)
    relevance: fc.integer({ min: 0, max: 10_000 }).map((x) => x / 10_000),
    // citations a year spread over every order of magnitude, 0 to 200,000
    perYear: fc.option(fc.integer({ min: 0, max: 5_301 }).map((e) => 10 ** (e / 1_000) - 1), { nil: undefined }),
    exempt: fc.boolean()
  })
  const pool = fc.array(paperArb, { maxLength: 30 })
    .map((papers) => papers.map((p, k) => scored(`1602.${String(k).padStart(5, "0")}`, p.relevance, p.perYear, p.exempt && p.perYear === undefined)))

  it.prop(
    "never puts a paper before one more than the band (0.05) more relevant, whatever the counts (counted, new or not recorded)",
    { all: pool },
    ({ all }) => {
      const lead = leading(all)
      const order = answerRanking(lead)
      assert.sameMembers(ids(order), ids(lead))
      for (let i = 0; i < order.length; i++) {
        for (let j = i + 1; j < order.length; j++) {
          const [before, after] = [order[i]!.judgement.relevance, order[j]!.judgement.relevance]
          assert.isAtMost(after, before + NEAR_EQUAL_RELEVANCE, `${order[i]!.paper.arxivId} (${before}) before ${order[j]!.paper.arxivId} (${after})`)
        }
      }
    }
  )
})
