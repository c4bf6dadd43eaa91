/**
 * Loaders for the real recorded data in test/fixtures (see its README for provenance).
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Impact, ImpactSource, Paper, Work } from "../../src/core/models.js"

const fixture = (name: string): string =>
  readFileSync(fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url)), "utf8")

const jsonl = <A>(name: string): ReadonlyArray<A> =>
  fixture(name).split("\n").filter((l) => l.trim().length > 0).map((l) => JSON.parse(l) as A)

interface OaiRecord {
  readonly id: string
  readonly title: string
  readonly abstract: string
  readonly authors: ReadonlyArray<string>
  readonly categories: ReadonlyArray<string>
  readonly dates: ReadonlyArray<string>
}

const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim()

/** The recorded arXiv landmark papers, as an ArxivPort adapter would hand them over. */
export const landmarks: ReadonlyArray<Paper> = jsonl<OaiRecord>("landmarks.jsonl").map((r) =>
  new Paper({
    arxivId: r.id,
    title: oneLine(r.title),
    abstract: oneLine(r.abstract),
    authors: r.authors,
    published: r.dates[0]!,
    ...(r.dates.length > 1 ? { updated: r.dates[r.dates.length - 1]! } : {}),
    categories: r.categories
  })
)

/** One landmark paper by arXiv id. */
export const landmark = (id: string): Paper => {
  const p = landmarks.find((l) => l.arxivId === id)
  if (p === undefined) throw new Error(`no landmark ${id} in test/fixtures/landmarks.jsonl`)
  return p
}

interface S2Row {
  readonly arxiv_ids: ReadonlyArray<string>
  readonly citations: number
}

/** Semantic Scholar counts as listed by zzappa/topAIpapers on 2024-02-15. */
export const s2Source = new ImpactSource({
  name: "Semantic Scholar (zzappa/topAIpapers)",
  recordedOn: "2024-02-15"
})

/** The recorded S2 impact of each landmark that has one; no reference lists. */
export const s2Impacts: ReadonlyArray<Impact> = jsonl<S2Row>("s2-citations.jsonl").flatMap((r) =>
  r.arxiv_ids.map((arxivId) => new Impact({ arxivId, citationCount: r.citations, source: s2Source }))
)

interface OpenAlexRow {
  readonly id: string
  readonly doi: string | null
  readonly title: string | null
  readonly publication_year: number | null
  readonly publication_date: string | null
  readonly cited_by_count: number
  readonly referenced_works: ReadonlyArray<string>
  readonly arxiv_id: string | null
}

const shortId = (url: string): string => url.replace(/^https:\/\/openalex\.org\//, "")

const openalexRows = jsonl<OpenAlexRow>("openalex-works.jsonl")

/** OpenAlex works as recorded on 2025-11-17 (the references of two seed works). */
export const openalexWorks: ReadonlyArray<Work> = openalexRows.map((r) =>
  new Work({
    openalexId: shortId(r.id),
    title: r.title ?? "",
    citedByCount: r.cited_by_count,
    ...(r.publication_year === null ? {} : { publicationYear: r.publication_year }),
    ...(r.doi === null ? {} : { doi: r.doi }),
    ...(r.arxiv_id === null ? {} : { arxivId: r.arxiv_id })
  })
)

/** The OpenAlex recording's source. */
export const openalexSource = new ImpactSource({ name: "OpenAlex", recordedOn: "2025-11-17" })

/** Impact of the recorded OpenAlex works that are arXiv papers, with their real reference lists. */
export const openalexImpacts: ReadonlyArray<Impact> = openalexRows.flatMap((r) =>
  r.arxiv_id === null ? [] : [
    new Impact({
      arxivId: r.arxiv_id,
      openalexId: shortId(r.id),
      citationCount: r.cited_by_count,
      ...(r.publication_year === null ? {} : { publicationYear: r.publication_year }),
      ...(r.publication_date === null ? {} : { publicationDate: r.publication_date }),
      referencedWorks: r.referenced_works.map(shortId),
      source: openalexSource
    })
  ]
)
