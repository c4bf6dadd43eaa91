/**
 * Small ArxivPort and OpenAlexPort implementations over REAL recorded data, for
 * tests whose subject is the vault (the fixture adapters serve the full offline
 * corpus; these keep vault tests independent of them):
 * - papers: the 33 landmark ML records of ../shared/data/corpus/arxiv_oai_dc_ml_landmarks.jsonl
 *   (arXiv OAI-DC, CC0), matched by the query's terms;
 * - impact: Semantic Scholar citation counts recorded 2024-02-15
 *   (../shared/data/citations/zzappa-topAIpapers/corpus_title_matches.jsonl);
 *   a landmark without a recorded count is reported missing, never invented.
 *   No reference lists are recorded there, so foundations come out "not-recorded".
 */
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { Impact, ImpactSource, Paper } from "../../src/core/models.js"
import { ArxivPort } from "../../src/core/ports/ArxivPort.js"
import { OpenAlexPort } from "../../src/core/ports/OpenAlexPort.js"

const DATA = process.env.ARXIV_COMPANION_SHARED_DATA ?? NodePath.resolve(process.cwd(), "../shared/data")

interface LandmarkRecord {
  readonly id: string
  readonly title: string
  readonly abstract: string
  readonly authors: ReadonlyArray<string>
  readonly categories: ReadonlyArray<string>
  readonly dates: ReadonlyArray<string>
}

const readJsonl = <A>(file: string): ReadonlyArray<A> =>
  NodeFs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as A)

const clean = (s: string) => s.replace(/\s+/g, " ").trim()

/** The landmark papers as Paper records. */
export const landmarkPapers = (): ReadonlyArray<Paper> =>
  readJsonl<LandmarkRecord>(NodePath.join(DATA, "corpus/arxiv_oai_dc_ml_landmarks.jsonl")).map((r) =>
    new Paper({
      arxivId: r.id,
      title: clean(r.title),
      abstract: clean(r.abstract),
      authors: r.authors.map((a) => {
        const [last, first] = a.split(",").map((s) => s.trim())
        return first === undefined ? a : `${first} ${last}`
      }),
      published: r.dates[0]!,
      ...(r.dates.length > 1 ? { updated: r.dates[r.dates.length - 1]! } : {}),
      categories: [...r.categories],
      primaryCategory: r.categories[0]!
    })
  )

const S2_SOURCE = new ImpactSource({ name: "Semantic Scholar (zzappa/topAIpapers)", recordedOn: "2024-02-15" })

/** Recorded S2 counts by arXiv id. */
const recordedCounts = (): ReadonlyMap<string, number> => {
  const out = new Map<string, number>()
  type Row = { arxiv_ids: ReadonlyArray<string>; ambiguous: boolean; citations: number }
  for (const row of readJsonl<Row>(NodePath.join(DATA, "citations/zzappa-topAIpapers/corpus_title_matches.jsonl"))) {
    if (row.ambiguous) continue
    for (const id of row.arxiv_ids) out.set(id, Math.max(out.get(id) ?? 0, row.citations))
  }
  return out
}

const terms = (query: string): ReadonlyArray<string> =>
  [...query.matchAll(/all:(?:"([^"]+)"|(\S+))/g)].map((m) => (m[1] ?? m[2] ?? "").toLowerCase()).filter((t) => t !== "")

/** ArxivPort over the landmarks: papers containing any query term, most matching terms first. */
export const RecordedArxivLayer: Layer.Layer<ArxivPort> = Layer.sync(ArxivPort, () => {
  const papers = landmarkPapers()
  return {
    search: (request) =>
      Effect.sync(() => {
        const wanted = terms(request.query)
        const scored = papers
          .filter((p) => request.categories.length === 0 || p.categories.some((c) => request.categories.includes(c)))
          .map((p) => {
            const text = `${p.title} ${p.abstract}`.toLowerCase()
            return { p, hits: wanted.filter((t) => text.includes(t)).length }
          })
          .filter((s) => s.hits > 0)
          .sort((a, b) => b.hits - a.hits || a.p.arxivId.localeCompare(b.p.arxivId))
        const start = request.start ?? 0
        return { papers: scored.slice(start, start + request.maxResults).map((s) => s.p), total: scored.length, start }
      }),
    getPapers: (ids) =>
      Effect.sync(() => ({
        papers: papers.filter((p) => ids.includes(p.arxivId)),
        missing: ids.filter((id) => !papers.some((p) => p.arxivId === id))
      }))
  }
})

/** OpenAlexPort answering impact from the recorded S2 counts only. */
export const RecordedImpactLayer: Layer.Layer<OpenAlexPort> = Layer.sync(OpenAlexPort, () => {
  const counts = recordedCounts()
  const papers = new Map(landmarkPapers().map((p) => [p.arxivId, p]))
  return {
    worksByArxivIds: (ids) =>
      Effect.sync(() => {
        const impacts = ids.flatMap((id) => {
          const count = counts.get(id)
          const paper = papers.get(id)
          return count === undefined || paper === undefined
            ? []
            : [new Impact({ arxivId: id, citationCount: count, publicationDate: paper.published, source: S2_SOURCE })]
        })
        return { impacts, missing: ids.filter((id) => !counts.has(id)), source: S2_SOURCE }
      }),
    worksByIds: (ids) => Effect.succeed({ works: [], missing: [...ids] })
  }
})
