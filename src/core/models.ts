/**
 * The companion's domain models, as Effect Schemas: the single source of truth
 * for types, JSON encoding and (in the MCP server) JSON Schema.
 *
 * @since 0.1.0
 */
import { Effect, ParseResult, Schema } from "effect"
import { InvalidArgument } from "./errors.js"
import { NoteReading } from "./language.js"
import { invalidOption } from "./options.js"

/** A calendar date `YYYY-MM-DD`. */
export const IsoDate = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}$/),
  Schema.annotations({ identifier: "IsoDate", description: "A calendar date, YYYY-MM-DD" })
)

/** An arXiv paper's metadata. `published` is the first-version date. */
export class Paper extends Schema.Class<Paper>("Paper")({
  arxivId: Schema.String,
  title: Schema.String,
  abstract: Schema.String,
  authors: Schema.Array(Schema.String),
  published: IsoDate,
  updated: Schema.optional(IsoDate),
  categories: Schema.Array(Schema.String),
  primaryCategory: Schema.optional(Schema.String),
  doi: Schema.optional(Schema.String),
  journalRef: Schema.optional(Schema.String),
  comment: Schema.optional(Schema.String)
}) {}

/** Where a citation count came from, and when it was recorded (absent for live answers). */
export class ImpactSource extends Schema.Class<ImpactSource>("ImpactSource")({
  name: Schema.String,
  recordedOn: Schema.optional(IsoDate),
  detail: Schema.optional(Schema.String)
}) {}

/** Citation data for one arXiv paper. */
export class Impact extends Schema.Class<Impact>("Impact")({
  arxivId: Schema.String,
  openalexId: Schema.optional(Schema.String),
  citationCount: Schema.NonNegativeInt,
  publicationYear: Schema.optional(Schema.Int),
  publicationDate: Schema.optional(IsoDate),
  /** OpenAlex ids of the works this paper cites; `undefined` when no reference list is known. */
  referencedWorks: Schema.optional(Schema.Array(Schema.String)),
  source: ImpactSource
}) {}

/** A (non-arXiv or arXiv) work as OpenAlex describes it. */
export class Work extends Schema.Class<Work>("Work")({
  openalexId: Schema.String,
  title: Schema.String,
  citedByCount: Schema.NonNegativeInt,
  publicationYear: Schema.optional(Schema.Int),
  doi: Schema.optional(Schema.String),
  arxivId: Schema.optional(Schema.String)
}) {}

/**
 * A judge's signal that a paper does not name the note's concept (the local judge's concept gate): the keep rule
 * holds such a paper back, as not relevant, unless its recorded citations per year reach `spareCitationsPerYear`
 * (src/core/rules.ts `heldBackByConcept`).
 */
export const ConceptGate = Schema.Struct({
  /** how much of the note's central concept the paper names, in [0, 1] */
  match: Schema.Number,
  /** the least match the judge asks for */
  gate: Schema.Number,
  /** the citations per year that spare the paper after all; absent: nothing spares it */
  spareCitationsPerYear: Schema.optional(Schema.Number)
})
export type ConceptGate = typeof ConceptGate.Type

/** What the judge says of one paper against the concept. */
export class Judgement extends Schema.Class<Judgement>("Judgement")({
  arxivId: Schema.String,
  /** the judge's relevance (with a concept gate, the relevance before it: the keep rule applies the gate) */
  relevance: Schema.Number.pipe(Schema.between(0, 1)),
  novelty: Schema.Number.pipe(Schema.between(0, 1)),
  rationale: Schema.String,
  /** set when the judge's concept gate holds the paper back ({@link ConceptGate}); absent: no gate */
  conceptGate: Schema.optional(ConceptGate)
}) {}

/** Age-adjusted impact of one candidate, as the rules computed it. */
export const ImpactAssessment = Schema.Struct({
  /** known: a citation count; unknown: no record of one; not-assessed: not looked up (not relevant, or past the most relevant candidates looked up). */
  status: Schema.Literal("known", "unknown", "not-assessed"),
  citationCount: Schema.optional(Schema.NonNegativeInt),
  ageYears: Schema.Number,
  citationsPerYear: Schema.optional(Schema.Number),
  exempt: Schema.Boolean,
  pass: Schema.Boolean,
  /** known: the source of the count; unknown: the source consulted that has none (when the lookup named it). */
  source: Schema.optional(ImpactSource),
  asOf: IsoDate
})
export type ImpactAssessment = typeof ImpactAssessment.Type

/**
 * What became of a judged candidate: `kept` (cleared both bars, among the best `maxResults`), `cut-by-cap`
 * (cleared both bars, past them), `impact-not-recorded` (relevant, older than the exemption, and no citation
 * count recorded: its impact could not be checked) or `dropped` (below the relevance bar, or cited too little).
 */
export const DecisionKind = Schema.Literal("kept", "cut-by-cap", "impact-not-recorded", "dropped")
export type DecisionKind = typeof DecisionKind.Type

/** Why a candidate was kept or not. */
export const Decision = Schema.Struct({
  /** Among the kept papers (`kind` "kept"); a paper cut by the cap is not. */
  kept: Schema.Boolean,
  kind: DecisionKind,
  /**
   * kept, cut-by-cap: its place in keep order among the papers that compete for the places (those that cleared
   * both bars and the relevant papers without a recorded count; 1 = first); impact-not-recorded: that place when
   * it is within `maxResults` (it takes one of the places), else the place its relevance would give it among the
   * papers that cleared both bars. Absent otherwise.
   */
  rank: Schema.optional(Schema.Int.pipe(Schema.positive())),
  reasons: Schema.Array(Schema.String)
})
export type Decision = typeof Decision.Type

/** How many candidates each decision took, over the whole pool: what every face reports. */
export const DecisionCounts = Schema.Struct({
  /** Candidates judged: kept + cutByCap + impactNotRecorded + dropped. */
  candidates: Schema.NonNegativeInt,
  /** Judged relevant (relevance ≥ the threshold). */
  relevant: Schema.NonNegativeInt,
  /** Relevant with impact passing: kept + cutByCap. */
  clearedBothBars: Schema.NonNegativeInt,
  kept: Schema.NonNegativeInt,
  cutByCap: Schema.NonNegativeInt,
  /** Relevant, not exempt, no citation count recorded. */
  impactNotRecorded: Schema.NonNegativeInt,
  /** Of those, how many take one of the `maxResults` places (kept + unrecordedInPlaces ≤ maxResults). */
  unrecordedInPlaces: Schema.NonNegativeInt,
  dropped: Schema.NonNegativeInt
})
export type DecisionCounts = typeof DecisionCounts.Type

/**
 * The channel that found a candidate: the arXiv search, the arXiv title search
 * on the note's central concepts, or the most cited works on the note's phrases.
 */
export const Channel = Schema.Literal("arxiv-search", "arxiv-title", "arxiv-author", "most-cited")

/** A candidate with its judgement, impact and the decision taken on it. */
export class ScoredPaper extends Schema.Class<ScoredPaper>("ScoredPaper")({
  paper: Paper,
  judgement: Judgement,
  impact: ImpactAssessment,
  decision: Decision,
  /** The channels that found it (absent: the arXiv search alone). */
  foundBy: Schema.optional(Schema.Array(Channel))
}) {}

/** A paper the concept note already names, and how it names it. Never recommended as new. */
export class NamedInNote extends Schema.Class<NamedInNote>("NamedInNote")({
  arxivId: Schema.String,
  /** The title, when one of the channels found the paper. */
  title: Schema.optional(Schema.String),
  /** How the note names it. */
  mention: Schema.Literal("arxiv-id", "arxiv-url", "doi", "title", "link"),
  /** What the note wrote (one line). */
  text: Schema.String
}) {}

/** An author the note cites ("Duan et al", "the Bahdanau paper"), whose surname the second arXiv search asks for. */
export class CitedAuthor extends Schema.Class<CitedAuthor>("CitedAuthor")({
  surname: Schema.String,
  /** How the note cites it: "X et al", a pair "X & Y", a year "(X 2014)", "the X paper", "X's paper/model/…". */
  cue: Schema.Literal("et-al", "pair", "year", "the-paper", "possessive"),
  /** What the note wrote (one line). */
  text: Schema.String
}) {}

/** One of the well-established works a survivor builds on. */
export class FoundationalCitation extends Schema.Class<FoundationalCitation>("FoundationalCitation")({
  openalexId: Schema.String,
  title: Schema.String,
  citedByCount: Schema.NonNegativeInt,
  publicationYear: Schema.optional(Schema.Int)
}) {}

/**
 * The foundational citations of one survivor, with references that could not
 * be resolved; "unavailable" when the lookup of its references failed
 * (`reason` says why) and the rest of the run was kept.
 */
export const Foundations = Schema.Struct({
  arxivId: Schema.String,
  status: Schema.Literal("found", "no-references", "not-recorded", "unavailable"),
  citations: Schema.Array(FoundationalCitation),
  unresolved: Schema.Array(Schema.String),
  reason: Schema.optional(Schema.String)
})
export type Foundations = typeof Foundations.Type

/** A work cited by two or more of the kept papers: what they build on together. */
export class SharedFoundation extends Schema.Class<SharedFoundation>("SharedFoundation")({
  openalexId: Schema.String,
  /** Absent when the work could not be resolved (its id is all that is known). */
  title: Schema.optional(Schema.String),
  citedByCount: Schema.optional(Schema.NonNegativeInt),
  publicationYear: Schema.optional(Schema.Int),
  arxivId: Schema.optional(Schema.String),
  /** arXiv ids of the kept papers that cite it, in the kept papers' order. */
  citedBy: Schema.Array(Schema.String)
}) {}

/**
 * The foundations the kept papers share, from the reference lists already
 * looked up. `status` says why the list may be empty: no kept paper has a
 * recorded reference list, only one has, or those that have share no work.
 */
export const SharedFoundations = Schema.Struct({
  status: Schema.Literal("found", "none-shared", "one-list", "not-recorded"),
  /** How many kept papers have a recorded reference list. */
  withReferences: Schema.NonNegativeInt,
  foundations: Schema.Array(SharedFoundation)
})
export type SharedFoundations = typeof SharedFoundations.Type

/** A short summary of one kept paper: sentences of its abstract, or a model's words when an LLM is configured. */
export class PaperSummary extends Schema.Class<PaperSummary>("PaperSummary")({
  arxivId: Schema.String,
  text: Schema.String,
  /** "abstract": whole sentences of the abstract; "model": written by the configured LLM from the abstract. */
  source: Schema.Literal("abstract", "model"),
  /** The headline figure with its measure when the abstract states one (e.g. "3.57% error"). */
  keyFigure: Schema.optional(Schema.String)
}) {}

/** One step of the suggested reading order. */
export class ReadingStep extends Schema.Class<ReadingStep>("ReadingStep")({
  kind: Schema.Literal("foundation", "paper"),
  /** An OpenAlex id for a foundation, an arXiv id for a kept paper. */
  id: Schema.String,
  title: Schema.String,
  year: Schema.optional(Schema.Int),
  /** One line: why it comes at this point. */
  why: Schema.String
}) {}

/**
 * The categories the companion searches unless told otherwise: every
 * machine-learning category, so a note on vision (cs.CV), neural computation
 * (cs.NE) or retrieval (cs.IR) finds its papers. (The search tool keeps its
 * narrower default.)
 */
export const COMPANION_CATEGORIES: ReadonlyArray<string> = ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"]

/**
 * What an option allows, said to the user when a value is refused (it
 * replaces the Schema's own wording: one line, no tree).
 */
const allows = <A, I>(schema: Schema.Schema<A, I, never>, what: string): Schema.Schema<A, I, never> =>
  schema.annotations({ message: () => ({ message: `use ${what}`, override: true }) })

/** The thresholds and limits of one run. Defaults follow DESIGN.md. */
export class CompanionOptions extends Schema.Class<CompanionOptions>("CompanionOptions")({
  relevanceThreshold: Schema.optionalWith(allows(Schema.Number.pipe(Schema.between(0, 1)), "a number from 0 to 1"), {
    default: () => 0.5
  }),
  citationsPerYearThreshold: Schema.optionalWith(allows(Schema.NonNegative, "a number ≥ 0"), { default: () => 5 }),
  exemptYears: Schema.optionalWith(allows(Schema.NonNegative, "a number of years ≥ 0"), { default: () => 1 }),
  minKeywords: Schema.optionalWith(allows(Schema.Int.pipe(Schema.between(1, 20)), "an integer from 1 to 20"), {
    default: () => 2
  }),
  /** Papers kept at most (the best first); the note shows these and the other most relevant candidates. */
  maxResults: Schema.optionalWith(allows(Schema.Int.pipe(Schema.between(1, 50)), "an integer from 1 to 50"), {
    default: () => 10
  }),
  /** Candidates asked of arXiv in the run's concept search and judged (arXiv serves up to 2,000 per request); the second search adds at most 50 (5 per author the note cites). */
  poolSize: Schema.optionalWith(allows(Schema.Int.pipe(Schema.between(1, 2000)), "an integer from 1 to 2000"), {
    default: () => 1000
  }),
  foundational: Schema.optionalWith(allows(Schema.Int.pipe(Schema.between(1, 3)), "an integer from 1 to 3"), {
    default: () => 3
  }),
  categories: Schema.optionalWith(allows(Schema.Array(Schema.String), "arXiv category codes, e.g. cs.LG,stat.ML"), {
    default: () => [...COMPANION_CATEGORIES]
  }),
  since: Schema.optional(allows(IsoDate, "a date YYYY-MM-DD, e.g. 2024-01-31"))
}) {}

/** The companion's options as a caller writes them: every field optional (the defaults above fill the rest). */
export type CompanionOptionsInput = typeof CompanionOptions.Encoded

/**
 * Decode options (the one check of their names, types and bounds), unset
 * (undefined) ones left to their defaults; a refusal is InvalidArgument in one
 * line naming the option as `nameOf` spells it, the value given and what is allowed.
 */
export const decodeOptions = (
  input: CompanionOptionsInput | Readonly<Record<string, unknown>>,
  nameOf?: (key: string) => string
): Effect.Effect<CompanionOptions, InvalidArgument> => {
  const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
  return Schema.decodeUnknown(CompanionOptions)(defined).pipe(Effect.mapError((e) => invalidOption(e, defined, nameOf)))
}

/** A note in the vault: its title (file name without `.md`) and vault-relative path. */
export class NoteRef extends Schema.Class<NoteRef>("NoteRef")({
  title: Schema.String,
  path: Schema.String
}) {}

/** How many calls each port received during one run. */
export const PortCalls = Schema.Struct({
  arxiv: Schema.NonNegativeInt,
  openalex: Schema.NonNegativeInt,
  judge: Schema.NonNegativeInt,
  vault: Schema.NonNegativeInt
})
export type PortCalls = typeof PortCalls.Type

/** Why a keyword was chosen: its weight in the note and how rare it is in arXiv text. */
export class KeywordEvidence extends Schema.Class<KeywordEvidence>("KeywordEvidence")({
  term: Schema.String,
  /** Occurrences in the note, headings, emphasis and the title counting more. */
  noteWeight: Schema.Number,
  /** Abstracts of the statistics' corpus that use it (see `count`). */
  documentFrequency: Schema.NonNegativeInt,
  /** Abstracts in the statistics' corpus. */
  documents: Schema.NonNegativeInt,
  /** exact: counted; below: rarer than the statistics record (fewer than documentFrequency); unknown: not countable by them. */
  count: Schema.Literal("exact", "below", "unknown"),
  phrase: Schema.Boolean,
  /** The same, in words. */
  reason: Schema.String
}) {}

/** The full, machine-readable result of one companion run. */
export class CompanionReport extends Schema.Class<CompanionReport>("CompanionReport")({
  prompt: Schema.String,
  note: NoteRef,
  keywords: Schema.Array(Schema.String),
  /** Why each keyword was chosen, in the order of `keywords`. */
  keywordEvidence: Schema.Array(KeywordEvidence),
  /** The note's language as detected, and how it was read into English terms; absent when no reader was set up. */
  language: Schema.optional(NoteReading),
  query: Schema.String,
  /**
   * The second arXiv search (`au:` clauses for the authors the note cites or, when it cites none, titles naming
   * the note's central concepts, widened by the terms the first search's best papers share), as sent; absent
   * when it was not run.
   */
  titleQuery: Schema.optional(Schema.String),
  /**
   * The words of the field the note does not use that widen the title search (pseudo-relevance feedback: terms the
   * first search's best papers share, "entailment" for a note on natural language inference); absent when none.
   */
  relatedTerms: Schema.optional(Schema.Array(Schema.String)),
  /** The authors the note cites, first cited first (their surnames are the second search's `au:` clauses). */
  citedAuthors: Schema.Array(CitedAuthor),
  /** The most-cited search (second channel), as the citation service ran it; absent when it was not run. */
  citedQuery: Schema.optional(Schema.String),
  options: CompanionOptions,
  candidates: Schema.Array(ScoredPaper),
  /** Papers the note already names (by id, URL, arXiv DOI, title or [[link]]); not among the candidates. */
  alreadyInNote: Schema.Array(NamedInNote),
  survivors: Schema.Array(Schema.String),
  /** How many candidates each decision took (the note, the CLI and the MCP result say the same). */
  counts: DecisionCounts,
  /** Papers that cleared both bars but fell past `maxResults`, in rank order (the note lists the best of them). */
  cutByCap: Schema.Array(Schema.String),
  /**
   * Relevant papers without a recorded citation count whose relevance would place them among the kept (rank ≤
   * `maxResults`), by that place: shown right after the kept papers, marked "impact not recorded".
   */
  unrecordedAmongKept: Schema.Array(Schema.String),
  /**
   * The relevant papers without a recorded citation count that take one of the `maxResults` places, in keep order
   * (the first of `unrecordedAmongKept`): with the kept papers, the places a student reads.
   */
  unrecordedInPlaces: Schema.Array(Schema.String),
  foundations: Schema.Array(Foundations),
  /** A short summary of each kept paper, in the order of `survivors`. */
  summaries: Schema.Array(PaperSummary),
  /** Works two or more kept papers cite, with who cites them. */
  sharedFoundations: SharedFoundations,
  /** Foundations first, then the kept papers oldest first, each with why it comes there. */
  readingOrder: Schema.Array(ReadingStep),
  /** The citation map as Mermaid flowchart source (empty when no paper was kept). */
  citationMap: Schema.String,
  /**
   * The note the results are in and what happened to it: `kept-user-edits` (your
   * edits stayed; the results went to a dated sibling), `kept-earlier` (this run
   * found nothing; earlier results stayed). `notice` says why, when the results
   * are not simply in "<title> — Related Papers.md".
   */
  written: Schema.Struct({
    path: Schema.String,
    status: Schema.Literal("created", "updated", "unchanged", "kept-user-edits", "kept-earlier"),
    notice: Schema.optional(Schema.String)
  }),
  calls: PortCalls,
  generatedAt: Schema.String
}) {}
