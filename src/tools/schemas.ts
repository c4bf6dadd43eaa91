/**
 * The results of the tool functions, as Effect Schemas: the single source of
 * truth for their types, their JSON (snake_case, as MCP hosts show them) and,
 * in the MCP server, their output schemas.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

const Int = Schema.Int
const Count = Schema.NonNegativeInt

/** A paper in a list: what a model needs to pick it. */
export const PaperSummary = Schema.Struct({
  arxiv_id: Schema.String,
  title: Schema.String,
  abstract: Schema.String,
  authors: Schema.Array(Schema.String),
  published_date: Schema.String,
  categories: Schema.Array(Schema.String)
})
export type PaperSummary = typeof PaperSummary.Type

/** A paper with everything arXiv records of it, and its links. */
export const PaperDetail = Schema.Struct({
  ...PaperSummary.fields,
  updated_date: Schema.optional(Schema.String),
  primary_category: Schema.optional(Schema.String),
  doi: Schema.optional(Schema.String),
  journal_ref: Schema.optional(Schema.String),
  comment: Schema.optional(Schema.String),
  abs_url: Schema.String,
  pdf_url: Schema.String
})
export type PaperDetail = typeof PaperDetail.Type

/** One page of search results. `query` is the query arXiv received. */
export const SearchResult = Schema.Struct({
  query: Schema.String,
  total: Count,
  start: Count,
  papers: Schema.Array(PaperSummary)
})
export type SearchResult = typeof SearchResult.Type

/** Papers found by id, and the ids arXiv does not have. */
export const PapersResult = Schema.Struct({
  papers: Schema.Array(PaperDetail),
  missing: Schema.Array(Schema.String)
})
export type PapersResult = typeof PapersResult.Type

/** The newest papers of a category. */
export const RecentResult = Schema.Struct({
  category: Schema.String,
  total: Count,
  papers: Schema.Array(PaperSummary)
})
export type RecentResult = typeof RecentResult.Type

const TermCount = Schema.Struct({ term: Schema.String, count: Count })

/** Submissions per day in a window and the terms their titles use most. */
export const TrendsResult = Schema.Struct({
  category: Schema.String,
  from: Schema.String,
  to: Schema.String,
  /** Papers in the window, as arXiv counts them. */
  total: Count,
  /** Papers the daily counts and terms are computed from (at most sample_size). */
  sampled: Count,
  daily_counts: Schema.Array(Schema.Struct({ date: Schema.String, count: Count })),
  top_terms: Schema.Array(TermCount),
  top_phrases: Schema.Array(TermCount),
  note: Schema.optional(Schema.String)
})
export type TrendsResult = typeof TrendsResult.Type

/** A BibTeX file and the key of each entry. */
export const BibtexResult = Schema.Struct({
  bibtex: Schema.String,
  entries: Schema.Array(Schema.Struct({ arxiv_id: Schema.String, key: Schema.String })),
  missing: Schema.Array(Schema.String)
})
export type BibtexResult = typeof BibtexResult.Type

/** A work as OpenAlex describes it. */
export const WorkSummary = Schema.Struct({
  openalex_id: Schema.String,
  title: Schema.String,
  cited_by_count: Count,
  publication_year: Schema.optional(Int),
  doi: Schema.optional(Schema.String),
  arxiv_id: Schema.optional(Schema.String)
})
export type WorkSummary = typeof WorkSummary.Type

/** The works a paper cites, most cited first, and the ids OpenAlex could not resolve. */
export const ReferencesResult = Schema.Struct({
  arxiv_id: Schema.String,
  openalex_id: Schema.optional(Schema.String),
  total: Count,
  references: Schema.Array(WorkSummary),
  unresolved: Schema.Array(Schema.String)
})
export type ReferencesResult = typeof ReferencesResult.Type

/** The works citing a paper, most cited first. */
export const CitationsResult = Schema.Struct({
  arxiv_id: Schema.String,
  openalex_id: Schema.String,
  total: Count,
  citations: Schema.Array(WorkSummary)
})
export type CitationsResult = typeof CitationsResult.Type

/** The most cited works a paper builds on. */
export const FoundationalResult = Schema.Struct({
  arxiv_id: Schema.String,
  status: Schema.Literal("found", "no-references", "not-recorded"),
  citations: Schema.Array(Schema.Struct({
    openalex_id: Schema.String,
    title: Schema.String,
    cited_by_count: Count,
    publication_year: Schema.optional(Int)
  })),
  /** OpenAlex ids of recorded references whose title and count are unknown, so they are not ranked. */
  unresolved: Schema.optional(Schema.Array(Schema.String)),
  /** What is missing, in words, when the answer is partial. */
  note: Schema.optional(Schema.String)
})
export type FoundationalResult = typeof FoundationalResult.Type

/** One paper scored against a concept: topical relevance and age-adjusted impact. */
export const RelevanceResult = Schema.Struct({
  arxiv_id: Schema.String,
  relevance: Schema.Number,
  novelty: Schema.Number,
  citation_count: Schema.NullOr(Count),
  publication_year: Schema.NullOr(Int),
  citations_per_year: Schema.NullOr(Schema.Number),
  impact_pass: Schema.Boolean,
  rationale: Schema.String
})
export type RelevanceResult = typeof RelevanceResult.Type

/** A bounded view of a paper's text. */
export const ReadPaperResult = Schema.Struct({
  arxiv_id: Schema.String,
  source: Schema.Literal("arxiv-html", "pdf", "abstract-only"),
  url: Schema.String,
  title: Schema.String,
  /** Headings with their sizes (first call only: offset 0). */
  outline: Schema.optional(Schema.Array(Schema.Struct({
    level: Int,
    heading: Schema.String,
    chars: Count
  }))),
  section: Schema.optional(Schema.String),
  text: Schema.String,
  offset: Count,
  next_offset: Schema.NullOr(Count),
  total_chars: Count
})
export type ReadPaperResult = typeof ReadPaperResult.Type

/** The arXiv categories. */
export const CategoriesResult = Schema.Struct({
  categories: Schema.Array(Schema.Struct({ code: Schema.String, name: Schema.String, group: Schema.String }))
})
export type CategoriesResult = typeof CategoriesResult.Type

/** What a companion run found and wrote (the note in the vault has the details). */
export const CompanionResult = Schema.Struct({
  note: Schema.String,
  written: Schema.Struct({ path: Schema.String, status: Schema.String, notice: Schema.optional(Schema.String) }),
  keywords: Schema.Array(Schema.String),
  /**
   * The note's language as detected and how it was read into English terms (absent for a run without a reader):
   * its ISO 639-1 code, then in words the language, English terms mixed in, who read it and what happened
   * ("ru: Russian; read offline with the Russian glossary, …"), and each English term read from the note's words
   * ("English terms: дискриминатор → discriminator (glossary); …").
   */
  language: Schema.optional(Schema.String),
  /** The first arXiv search, as sent. */
  query: Schema.String,
  /**
   * The second arXiv search, as sent: for the authors the note cites (`cited_authors`) within the concept, or, when
   * it cites none, for titles naming its central concepts; absent when not run.
   */
  second_query: Schema.optional(Schema.String),
  /** The most-cited search, as the citation service ran it; absent when not run. */
  cited_query: Schema.optional(Schema.String),
  /** The authors the note cites, first cited first: the surname searched for, and what the note wrote ("Vaswani et al"). */
  cited_authors: Schema.Array(Schema.Struct({ surname: Schema.String, cited_as: Schema.String })),
  candidates: Count,
  survivors: Schema.Array(Schema.Struct({
    arxiv_id: Schema.String,
    title: Schema.String,
    relevance: Schema.Number,
    citations_per_year: Schema.NullOr(Schema.Number),
    rationale: Schema.String,
    /** Two or three sentences: what the paper does and its key result, with its figure (from the abstract, or by the configured LLM). */
    summary: Schema.String,
    /** "Title (cited by N)" of its foundational citations. */
    builds_on: Schema.Array(Schema.String),
    /** The channels that found it: "arxiv-search", "arxiv-title" (the title search), "arxiv-author" (the search for the authors the note cites) and/or "most-cited". */
    found_by: Schema.Array(Schema.String)
  })),
  /** Papers the note already names (never recommended again), and how it names them. */
  already_in_note: Schema.Array(Schema.Struct({
    arxiv_id: Schema.String,
    title: Schema.NullOr(Schema.String),
    named_as: Schema.String
  })),
  /**
   * How many candidates each decision took, as the note and the CLI count them: `survivors` are the kept, and
   * kept + cut_by_cap + impact_not_recorded + dropped = `candidates`.
   */
  counts: Schema.Struct({
    /** Relevant and cited enough (or new): the kept and those cut by the cap. */
    cleared_both_bars: Count,
    /** Cleared both bars but past max_results. */
    cut_by_cap: Count,
    /** Relevant, older than the exemption, no citation count recorded. */
    impact_not_recorded: Count,
    /** Of those, how many take one of the max_results places (listed first in `dropped`). */
    unrecorded_in_places: Count,
    dropped: Count
  }),
  /**
   * Candidates not kept, with why (`decision`): first the relevant papers without a recorded count listed after
   * the kept (one in the places has `summary`, `builds_on`), then the 20 most relevant others.
   */
  dropped: Schema.Array(Schema.Struct({
    arxiv_id: Schema.String,
    title: Schema.String,
    decision: Schema.String,
    reasons: Schema.Array(Schema.String),
    summary: Schema.optional(Schema.String),
    builds_on: Schema.optional(Schema.Array(Schema.String))
  }))
})
export type CompanionResult = typeof CompanionResult.Type
