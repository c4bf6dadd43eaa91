/**
 * The study-companion workflow: prompt → note → keywords → arXiv → impact →
 * judge → filter → foundations → summaries, shared foundations, reading
 * order and citation map → note written back.
 *
 * @since 0.1.0
 */
import { Effect, Option } from "effect"
import { buildSearchQuery, conceptQuery, queryText } from "./arxiv.js"
import { makeCallCounter } from "./callCounts.js"
import { normalizeCategories, unknownCategoriesMessage } from "./categories.js"
import { CUT_LISTED, relatedNote, relatedNotePath, type RelatedNoteInput, relatedTitle } from "./compose.js"
import * as Dates from "./dates.js"
import {
  type CompanionError,
  GeneratedNoteNamed,
  InvalidArgument,
  NotEnoughInformation,
  NoteAmbiguous,
  NoteNotFound,
  UnsafeWrite
} from "./errors.js"
import { citedAuthors, findAuthorCues } from "./citedAuthors.js"
import {
  centralWords,
  extractKeywords,
  noteTerms,
  plainText,
  rankKeywords
} from "./keywords.js"
import {
  CitedAuthor,
  CompanionOptions,
  CompanionReport,
  type Foundations,
  KeywordEvidence,
  NamedInNote,
  type PortCalls,
  type ScoredPaper,
  type Work
} from "./models.js"
import { MAX_NOTE_CHARS, shownSize } from "./limits.js"
import { findPaperMentions, matchNamedPapers } from "./namedPapers.js"
import { matchNote, NO_NOTE_NAMED, parseNoteReference } from "./noteReference.js"
import type { ArxivPort } from "./ports/ArxivPort.js"
import { describeReading } from "./language.js"
import { LlmJudgePort } from "./ports/LlmJudgePort.js"
import { NoteLanguagePort } from "./ports/NoteLanguagePort.js"
import { OpenAlexPort } from "./ports/OpenAlexPort.js"
import { TermStatsPort } from "./ports/TermStatsPort.js"
import { VaultPort } from "./ports/VaultPort.js"
import * as Stages from "./stages.js"
import { writeGenerated, type Written } from "./writeBack.js"
import { keepBest, rankFoundational } from "./rules.js"
import { type NoteTeaching, summarise, teaching } from "./teaching.js"
import { words } from "./text.js"
import { vaultIndex } from "./vaultLinks.js"

/** Progress events, for a CLI's stderr or an MCP progress notification. */
export type Progress =
  | { readonly _tag: "NoteFound"; readonly path: string }
  | { readonly _tag: "Keywords"; readonly keywords: ReadonlyArray<string> }
  | { readonly _tag: "Searched"; readonly candidates: number }
  | { readonly _tag: "Judged"; readonly kept: number }
  | { readonly _tag: "Written"; readonly path: string; readonly status: string }

/** Optional hooks of a run. */
export interface RunHooks {
  readonly onProgress?: (event: Progress) => Effect.Effect<void>
}

/** What a search covered, for a message about a search that found nothing. */
const searchScope = (query: string, options: CompanionOptions): string =>
  [
    `query ${query}`,
    ...(options.since === undefined ? [] : [`since ${options.since}`]),
    options.categories.length === 0 ? "all categories" : `categories ${options.categories.join(", ")}`
  ].join("; ")

/**
 * What the note shows of the candidates, most relevant first: the `n` most relevant, every paper of `listed`
 * (the kept, the best of those cut by the cap, the unrecorded among the kept).
 */
const shownCandidates = (
  scored: ReadonlyArray<ScoredPaper>,
  listed: ReadonlyArray<ScoredPaper>,
  n: number
): ReadonlyArray<ScoredPaper> => {
  const byRelevance = scored.slice().sort((a, b) =>
    b.judgement.relevance - a.judgement.relevance || a.paper.arxivId.localeCompare(b.paper.arxivId)
  )
  const listedIds = new Set(listed.map((s) => s.paper.arxivId))
  return byRelevance.filter((s, i) => i < n || listedIds.has(s.paper.arxivId))
}

/**
 * Whether a note's content is text a person wrote: no NUL byte, and not mostly bytes UTF-8 could not
 * decode (each became U+FFFD). A binary file saved with a `.md` name would otherwise be searched on noise.
 */
const looksLikeText = (text: string): boolean => {
  if (text.includes("\u0000")) return false
  let replaced = 0
  for (const ch of text) if (ch === "\uFFFD") replaced++
  return replaced < 8 || replaced < text.length / 100
}

/** What a stage needs to report progress. */
type Emit = (event: Progress) => Effect.Effect<void>

/** note: the note the prompt names, matched against the vault's titles and read (checked to be text, not too long). */
const findNote = Effect.fn("Companion.note")(function*(prompt: string, options: CompanionOptions, progress: Emit) {
  const vault = yield* VaultPort
  // categories arXiv does not list would only find nothing: say so before anything is touched
  const { unknown: unknownCategories } = normalizeCategories(options.categories)
  if (unknownCategories.length > 0) {
    return yield* new InvalidArgument({ argument: "categories", reason: unknownCategoriesMessage(unknownCategories) })
  }
  // the note named in the prompt, before the vault is touched
  const reference = parseNoteReference(prompt)
  if (reference === undefined) return yield* new NotEnoughInformation({ detail: NO_NOTE_NAMED })
  const notes = yield* vault.listNotes()
  const match = matchNote(reference, notes)
  if (match._tag === "NotFound") return yield* new NoteNotFound({ title: reference.raw, closest: match.closest })
  if (match._tag === "Ambiguous") return yield* new NoteAmbiguous({ title: reference.raw, paths: match.notes.map((n) => n.path) })
  if (match._tag === "Generated") return yield* new GeneratedNoteNamed({ title: match.title, source: match.source })
  const note = match.note
  yield* progress({ _tag: "NoteFound", path: note.path })
  const text = yield* vault.readNote(note.path)
  if (text.length > MAX_NOTE_CHARS) {
    return yield* new InvalidArgument({
      argument: "note",
      reason: `"${note.title}" (${note.path}) is ${shownSize(text.length)} characters long; the companion reads notes of at most ` +
        `${shownSize(MAX_NOTE_CHARS)} characters. Name a shorter concept note, or move the long material out of this one.`
    })
  }
  if (!looksLikeText(text)) {
    return yield* new NotEnoughInformation({
      detail: `the note "${note.title}" (${note.path}) is not text: it holds NUL bytes or bytes that are not UTF-8. ` +
        "Name a Markdown note, or save this one as UTF-8 text."
    })
  }
  return { note, notes, text } satisfies Stages.NoteStage
})

/** concept: the note in English terms (a note in another language read by the language port, when there is one) and its keywords. */
const readConcept = Effect.fn("Companion.concept")(function*(found: Stages.NoteStage, options: CompanionOptions, progress: Emit) {
  const termStats = yield* TermStatsPort
  const { note, text } = found
  const reader = yield* Effect.serviceOption(NoteLanguagePort)
  const english = Option.isSome(reader) ? yield* reader.value.read({ title: note.title, text }) : undefined
  const searchText = english?.text ?? text
  const searchTitle = english?.title ?? note.title
  const reading = english?.reading
  // candidates by weight in the note, ranked by how much each says in arXiv text
  const terms = noteTerms(searchText, searchTitle)
  const stats = yield* termStats.lookup(terms.map((t) => t.term))
  const keywords = rankKeywords(terms, stats, Stages.SEARCH_POLICY.conceptTerms)
  if (keywords.length < options.minKeywords) {
    const foreign = reading !== undefined && reading.detected.language !== "en"
    return yield* new NotEnoughInformation({
      detail: `the note "${note.title}"${foreign ? ` (${describeReading(reading)})` : ""} yields ${keywords.length} keyword${keywords.length === 1 ? "" : "s"}` +
        `${keywords.length > 0 ? ` (${keywords.map((k) => k.term).join(", ")})` : ""}; at least ${options.minKeywords} are needed to search arXiv. ` +
        (foreign && reading.unread.length > 0
          ? `Words with no English reading offline: ${reading.unread.slice(0, 8).join(", ")}. Add the concept's English terms to the note, or configure an LLM to read it.`
          : "Add a few sentences about the concept to the note.")
    })
  }
  yield* progress({ _tag: "Keywords", keywords: keywords.map((k) => k.term) })
  return { searchText, searchTitle, reading, terms, stats, keywords } satisfies Stages.ConceptStage
})

/**
 * plan: a pool larger than what is kept, the second search (the authors the note cites, or the title search on
 * its central concepts widened by feedback terms) and, side by side, the most cited works with an arXiv location
 * on the note's key phrases. When the note cites authors, they have the second request to themselves (a shared
 * ranking gave their places to title matches: eval/README.md, tune2) and the central words boost the concept
 * query's titles instead. A title the note names (four words or more, as titles are) joins the most-cited
 * search, so a paper named by title is found, recognised and listed instead of recommended.
 */
const planSearch = Effect.fn("Companion.plan")(function*(
  found: Stages.NoteStage,
  concept: Stages.ConceptStage,
  options: CompanionOptions,
  policy: Stages.SearchPolicy = Stages.SEARCH_POLICY
) {
  const termStats = yield* TermStatsPort
  const { text } = found
  const { keywords, stats, terms } = concept
  const cues = findAuthorCues(text)
  const cueStats = yield* termStats.lookup(cues.map((c) => c.surname))
  const authors = citedAuthors(text, cues, cueStats, undefined, keywords.map((k) => k.term))
  const surnames = authors.map((a) => a.surname)
  const central = centralWords(keywords, terms, stats, policy.centralKeywords)
  // at least minKeywords (≥ 1) keywords: the concept query has a term
  const query = conceptQuery(keywords, policy.conceptTerms, surnames.length > 0 ? central : [])!
  const mentions = findPaperMentions(text)
  const namedTitles = mentions.titles.map((t) => t.text).filter((t) => words(t).length >= 4).slice(0, policy.namedTitles)
  const plan: Stages.SearchPlan = {
    query,
    categories: options.categories,
    since: options.since,
    poolSize: Math.max(options.poolSize, options.maxResults),
    secondCap: options.poolSize,
    keywords,
    central,
    surnames,
    citedPhrases: [...keywords.slice(0, policy.citedPhrases).map((k) => k.term), ...namedTitles],
    citedLimit: policy.citedLimit + namedTitles.length,
    // a --since date and the categories hold for every channel
    admitCited: Stages.admitFor(options.categories, options.since),
    policy
  }
  return { plan, query, authors, mentions } satisfies Stages.PlanStage
})

/** search: the plan's searches merged, each paper once, labelled by channel; the papers the note already names set apart (listed as such, never recommended). */
const searchPool = Effect.fn("Companion.searchPool")(function*(found: Stages.NoteStage, planned: Stages.PlanStage, progress: Emit) {
  const searched = yield* Stages.search(planned.plan)
  const named = matchNamedPapers(planned.mentions, searched.merged.papers, found.note.title)
  const namedIds = new Set(named.map((n) => n.arxivId))
  const pool = searched.merged.papers.filter((p) => !namedIds.has(p.arxivId))
  yield* progress({ _tag: "Searched", candidates: pool.length })
  return { searched, named, pool } satisfies Stages.SearchStage
})

/** The concept as the judge reads it: the note's own emphasis (as on CSFCube), not arXiv rarity. */
const judgeConcept = (concept: Stages.ConceptStage) => ({
  title: concept.searchTitle,
  text: plainText(concept.searchText),
  keywords: extractKeywords(concept.searchText, concept.searchTitle).map((k) => k.term)
})

/** keep: every judged candidate decided, the best `maxResults` of those that clear both bars kept, by relevance (keepBest). Made once. */
const keep = Effect.fn("Companion.keep")(function*(
  judged: Stages.Judged,
  candidates: Stages.SearchStage,
  impacts: Stages.Impacts,
  options: CompanionOptions,
  progress: Emit
) {
  const today = yield* Dates.today
  const judge = yield* LlmJudgePort
  const outcome = keepBest(Stages.decideAll(judged, candidates.searched.merged, impacts, today, options), {
    ...options,
    orderNovelty: judge.orderNovelty
  })
  yield* progress({ _tag: "Judged", kept: outcome.kept.length })
  return { outcome, today } satisfies Stages.KeepStage
})

/**
 * foundations: the foundational citations of the kept papers, of the relevant papers without a count that take
 * places and of the papers the note names, batched in one call, side by side with the summaries of the papers in
 * the places (one more judge call when the judge writes summaries). A
 * failed lookup keeps the run (its search and judging stand): the foundations are marked unavailable, saying why.
 */
const findFoundations = Effect.fn("Companion.foundations")(function*(
  concept: Stages.ConceptStage,
  candidates: Stages.SearchStage,
  impacts: Stages.Impacts,
  decided: Stages.KeepStage,
  options: CompanionOptions
) {
  const openalex = yield* OpenAlexPort
  const judge = yield* LlmJudgePort
  // a relevant paper without a count that takes a place is read as a kept one is: its summary and what it builds on
  const placed = [...decided.outcome.kept, ...decided.outcome.unrecordedInPlaces]
  const founded = [...placed.map((s) => s.paper.arxivId), ...candidates.named.map((n) => n.arxivId)]
  const references = new Map(founded.map((id) => [id, impacts.impacts.get(id)?.referencedWorks]))
  const allRefs = [...new Set([...references.values()].flatMap((r) => r ?? []))]
  const works = new Map<string, Work>()
  let unavailable: string | undefined
  const lookup = allRefs.length === 0 ? Effect.void : openalex.worksByIds(allRefs).pipe(
    Effect.map((found) => {
      for (const w of found.works) works.set(w.openalexId, w)
    }),
    Effect.catchAll((error) => Effect.sync(() => void (unavailable = error.message.replace(/\s+/gu, " ").trim())))
  )
  const keywordTerms = concept.keywords.map((k) => k.term)
  const summarising = summarise(judge, { title: concept.searchTitle, text: plainText(concept.searchText), keywords: keywordTerms }, placed)
  const [, summaries] = yield* Effect.all([lookup, summarising], { concurrency: 2 })
  const foundations: Array<Foundations> = founded.map((arxivId) => {
    const refs = references.get(arxivId)
    if (refs === undefined) return { arxivId, status: "not-recorded", citations: [], unresolved: [] }
    if (refs.length === 0) return { arxivId, status: "no-references", citations: [], unresolved: [] }
    if (unavailable !== undefined) return { arxivId, status: "unavailable", citations: [], unresolved: [], reason: unavailable }
    const cited = refs.flatMap((id) => works.get(id) ?? [])
    return {
      arxivId,
      status: "found",
      citations: rankFoundational(cited, options.foundational),
      unresolved: refs.filter((id) => !works.has(id))
    }
  })
  return { foundations, references, works, summaries } satisfies Stages.FoundationsStage
})

/** teach: what the note teaches (shared foundations, reading order, citation map), from what was already looked up: no request. */
const teach = Effect.fn("Companion.teach")(function*(
  found: Stages.NoteStage,
  impacts: Stages.Impacts,
  decided: Stages.KeepStage,
  founded: Stages.FoundationsStage
) {
  return teaching({
    sourceTitle: found.note.title,
    kept: decided.outcome.kept,
    places: decided.outcome.places,
    references: founded.references,
    works: founded.works,
    impacts: impacts.impacts,
    foundations: founded.foundations,
    summaries: founded.summaries
  })
})

/** The papers the note names, as the report and the written note list them. */
const namedInNote = (candidates: Stages.SearchStage): ReadonlyArray<NamedInNote> =>
  candidates.named.map((n) => {
    const title = candidates.searched.merged.papers.find((p) => p.arxivId === n.arxivId)?.title
    return new NamedInNote({
      arxivId: n.arxivId,
      ...(title === undefined ? {} : { title }),
      mention: n.mention.kind,
      text: n.mention.text
    })
  })

/** write: the related note composed and written beside the source note: never onto it, nor over a note the companion did not write. */
const write = Effect.fn("Companion.write")(function*(run: Stages.RunStages, options: CompanionOptions, progress: Emit) {
  const vault = yield* VaultPort
  const { candidates, concept, decided, found, founded, impacts, judged, planned, taught } = run
  const { note, notes } = found
  const { searched } = candidates
  const { outcome } = decided
  const foundByTitle = searched.second?.result
  const target = relatedNotePath(note)
  if (target === undefined) return yield* new UnsafeWrite({ path: note.path, reason: "the note's path is not a safe vault path" })
  const input: RelatedNoteInput = {
    source: note,
    keywords: concept.keywords.map((k) => k.term),
    reading: concept.reading,
    query: queryText(planned.query),
    options,
    judge: judged.judge,
    impactSource: impacts.source,
    impactAsOf: impacts.asOf,
    titleQuery: foundByTitle === undefined ? undefined : queryText(searched.second?.query),
    searchedAuthors: foundByTitle === undefined ? [] : planned.plan.surnames,
    relatedTerms: foundByTitle === undefined ? [] : searched.relatedTerms,
    citedQuery: searched.cited?.query,
    alreadyInNote: namedInNote(candidates),
    candidates: shownCandidates(
      outcome.candidates,
      [...outcome.kept, ...outcome.cutByCap.slice(0, CUT_LISTED), ...outcome.unrecordedAmongKept],
      options.maxResults
    ),
    judged: outcome.candidates.length,
    counts: outcome.counts,
    cutByCap: outcome.cutByCap.slice(0, CUT_LISTED),
    unrecordedAmongKept: outcome.unrecordedAmongKept,
    survivors: outcome.kept,
    foundations: founded.foundations,
    teaching: taught,
    vault: vaultIndex(notes, [relatedTitle(note.title)])
  }
  const nowIso = yield* Dates.now
  const written = yield* writeGenerated(vault, target, relatedNote(input), nowIso, decided.today, undefined, {
    source: note.title,
    never: note.path,
    emptyBecause: outcome.candidates.length === 0 ? searchScope(queryText(planned.query), options) : undefined
  })
  yield* progress({ _tag: "Written", path: written.path, status: written.status })
  return { written, nowIso }
})

/**
 * Run the companion for one prompt: the stages in order, each a named
 * function over named records (note → concept → plan → search → judge →
 * impact → keep → foundations → teach → write). Reads the clock for
 * "today"; touches the world only through the ports, whose calls are
 * counted by a wrapper over them (src/core/callCounts.ts).
 */
export const runCompanion = Effect.fn("Companion.run")(function*(
  prompt: string,
  options: CompanionOptions = new CompanionOptions({}),
  hooks: RunHooks = {}
) {
  const progress: Emit = (event) => hooks.onProgress?.(event) ?? Effect.void
  const counter = makeCallCounter()
  return yield* counter.counted(Effect.gen(function*() {
    const found = yield* findNote(prompt, options, progress)
    const concept = yield* readConcept(found, options, progress)
    const planned = yield* planSearch(found, concept, options)
    const candidates = yield* searchPool(found, planned, progress)
    const judged = yield* Stages.judge(judgeConcept(concept), candidates.pool, options.maxResults)
    // impact of the relevant candidates, and of the papers the note names (their reference lists seed "builds on")
    const impacts = yield* Stages.impact(
      judged,
      candidates.searched.merged,
      options.relevanceThreshold,
      candidates.named.map((n) => n.arxivId),
      candidates.searched.cited?.papers[0]?.impact.source
    )
    const decided = yield* keep(judged, candidates, impacts, options, progress)
    const founded = yield* findFoundations(concept, candidates, impacts, decided, options)
    const taught = yield* teach(found, impacts, decided, founded)
    const run = { found, concept, planned, candidates, judged, impacts, decided, founded, taught } satisfies Stages.RunStages
    const { nowIso, written } = yield* write(run, options, progress)
    return report(prompt, options, run, written, counter.calls(), nowIso)
  }))
}) as (
  prompt: string,
  options?: CompanionOptions,
  hooks?: RunHooks
) => Effect.Effect<CompanionReport, CompanionError, ArxivPort | OpenAlexPort | LlmJudgePort | VaultPort | TermStatsPort>

/** The run's report, from the stages' records. */
const report = (
  prompt: string,
  options: CompanionOptions,
  run: Stages.RunStages,
  written: Written,
  calls: PortCalls,
  nowIso: string
): CompanionReport => {
  const { candidates, concept, decided, found, founded, planned, taught } = run
  const { keywords, reading, stats } = concept
  const { searched } = candidates
  const { outcome } = decided
  const foundByTitle = searched.second?.result
  const titled = searched.second?.query
  const { cited, relatedTerms } = searched
  return new CompanionReport({
    prompt,
    note: found.note,
    keywords: keywords.map((k) => k.term),
    keywordEvidence: keywords.map((k) => new KeywordEvidence({
      term: k.term,
      noteWeight: k.noteWeight,
      documentFrequency: k.documentFrequency,
      documents: stats.documents,
      count: k.count,
      phrase: k.phrase,
      reason: k.reason
    })),
    query: buildSearchQuery(planned.query, options.categories, options.since),
    ...(reading === undefined ? {} : { language: reading }),
    ...(foundByTitle === undefined || titled === undefined
      ? {}
      : { titleQuery: buildSearchQuery(titled, options.categories, options.since) }),
    ...(cited === undefined ? {} : { citedQuery: cited.query }),
    ...(foundByTitle === undefined || relatedTerms.length === 0 ? {} : { relatedTerms }),
    citedAuthors: planned.authors.map((a) => new CitedAuthor(a)),
    options,
    candidates: outcome.candidates,
    alreadyInNote: namedInNote(candidates),
    survivors: outcome.kept.map((s) => s.paper.arxivId),
    counts: outcome.counts,
    cutByCap: outcome.cutByCap.map((s) => s.paper.arxivId),
    unrecordedAmongKept: outcome.unrecordedAmongKept.map((s) => s.paper.arxivId),
    unrecordedInPlaces: outcome.unrecordedInPlaces.map((s) => s.paper.arxivId),
    foundations: founded.foundations,
    summaries: founded.summaries,
    sharedFoundations: taught.shared,
    readingOrder: taught.readingOrder,
    citationMap: outcome.kept.length === 0 ? "" : taught.map.mermaid,
    written,
    calls,
    generatedAt: nowIso
  })
}
