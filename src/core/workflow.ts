/**
 * The study-companion workflow: prompt → note → keywords → arXiv → impact →
 * judge → filter → foundations → summaries, shared foundations, reading
 * order and citation map → note written back.
 *
 * @since 0.1.0
 */
import { Effect, Option } from "effect"
import { buildSearchQuery, CONCEPT_QUERY_TERMS, conceptQuery, queryText } from "./arxiv.js"
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
  type ScoredPaper
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
import { writeGenerated } from "./writeBack.js"
import { keepBest, rankFoundational } from "./rules.js"
import { summarise, teaching } from "./teaching.js"
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

/** How many of the note's best keywords name its central concepts, whose words the title search looks for. */
const CENTRAL_KEYWORDS = 2
/** How many of the note's keywords (most informative first) the most-cited channel searches for. */
const CITED_PHRASES = 4
/** How many titles the note names are searched for too (each adds one place to the limit). */
const NAMED_TITLES = 4
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

/**
 * Run the companion for one prompt. Reads the clock for "today"; touches the
 * world only through the four ports.
 */
export const runCompanion = Effect.fn("Companion.run")(function*(
  prompt: string,
  options: CompanionOptions = new CompanionOptions({}),
  hooks: RunHooks = {}
) {
  const openalex = yield* OpenAlexPort
  const judge = yield* LlmJudgePort
  const vault = yield* VaultPort
  const termStats = yield* TermStatsPort
  const calls: { -readonly [K in keyof PortCalls]: number } = { arxiv: 0, openalex: 0, judge: 0, vault: 0 }
  const progress = (event: Progress) => hooks.onProgress?.(event) ?? Effect.void

  // 0. categories arXiv does not list would only find nothing: say so before anything is touched
  const { unknown: unknownCategories } = normalizeCategories(options.categories)
  if (unknownCategories.length > 0) {
    return yield* new InvalidArgument({ argument: "categories", reason: unknownCategoriesMessage(unknownCategories) })
  }

  // 1. the note named in the prompt, before the vault is touched
  const reference = parseNoteReference(prompt)
  if (reference === undefined) return yield* new NotEnoughInformation({ detail: NO_NOTE_NAMED })

  // 2. match it against the vault's titles
  calls.vault++
  const notes = yield* vault.listNotes()
  const match = matchNote(reference, notes)
  if (match._tag === "NotFound") return yield* new NoteNotFound({ title: reference.raw, closest: match.closest })
  if (match._tag === "Ambiguous") return yield* new NoteAmbiguous({ title: reference.raw, paths: match.notes.map((n) => n.path) })
  if (match._tag === "Generated") return yield* new GeneratedNoteNamed({ title: match.title, source: match.source })
  const note = match.note
  yield* progress({ _tag: "NoteFound", path: note.path })

  // 3. read it and take its keywords
  calls.vault++
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
  // the note in English terms: a note in another language is read by the language port (when the layer has one),
  // an English note is searched as it is
  const reader = yield* Effect.serviceOption(NoteLanguagePort)
  const english = Option.isSome(reader) ? yield* reader.value.read({ title: note.title, text }) : undefined
  const searchText = english?.text ?? text
  const searchTitle = english?.title ?? note.title
  const reading = english?.reading
  // candidates by weight in the note, ranked by how much each says in arXiv text
  const terms = noteTerms(searchText, searchTitle)
  const stats = yield* termStats.lookup(terms.map((t) => t.term))
  const keywords = rankKeywords(terms, stats, CONCEPT_QUERY_TERMS)
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

  // 4. plan and search (stages.ts): a pool larger than what is kept, the second search (the authors the note
  // cites, or the title search on its central concepts widened by feedback terms) and, side by side, the most
  // cited works with an arXiv location on the note's key phrases; merged, each paper once, labelled by channel.
  // When the note cites authors, they have the second request to themselves (a shared ranking gave their places
  // to title matches: eval/README.md, tune2) and the central words boost the concept query's titles instead
  const cues = findAuthorCues(text)
  const cueStats = yield* termStats.lookup(cues.map((c) => c.surname))
  const authors = citedAuthors(text, cues, cueStats, undefined, keywords.map((k) => k.term))
  const surnames = authors.map((a) => a.surname)
  const central = centralWords(keywords, terms, stats, CENTRAL_KEYWORDS)
  // at least minKeywords (≥ 1) keywords: the concept query has a term
  const query = conceptQuery(keywords, CONCEPT_QUERY_TERMS, surnames.length > 0 ? central : [])!
  // the note's own mentions: a title it names (four words or more, as titles are) joins the most-cited
  // search, so a paper named by title is found, recognised and listed instead of recommended
  const mentions = findPaperMentions(text)
  const namedTitles = mentions.titles.map((t) => t.text).filter((t) => words(t).length >= 4).slice(0, NAMED_TITLES)
  const count: Stages.Count = (port) => calls[port]++
  const searched = yield* Stages.search({
    query,
    categories: options.categories,
    since: options.since,
    poolSize: Math.max(options.poolSize, options.maxResults),
    secondCap: options.poolSize,
    keywords,
    central,
    surnames,
    citedPhrases: [...keywords.slice(0, CITED_PHRASES).map((k) => k.term), ...namedTitles],
    citedLimit: Stages.CITED_LIMIT + namedTitles.length,
    // a --since date and the categories hold for every channel
    admitCited: Stages.admitFor(options.categories, options.since)
  }, count)
  const { merged, cited } = searched
  const foundByTitle = searched.second?.result
  const titled = searched.second?.query
  const relatedTerms = searched.relatedTerms

  // papers the note already names are listed as such, never recommended as new
  const named = matchNamedPapers(mentions, merged.papers, note.title)
  const namedIds = new Set(named.map((n) => n.arxivId))
  const pool = merged.papers.filter((p) => !namedIds.has(p.arxivId))
  yield* progress({ _tag: "Searched", candidates: pool.length })

  // 5. judge the pool; a judge that takes fewer papers (a paid model) gets the best of it by its cheap ranking;
  // the judge weighs the note's own emphasis (as on CSFCube), not arXiv rarity
  const concept = { title: searchTitle, text: plainText(searchText), keywords: extractKeywords(searchText, searchTitle).map((k) => k.term) }
  const judged = yield* Stages.judge(concept, pool, options.maxResults, count)

  // 6. impact of the relevant candidates the most-cited channel did not bring one for (only they can be kept;
  // most relevant first), and of the papers the note names (their reference lists seed "builds on"), in one call
  const found = yield* Stages.impact(judged, merged, options.relevanceThreshold, [...namedIds], cited?.papers[0]?.impact.source, count)
  const { impacts } = found
  const impactSource = found.source
  const impactAsOf = found.asOf

  // 7. decide; the best `maxResults` of the papers that clear both bars are kept, by relevance (keepBest)
  const today = yield* Dates.today
  const outcome = keepBest(Stages.decideAll(judged, merged, found, today, options), options)
  const { kept, candidates: scored } = outcome
  yield* progress({ _tag: "Judged", kept: kept.length })

  // 8. foundational citations of the survivors and of the papers the note names, batched in one call,
  // side by side with the survivors' summaries (one more judge call when the judge writes summaries)
  const founded = [...kept.map((s) => s.paper.arxivId), ...named.map((n) => n.arxivId)]
  const refsOf = new Map(founded.map((id) => [id, impacts.get(id)?.referencedWorks]))
  const allRefs = [...new Set([...refsOf.values()].flatMap((r) => r ?? []))]
  const resolved = new Map<string, import("./models.js").Work>()
  const keywordTerms = keywords.map((k) => k.term)
  // a failed lookup keeps the run (its search and judging stand): the foundations are marked unavailable, saying why
  let unavailable: string | undefined
  const lookup = allRefs.length === 0 ? Effect.void : Effect.suspend(() => {
    calls.openalex++
    return openalex.worksByIds(allRefs)
  }).pipe(
    Effect.map((works) => {
      for (const w of works.works) resolved.set(w.openalexId, w)
    }),
    Effect.catchAll((error) => Effect.sync(() => void (unavailable = error.message.replace(/\s+/gu, " ").trim())))
  )
  const summarising = summarise(judge, { title: searchTitle, text: plainText(searchText), keywords: keywordTerms }, kept, () => {
    calls.judge++
  })
  const [, summaries] = yield* Effect.all([lookup, summarising], { concurrency: 2 })
  const foundations: Array<Foundations> = founded.map((arxivId) => {
    const refs = refsOf.get(arxivId)
    if (refs === undefined) return { arxivId, status: "not-recorded", citations: [], unresolved: [] }
    if (refs.length === 0) return { arxivId, status: "no-references", citations: [], unresolved: [] }
    if (unavailable !== undefined) return { arxivId, status: "unavailable", citations: [], unresolved: [], reason: unavailable }
    const works = refs.flatMap((id) => resolved.get(id) ?? [])
    return {
      arxivId,
      status: "found",
      citations: rankFoundational(works, options.foundational),
      unresolved: refs.filter((id) => !resolved.has(id))
    }
  })
  const alreadyInNote = named.map((n) => {
    const title = merged.papers.find((p) => p.arxivId === n.arxivId)?.title
    return new NamedInNote({
      arxivId: n.arxivId,
      ...(title === undefined ? {} : { title }),
      mention: n.mention.kind,
      text: n.mention.text
    })
  })

  // 9. what the note teaches: shared foundations, reading order and citation map, from what was
  // already looked up (no further request)
  const taught = teaching({ sourceTitle: note.title, kept, references: refsOf, works: resolved, impacts, foundations, summaries })

  // 10. compose and write beside the source note: never onto it, nor over a note the companion did not write
  const target = relatedNotePath(note)
  if (target === undefined) return yield* new UnsafeWrite({ path: note.path, reason: "the note's path is not a safe vault path" })
  const input: RelatedNoteInput = {
    source: note,
    keywords: keywords.map((k) => k.term),
    reading,
    query: queryText(query),
    options,
    judge: judge.name,
    impactSource,
    impactAsOf,
    titleQuery: foundByTitle === undefined ? undefined : queryText(titled),
    searchedAuthors: foundByTitle === undefined ? [] : surnames,
    relatedTerms: foundByTitle === undefined ? [] : relatedTerms,
    citedQuery: cited?.query,
    alreadyInNote,
    candidates: shownCandidates(
      scored,
      [...kept, ...outcome.cutByCap.slice(0, CUT_LISTED), ...outcome.unrecordedAmongKept],
      options.maxResults
    ),
    judged: scored.length,
    counts: outcome.counts,
    cutByCap: outcome.cutByCap.slice(0, CUT_LISTED),
    unrecordedAmongKept: outcome.unrecordedAmongKept,
    survivors: kept,
    foundations,
    teaching: taught,
    vault: vaultIndex(notes, [relatedTitle(note.title)])
  }
  const nowIso = yield* Dates.now
  const written = yield* writeGenerated(vault, target, relatedNote(input), nowIso, today, () => calls.vault++, {
    source: note.title,
    never: note.path,
    emptyBecause: scored.length === 0 ? searchScope(queryText(query), options) : undefined
  })
  yield* progress({ _tag: "Written", path: written.path, status: written.status })

  return new CompanionReport({
    prompt,
    note,
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
    query: buildSearchQuery(query, options.categories, options.since),
    ...(reading === undefined ? {} : { language: reading }),
    ...(foundByTitle === undefined || titled === undefined
      ? {}
      : { titleQuery: buildSearchQuery(titled, options.categories, options.since) }),
    ...(cited === undefined ? {} : { citedQuery: cited.query }),
    ...(foundByTitle === undefined || relatedTerms.length === 0 ? {} : { relatedTerms }),
    citedAuthors: authors.map((a) => new CitedAuthor(a)),
    options,
    candidates: scored,
    alreadyInNote,
    survivors: kept.map((s) => s.paper.arxivId),
    counts: outcome.counts,
    cutByCap: outcome.cutByCap.map((s) => s.paper.arxivId),
    unrecordedAmongKept: outcome.unrecordedAmongKept.map((s) => s.paper.arxivId),
    foundations,
    summaries,
    sharedFoundations: taught.shared,
    readingOrder: taught.readingOrder,
    citationMap: kept.length === 0 ? "" : taught.map.mermaid,
    written,
    calls: { ...calls },
    generatedAt: nowIso
  })
}) as (
  prompt: string,
  options?: CompanionOptions,
  hooks?: RunHooks
) => Effect.Effect<CompanionReport, CompanionError, ArxivPort | OpenAlexPort | LlmJudgePort | VaultPort | TermStatsPort>
