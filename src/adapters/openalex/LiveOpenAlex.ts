/**
 * OpenAlexPort over the live OpenAlex API.
 *
 * - `worksByArxivIds`: one `/works?filter=doi:10.48550/arxiv.<a>|...` request
 *   per 50 ids, `select=` trimmed. Each record is matched back to the arXiv
 *   ids it really describes through its ids and locations (arXiv landing
 *   pages, PDFs, OAI ids, arXiv DOIs), never by trusting its DOI or year:
 *   OpenAlex merges famous preprints with other versions, and the merged
 *   record can carry another DOI and a wrong year. Ids with no record are
 *   reported as missing; a found paper with 0 citations is an impact of 0.
 * - `worksByIds`: one `/works?filter=openalex:W1|W2|...` request per 50 ids;
 *   ids that do not resolve are reported as missing, empty titles get a
 *   fallback.
 * - `mostCitedArxivWorks`: ONE `/works?search=<phrases OR-ed>&filter=indexed_in:arxiv
 *   &sort=cited_by_count:desc&per_page=<limit>` request (`indexed_in:arxiv`:
 *   works arXiv lists, per OpenAlex's indexes). Each record becomes a Paper
 *   (title, abstract rebuilt from `abstract_inverted_index`, authors, the
 *   arXiv date when the record is the preprint's, else the month of the id)
 *   and an Impact, so no arXiv request is needed for these papers. Records
 *   without an arXiv id of their own are skipped.
 *
 * Configuration: OPENALEX_API_URL (default https://api.openalex.org),
 * OPENALEX_API_KEY (sent as `api_key`, required by OpenAlex since
 * 2026-02-13), OPENALEX_MAILTO (optional).
 *
 * @since 0.1.0
 */
import type { HttpClient } from "@effect/platform"
import { Effect, Layer } from "effect"
import { firstVersionFromId, parseArxivId } from "../../core/arxiv.js"
import { InvalidArgument } from "../../core/errors.js"
import { Impact, ImpactSource, Paper, Work } from "../../core/models.js"
import {
  type CitedLookup,
  type CitedPaper,
  type CitedSearch,
  type ImpactLookup,
  OpenAlexPort,
  type OpenAlexService,
  type WorkLookup
} from "../../core/ports/OpenAlexPort.js"
import { searchPhrases } from "../../core/text.js"
import {
  abstractOf,
  arxivDoi,
  arxivKey,
  arxivKeysOf,
  authorsOf,
  bareDoi,
  limiterLayer,
  makeClient,
  type OpenAlexClientOptions,
  optionsConfig,
  shortWorkId,
  wantedWorkIds,
  titleOf,
  WorkList,
  type WorkRecord
} from "./openalexClient.js"

/** Options of the live OpenAlex adapter. */
export interface LiveOpenAlexOptions extends OpenAlexClientOptions {
  /** Ids per batched request, 1..100 (OpenAlex accepts up to 100 OR-ed values). Default 50. */
  readonly batchSize?: number | undefined
  /** Batched requests in flight at once. Default 4. */
  readonly concurrency?: number | undefined
}

/** The fields `worksByArxivIds` asks for. */
export const IMPACT_FIELDS = [
  "id",
  "doi",
  "title",
  "display_name",
  "publication_year",
  "publication_date",
  "ids",
  "locations",
  "cited_by_count",
  "referenced_works"
] as const

/** The fields `mostCitedArxivWorks` asks for: the impact fields and what the judge reads. */
export const CITED_FIELDS = [...IMPACT_FIELDS, "abstract_inverted_index", "authorships"] as const

/** The `search` value for key phrases: each phrase quoted (matched as a phrase), OR-ed. */
export const citedSearchQuery = (phrases: ReadonlyArray<string>): string =>
  phrases.map((p) => (p.includes(" ") ? `"${p}"` : p)).join(" OR ")

/** The fields `worksByIds` asks for. */
export const WORK_FIELDS = ["id", "doi", "title", "display_name", "publication_year", "cited_by_count", "ids", "locations"] as const

const SOURCE = new ImpactSource({ name: "OpenAlex" })

const chunk = <A>(items: ReadonlyArray<A>, size: number): Array<Array<A>> => {
  const out: Array<Array<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** An OpenAlex work record as a Work of the core. */
export const toWork = (record: WorkRecord, openalexId: string): Work => {
  const arxiv = [...arxivKeysOf(record)]
  return new Work({
    openalexId,
    title: titleOf(record),
    citedByCount: record.cited_by_count ?? 0,
    ...(typeof record.publication_year === "number" ? { publicationYear: record.publication_year } : {}),
    ...(typeof record.doi === "string" && record.doi !== "" ? { doi: bareDoi(record.doi) } : {}),
    ...(arxiv.length === 1 ? { arxivId: arxiv[0]! } : {})
  })
}

/**
 * Build the adapter from the context's HttpClient. Nothing is sent until a
 * method runs.
 */
export const make = Effect.fn("LiveOpenAlex.make")(function*(options: LiveOpenAlexOptions = {}) {
  const http = yield* makeClient(options)
  const batchSize = Math.min(100, Math.max(1, Math.floor(options.batchSize ?? 50)))
  const concurrency = Math.max(1, options.concurrency ?? 4)

  const listWorks = (filter: string, fields: ReadonlyArray<string>) =>
    http.getJson(
      "/works",
      [["filter", filter], ["select", fields.join(",")], ["per_page", "100"]],
      WorkList
    )

  const worksByArxivIds = Effect.fn("OpenAlexPort.worksByArxivIds")(function*(arxivIds: ReadonlyArray<string>) {
    // requested ids by comparison key, keeping the caller's spelling for the answer
    const wanted = new Map<string, string>()
    for (const raw of arxivIds) {
      const parsed = parseArxivId(raw)
      if (parsed === undefined) {
        return yield* new InvalidArgument({
          argument: "arXiv id",
          reason: `"${raw}" is not an arXiv id (e.g. 1409.0473 or hep-th/9901001)`
        })
      }
      const key = arxivKey(parsed.id)
      if (!wanted.has(key)) wanted.set(key, raw.trim())
    }
    const keys = [...wanted.keys()]
    const pages = yield* Effect.forEach(
      chunk(keys, batchSize),
      (batch) => listWorks(`doi:${batch.map(arxivDoi).join("|")}`, IMPACT_FIELDS),
      { concurrency }
    )

    // the best record per requested id: the one with the most citations (merged
    // records gather the citations of all versions), an exact arXiv DOI breaking ties
    const best = new Map<string, WorkRecord>()
    for (const record of pages.flatMap((p) => p.results)) {
      for (const key of arxivKeysOf(record)) {
        if (!wanted.has(key)) continue
        const current = best.get(key)
        if (current === undefined || isBetter(record, current, key)) best.set(key, record)
      }
    }

    const impacts: Array<Impact> = []
    const missing: Array<string> = []
    for (const [key, asked] of wanted) {
      const record = best.get(key)
      if (record === undefined) {
        missing.push(asked)
        continue
      }
      // a record whose own DOI is this paper's arXiv DOI describes the preprint, so its
      // date is arXiv's; a merged record's year can belong to another version
      const ownDoi = typeof record.doi === "string" && bareDoi(record.doi) === arxivDoi(key)
      const refs = (record.referenced_works ?? []).flatMap((w) => shortWorkId(w) ?? [])
      const openalexId = shortWorkId(record.id)
      impacts.push(
        new Impact({
          arxivId: asked,
          ...(openalexId === undefined ? {} : { openalexId }),
          citationCount: record.cited_by_count ?? 0,
          ...(ownDoi && typeof record.publication_year === "number" ? { publicationYear: record.publication_year } : {}),
          ...(ownDoi && typeof record.publication_date === "string" && /^\d{4}-\d{2}-\d{2}$/.test(record.publication_date)
            ? { publicationDate: record.publication_date }
            : {}),
          // an empty list does not prove the paper cites nothing (OpenAlex often lacks a
          // preprint's references), so it is reported as "no reference list known"
          ...(refs.length > 0 ? { referencedWorks: refs } : {}),
          source: SOURCE
        })
      )
    }
    return { impacts, missing, source: SOURCE } satisfies ImpactLookup
  })

  const worksByIds = Effect.fn("OpenAlexPort.worksByIds")(function*(openalexIds: ReadonlyArray<string>) {
    const wanted = yield* wantedWorkIds(openalexIds)
    const pages = yield* Effect.forEach(
      chunk([...wanted.keys()], batchSize),
      (batch) => listWorks(`openalex:${batch.join("|")}`, WORK_FIELDS),
      { concurrency }
    )
    const found = new Map<string, Work>()
    for (const record of pages.flatMap((p) => p.results)) {
      const id = shortWorkId(record.id)
      if (id !== undefined && wanted.has(id) && !found.has(id)) found.set(id, toWork(record, id))
    }
    const works: Array<Work> = []
    const missing: Array<string> = []
    for (const [id, asked] of wanted) {
      const work = found.get(id)
      if (work === undefined) missing.push(asked)
      else works.push(work)
    }
    return { works, missing } satisfies WorkLookup
  })

  const mostCitedArxivWorks = Effect.fn("OpenAlexPort.mostCitedArxivWorks")(function*(search: CitedSearch) {
    if (!Number.isInteger(search.limit) || search.limit < 1 || search.limit > 100) {
      return yield* new InvalidArgument({ argument: "limit", reason: `${search.limit} is outside 1..100.` })
    }
    const phrases = searchPhrases(search.phrases)
    const query = citedSearchQuery(phrases)
    if (phrases.length === 0) return { papers: [], query } satisfies CitedLookup
    const page = yield* http.getJson(
      "/works",
      [
        ["search", query],
        ["filter", "indexed_in:arxiv"],
        ["sort", "cited_by_count:desc"],
        ["select", CITED_FIELDS.join(",")],
        ["per_page", String(search.limit)]
      ],
      WorkList
    )
    const papers: Array<CitedPaper> = []
    const seen = new Set<string>()
    for (const record of page.results) {
      const cited = citedPaperOf(record)
      if (cited === undefined || seen.has(cited.paper.arxivId)) continue
      seen.add(cited.paper.arxivId)
      papers.push(cited)
    }
    return { papers, query: `${query} (OpenAlex, most cited, arXiv only)` } satisfies CitedLookup
  })

  return { worksByArxivIds, worksByIds, mostCitedArxivWorks } satisfies OpenAlexService
})

/**
 * A search hit as a Paper and its Impact. Its arXiv id comes from its own
 * arXiv DOI, else its only arXiv location; a record pointing to several
 * arXiv papers (a merge gone wrong) or none is skipped.
 */
export const citedPaperOf = (record: WorkRecord): CitedPaper | undefined => {
  const ownDoi = typeof record.doi === "string" ? /^10\.48550\/arxiv\.(.+)$/.exec(bareDoi(record.doi))?.[1] : undefined
  const keys = [...arxivKeysOf(record)]
  const key = ownDoi !== undefined ? arxivKey(ownDoi) : keys.length === 1 ? keys[0] : undefined
  const parsed = key === undefined ? undefined : parseArxivId(key)
  if (parsed === undefined) return undefined
  const arxivId = parsed.id
  // the record's date is arXiv's only when the record is the preprint's; else the id's month
  const ownDate = ownDoi !== undefined && typeof record.publication_date === "string" &&
      /^\d{4}-\d{2}-\d{2}$/.test(record.publication_date)
    ? record.publication_date
    : undefined
  const published = ownDate ?? firstVersionFromId(arxivId)
  if (published === undefined) return undefined
  const openalexId = shortWorkId(record.id)
  const refs = (record.referenced_works ?? []).flatMap((w) => shortWorkId(w) ?? [])
  return {
    paper: new Paper({
      arxivId,
      title: titleOf(record),
      abstract: abstractOf(record),
      authors: [...authorsOf(record)],
      published,
      categories: []
    }),
    impact: new Impact({
      arxivId,
      ...(openalexId === undefined ? {} : { openalexId }),
      citationCount: record.cited_by_count ?? 0,
      publicationDate: published,
      ...(refs.length > 0 ? { referencedWorks: refs } : {}),
      source: SOURCE
    })
  }
}

const isBetter = (candidate: WorkRecord, current: WorkRecord, key: string): boolean => {
  const a = candidate.cited_by_count ?? 0
  const b = current.cited_by_count ?? 0
  if (a !== b) return a > b
  const exact = (r: WorkRecord) => typeof r.doi === "string" && bareDoi(r.doi) === arxivDoi(key)
  return exact(candidate) && !exact(current)
}

/** The live OpenAlex adapter as a layer, with explicit options and OpenAlex's process-wide limiter. */
export const layer = (options: LiveOpenAlexOptions = {}): Layer.Layer<OpenAlexPort, never, HttpClient.HttpClient> =>
  Layer.effect(OpenAlexPort, make(options)).pipe(Layer.provide(limiterLayer(options)))

/**
 * The live OpenAlex adapter configured from OPENALEX_API_URL, OPENALEX_API_KEY
 * (redacted) and OPENALEX_MAILTO; `overrides` win over configuration.
 */
export const layerConfig = (
  overrides: Omit<LiveOpenAlexOptions, "apiUrl" | "apiKey" | "mailto"> = {}
) =>
  Layer.unwrapEffect(Effect.map(optionsConfig, (config) => layer({ ...config, ...overrides })))
