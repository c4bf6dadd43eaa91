/**
 * OpenAlexPort (and CitationsPort) over the counts a mirror stores (`mirror
 * sync --citations`, see CitationSync.ts), a folder's (MirrorIndex) or a
 * PostgreSQL database's (PgCitations): `--citations mirror`.
 * Nothing is asked of OpenAlex.
 *
 * - `worksByArxivIds`: each stored count as an Impact whose source is
 *   "OpenAlex, via the mirror" recorded on the day it was fetched, so the
 *   core ages the paper as of that day and the report says "as of" it. A
 *   paper with no stored count (never counted, or OpenAlex had no work for
 *   it) is missing: "impact not recorded", the mirror named as the source.
 * - `worksByIds`: the referenced works that are themselves mirrored and
 *   counted (title from the mirror, count as stored); the others are missing.
 * - `mostCitedArxivWorks`: no papers (the mirror's counts are not searched by
 *   phrase; the arXiv searches read the mirror itself).
 * - `citingWorks`: DataNotRecorded (the mirror keeps counts, not the works).
 *
 * @since 0.4.0
 */
import type { Path } from "@effect/platform"
import { Effect, Layer } from "effect"
import { parseArxivId } from "../../../core/arxiv.js"
import { DataNotRecorded, InvalidArgument, UpstreamUnavailable } from "../../../core/errors.js"
import { Impact, ImpactSource, Work } from "../../../core/models.js"
import { CitationsPort, type CitationsService } from "../../../core/ports/CitationsPort.js"
import { type ImpactLookup, OpenAlexPort, type OpenAlexService, type WorkLookup } from "../../../core/ports/OpenAlexPort.js"
import { wantedWorkIds } from "../../openalex/openalexClient.js"
import { failureReason, MIRROR_SERVICE, MirrorIndex } from "./MirrorIndex.js"
import { defaultMirrorDir } from "./mirrorDir.js"
import { openIndex } from "./MirrorArxiv.js"
import type { CountReader } from "./PgCitations.js"

/** The name of the counts' source as reports show it. */
export const SOURCE_NAME = "OpenAlex, via the mirror"

/** The source a lookup consulted: the mirror's stored counts in `dir`. */
export const consulted = (dir: string): ImpactSource =>
  new ImpactSource({ name: "the mirror's OpenAlex counts", detail: `${dir}, counted by mirror sync --citations` })

/** Whether the mirror in `dir` holds at least one count (false when there is no mirror, or no count yet). */
export const hasCounts = (dir: string): boolean => {
  let index: MirrorIndex | undefined
  try {
    index = MirrorIndex.open(dir, { create: false })
    return index.citationStatus().counted > 0
  } catch {
    return false
  } finally {
    index?.close()
  }
}

const readFailure = (dir: string) => (e: unknown) =>
  new UpstreamUnavailable({ service: MIRROR_SERVICE, reason: failureReason(dir, e, "the citation counts", "read") })

/** A folder mirror's counts as a CountReader; the index is opened (read-only) on the first call. */
export const sqliteReader = (dir: string): CountReader => {
  const index = openIndex(dir)
  return {
    countsByIds: (ids) => Effect.flatMap(index, (idx) => Effect.try({ try: () => idx.countsByIds(ids), catch: readFailure(dir) })),
    countsByOpenAlexIds: (ids) => Effect.flatMap(index, (idx) => Effect.try({ try: () => idx.countsByOpenAlexIds(ids), catch: readFailure(dir) })),
    status: Effect.flatMap(index, (idx) => Effect.try({ try: () => idx.citationStatus(), catch: readFailure(dir) })),
    due: (staleBefore) => Effect.flatMap(index, (idx) => Effect.try({ try: () => idx.dueForCounting(0, staleBefore).due, catch: readFailure(dir) }))
  }
}

/** The two services over the mirror of `dir`. Nothing is opened until the first call. */
export const make = (dir: string): { readonly openalex: OpenAlexService; readonly citations: CitationsService } =>
  makeWith(sqliteReader(dir), dir)

/** The two services over a mirror's counts (`where`: its folder, or its URL without the password). */
export const makeWith = (reader: CountReader, where: string): { readonly openalex: OpenAlexService; readonly citations: CitationsService } => {
  const source = consulted(where)

  const worksByArxivIds = Effect.fn("OpenAlexPort.worksByArxivIds")(function*(arxivIds: ReadonlyArray<string>) {
    const wanted = new Map<string, string>()
    for (const raw of arxivIds) {
      const parsed = parseArxivId(raw)
      if (parsed === undefined) {
        return yield* new InvalidArgument({ argument: "arXiv id", reason: `"${raw}" is not an arXiv id (e.g. 1409.0473 or hep-th/9901001)` })
      }
      if (!wanted.has(parsed.id)) wanted.set(parsed.id, raw.trim())
    }
    if (wanted.size === 0) return { impacts: [], missing: [], source } satisfies ImpactLookup
    const stored = yield* reader.countsByIds([...wanted.keys()])
    const impacts: Array<Impact> = []
    const missing: Array<string> = []
    for (const [id, asked] of wanted) {
      const c = stored.get(id)
      if (c?.citedByCount === undefined) {
        missing.push(asked)
        continue
      }
      impacts.push(
        new Impact({
          arxivId: asked,
          ...(c.openalexId === undefined ? {} : { openalexId: c.openalexId }),
          citationCount: c.citedByCount,
          ...(c.publicationDate === undefined ? {} : { publicationDate: c.publicationDate }),
          ...(c.referencedWorks === undefined ? {} : { referencedWorks: [...c.referencedWorks] }),
          source: new ImpactSource({ name: SOURCE_NAME, recordedOn: c.fetchedAt.slice(0, 10) })
        })
      )
    }
    return { impacts, missing, source } satisfies ImpactLookup
  })

  const worksByIds = Effect.fn("OpenAlexPort.worksByIds")(function*(openalexIds: ReadonlyArray<string>) {
    const wanted = yield* wantedWorkIds(openalexIds)
    if (wanted.size === 0) return { works: [], missing: [] } satisfies WorkLookup
    const rows = yield* reader.countsByOpenAlexIds([...wanted.keys()])
    const found = new Map(rows.map((r) => [r.openalexId!, r]))
    const works: Array<Work> = []
    const missing: Array<string> = []
    for (const [id, asked] of wanted) {
      const r = found.get(id)
      if (r === undefined) {
        missing.push(asked)
        continue
      }
      works.push(
        new Work({ openalexId: id, title: r.title, citedByCount: r.citedByCount ?? 0, publicationYear: Number(r.published.slice(0, 4)), arxivId: r.id })
      )
    }
    return { works, missing } satisfies WorkLookup
  })

  const openalex: OpenAlexService = {
    worksByArxivIds,
    worksByIds,
    mostCitedArxivWorks: () =>
      Effect.succeed({ papers: [], query: "(not searched: --citations mirror reads the mirror's stored counts; --citations openalex asks OpenAlex)" })
  }

  const citations: CitationsService = {
    citingWorks: (arxivId) =>
      Effect.fail(
        new DataNotRecorded({
          id: parseArxivId(arxivId)?.id ?? arxivId,
          what: "list of citing works in the mirror",
          hint: "The mirror keeps OpenAlex's counts, not the citing works; use --citations openalex to ask OpenAlex for them."
        })
      )
  }

  return { openalex, citations }
}

/** Whether the PostgreSQL mirror in `url` holds at least one count (false when it cannot be read). */
export const pgHasCounts = (url: string): Effect.Effect<boolean> =>
  Effect.scoped(
    Effect.flatMap(Effect.promise(() => import("./PgCitations.js")), (Pg) =>
      Effect.flatMap(Pg.openCountReader(url, 1), (reader) => reader.status))
  ).pipe(Effect.map((s) => s.counted > 0), Effect.orElseSucceed(() => false))

/** OpenAlexPort and CitationsPort over the counts of the PostgreSQL mirror in `url`. */
export const pgLayer = (url: string): Layer.Layer<OpenAlexPort | CitationsPort> =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const Pg = yield* Effect.promise(() => import("./PgCitations.js"))
      const services = makeWith(yield* Pg.openCountReader(url), Pg.redactUrl(url))
      return Layer.merge(Layer.succeed(OpenAlexPort, services.openalex), Layer.succeed(CitationsPort, services.citations))
    })
  )

/** OpenAlexPort and CitationsPort over the mirror of `dir`, else of the default directory. */
export const layer = (dir?: string | undefined): Layer.Layer<OpenAlexPort | CitationsPort, never, Path.Path> =>
  Layer.unwrapEffect(
    Effect.map(dir === undefined ? defaultMirrorDir : Effect.succeed(dir), (d) => {
      const services = make(d)
      return Layer.merge(Layer.succeed(OpenAlexPort, services.openalex), Layer.succeed(CitationsPort, services.citations))
    })
  )
