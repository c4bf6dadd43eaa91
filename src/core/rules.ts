/**
 * The companion's domain rules (DESIGN.md "Domain rules"), as pure functions.
 *
 * @since 0.1.0
 */
import type { Decision, DecisionCounts, Impact, ImpactAssessment, ImpactSource, Judgement, Work } from "./models.js"
import { dayNumber as epochDay } from "./dates.js"
import { FoundationalCitation, ScoredPaper } from "./models.js"

const DAYS_PER_YEAR = 365.25

/**
 * Age in years of a paper first submitted on `firstVersion`, as of `asOf`
 * (both `YYYY-MM-DD`): (asOf − firstVersion) / 365.25, never negative.
 */
export const ageInYears = (firstVersion: string, asOf: string): number =>
  Math.max(0, (epochDay(asOf) - epochDay(firstVersion)) / DAYS_PER_YEAR)

/** citations / max(age, 1): a paper younger than a year is not rewarded for being young. */
export const citationsPerYear = (citations: number, ageYears: number): number => citations / Math.max(ageYears, 1)

/** The thresholds the impact rule needs. */
export interface ImpactThresholds {
  readonly citationsPerYearThreshold: number
  readonly exemptYears: number
}

/** age < exempt years OR citations/year ≥ threshold. */
export const impactPass = (ageYears: number, perYear: number, t: ImpactThresholds): boolean =>
  ageYears < t.exemptYears || perYear >= t.citationsPerYearThreshold

/**
 * The impact of a candidate that was not looked up: below the relevance bar
 * (it could not be kept whatever its count), or past the most relevant
 * candidates whose impact one request looks up. It never passes.
 */
export const impactNotAssessed = (asOf: string): ImpactAssessment => ({
  status: "not-assessed",
  ageYears: 0,
  exempt: false,
  pass: false,
  asOf
})

/**
 * Assess the impact of a paper first submitted on `firstVersion`.
 *
 * Age is taken as of the date the citation count was recorded when the source
 * has one (offline data), else as of `today`. The rule is
 * `age < exemptYears OR citations/year ≥ threshold`, and the exemption needs
 * no count: a paper with no impact record is "unknown", passes when it is
 * younger than the exemption and never otherwise. Callers with recorded data
 * pass the date the data was recorded as `today`, so a 2017 paper is new next
 * to data recorded in 2017. A paper whose date is unknown too is never exempt.
 */
export const assessImpact = (
  firstVersion: string | undefined,
  impact: Impact | undefined,
  today: string,
  t: ImpactThresholds,
  consulted?: ImpactSource
): ImpactAssessment => {
  const asOf = impact?.source.recordedOn ?? today
  const published = firstVersion ?? impact?.publicationDate ??
    (impact?.publicationYear === undefined ? undefined : `${impact.publicationYear}-01-01`)
  const ageYears = published === undefined ? 0 : ageInYears(published, asOf)
  if (impact === undefined) {
    const exempt = published !== undefined && ageYears < t.exemptYears
    return { status: "unknown", ageYears, exempt, pass: exempt, asOf, ...(consulted === undefined ? {} : { source: consulted }) }
  }
  const perYear = citationsPerYear(impact.citationCount, ageYears)
  const exempt = ageYears < t.exemptYears
  return {
    status: "known",
    citationCount: impact.citationCount,
    ageYears,
    citationsPerYear: perYear,
    exempt,
    pass: impactPass(ageYears, perYear, t),
    source: impact.source,
    asOf
  }
}

const fmt = (n: number, digits = 2): string => n.toFixed(digits)

/** `n` with at least `digits` decimals, more when rounding would put it on the wrong side of `bar` ("0.50 < 0.50"). */
const fmtVs = (n: number, bar: number, digits: number): string => {
  for (let d = digits; d <= 8; d++) {
    const shown = n.toFixed(d)
    if ((Number(shown) >= bar) === (n >= bar)) return shown
  }
  return String(n)
}

/** "Semantic Scholar, recorded 2024-02-15" */
export const describeSource = (s: ImpactSource): string =>
  s.recordedOn === undefined ? s.name : `${s.name}, recorded ${s.recordedOn}`

/**
 * A source that was asked, with what it covers when it says: "Recorded citation counts (per paper, the first
 * source that recorded it: Semantic Scholar (recorded 2024-02-15), then …)".
 */
export const describeConsulted = (s: ImpactSource): string =>
  s.recordedOn === undefined && s.detail !== undefined ? `${s.name} (${s.detail})` : describeSource(s)

/**
 * The reason given for a relevant paper older than the exemption with no count: the source asked, when known, by
 * its name (its full description, what it covers, is said once where the unrecorded papers are listed, not on
 * every paper's line).
 */
export const notRecordedReason = (impact: ImpactAssessment): string =>
  impact.source === undefined
    ? "impact not recorded (no citation count)"
    : `impact not recorded (no citation count in ${describeSource(impact.source)})`

/**
 * Whether the judge's concept gate holds a paper back (its judgement's `conceptGate`: the paper does not name the
 * note's concept) and its recorded citations per year do not spare it. A paper without a count is not spared.
 */
export const heldBackByConcept = (judgement: Judgement, impact: ImpactAssessment): boolean => {
  const gate = judgement.conceptGate
  if (gate === undefined) return false
  const spare = gate.spareCitationsPerYear
  return spare === undefined || impact.citationsPerYear === undefined || impact.citationsPerYear < spare
}

/**
 * Whether a judged paper is relevant: its relevance clears the bar and the concept gate does not hold it back
 * ({@link heldBackByConcept}).
 */
export const isRelevant = (
  judgement: Judgement,
  impact: ImpactAssessment,
  relevanceThreshold: number
): boolean => judgement.relevance >= relevanceThreshold && !heldBackByConcept(judgement, impact)

/** The reason given for a paper the concept gate names: held back, or spared by its citations. */
const conceptGateReason = (gate: NonNullable<Judgement["conceptGate"]>, impact: ImpactAssessment, held: boolean): string => {
  const named = `does not name the note's concept (concept match ${fmtVs(gate.match, gate.gate, 2)} < ${fmt(gate.gate)})`
  const spare = gate.spareCitationsPerYear
  if (!held) return `${named}, kept in the running by its ${fmt(impact.citationsPerYear ?? 0, 1)} citations/year ≥ ${spare}`
  if (spare === undefined) return `held back: it ${named}`
  const why = impact.citationsPerYear !== undefined
    ? `${fmtVs(impact.citationsPerYear, spare, 1)} citations/year < ${spare}`
    : impact.status === "not-assessed"
    ? "its citations were not looked up"
    : "no citation count"
  return `held back: it ${named}, and only ${spare} citations/year would spare it (${why})`
}

/**
 * Judge one candidate against the two bars, with the reasons a person can check: kept when it clears both
 * (the cap, applied by {@link keepBest}, may then cut it), impact-not-recorded when it is relevant but its
 * impact could not be checked, dropped otherwise. A paper the judge's concept gate holds back
 * ({@link heldBackByConcept}) is not relevant, whatever its relevance, and is told why.
 */
export const decide = (
  judgement: Judgement,
  impact: ImpactAssessment,
  t: ImpactThresholds & { readonly relevanceThreshold: number }
): Decision => {
  const reasons: Array<string> = []
  const clears = judgement.relevance >= t.relevanceThreshold
  const held = clears && heldBackByConcept(judgement, impact)
  const relevant = clears && !held
  reasons.push(
    clears
      ? `relevance ${fmtVs(judgement.relevance, t.relevanceThreshold, 2)} ≥ ${fmt(t.relevanceThreshold)}`
      : `relevance ${fmtVs(judgement.relevance, t.relevanceThreshold, 2)} < ${fmt(t.relevanceThreshold)}`
  )
  if (clears && judgement.conceptGate !== undefined) reasons.push(conceptGateReason(judgement.conceptGate, impact, held))
  if (held) {
    // the count was read for the gate's spare; what the impact bar would say of it does not matter
  } else if (impact.status === "not-assessed") {
    // impact is looked up in one batch for the most relevant candidates: a relevant one past it is told so
    reasons.push(
      relevant
        ? "impact not looked up (only the most relevant candidates' is, in one request)"
        : "impact not looked up (only relevant candidates are)"
    )
  } else if (impact.status === "unknown") {
    reasons.push(
      impact.exempt
        ? `new paper (${fmt(impact.ageYears, 1)} y < ${t.exemptYears} y as of ${impact.asOf}): impact exempt, no citation count needed`
        : notRecordedReason(impact)
    )
  } else if (impact.exempt) {
    reasons.push(`new paper (${fmt(impact.ageYears, 1)} y < ${t.exemptYears} y): impact exempt`)
  } else {
    const perYear = impact.citationsPerYear ?? 0
    reasons.push(
      perYear >= t.citationsPerYearThreshold
        ? `${fmtVs(perYear, t.citationsPerYearThreshold, 1)} citations/year ≥ ${t.citationsPerYearThreshold}`
        : `${fmtVs(perYear, t.citationsPerYearThreshold, 1)} citations/year < ${t.citationsPerYearThreshold}`
    )
  }
  const kind = relevant && impact.pass
    ? "kept"
    : relevant && impact.status === "unknown" && !impact.exempt
    ? "impact-not-recorded"
    : "dropped"
  return { kept: kind === "kept", kind, reasons }
}

/**
 * How close two relevances must be to count as near-equal, the only place where impact breaks the tie: less
 * than half a tenth on the judge's 0–1 scale, a difference the judge is not trusted to make (a note reworded
 * moves its scores about that much); a gap of 0.05 or more is the judge's call, and impact never overturns it.
 * Measured on the tuning notes (eval/README.md, "The keep rule"): a band of 0.02 / 0.05 keeps 165 / 169 of 263
 * landmarks (193 / 197 kept or listed right after the kept); 0.05 is the widest the rule allows.
 */
export const NEAR_EQUAL_RELEVANCE = 0.05

/** Citations per year for ordering: a paper without a count (a new paper) comes after the counted ones of its band. */
const perYearOf = (s: ScoredPaper): number => s.impact.citationsPerYear ?? -1

/**
 * How the keep order reads a judge's novelty (the judge's `orderNovelty`): the order's key is relevance −
 * `noveltyWeight` · (novelty − ½), so a paper mostly about what the note never mentions comes after a near one
 * about the note's own subject. 0 (the default): relevance alone.
 */
export interface KeepOrderOptions {
  readonly noveltyWeight?: number | undefined
}

/**
 * Papers in keep order: by the order's key, relevance (descending; with a novelty weight, relevance − weight ·
 * (novelty − ½), {@link KeepOrderOptions}); within a run of near-equal keys (each within
 * {@link NEAR_EQUAL_RELEVANCE} of the run's first key), by citations per year (descending; a new paper without a
 * count last), then the key, then arXiv id. A paper thus precedes a more relevant one only when their keys differ by
 * less than the band: a famous paper never displaces a clearly more relevant one (impact moves nothing past the
 * band, whatever the novelty weight), and a new paper loses only a near tie. (A paper without a count ending a run,
 * so that it never loses even a near tie, kept 162 instead of 169 of the 263 tuning landmarks: eval/README.md.)
 */
export const keepOrder = (papers: ReadonlyArray<ScoredPaper>, o: KeepOrderOptions = {}): ReadonlyArray<ScoredPaper> => {
  const w = o.noveltyWeight ?? 0
  const key = (s: ScoredPaper): number => s.judgement.relevance - w * (s.judgement.novelty - 0.5)
  const byKey = papers.slice().sort((a, b) => key(b) - key(a) || a.paper.arxivId.localeCompare(b.paper.arxivId))
  const ordered: Array<ScoredPaper> = []
  for (let start = 0; start < byKey.length;) {
    const top = key(byKey[start]!)
    let end = start + 1
    while (end < byKey.length && top - key(byKey[end]!) < NEAR_EQUAL_RELEVANCE) end++
    ordered.push(
      ...byKey.slice(start, end).sort((a, b) =>
        perYearOf(b) - perYearOf(a) ||
        key(b) - key(a) ||
        a.paper.arxivId.localeCompare(b.paper.arxivId)
      )
    )
    start = end
  }
  return ordered
}

/** Whether a candidate cleared both bars (kept, or cut by the cap). */
export const clearedBothBars = (s: ScoredPaper): boolean => s.decision.kind === "kept" || s.decision.kind === "cut-by-cap"

/** Survivors: the candidates that cleared both bars, cut by the cap or not, in keep order ({@link keepOrder}). */
export const survivors = (scored: ReadonlyArray<ScoredPaper>, o: KeepOrderOptions = {}): ReadonlyArray<ScoredPaper> =>
  keepOrder(scored.filter(clearedBothBars), o)

/** "1st", "2nd", "3rd", "11th", "22nd". */
export const ordinal = (n: number): string => {
  const tens = n % 100
  const suffix = tens >= 11 && tens <= 13 ? "th" : n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th"
  return `${n}${suffix}`
}

/** The candidates with their final decisions, the papers each decision took, and how many. */
export interface KeepOutcome {
  /** Every candidate, in the order given, with its final decision. */
  readonly candidates: ReadonlyArray<ScoredPaper>
  /**
   * The `maxResults` places, in keep order: the first of the papers that cleared both bars and of the relevant
   * papers without a recorded count ({@link keepBest}).
   */
  readonly places: ReadonlyArray<ScoredPaper>
  /** The papers that cleared both bars in the places, in keep order. */
  readonly kept: ReadonlyArray<ScoredPaper>
  /** The others that cleared both bars, in keep order. */
  readonly cutByCap: ReadonlyArray<ScoredPaper>
  /** The relevant papers without a recorded count in the places, in keep order. */
  readonly unrecordedInPlaces: ReadonlyArray<ScoredPaper>
  /**
   * The relevant papers without a recorded count shown right after the kept: those in the places, by place, then
   * those whose relevance alone places them within `maxResults` but that lost a near tie to a counted paper.
   */
  readonly unrecordedAmongKept: ReadonlyArray<ScoredPaper>
  readonly counts: DecisionCounts
}

/** How the reasons of a relevant paper without a count say that it is listed right after the kept papers. */
export const LISTED_AFTER_KEPT = "listed right after them"

/** How the reasons of a relevant paper without a count say that it takes one of the places. */
export const IN_THE_PLACES = "takes one of the places, marked \"impact not recorded\""

const withDecision = (s: ScoredPaper, decision: Decision): ScoredPaper => new ScoredPaper({ ...s, decision })

/**
 * The keep rule (DESIGN.md "Survivors"): the `maxResults` places go to the first, in keep order, of the candidates
 * that cleared both bars and of the relevant papers whose citation count is not recorded (older than the
 * exemption, no count: "impact not recorded"). A missing count is never read as a low one: such a paper loses only a
 * near tie to a counted paper (as a new paper does), and never its place to a clearly less relevant kept paper.
 * The counted papers in the places are kept; the others that cleared both bars are cut by the cap ("cut by the cap:
 * 11th of 26 that cleared both bars", counted among the places' keep order when papers without a count compete);
 * a paper without a count in the places is told its place and listed right after the kept papers, marked
 * "impact not recorded", as is one whose relevance alone would place it within the cap but that lost a near tie.
 * Impact only breaks ties among near-equal relevances, whichever channel found a paper.
 */
export const keepBest = (
  scored: ReadonlyArray<ScoredPaper>,
  t: {
    readonly maxResults: number
    readonly relevanceThreshold: number
    /**
     * false: only the papers that cleared both bars take places, and a relevant paper without a count is only
     * listed right after them when its relevance would place it within the cap (the digest, which announces only
     * papers that cleared both bars). Default true.
     */
    readonly unrecordedTakePlaces?: boolean
    /** The keep order's novelty weight ({@link KeepOrderOptions}; the judge's `orderNovelty`). Default 0. */
    readonly orderNovelty?: number | undefined
  }
): KeepOutcome => {
  const order: KeepOrderOptions = { noveltyWeight: t.orderNovelty }
  const cleared = survivors(scored, order)
  const unrecordedAll = scored.filter((s) => s.decision.kind === "impact-not-recorded")
  const compete = unrecordedAll.length > 0 && t.unrecordedTakePlaces !== false
  // every paper that competes for the places, in keep order: a paper without a count sorts last in its near-equal run
  const competing = compete ? keepOrder([...cleared, ...unrecordedAll], order) : cleared
  const cap = Math.max(0, t.maxResults)
  const final = new Map<ScoredPaper, ScoredPaper>()
  const of = !compete
    ? `of ${cleared.length} that cleared both bars`
    : `of ${competing.length} in keep order (${cleared.length} that cleared both bars, ${unrecordedAll.length} relevant without a recorded citation count)`
  const places = cap === 1 ? "only the first is" : `the first ${cap} are`
  competing.forEach((s, i) => {
    const rank = i + 1
    const inPlaces = i < cap
    if (s.decision.kind === "impact-not-recorded") {
      if (!inPlaces) return
      final.set(
        s,
        withDecision(s, {
          ...s.decision,
          rank,
          reasons: [...s.decision.reasons, `${ordinal(rank)} ${of}: ${IN_THE_PLACES}, ${LISTED_AFTER_KEPT}`]
        })
      )
      return
    }
    final.set(
      s,
      withDecision(s, {
        kept: inPlaces,
        kind: inPlaces ? "kept" : "cut-by-cap",
        rank,
        reasons: [...s.decision.reasons, inPlaces ? `kept: ${ordinal(rank)} ${of}` : `cut by the cap: ${ordinal(rank)} ${of}; ${places} kept`]
      })
    )
  })
  const placed = competing.slice(0, cap)
  const unrecordedInPlaces = placed.filter((s) => s.decision.kind === "impact-not-recorded")
  const shown = new Set(unrecordedInPlaces)
  const listed: Array<ScoredPaper> = []
  for (const s of unrecordedAll) {
    if (shown.has(s)) continue
    // past the places: the place its relevance alone gives it among the papers that cleared both bars; one within
    // the cap lost a near tie to a counted paper, and is listed right after the kept
    const rank = 1 + cleared.filter((c) => c.judgement.relevance > s.judgement.relevance).length
    const among = rank <= cap
    const told = withDecision(s, {
      ...s.decision,
      rank,
      reasons: among
        ? [...s.decision.reasons, `by relevance it would be ${ordinal(rank)} of the kept: ${LISTED_AFTER_KEPT}`]
        : s.decision.reasons
    })
    final.set(s, told)
    if (among) listed.push(told)
  }
  const candidates = scored.map((s) => final.get(s) ?? s)
  const kept = placed.filter((s) => s.decision.kind !== "impact-not-recorded").map((s) => final.get(s)!)
  const keptSet = new Set(placed)
  const cutByCap = cleared.filter((s) => !keptSet.has(s)).map((s) => final.get(s)!)
  const count = (kind: Decision["kind"]) => candidates.filter((s) => s.decision.kind === kind).length
  const byRank = (a: ScoredPaper, b: ScoredPaper) =>
    a.decision.rank! - b.decision.rank! ||
    b.judgement.relevance - a.judgement.relevance ||
    a.paper.arxivId.localeCompare(b.paper.arxivId)
  const inPlaces = unrecordedInPlaces.map((s) => final.get(s)!)
  return {
    candidates,
    places: placed.map((s) => final.get(s)!),
    kept,
    cutByCap,
    unrecordedInPlaces: inPlaces,
    unrecordedAmongKept: [...inPlaces, ...listed.sort(byRank)],
    counts: {
      candidates: candidates.length,
      relevant: candidates.filter((s) => isRelevant(s.judgement, s.impact, t.relevanceThreshold)).length,
      clearedBothBars: cleared.length,
      kept: kept.length,
      cutByCap: cutByCap.length,
      impactNotRecorded: count("impact-not-recorded"),
      unrecordedInPlaces: inPlaces.length,
      dropped: count("dropped")
    }
  }
}

/**
 * Foundational citations: the referenced works ranked by citation count
 * (descending, ties by id), top `n`. No references gives [] (valid).
 */
export const rankFoundational = (works: ReadonlyArray<Work>, n: number): ReadonlyArray<FoundationalCitation> =>
  works
    .slice()
    .sort((a, b) => b.citedByCount - a.citedByCount || a.openalexId.localeCompare(b.openalexId))
    .slice(0, Math.max(0, n))
    .map((w) =>
      new FoundationalCitation({
        openalexId: w.openalexId,
        title: w.title,
        citedByCount: w.citedByCount,
        publicationYear: w.publicationYear
      })
    )
