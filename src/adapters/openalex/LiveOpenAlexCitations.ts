/**
 * CitationsPort over the live OpenAlex API: the works citing an arXiv paper
 * (`get_citations`). Two requests: the paper's record through its arXiv DOI
 * (matched back as LiveOpenAlex does), then
 * `/works?filter=cites:W…&sort=cited_by_count:desc`. The live index always
 * has a list of citing works, possibly empty, so this adapter never fails
 * with DataNotRecorded; a paper OpenAlex does not know is PaperNotFound.
 *
 * Outgoing references (`get_references`) need no new port: OpenAlexPort's
 * `worksByArxivIds` gives the referenced ids and `worksByIds` resolves them.
 *
 * Same configuration as LiveOpenAlex: OPENALEX_API_URL, OPENALEX_API_KEY,
 * OPENALEX_MAILTO.
 *
 * @since 0.1.0
 */
import type { HttpClient } from "@effect/platform"
import { Effect, Layer } from "effect"
import { parseArxivId } from "../../core/arxiv.js"
import { InvalidArgument, PaperNotFound } from "../../core/errors.js"
import { CitationsPort, type CitationsService, type CitingWorks } from "../../core/ports/CitationsPort.js"
import * as LiveOpenAlex from "./LiveOpenAlex.js"
import { limiterLayer, makeClient, optionsConfig, shortWorkId, WorkList } from "./openalexClient.js"

/** The most citing works one call returns (OpenAlex's page limit). */
export const MAX_LIMIT = 200

/** Build the adapter from the context's HttpClient. */
export const make = Effect.fn("LiveOpenAlexCitations.make")(function*(options: LiveOpenAlex.LiveOpenAlexOptions = {}) {
  const openalex = yield* LiveOpenAlex.make(options)
  const http = yield* makeClient(options)

  const citingWorks = Effect.fn("CitationsPort.citingWorks")(function*(arxivId: string, limit: number) {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      return yield* new InvalidArgument({ argument: "limit", reason: `must be a whole number from 1 to ${MAX_LIMIT}, got ${limit}` })
    }
    const parsed = parseArxivId(arxivId)
    if (parsed === undefined) {
      return yield* new InvalidArgument({ argument: "arXiv id", reason: `"${arxivId}" is not an arXiv id (e.g. 1409.0473 or hep-th/9901001)` })
    }
    const lookup = yield* openalex.worksByArxivIds([parsed.id])
    const openalexId = lookup.impacts[0]?.openalexId
    if (openalexId === undefined) return yield* new PaperNotFound({ id: parsed.id, source: "OpenAlex" })

    const page = yield* http.getJson(
      "/works",
      [
        ["filter", `cites:${openalexId}`],
        ["sort", "cited_by_count:desc"],
        ["per_page", String(limit)],
        ["select", LiveOpenAlex.WORK_FIELDS.join(",")]
      ],
      WorkList
    )
    const works = page.results.flatMap((record) => {
      const id = shortWorkId(record.id)
      return id === undefined ? [] : [LiveOpenAlex.toWork(record, id)]
    }).sort((a, b) => b.citedByCount - a.citedByCount).slice(0, limit)
    return {
      arxivId: parsed.id,
      openalexId,
      total: Math.max(works.length, Math.round(page.meta?.count ?? works.length)),
      works
    } satisfies CitingWorks
  })

  return { citingWorks } satisfies CitationsService
})

/** The live citations adapter as a layer, with explicit options. */
export const layer = (options: LiveOpenAlex.LiveOpenAlexOptions = {}): Layer.Layer<CitationsPort, never, HttpClient.HttpClient> =>
  Layer.effect(CitationsPort, make(options)).pipe(Layer.provide(limiterLayer(options)))

/** The live citations adapter configured like LiveOpenAlex.layerConfig. */
export const layerConfig = (overrides: Omit<LiveOpenAlex.LiveOpenAlexOptions, "apiUrl" | "apiKey" | "mailto"> = {}) =>
  Layer.unwrapEffect(Effect.map(optionsConfig, (config) => layer({ ...config, ...overrides })))
