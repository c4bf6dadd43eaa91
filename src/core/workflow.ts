/**
 * The study-companion workflow: prompt → note → keywords → arXiv → impact →
 * judge → filter → foundations → summaries, shared foundations, reading
 * order and citation map → note written back.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { buildSearchQuery, CONCEPT_QUERY_TERMS, conceptQuery, titleQuery } from "./arxiv.js"
import { normalizeCategories, unknownCategoriesMessage } from "./categories.js"
import { bareId, mergeChannels } from "./channels.js"
import { CUT_LISTED, relatedNote, relatedNotePath, type RelatedNoteInput, relatedTitle } from "./compose.js"
import * as Dates from "./dates.js"
import {
  type ArxivError,
  type CompanionError,
  GeneratedNoteNamed,
  InvalidArgument,
  JudgeFailed,
  NotEnoughInformation,
  NoteAmbiguous,
  NoteNotFound,
  UnsafeWrite
} from "./errors.js"
import { citedAuthors, findAuthorCues } from "./citedAuthors.js"
import {
  centralWords,
  expansionTerms,
  extractKeywords,
  feedbackPapers,
  feedbackTerms,
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
  type Impact,
  NamedInNote,
  type Paper,
  type PortCalls,
  ScoredPaper
} from "./models.js"
import { MAX_NOTE_CHARS, shownSize } from "./limits.js"
import { findPaperMentions, matchNamedPapers } from "./namedPapers.js"
import { matchNote, NO_NOTE_NAMED, parseNoteReference } from "./noteReference.js"
import { ArxivPort, type ArxivSearchResult } from "./ports/ArxivPort.js"
import { type Concept, LlmJudgePort, type LlmJudgeService } from "./ports/LlmJudgePort.js"
import { OpenAlexPort } from "./ports/OpenAlexPort.js"
import { TermStatsPort } from "./ports/TermStatsPort.js"
import { VaultPort } from "./ports/VaultPort.js"
import { writeGenerated } from "./writeBack.js"
import { assessImpact, decide, impactNotAssessed, keepBest, rankFoundational } from "./rules.js"
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
/** How many papers the title search adds to the pool at most (never more than the pool itself). */
const TITLE_POOL = 50
/** How many of the first request's best papers titled by the concept the expansion terms are learnt from (tune3: 15–25 alike, eval/README.md). */
const FEEDBACK_PAPERS = 20
/** How many expansion terms widen the title search (tune3: 3–6 alike; 4 already crowds a demo note's ten kept). */
const EXPANSION_TERMS = 3
/** How many places the author search has for each author the note cites (measured on tune and tune2: 3 is the edge). */
const AUTHOR_POOL = 5
/** How many of the note's keywords (most informative first) the most-cited channel searches for. */
const CITED_PHRASES = 4
/** How many of the most cited works on those phrases join the candidates. */
const CITED_LIMIT = 20
/** How many titles the note names are searched for too (each adds one place to the limit). */
const NAMED_TITLES = 4
/** How many relevant candidates get their impact looked up: one batched request's worth (only they can be kept). */
const IMPACT_LOOKUPS = 50

/**
 * The candidates the judge sees: the whole pool, or, for a judge with a
 * shortlist (a costly model), the best of the pool by its cheap ranking and
 * never fewer than are kept; in the pool's order.
 */
const shortlist = (
  judge: LlmJudgeService,
  concept: Concept,
  pool: ReadonlyArray<Paper>,
  kept: number
): Effect.Effect<ReadonlyArray<Paper>, JudgeFailed> => {
  const list = judge.shortlist
  if (list === undefined || pool.length <= Math.max(list.size, kept)) return Effect.succeed(pool)
  return list.rank(concept, pool).pipe(Effect.map((scores) => {
    const best = pool.map((_, i) => i)
      .sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b)
      .slice(0, Math.max(list.size, kept))
    return best.sort((a, b) => a - b).map((i) => pool[i]!)
  }))
}

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
  const arxiv = yield* ArxivPort
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
  // candidates by weight in the note, ranked by how much each says in arXiv text
  const terms = noteTerms(text, note.title)
  const stats = yield* termStats.lookup(terms.map((t) => t.term))
  const keywords = rankKeywords(terms, stats, CONCEPT_QUERY_TERMS)
  if (keywords.length < options.minKeywords) {
    return yield* new NotEnoughInformation({
      detail: `the note "${note.title}" yields ${keywords.length} keyword${keywords.length === 1 ? "" : "s"}` +
        `${keywords.length > 0 ? ` (${keywords.map((k) => k.term).join(", ")})` : ""}; at least ${options.minKeywords} are needed to search arXiv. ` +
        "Add a few sentences about the concept to the note."
    })
  }
  yield* progress({ _tag: "Keywords", keywords: keywords.map((k) => k.term) })

  // 4. search arXiv for a pool of candidates larger than what is kept and, side by side, the most
  // cited works with an arXiv location on the note's key phrases (the second channel); merged, each
  // paper once, labelled by channel
  // the authors the note cites and the words of its central concepts; when it cites authors, they have the
  // second request to themselves (a shared ranking gave their places to title matches: eval/README.md,
  // tune2) and the central words boost the concept query's titles instead
  const cues = findAuthorCues(text)
  const cueStats = yield* termStats.lookup(cues.map((c) => c.surname))
  const authors = citedAuthors(text, cues, cueStats, undefined, keywords.map((k) => k.term))
  const surnames = authors.map((a) => a.surname)
  const central = centralWords(keywords, terms, stats, CENTRAL_KEYWORDS)
  const query = conceptQuery(keywords, CONCEPT_QUERY_TERMS, surnames.length > 0 ? central : [])
  const searching = Effect.suspend(() => {
    calls.arxiv++
    return arxiv.search({
      query,
      categories: options.categories,
      since: options.since,
      maxResults: Math.max(options.poolSize, options.maxResults),
      sortBy: "relevance"
    })
  })
  // the note's own mentions: a title it names (four words or more, as titles are) joins the most-cited
  // search, so a paper named by title is found, recognised and listed instead of recommended
  const mentions = findPaperMentions(text)
  const namedTitles = mentions.titles.map((t) => t.text).filter((t) => words(t).length >= 4).slice(0, NAMED_TITLES)
  const citedPhrases = [...keywords.slice(0, CITED_PHRASES).map((k) => k.term), ...namedTitles]
  const citing = citedPhrases.length === 0 ? Effect.succeed(undefined) : Effect.suspend(() => {
    calls.openalex++
    return openalex.mostCitedArxivWorks({ phrases: citedPhrases, limit: CITED_LIMIT + namedTitles.length })
  })
  // the second arXiv request: papers that an author the note cites wrote ("Duan et al", "the Bahdanau
  // paper": au: clauses) or, when it cites none, whose title names the note's central concepts, among those
  // the concept query matches (a landmark named by its authors, or titled by the concept, but using few of
  // the note's other words is far down the first ranking); asked only when the first did not already bring
  // every paper that matches (the clauses are ANDed with the concept query). The title search is widened by
  // pseudo-relevance feedback: OR the terms that the first request's best papers titled by the concept share
  // and the note does not use ("entailment" for a note on natural language inference), ranked against the
  // arXiv statistics like the note's own keywords (eval/README.md, tune3)
  // the second query, and the feedback terms that widen it (the note names them, so a reader sees why)
  const secondQuery = (first: ArxivSearchResult): Effect.Effect<readonly [string | undefined, ReadonlyArray<string>]> => {
    if (surnames.length > 0) return Effect.succeed([titleQuery([], keywords, CONCEPT_QUERY_TERMS, surnames), []])
    const feedback = feedbackTerms(feedbackPapers(first.papers, central, FEEDBACK_PAPERS))
    return termStats.lookup(feedback.map((f) => f.term)).pipe(Effect.map((feedbackStats) => {
      const expansion = expansionTerms(feedback, feedbackStats, keywords.map((k) => k.term), EXPANSION_TERMS)
        .map((e) => e.term)
      return [titleQuery(central, keywords, CONCEPT_QUERY_TERMS, [], expansion), expansion] as const
    }))
  }
  type Searched = readonly [ArxivSearchResult, ArxivSearchResult | undefined, string | undefined, ReadonlyArray<string>]
  const searchingBoth = searching.pipe(Effect.flatMap((first): Effect.Effect<Searched, ArxivError> =>
    first.total <= first.papers.length
      ? Effect.succeed<Searched>([first, undefined, undefined, []])
      : secondQuery(first).pipe(Effect.flatMap(([titled, expansion]): Effect.Effect<Searched, ArxivError> =>
        titled === undefined ? Effect.succeed<Searched>([first, undefined, undefined, []]) : Effect.suspend(() => {
          calls.arxiv++
          return arxiv.search({
            query: titled,
            categories: options.categories,
            since: options.since,
            maxResults: Math.min(surnames.length > 0 ? AUTHOR_POOL * surnames.length : TITLE_POOL, options.poolSize),
            sortBy: "relevance"
          })
        }).pipe(Effect.map((second): Searched => [first, second, titled, expansion]))
      ))
  ))
  const [[found, foundByTitle, titled, relatedTerms], cited] = yield* Effect.all([searchingBoth, citing], { concurrency: 2 })
  // a --since date and the categories hold for every channel: a most-cited work whose arXiv categories are known
  // and none of them asked for is left out (OpenAlex records carry none, so those stay)
  const asked = new Set(options.categories)
  const citedPapers = (cited?.papers ?? []).filter((c) =>
    (options.since === undefined || c.paper.published >= options.since) &&
    (asked.size === 0 || c.paper.categories.length === 0 || c.paper.categories.some((cat) => asked.has(cat)))
  )
  // a paper of the second search is labelled by what it asked for: the authors the note cites, or the title words
  const second = foundByTitle?.papers ?? []
  const byAuthor = surnames.length > 0 ? second : []
  const byTitle = surnames.length > 0 ? [] : second
  const merged = mergeChannels(found.papers, citedPapers, byTitle, byAuthor)

  // papers the note already names are listed as such, never recommended as new
  const named = matchNamedPapers(mentions, merged.papers, note.title)
  const namedIds = new Set(named.map((n) => n.arxivId))
  const pool = merged.papers.filter((p) => !namedIds.has(p.arxivId))
  yield* progress({ _tag: "Searched", candidates: pool.length })

  // 5. judge the pool; a judge that takes fewer papers (a paid model) gets the best of it by its cheap ranking
  // the judge weighs the note's own emphasis (as on CSFCube), not arXiv rarity
  const concept = { title: note.title, text: plainText(text), keywords: extractKeywords(text, note.title).map((k) => k.term) }
  const candidates = yield* shortlist(judge, concept, pool, options.maxResults)
  const judgements = candidates.length === 0 ? [] : yield* Effect.suspend(() => {
    calls.judge++
    return judge.judge(concept, candidates)
  })
  // judgements are matched by id, so a judge that reorders or skips papers cannot mismatch them
  const judged = new Map(judgements.map((j) => [j.arxivId, j]))
  const unjudged = candidates.filter((p) => !judged.has(p.arxivId)).map((p) => p.arxivId)
  if (unjudged.length > 0) {
    return yield* new JudgeFailed({ model: judge.name, reason: `no judgement for ${unjudged.join(", ")}` })
  }

  // 6. impact of the relevant candidates the most-cited channel did not bring one for (only they can
  // be kept; most relevant first), and of the papers the note names (their reference lists seed
  // "builds on"), in one batched call
  const impacts = new Map<string, Impact>(merged.impacts)
  const relevantIds = candidates
    .map((p) => judged.get(p.arxivId)!)
    .filter((j) => j.relevance >= options.relevanceThreshold)
    .sort((a, b) => b.relevance - a.relevance || a.arxivId.localeCompare(b.arxivId))
    .map((j) => j.arxivId)
    .filter((id) => !impacts.has(id))
    .slice(0, IMPACT_LOOKUPS)
  const ids = [...relevantIds, ...namedIds]
  let impactSource: Impact["source"] | undefined = cited?.papers[0]?.impact.source
  // the date a paper without a count is aged at: the recording date of offline data, else today
  let impactAsOf: string | undefined
  if (ids.length > 0) {
    calls.openalex++
    const lookup = yield* openalex.worksByArxivIds(ids)
    impactSource = lookup.source
    impactAsOf = lookup.asOf
    for (const impact of lookup.impacts) impacts.set(bareId(impact.arxivId), impact)
  }

  // 7. decide; the best `maxResults` of the papers that clear both bars are kept, by relevance (keepBest)
  const today = yield* Dates.today
  const assessed = new Set([...relevantIds, ...impacts.keys()])
  const looked = new Set(relevantIds)
  const judgedPapers = candidates.map((paper) => {
    const judgement = judged.get(paper.arxivId)!
    // a paper the lookup was asked for and has no count of is told which source had none
    const impact = assessed.has(paper.arxivId)
      ? assessImpact(
        paper.published,
        impacts.get(paper.arxivId),
        impactAsOf ?? today,
        options,
        looked.has(paper.arxivId) ? impactSource : undefined
      )
      : impactNotAssessed(impactAsOf ?? today)
    const foundBy = merged.channels.get(paper.arxivId)
    return new ScoredPaper({
      paper,
      judgement,
      impact,
      decision: decide(judgement, impact, options),
      ...(foundBy === undefined ? {} : { foundBy })
    })
  })
  const outcome = keepBest(judgedPapers, options)
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
  const summarising = summarise(judge, { title: note.title, text: plainText(text), keywords: keywordTerms }, kept, () => {
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
    query,
    options,
    judge: judge.name,
    impactSource,
    impactAsOf,
    titleQuery: foundByTitle === undefined ? undefined : titled,
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
    emptyBecause: scored.length === 0 ? searchScope(query, options) : undefined
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
