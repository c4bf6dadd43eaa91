/**
 * One behaviour suite for every OpenAlexPort adapter (citation counts and
 * works): the same tests run against the recorded counts (RecordedOpenAlex)
 * and the live adapter (LiveOpenAlex) on a loopback stand-in that replays
 * recorded OpenAlex records. A new citations backend joins by adding its
 * layer and a paper it knows to BACKENDS.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer, Redacted, type Scope } from "effect"
import * as LiveOpenAlex from "../../src/adapters/openalex/LiveOpenAlex.js"
import * as RecordedOpenAlex from "../../src/adapters/openalex/RecordedOpenAlex.js"
import { OpenAlexPort, type OpenAlexService } from "../../src/core/ports/OpenAlexPort.js"
import { openAlexStandIn } from "../support/openalex-standin.js"

interface Backend {
  readonly name: string
  /** An arXiv paper the backend has a citation count for. */
  readonly held: string
  readonly port: Effect.Effect<OpenAlexService, never, Scope.Scope>
}

const portOf = <E>(layer: Layer.Layer<OpenAlexPort, E>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, OpenAlexPort)).pipe(Effect.orDie)

const BACKENDS: ReadonlyArray<Backend> = [
  {
    name: "RecordedOpenAlex (the recorded counts)",
    held: "1406.2661",
    port: portOf(RecordedOpenAlex.layer().pipe(Layer.provide(NodeContext.layer)))
  },
  {
    name: "LiveOpenAlex (OpenAlex's API, on a loopback stand-in)",
    held: "1609.08144",
    port: Effect.flatMap(openAlexStandIn(), (standIn) =>
      portOf(
        LiveOpenAlex.layer({ apiUrl: standIn.url, apiKey: Redacted.make("test-key-0123456789"), retryBaseDelay: "5 millis", retries: 3 }).pipe(
          Layer.provide(NodeHttpClient.layerUndici)
        )
      ))
  }
]

/** An id of the right shape that no backend knows (after every recording). */
const NOT_HELD = "2512.99999"

const failureTag = <A, E>(exit: Exit.Exit<A, E>): string => {
  if (Exit.isSuccess(exit)) return "(succeeded)"
  const failure = Cause.failureOption(exit.cause)
  return failure._tag === "Some" ? String((failure.value as { _tag: string })._tag) : "(defect)"
}

for (const backend of BACKENDS) {
  const withPort = <A, E>(f: (port: OpenAlexService) => Effect.Effect<A, E>) => Effect.scoped(Effect.flatMap(backend.port, f))

  describe(`OpenAlexPort: ${backend.name}`, { timeout: 120_000 }, () => {
    it.live("gives a known paper's count, in the caller's spelling, with its source; an unknown paper is missing, not zero", () =>
      withPort((port) =>
        Effect.gen(function*() {
          const spelled = `${backend.held}v1`
          const lookup = yield* port.worksByArxivIds([spelled, NOT_HELD])
          assert.deepStrictEqual(lookup.impacts.map((i) => i.arxivId), [spelled])
          assert.isAbove(lookup.impacts[0]!.citationCount, 100)
          assert.isAbove(lookup.impacts[0]!.source.name.length, 0)
          assert.deepStrictEqual(lookup.missing, [NOT_HELD])
        })
      ))

    it.live("an empty request is an empty answer", () =>
      withPort((port) =>
        Effect.gen(function*() {
          const lookup = yield* port.worksByArxivIds([])
          assert.deepStrictEqual([lookup.impacts, lookup.missing], [[], []])
        })
      ))

    it.live("a text that is no arXiv id is refused with a typed InvalidArgument, not looked up", () =>
      withPort((port) =>
        Effect.gen(function*() {
          assert.strictEqual(failureTag(yield* Effect.exit(port.worksByArxivIds(["not-an-id"]))), "InvalidArgument")
        })
      ))

    it.live("an OpenAlex work id nobody recorded is missing", () =>
      withPort((port) =>
        Effect.gen(function*() {
          const lookup = yield* port.worksByIds(["W1"])
          assert.deepStrictEqual(lookup.works, [])
          assert.deepStrictEqual(lookup.missing, ["W1"])
        })
      ))
  })
}
