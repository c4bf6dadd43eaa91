import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { Impact, ImpactSource, Judgement, Paper, ScoredPaper } from "../../src/core/models.js"
import type { ImpactAssessment } from "../../src/core/models.js"
import {
  ageInYears,
  assessImpact,
  citationsPerYear,
  decide,
  heldBackByConcept,
  impactNotAssessed,
  impactPass,
  IN_THE_PLACES,
  keepBest,
  LISTED_AFTER_KEPT,
  NEAR_EQUAL_RELEVANCE,
  ordinal,
  rankFoundational,
  survivors
} from "../../src/core/rules.js"
import { landmark, landmarks, openalexWorks, s2Impacts, s2Source } from "./fixtures.js"

const defaults = { citationsPerYearThreshold: 5, exemptYears: 1, relevanceThreshold: 0.5 }

const iso = (d: Date): string => d.toISOString().slice(0, 10)
/** Calendar dates between 1990 and 2040, as YYYY-MM-DD. */
const isoDate = fc.date({ min: new Date("1990-01-01T00:00:00Z"), max: new Date("2040-12-31T00:00:00Z"), noInvalidDate: true })
  .map(iso)

const judged = (arxivId: string, relevance: number): Judgement =>
  new Judgement({ arxivId, relevance, novelty: 0.5, rationale: "test" })

describe("ageInYears", () => {
  it("is (asOf − first version) / 365.25", () => {
    assert.strictEqual(ageInYears("2020-01-01", "2021-01-01"), 366 / 365.25)
    assert.strictEqual(ageInYears("2014-09-01", "2014-09-01"), 0)
    // Bahdanau et al., first version 2014-09-01, as of the S2 recording date
    assert.closeTo(ageInYears(landmark("1409.0473").published, "2024-02-15"), 9.4565, 1e-4)
  })

  it("is never negative (a first version after asOf is age 0)", () => {
    assert.strictEqual(ageInYears("2025-01-01", "2024-01-01"), 0)
  })

  it.prop("is non-negative and monotone in asOf", { first: isoDate, a: isoDate, b: isoDate }, ({ a, b, first }) => {
    const [early, late] = a <= b ? [a, b] : [b, a]
    const ageEarly = ageInYears(first, early)
    const ageLate = ageInYears(first, late)
    assert.isAtLeast(ageEarly, 0)
    assert.isAtLeast(ageLate, ageEarly)
  })
})

describe("citationsPerYear", () => {
  it("divides by the age", () => {
    assert.strictEqual(citationsPerYear(100, 4), 25)
  })

  it("divides by at least one year, so a young paper is not rewarded for being young", () => {
    assert.strictEqual(citationsPerYear(12, 0.25), 12)
    assert.strictEqual(citationsPerYear(12, 0), 12)
    assert.strictEqual(citationsPerYear(12, 1), 12)
  })

  it.prop(
    "is non-negative and never more than the citations",
    { citations: fc.nat({ max: 1_000_000 }), age: fc.double({ min: 0, max: 200, noNaN: true }) },
    ({ age, citations }) => {
      const perYear = citationsPerYear(citations, age)
      assert.isAtLeast(perYear, 0)
      assert.isAtMost(perYear, citations)
    }
  )
})

describe("impactPass", () => {
  it("passes at the threshold, fails just below it", () => {
    assert.isTrue(impactPass(3, 5, defaults))
    assert.isFalse(impactPass(3, 4.99, defaults))
  })

  it("exempts papers younger than the exemption", () => {
    assert.isTrue(impactPass(0.99, 0, defaults))
    assert.isFalse(impactPass(1, 0, defaults))
    assert.isTrue(impactPass(1.5, 0, { citationsPerYearThreshold: 5, exemptYears: 2 }))
  })

  it.prop(
    "is monotone in citations at a fixed age",
    {
      age: fc.double({ min: 0, max: 50, noNaN: true }),
      c1: fc.nat({ max: 100_000 }),
      c2: fc.nat({ max: 100_000 }),
      threshold: fc.double({ min: 0, max: 100, noNaN: true }),
      exemptYears: fc.double({ min: 0, max: 5, noNaN: true })
    },
    ({ age, c1, c2, exemptYears, threshold }) => {
      const t = { citationsPerYearThreshold: threshold, exemptYears }
      const [low, high] = c1 <= c2 ? [c1, c2] : [c2, c1]
      if (impactPass(age, citationsPerYear(low, age), t)) {
        assert.isTrue(impactPass(age, citationsPerYear(high, age), t))
      }
    }
  )

  it.prop(
    "always passes a paper younger than the exemption, whatever its citations",
    {
      exemptYears: fc.double({ min: 0.01, max: 5, noNaN: true }),
      fraction: fc.double({ min: 0, max: 0.999, noNaN: true }),
      citations: fc.nat({ max: 1000 }),
      threshold: fc.double({ min: 0, max: 1000, noNaN: true })
    },
    ({ citations, exemptYears, fraction, threshold }) => {
      const age = exemptYears * fraction
      assert.isTrue(impactPass(age, citationsPerYear(citations, age), { citationsPerYearThreshold: threshold, exemptYears }))
    }
  )
})

describe("assessImpact", () => {
  const bahdanauPaper = landmark("1409.0473")
  const bahdanau = s2Impacts.find((i) => i.arxivId === "1409.0473")!

  it("computes age as of the source's recordedOn date, not today", () => {
    const a = assessImpact(bahdanauPaper.published, bahdanau, "2026-11-29", defaults)
    assert.strictEqual(a.asOf, "2024-02-15")
    assert.strictEqual(a.status, "known")
    assert.strictEqual(a.citationCount, 24423)
    assert.closeTo(a.ageYears, ageInYears("2014-09-01", "2024-02-15"), 1e-12)
    assert.closeTo(a.citationsPerYear!, 24423 / ageInYears("2014-09-01", "2024-02-15"), 1e-9)
    assert.isTrue(a.pass)
    assert.isFalse(a.exempt)
    assert.deepStrictEqual(a.source, s2Source)
  })

  it("computes age as of today when the source has no recording date (live answers)", () => {
    const live = new Impact({ arxivId: "1409.0473", citationCount: 24423, source: new ImpactSource({ name: "OpenAlex" }) })
    const a = assessImpact(bahdanauPaper.published, live, "2026-11-29", defaults)
    assert.strictEqual(a.asOf, "2026-11-29")
    assert.closeTo(a.ageYears, ageInYears("2014-09-01", "2026-11-29"), 1e-12)
  })

  it("falls back to the OpenAlex publication date, then year, when the first-version date is unknown", () => {
    const byDate = new Impact({
      arxivId: "x",
      citationCount: 10,
      publicationDate: "2020-06-01",
      publicationYear: 2020,
      source: new ImpactSource({ name: "OpenAlex" })
    })
    assert.closeTo(assessImpact(undefined, byDate, "2022-06-01", defaults).ageYears, 730 / 365.25, 1e-12)
    const byYear = new Impact({ arxivId: "x", citationCount: 10, publicationYear: 2020, source: new ImpactSource({ name: "OpenAlex" }) })
    assert.closeTo(assessImpact(undefined, byYear, "2022-01-01", defaults).ageYears, 731 / 365.25, 1e-12)
  })

  it("marks a paper with no impact record unknown: an old one does not pass, a new one passes as exempt without a count", () => {
    const old = assessImpact("2014-09-01", undefined, "2026-11-29", defaults)
    assert.strictEqual(old.status, "unknown")
    assert.isFalse(old.pass)
    assert.isFalse(old.exempt)
    assert.strictEqual(old.citationCount, undefined)
    assert.strictEqual(old.citationsPerYear, undefined)
    const brandNew = assessImpact("2026-11-01", undefined, "2026-11-29", defaults)
    assert.strictEqual(brandNew.status, "unknown")
    assert.isTrue(brandNew.exempt)
    assert.isTrue(brandNew.pass)
    assert.strictEqual(brandNew.citationCount, undefined)
    assert.strictEqual(brandNew.asOf, "2026-11-29")
  })

  it("ages a paper without a count as of the date it is given: the recording date of offline data, not today", () => {
    // a paper first submitted in February 2017, next to an offline corpus recorded 2017-04-06
    const asOfData = assessImpact("2017-02-14", undefined, "2017-04-06", defaults)
    assert.isTrue(asOfData.exempt)
    assert.isTrue(asOfData.pass)
    assert.closeTo(asOfData.ageYears, ageInYears("2017-02-14", "2017-04-06"), 1e-12)
    // the same paper aged as of a 2026 "today" is 9.8 years old and cannot be exempt
    assert.isFalse(assessImpact("2017-02-14", undefined, "2026-11-29", defaults).pass)
  })

  it("never exempts a paper whose date is unknown as well as its count", () => {
    const a = assessImpact(undefined, undefined, "2026-11-29", defaults)
    assert.strictEqual(a.status, "unknown")
    assert.isFalse(a.exempt)
    assert.isFalse(a.pass)
  })

  it("the decision says an unknown-impact paper passed as new, and which date it was aged at", () => {
    const young = assessImpact("2017-02-14", undefined, "2017-04-06", defaults)
    const kept = decide(judged("1702.04200", 0.8), young, defaults)
    assert.isTrue(kept.kept)
    assert.match(kept.reasons.join("; "), /new paper \(0\.1 y < 1 y as of 2017-04-06\): impact exempt, no citation count needed/)
    const dropped = decide(judged("1409.9999", 0.8), assessImpact("2014-09-01", undefined, "2017-04-06", defaults), defaults)
    assert.isFalse(dropped.kept)
    assert.strictEqual(dropped.kind, "impact-not-recorded")
    assert.include(dropped.reasons, "impact not recorded (no citation count)")
  })

  it("exempts a paper younger than the exemption even with no citations", () => {
    const young = new Impact({ arxivId: "x", citationCount: 0, source: new ImpactSource({ name: "OpenAlex" }) })
    const a = assessImpact("2026-06-01", young, "2026-11-29", defaults)
    assert.isTrue(a.exempt)
    assert.isTrue(a.pass)
  })

  it("fails an old paper below the citations/year threshold", () => {
    const quiet = new Impact({ arxivId: "x", citationCount: 40, source: new ImpactSource({ name: "OpenAlex" }) })
    const a = assessImpact("2016-11-29", quiet, "2026-11-29", defaults)
    assert.isFalse(a.exempt)
    assert.isFalse(a.pass)
    assert.closeTo(a.citationsPerYear!, 40 / ageInYears("2016-11-29", "2026-11-29"), 1e-12)
  })

  it.prop(
    "unknown impact passes exactly when the paper is younger than the exemption, for any dates and thresholds",
    {
      first: isoDate,
      today: isoDate,
      threshold: fc.double({ min: 0, max: 100, noNaN: true }),
      exemptYears: fc.double({ min: 0, max: 100, noNaN: true })
    },
    ({ exemptYears, first, threshold, today }) => {
      const a = assessImpact(first, undefined, today, { citationsPerYearThreshold: threshold, exemptYears })
      assert.strictEqual(a.status, "unknown")
      assert.strictEqual(a.pass, ageInYears(first, today) < exemptYears)
      assert.strictEqual(a.pass, a.exempt)
      assert.isUndefined(a.citationsPerYear)
    }
  )

  it.prop(
    "a known impact passes exactly when exempt or at/over the threshold",
    { first: isoDate, recorded: isoDate, citations: fc.nat({ max: 200_000 }) },
    ({ citations, first, recorded }) => {
      const impact = new Impact({
        arxivId: "x",
        citationCount: citations,
        source: new ImpactSource({ name: "Recorded", recordedOn: recorded })
      })
      const a = assessImpact(first, impact, "2040-12-31", defaults)
      assert.strictEqual(a.asOf, recorded)
      assert.strictEqual(a.exempt, a.ageYears < 1)
      assert.strictEqual(a.pass, a.exempt || a.citationsPerYear! >= 5)
      assert.isAtMost(a.citationsPerYear!, citations)
    }
  )
})

describe("decide", () => {
  const known: ImpactAssessment = {
    status: "known",
    citationCount: 100,
    ageYears: 4,
    citationsPerYear: 25,
    exempt: false,
    pass: true,
    asOf: "2026-11-29"
  }
  const unknown: ImpactAssessment = { status: "unknown", ageYears: 4, exempt: false, pass: false, asOf: "2026-11-29" }

  it("keeps a relevant paper with passing impact and says why", () => {
    const d = decide(judged("x", 0.8), known, defaults)
    assert.isTrue(d.kept)
    assert.deepStrictEqual(d.reasons, ["relevance 0.80 ≥ 0.50", "25.0 citations/year ≥ 5"])
  })

  it("keeps a paper exactly at the relevance threshold", () => {
    assert.isTrue(decide(judged("x", 0.5), known, defaults).kept)
  })

  it("drops an irrelevant paper whatever its impact", () => {
    const d = decide(judged("x", 0.49), known, defaults)
    assert.isFalse(d.kept)
    assert.include(d.reasons[0]!, "<")
  })

  it("says why a paper's impact was not looked up: not relevant, or past the most relevant candidates", () => {
    const notAssessed = impactNotAssessed("2026-11-29")
    assert.isFalse(notAssessed.pass)
    const irrelevant = decide(judged("x", 0.2), notAssessed, defaults)
    assert.isFalse(irrelevant.kept)
    assert.include(irrelevant.reasons[1]!, "only relevant candidates are")
    const relevant = decide(judged("x", 0.9), notAssessed, defaults)
    assert.isFalse(relevant.kept)
    assert.include(relevant.reasons[1]!, "only the most relevant candidates'")
  })

  it("does not keep a relevant paper whose impact is not recorded, and says so, naming the source asked", () => {
    const d = decide(judged("x", 0.9), unknown, defaults)
    assert.isFalse(d.kept)
    assert.strictEqual(d.kind, "impact-not-recorded")
    assert.include(d.reasons, "impact not recorded (no citation count)")
    const asked = assessImpact("2014-09-01", undefined, "2024-02-15", defaults, s2Source)
    assert.strictEqual(asked.source, s2Source)
    assert.include(
      decide(judged("x", 0.9), asked, defaults).reasons,
      `impact not recorded (no citation count in ${s2Source.name}, recorded ${s2Source.recordedOn})`
    )
    // a source that covers several (the recorded counts) is named on the paper's line; what it covers is said once
    const several = { name: "Recorded citation counts", detail: "per paper, the first source that recorded it: A (recorded 2024-02-15), then B (recorded 2025-06-12)" }
    const reasons = decide(judged("x", 0.9), assessImpact("2014-09-01", undefined, "2024-02-15", defaults, several), defaults).reasons
    assert.include(reasons, "impact not recorded (no citation count in Recorded citation counts)")
    assert.notInclude(reasons.join(" "), "per paper, the first source")
    // below the relevance bar a missing count does not matter: dropped
    assert.strictEqual(decide(judged("x", 0.3), unknown, defaults).kind, "dropped")
  })

  it("drops a relevant paper below the citations/year bar", () => {
    const d = decide(judged("x", 0.9), { ...known, citationsPerYear: 2, pass: false }, defaults)
    assert.isFalse(d.kept)
    assert.include(d.reasons, "2.0 citations/year < 5")
  })

  it("holds back a relevant paper the judge says does not name the note's concept, unless cited enough a year", () => {
    const gated = (relevance: number, spare?: number) =>
      new Judgement({
        arxivId: "x",
        relevance,
        novelty: 0.5,
        rationale: "test",
        conceptGate: { match: 0.12, gate: 0.3, ...(spare === undefined ? {} : { spareCitationsPerYear: spare }) }
      })
    // cited 25 a year ≥ 20: spared, kept, and told why
    const spared = decide(gated(0.8, 20), known, defaults)
    assert.isTrue(spared.kept)
    assert.deepStrictEqual(spared.reasons, [
      "relevance 0.80 ≥ 0.50",
      "does not name the note's concept (concept match 0.12 < 0.30), kept in the running by its 25.0 citations/year ≥ 20",
      "25.0 citations/year ≥ 5"
    ])
    // cited 10 a year: it clears the impact bar, not the spare: held back, as not relevant
    const cited10 = { ...known, citationsPerYear: 10 }
    const held = decide(gated(0.8, 20), cited10, defaults)
    assert.strictEqual(held.kind, "dropped")
    assert.deepStrictEqual(held.reasons, [
      "relevance 0.80 ≥ 0.50",
      "held back: it does not name the note's concept (concept match 0.12 < 0.30), and only 20 citations/year would spare it (10.0 citations/year < 20)"
    ])
    assert.isTrue(heldBackByConcept(gated(0.8, 20), cited10))
    // no count: not spared, and not listed among the relevant papers without a count either
    const none = decide(gated(0.8, 20), unknown, defaults)
    assert.strictEqual(none.kind, "dropped")
    assert.include(none.reasons[1]!, "(no citation count)")
    assert.include(decide(gated(0.8, 20), impactNotAssessed("2026-11-29"), defaults).reasons[1]!, "(its citations were not looked up)")
    // a gate without a spare holds back whatever the count
    assert.strictEqual(decide(gated(0.8), known, defaults).kind, "dropped")
    assert.include(decide(gated(0.8), known, defaults).reasons, "held back: it does not name the note's concept (concept match 0.12 < 0.30)")
    // below the relevance bar the gate is not mentioned: the bar says it
    assert.deepStrictEqual(decide(gated(0.4, 20), cited10, defaults).reasons, ["relevance 0.40 < 0.50", "10.0 citations/year ≥ 5"])
  })

  it("never shows a value on the wrong side of its threshold after rounding", () => {
    const d = decide(judged("x", 0.4996), { ...known, citationsPerYear: 4.96, pass: false }, defaults)
    assert.deepStrictEqual(d.reasons, ["relevance 0.4996 < 0.50", "4.96 citations/year < 5"])
  })

  it.prop(
    "the numbers in its reasons agree with the comparison they state",
    {
      relevance: fc.double({ min: 0, max: 1, noNaN: true }),
      relevanceThreshold: fc.constantFrom(0.5, 0.3, 0.75),
      perYear: fc.double({ min: 0, max: 20, noNaN: true }),
      citationsPerYearThreshold: fc.constantFrom(5, 1, 2.5, 10)
    },
    ({ citationsPerYearThreshold, perYear, relevance, relevanceThreshold }) => {
      const t = { citationsPerYearThreshold, exemptYears: 1, relevanceThreshold }
      const impact: ImpactAssessment = { ...known, citationsPerYear: perYear, pass: perYear >= citationsPerYearThreshold }
      const d = decide(judged("x", relevance), impact, t)
      for (const reason of d.reasons) {
        const m = /(\d+(?:\.\d+)?)\D*?([<≥]) (\d+(?:\.\d+)?)/.exec(reason)!
        const [shown, op, bar] = [Number(m[1]), m[2], Number(m[3])]
        assert.isTrue(op === "<" ? shown < bar : shown >= bar, reason)
      }
      assert.strictEqual(d.kept, relevance >= relevanceThreshold && perYear >= citationsPerYearThreshold)
    }
  )

  it("names the exemption of a new paper", () => {
    const d = decide(judged("x", 0.9), { ...known, ageYears: 0.3, citationsPerYear: 0, exempt: true, pass: true }, defaults)
    assert.isTrue(d.kept)
    assert.match(d.reasons[1]!, /new paper .* impact exempt/)
  })
})

describe("survivors", () => {
  const scored = (arxivId: string, relevance: number, perYear: number | undefined, pass = true): ScoredPaper => {
    const impact: ImpactAssessment = perYear === undefined
      ? { status: "unknown", ageYears: 5, exempt: false, pass: false, asOf: "2024-02-15" }
      : { status: "known", citationCount: perYear * 5, ageYears: 5, citationsPerYear: perYear, exempt: false, pass, asOf: "2024-02-15" }
    const judgement = judged(arxivId, relevance)
    return new ScoredPaper({ paper: landmark(arxivId), judgement, impact, decision: decide(judgement, impact, defaults) })
  }

  it("keeps only relevant papers with passing impact, by relevance then citations/year", () => {
    const all = [
      scored("1409.0473", 0.7, 2584), // kept
      scored("1409.3215", 0.9, 1940), // kept, most relevant
      scored("1508.07909", 0.7, 3000), // kept, ties 1409.0473 on relevance, more citations/year
      scored("1609.08144", 0.4, 800), // irrelevant
      scored("1310.4546", 0.95, undefined), // impact unknown
      scored("1701.06538", 0.8, 2, false) // impact too low
    ]
    assert.deepStrictEqual(survivors(all).map((s) => s.paper.arxivId), ["1409.3215", "1508.07909", "1409.0473"])
  })

  it("gives [] when nothing is kept, and does not reorder its input", () => {
    const all = [scored("1609.08144", 0.1, 800), scored("1409.0473", 0.2, 10)]
    assert.deepStrictEqual(survivors(all), [])
    assert.deepStrictEqual(all.map((s) => s.paper.arxivId), ["1609.08144", "1409.0473"])
  })

  it("lists a tie within the band by citations/year, and papers further apart by relevance alone", () => {
    const all = [
      scored("1701.06538", 0.8, 6), // closest, barely above the impact bar
      scored("1409.0473", 0.79, 2584), // near-equal relevance, a landmark: the tie goes to it
      scored("1508.07909", 0.7, 300), // clearly less relevant than both
      scored("1512.03385", 0.6, 150_000) // famous, and clearly less relevant still
    ]
    assert.deepStrictEqual(survivors(all).map((s) => s.paper.arxivId), ["1409.0473", "1701.06538", "1508.07909", "1512.03385"])
  })
})

describe("keepBest", () => {
  const t = (maxResults: number) => ({ maxResults, relevanceThreshold: 0.5 })
  const scored = (arxivId: string, relevance: number, perYear: number | undefined, o: { exempt?: boolean; foundBy?: "most-cited"; novelty?: number } = {}) => {
    const impact: ImpactAssessment = perYear === undefined
      ? { status: "unknown", ageYears: o.exempt === true ? 0.5 : 5, exempt: o.exempt === true, pass: o.exempt === true, asOf: "2024-02-15", source: s2Source }
      : { status: "known", citationCount: Math.round(perYear * 5), ageYears: 5, citationsPerYear: perYear, exempt: false, pass: perYear >= 5, asOf: "2024-02-15" }
    const judgement = o.novelty === undefined ? judged(arxivId, relevance) : new Judgement({ arxivId, relevance, novelty: o.novelty, rationale: "test" })
    return new ScoredPaper({
      paper: landmarks.find((l) => l.arxivId === arxivId) ?? new Paper({ ...landmarks[0]!, arxivId }),
      judgement,
      impact,
      decision: decide(judgement, impact, defaults),
      ...(o.foundBy === undefined ? {} : { foundBy: [o.foundBy] })
    })
  }
  const ids = (list: ReadonlyArray<ScoredPaper>) => list.map((s) => s.paper.arxivId)

  it("keeps the most relevant of the papers that clear both bars: a famous, less relevant one does not displace them", () => {
    const all = [
      scored("1701.06538", 0.8, 6), // closest, barely above the impact bar
      scored("1409.0473", 0.74, 2584), // a landmark, clearly less relevant
      scored("1508.07909", 0.7, 300),
      scored("1609.08144", 0.4, 800) // irrelevant: never kept
    ]
    assert.deepStrictEqual(ids(keepBest(all, t(2)).kept), ["1701.06538", "1409.0473"])
    assert.deepStrictEqual(ids(keepBest(all, t(1)).kept), ["1701.06538"])
    assert.deepStrictEqual(ids(keepBest(all, t(10)).kept), ids(survivors(all)))
    // ResNet, found by the most-cited channel with 1,500 citations a year, for a note on subword units
    const famous = [scored("1508.07909", 0.94, 5), scored("1512.03385", 0.66, 1500, { foundBy: "most-cited" })]
    assert.deepStrictEqual(ids(keepBest(famous, t(1)).kept), ["1508.07909"])
  })

  it("with the judge's novelty weight, a paper about the note's own subject comes before a slightly more relevant one about other things", () => {
    // A: more relevant, more cited, mostly about what the note never mentions; B: a little less relevant, the note's own subject
    const all = [scored("1701.06538", 0.85, 20, { novelty: 0.95 }), scored("1409.0473", 0.83, 10, { novelty: 0.05 })]
    // relevance alone (no weight, or weight 0): a near tie, broken by citations a year
    assert.deepStrictEqual(ids(keepBest(all, t(1)).kept), ["1701.06538"])
    assert.deepStrictEqual(ids(keepBest(all, { ...t(1), orderNovelty: 0 }).kept), ["1701.06538"])
    // keys 0.85 − 0.1 · 0.45 = 0.805 and 0.83 + 0.1 · 0.45 = 0.875: no longer a near tie
    const outcome = keepBest(all, { ...t(1), orderNovelty: 0.1 })
    assert.deepStrictEqual(ids(outcome.kept), ["1409.0473"])
    assert.deepStrictEqual(ids(outcome.cutByCap), ["1701.06538"])
    assert.match(outcome.candidates[0]!.decision.reasons.at(-1)!, /^cut by the cap: 2nd of 2/)
    // the weight orders the places only: which papers are relevant and cleared both bars does not move
    assert.deepStrictEqual(outcome.counts, keepBest(all, t(1)).counts)
    // a clearly more relevant paper keeps its place whatever its novelty
    const apart = [scored("1701.06538", 0.95, 20, { novelty: 0.95 }), scored("1409.0473", 0.8, 10, { novelty: 0.05 })]
    assert.deepStrictEqual(ids(keepBest(apart, { ...t(1), orderNovelty: 0.1 }).kept), ["1701.06538"])
  })

  it("lets a new paper with no count compete on relevance: it loses only a near tie", () => {
    const all = [scored("1701.06538", 0.9, undefined, { exempt: true }), scored("1409.0473", 0.7, 2584)]
    assert.deepStrictEqual(ids(keepBest(all, t(1)).kept), ["1701.06538"])
    const near = [scored("1409.0473", 0.87, 14), scored("1701.06538", 0.9, undefined, { exempt: true })]
    assert.deepStrictEqual(ids(keepBest(near, t(1)).kept), ["1409.0473"])
  })

  it("gives a paper past the cap its own decision, with its rank among those that cleared both bars", () => {
    // 26 papers clear both bars; the cap keeps 10
    const all = Array.from({ length: 26 }, (_, i) => scored(`1601.${String(i).padStart(5, "0")}`, 0.98 - i * 0.018, 10))
    const outcome = keepBest(all, t(10))
    assert.strictEqual(outcome.kept.length, 10)
    assert.strictEqual(outcome.cutByCap.length, 16)
    const eleventh = outcome.cutByCap[0]!
    assert.strictEqual(eleventh.paper.arxivId, "1601.00010")
    assert.deepStrictEqual([eleventh.decision.kind, eleventh.decision.kept, eleventh.decision.rank], ["cut-by-cap", false, 11])
    assert.include(eleventh.decision.reasons, "cut by the cap: 11th of 26 that cleared both bars; the first 10 are kept")
    assert.include(outcome.kept[2]!.decision.reasons, "kept: 3rd of 26 that cleared both bars")
    assert.deepStrictEqual(outcome.counts, {
      candidates: 26,
      relevant: 26,
      clearedBothBars: 26,
      kept: 10,
      cutByCap: 16,
      impactNotRecorded: 0,
      unrecordedInPlaces: 0,
      dropped: 0
    })
    // the candidates keep their order; only their decisions change
    assert.deepStrictEqual(ids(outcome.candidates), ids(all))
    assert.strictEqual(outcome.candidates.filter((c) => c.decision.kept).length, 10)
  })

  it("lets a relevant paper without a count take its place from a less relevant counted paper, which the cap then cuts", () => {
    const all = [
      scored("1409.3215", 0.95, undefined), // no count: more relevant than every counted paper
      scored("1409.0473", 0.8, 2584),
      scored("1508.07909", 0.7, 300), // counted, less relevant: displaced
      scored("1301.3781", 0.55, undefined), // no count, less relevant than both counted: past the places
      scored("1512.03385", 0.3, undefined) // irrelevant: dropped whatever its count
    ]
    const outcome = keepBest(all, t(2))
    assert.deepStrictEqual(ids(outcome.places), ["1409.3215", "1409.0473"])
    assert.deepStrictEqual(ids(outcome.kept), ["1409.0473"])
    assert.deepStrictEqual(ids(outcome.unrecordedInPlaces), ["1409.3215"])
    assert.deepStrictEqual(ids(outcome.unrecordedAmongKept), ["1409.3215"])
    const placed = outcome.unrecordedInPlaces[0]!
    assert.deepStrictEqual([placed.decision.kind, placed.decision.kept, placed.decision.rank], ["impact-not-recorded", false, 1])
    assert.include(
      placed.decision.reasons,
      `1st of 4 in keep order (2 that cleared both bars, 2 relevant without a recorded citation count): ${IN_THE_PLACES}, ${LISTED_AFTER_KEPT}`
    )
    // the source asked and its date, as for every paper without a count
    assert.include(placed.decision.reasons, `impact not recorded (no citation count in ${s2Source.name}, recorded ${s2Source.recordedOn})`)
    assert.include(outcome.kept[0]!.decision.reasons, "kept: 2nd of 4 in keep order (2 that cleared both bars, 2 relevant without a recorded citation count)")
    const displaced = outcome.cutByCap[0]!
    assert.deepStrictEqual([displaced.paper.arxivId, displaced.decision.kind, displaced.decision.rank], ["1508.07909", "cut-by-cap", 3])
    assert.include(
      displaced.decision.reasons,
      "cut by the cap: 3rd of 4 in keep order (2 that cleared both bars, 2 relevant without a recorded citation count); the first 2 are kept"
    )
    const past = outcome.candidates.find((c) => c.paper.arxivId === "1301.3781")!
    assert.deepStrictEqual([past.decision.kind, past.decision.rank], ["impact-not-recorded", 3])
    assert.notInclude(past.decision.reasons.join("; "), LISTED_AFTER_KEPT)
    assert.strictEqual(outcome.candidates.find((c) => c.paper.arxivId === "1512.03385")!.decision.kind, "dropped")
    assert.deepStrictEqual(outcome.counts, {
      candidates: 5,
      relevant: 4,
      clearedBothBars: 2,
      kept: 1,
      cutByCap: 1,
      impactNotRecorded: 2,
      unrecordedInPlaces: 1,
      dropped: 1
    })
    // the places are never more than the cap, and every candidate that cleared both bars is kept or cut
    assert.strictEqual(outcome.counts.kept + outcome.counts.unrecordedInPlaces, 2)
    assert.strictEqual(outcome.candidates.filter((c) => c.decision.kept).length, outcome.counts.kept)
  })

  it("gives a near tie to the counted paper: the paper without a count is listed right after the kept, with its place", () => {
    // 0.90 against 0.87: within the near-equal band, so the counted paper takes the one place
    const near = [scored("1409.3215", 0.9, undefined), scored("1409.0473", 0.87, 14), scored("1508.07909", 0.6, 40)]
    const outcome = keepBest(near, t(1))
    assert.deepStrictEqual(ids(outcome.places), ["1409.0473"])
    assert.deepStrictEqual(ids(outcome.kept), ["1409.0473"])
    assert.deepStrictEqual(ids(outcome.unrecordedInPlaces), [])
    assert.deepStrictEqual(ids(outcome.unrecordedAmongKept), ["1409.3215"])
    const listed = outcome.unrecordedAmongKept[0]!
    assert.deepStrictEqual([listed.decision.kind, listed.decision.rank], ["impact-not-recorded", 1])
    assert.include(listed.decision.reasons, `by relevance it would be 1st of the kept: ${LISTED_AFTER_KEPT}`)
    assert.strictEqual(outcome.counts.unrecordedInPlaces, 0)
    // with two places, it takes the second from the less relevant counted paper
    const two = keepBest(near, t(2))
    assert.deepStrictEqual(ids(two.places), ["1409.0473", "1409.3215"])
    assert.deepStrictEqual(ids(two.cutByCap), ["1508.07909"])
    // a clear gap (0.95 against 0.87) is the judge's call: the paper without a count comes first
    const clear = keepBest([scored("1409.3215", 0.95, undefined), scored("1409.0473", 0.87, 14)], t(1))
    assert.deepStrictEqual(ids(clear.places), ["1409.3215"])
    assert.deepStrictEqual(ids(clear.kept), [])
    assert.deepStrictEqual(ids(clear.cutByCap), ["1409.0473"])
  })

  it("a paper the concept gate holds back takes no place and is not counted relevant; one the field cites is kept", () => {
    const gatedPaper = (arxivId: string, relevance: number, perYear: number) => {
      const judgement = new Judgement({ arxivId, relevance, novelty: 0.5, rationale: "test", conceptGate: { match: 0, gate: 0.3, spareCitationsPerYear: 20 } })
      const impact: ImpactAssessment = { status: "known", citationCount: perYear * 5, ageYears: 5, citationsPerYear: perYear, exempt: false, pass: perYear >= 5, asOf: "2024-02-15" }
      return new ScoredPaper({ paper: new Paper({ ...landmarks[0]!, arxivId }), judgement, impact, decision: decide(judgement, impact, defaults) })
    }
    const outcome = keepBest([gatedPaper("g1", 0.9, 10), gatedPaper("g2", 0.85, 40), scored("p1", 0.7, 8)], t(10))
    assert.deepStrictEqual(ids(outcome.kept), ["g2", "p1"])
    assert.strictEqual(outcome.counts.relevant, 2)
    assert.strictEqual(outcome.counts.dropped, 1)
  })

  it("with unrecordedTakePlaces false (the digest), only papers that cleared both bars take places", () => {
    const all = [scored("1409.3215", 0.95, undefined), scored("1409.0473", 0.8, 2584), scored("1508.07909", 0.7, 300)]
    const outcome = keepBest(all, { ...t(2), unrecordedTakePlaces: false })
    assert.deepStrictEqual(ids(outcome.kept), ["1409.0473", "1508.07909"])
    assert.deepStrictEqual(ids(outcome.unrecordedInPlaces), [])
    assert.deepStrictEqual(ids(outcome.unrecordedAmongKept), ["1409.3215"])
    assert.include(outcome.kept[1]!.decision.reasons, "kept: 2nd of 2 that cleared both bars")
    assert.strictEqual(outcome.counts.unrecordedInPlaces, 0)
  })

  it("fills the places left with relevant papers without a count, in keep order", () => {
    const all = [
      scored("1409.0473", 0.9, 2584),
      scored("1310.4546", 0.85, undefined),
      scored("1409.3215", 0.7, undefined),
      scored("1301.3781", 0.6, undefined)
    ]
    const outcome = keepBest(all, t(3))
    assert.deepStrictEqual(ids(outcome.places), ["1409.0473", "1310.4546", "1409.3215"])
    // the two in the places by place, then the one past them whose relevance alone would make it 2nd of the kept
    assert.deepStrictEqual(ids(outcome.unrecordedAmongKept), ["1310.4546", "1409.3215", "1301.3781"])
    assert.deepStrictEqual(outcome.unrecordedAmongKept.map((s) => s.decision.rank), [2, 3, 2])
    const fourth = outcome.candidates.find((c) => c.paper.arxivId === "1301.3781")!
    assert.deepStrictEqual([fourth.decision.kind, fourth.decision.rank], ["impact-not-recorded", 2])
    assert.deepStrictEqual(outcome.counts.unrecordedInPlaces, 2)
  })

  const paperArb = fc.record({
    relevance: fc.double({ min: 0, max: 1, noNaN: true }),
    perYear: fc.option(fc.double({ min: 0, max: 200_000, noNaN: true }), { nil: undefined }),
    exempt: fc.boolean(),
    mostCited: fc.boolean()
  })
  const pool = fc.array(paperArb, { maxLength: 30 })
    .map((papers) =>
      papers.map((p, k) => {
        return scored(`1602.${String(k).padStart(5, "0")}`, p.relevance, p.perYear, {
          exempt: p.exempt && p.perYear === undefined,
          ...(p.mostCited ? { foundBy: "most-cited" as const } : {})
        })
      })
    )

  it.prop(
    "never puts a famous paper before one clearly more relevant (by the band or more), kept or cut, whichever channel found it",
    { all: pool, cap: fc.integer({ min: 1, max: 12 }) },
    ({ all, cap }) => {
      const outcome = keepBest(all, t(cap))
      const order = [...outcome.kept, ...outcome.cutByCap]
      for (let i = 0; i < order.length; i++) {
        for (let j = i + 1; j < order.length; j++) {
          const [before, after] = [order[i]!.judgement.relevance, order[j]!.judgement.relevance]
          assert.isBelow(after - before, NEAR_EQUAL_RELEVANCE, `${order[i]!.paper.arxivId} before ${order[j]!.paper.arxivId}`)
        }
      }
    }
  )

  it.prop(
    "with a novelty weight w, never puts a paper before one more relevant by the band plus w or more, kept or cut",
    {
      all: fc.array(fc.record({ p: paperArb, novelty: fc.double({ min: 0, max: 1, noNaN: true }) }), { maxLength: 30 }).map((xs) =>
        xs.map(({ p, novelty }, k) =>
          scored(`1602.${String(k).padStart(5, "0")}`, p.relevance, p.perYear, { exempt: p.exempt && p.perYear === undefined, novelty })
        )
      ),
      cap: fc.integer({ min: 1, max: 12 }),
      w: fc.double({ min: 0, max: 0.3, noNaN: true })
    },
    ({ all, cap, w }) => {
      const outcome = keepBest(all, { ...t(cap), orderNovelty: w })
      const order = [...outcome.places, ...outcome.cutByCap]
      for (let i = 0; i < order.length; i++) {
        for (let j = i + 1; j < order.length; j++) {
          const [before, after] = [order[i]!.judgement.relevance, order[j]!.judgement.relevance]
          assert.isBelow(after - before, NEAR_EQUAL_RELEVANCE + w + 1e-12, `${order[i]!.paper.arxivId} before ${order[j]!.paper.arxivId}`)
        }
      }
      // the places and the counts are the same papers as without the weight, when the cap holds them all
      if (cap >= all.length) {
        assert.deepStrictEqual(new Set(ids(outcome.places)), new Set(ids(keepBest(all, t(cap)).places)))
      }
      assert.deepStrictEqual(outcome.counts, keepBest(all, t(cap)).counts)
    }
  )

  it.prop(
    "keeps exactly the first `cap` that cleared both bars; decision.kept is true for them alone; the counts add up",
    { all: pool, cap: fc.integer({ min: 1, max: 12 }) },
    ({ all, cap }) => {
      const outcome = keepBest(all, t(cap))
      const cleared = all.filter((s) => s.judgement.relevance >= 0.5 && s.impact.pass)
      assert.strictEqual(outcome.kept.length, Math.min(cap, cleared.length))
      assert.strictEqual(outcome.kept.length + outcome.cutByCap.length, cleared.length)
      const keptIds = new Set(ids(outcome.kept))
      for (const c of outcome.candidates) {
        assert.strictEqual(c.decision.kept, keptIds.has(c.paper.arxivId))
        assert.strictEqual(c.decision.kind === "kept", c.decision.kept)
      }
      const { counts } = outcome
      assert.strictEqual(counts.kept + counts.cutByCap + counts.impactNotRecorded + counts.dropped, all.length)
      assert.strictEqual(counts.clearedBothBars, cleared.length)
    }
  )

  it.prop(
    "lists every relevant paper without a count clearly more relevant than a kept paper (or filling a place the kept leave)",
    { all: pool, cap: fc.integer({ min: 1, max: 12 }) },
    ({ all, cap }) => {
      const outcome = keepBest(all, t(cap))
      const listed = new Set(ids(outcome.unrecordedAmongKept))
      const bar = outcome.kept.length < cap ? -1 : Math.min(...outcome.kept.map((k) => k.judgement.relevance)) + NEAR_EQUAL_RELEVANCE
      for (const c of outcome.candidates) {
        if (c.decision.kind !== "impact-not-recorded") continue
        if (c.judgement.relevance >= bar) assert.isTrue(listed.has(c.paper.arxivId), c.paper.arxivId)
      }
      for (const u of outcome.unrecordedAmongKept) assert.isAtMost(u.decision.rank!, cap)
    }
  )

  it("spells ranks as ordinals", () => {
    assert.deepStrictEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map(ordinal), [
      "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th"
    ])
  })
})

describe("rankFoundational", () => {
  it("ranks the recorded referenced works by cited_by_count, top N", () => {
    const top = rankFoundational(openalexWorks, 3)
    assert.deepStrictEqual(top.map((c) => [c.openalexId, c.citedByCount]), [
      ["W2250539671", 32760], // GloVe
      ["W2963341956", 30214], // BERT, recorded with an empty title
      ["W2153579005", 18057] // word2vec phrases (publication_year 2025 as recorded)
    ])
    assert.strictEqual(top[1]!.title, "")
    assert.strictEqual(top[2]!.publicationYear, 2025)
  })

  it("is descending for any N and never longer than N or the input", () => {
    for (const n of [0, 1, 2, 3, 10, 100]) {
      const top = rankFoundational(openalexWorks, n)
      assert.strictEqual(top.length, Math.min(n, openalexWorks.length))
      for (let i = 1; i < top.length; i++) assert.isAtLeast(top[i - 1]!.citedByCount, top[i]!.citedByCount)
    }
  })

  it("gives [] for a paper with no references (valid, not an error)", () => {
    assert.deepStrictEqual(rankFoundational([], 3), [])
  })

  it("does not depend on the order the works come in", () => {
    const reversed = rankFoundational(openalexWorks.slice().reverse(), 5)
    assert.deepStrictEqual(reversed, rankFoundational(openalexWorks, 5))
  })
})
