/**
 * Counting the calls a run makes to each port, as a wrapper over the ports
 * rather than a counter threaded through every stage: `counted(effect)` runs
 * `effect` with the ArxivPort, OpenAlexPort, LlmJudgePort and VaultPort of
 * its context replaced by the same services that count each call they take,
 * and `calls()` says how many each port got so far (the report's `calls`).
 *
 * What counts is one call of a service method a run asks of the port: an
 * arXiv search; an OpenAlex lookup (impact, works, most cited); a judgement
 * or a summary request; a vault listing, read or write. A judge's cheap
 * shortlist ranking and the term statistics are local and not counted.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { PortCalls } from "./models.js"
import { ArxivPort } from "./ports/ArxivPort.js"
import { LlmJudgePort } from "./ports/LlmJudgePort.js"
import { OpenAlexPort } from "./ports/OpenAlexPort.js"
import { VaultPort } from "./ports/VaultPort.js"

/** The counting wrapper of one run. */
export interface CallCounter {
  /** `effect` over the counting ports. */
  readonly counted: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R | CountedPorts>
  /** The calls counted so far, by port. */
  readonly calls: () => PortCalls
}

/** The ports whose calls are counted. */
export type CountedPorts = ArxivPort | OpenAlexPort | LlmJudgePort | VaultPort

/** A new counter, every port at 0. */
export const makeCallCounter = (): CallCounter => {
  const counts: { -readonly [K in keyof PortCalls]: number } = { arxiv: 0, openalex: 0, judge: 0, vault: 0 }
  const tick = <A, E, R>(port: keyof PortCalls, call: () => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      counts[port]++
      return call()
    })
  const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const openalex = yield* OpenAlexPort
      const judge = yield* LlmJudgePort
      const vault = yield* VaultPort
      const summarise = judge.summarise
      return yield* effect.pipe(
        Effect.provideService(ArxivPort, { ...arxiv, search: (request) => tick("arxiv", () => arxiv.search(request)) }),
        Effect.provideService(OpenAlexPort, {
          ...openalex,
          worksByArxivIds: (ids) => tick("openalex", () => openalex.worksByArxivIds(ids)),
          worksByIds: (ids) => tick("openalex", () => openalex.worksByIds(ids)),
          mostCitedArxivWorks: (search) => tick("openalex", () => openalex.mostCitedArxivWorks(search))
        }),
        Effect.provideService(LlmJudgePort, {
          ...judge,
          judge: (concept, papers) => tick("judge", () => judge.judge(concept, papers)),
          ...(summarise === undefined ? {} : { summarise: (concept, papers) => tick("judge", () => summarise(concept, papers)) })
        }),
        Effect.provideService(VaultPort, {
          ...vault,
          listNotes: () => tick("vault", () => vault.listNotes()),
          readNote: (path) => tick("vault", () => vault.readNote(path)),
          readNoteIfExists: (path) => tick("vault", () => vault.readNoteIfExists(path)),
          writeNote: (path, content) => tick("vault", () => vault.writeNote(path, content))
        })
      )
    })
  return { counted, calls: () => ({ ...counts }) }
}
