import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { Impact, ImpactSource, Judgement, ScoredPaper } from "../../src/core/models.js"
import type { ImpactAssessment } from "../../src/core/models.js"
import {
  ageInYears,
  assessImpact,
  bestSurvivors,
  citationsPerYear,
  decide,
  impactNotAssessed,
  impactPass,
  rankFoundational,
  survivors
} from "../../src/core/rules.js"
import { landmark, openalexWorks, s2Impacts, s2Source } from "./fixtures.js"

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
    assert.include(dropped.reasons, "impact unknown (no citation record)")
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

  it("drops a relevant paper whose impact is unknown, and says so", () => {
    const d = decide(judged("x", 0.9), unknown, defaults)
    assert.isFalse(d.kept)
    assert.include(d.reasons, "impact unknown (no citation record)")
  })

  it("drops a relevant paper below the citations/year bar", () => {
    const d = decide(judged("x", 0.9), { ...known, citationsPerYear: 2, pass: false }, defaults)
    assert.isFalse(d.kept)
    assert.include(d.reasons, "2.0 citations/year < 5")
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

  it("bestSurvivors: when more clear both bars than are kept, a much-cited paper beats a slightly closer one nobody cites", () => {
    const all = [
      scored("1701.06538", 0.8, 6), // closest, barely above the impact bar
      scored("1409.0473", 0.75, 2584), // a landmark
      scored("1508.07909", 0.7, 300),
      scored("1609.08144", 0.4, 800) // irrelevant: never kept
    ]
    assert.deepStrictEqual(bestSurvivors(all, 2).map((s) => s.paper.arxivId), ["1409.0473", "1508.07909"])
    // listed in survivor order (relevance, then citations/year), whatever chose them
    assert.deepStrictEqual(bestSurvivors(all, 3).map((s) => s.paper.arxivId), ["1701.06538", "1409.0473", "1508.07909"])
    assert.deepStrictEqual(bestSurvivors(all, 10), survivors(all))
    // relevance still leads: a big rate does not lift a paper far less relevant
    const far = [scored("1409.3215", 0.95, 6), scored("1409.0473", 0.5, 100)]
    assert.deepStrictEqual(bestSurvivors(far, 1).map((s) => s.paper.arxivId), ["1409.3215"])
    // nor does fame let a paper judged much less relevant displace a close one (ResNet with 1,500 citations a
    // year just over the bar of a note on subword units, against the subword paper with 5)
    const famous = [scored("1508.07909", 0.94, 5), scored("1512.03385", 0.66, 1500)]
    assert.deepStrictEqual(bestSurvivors(famous, 1).map((s) => s.paper.arxivId), ["1508.07909"])
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
