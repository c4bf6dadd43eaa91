/**
 * What a call says while it waits for an upstream: queued behind other
 * requests for a polite slot, held back by a Retry-After, or retrying after a
 * transient failure. Adapters report; faces listen (the CLI on stderr, the
 * MCP server as progress notifications) by setting the reporter for the
 * fiber that runs a call. Nothing is reported unless a face listens.
 *
 * @since 0.2.0
 */
import { Effect, FiberRef } from "effect"
import { globalValue } from "effect/GlobalValue"

/** One report of a call waiting for an upstream. */
export interface UpstreamWait {
  /** The upstream, as users know it: "arXiv", "OpenAlex", "LLM judge". */
  readonly service: string
  /**
   * Why: in the queue for a slot (`queued`), held back by the upstream's
   * Retry-After (`held`), or about to try again after a failure (`retry`).
   */
  readonly reason: "queued" | "held" | "retry"
  /** Requests of this process waiting before this one (for `queued`). */
  readonly ahead: number
  /** How much longer the wait is expected to last, at least (ms). */
  readonly remainingMillis: number
  /** How long this call has waited so far (ms). */
  readonly waitedMillis: number
  /** One line for a person, e.g. "Waiting for arXiv: 4 requests ahead, about 12 s (one request every 3 s)". */
  readonly message: string
}

/** The current fiber's listener for {@link UpstreamWait} reports (none by default). */
export const upstreamWaitReporter: FiberRef.FiberRef<(wait: UpstreamWait) => Effect.Effect<void>> = globalValue(
  Symbol.for("arxiv-companion/upstreamWaitReporter"),
  () => FiberRef.unsafeMake<(wait: UpstreamWait) => Effect.Effect<void>>(() => Effect.void)
)

/** Report a wait to whoever listens on this fiber. */
export const reportWait = (wait: UpstreamWait): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(upstreamWaitReporter), (report) => report(wait))

/** Run `self` with `report` hearing every wait of the calls it makes (nested listeners both hear). */
export const withWaitReporter = (report: (wait: UpstreamWait) => Effect.Effect<void>) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(upstreamWaitReporter), (outer) =>
    Effect.locally(self, upstreamWaitReporter, (wait) => Effect.zipRight(outer(wait), report(wait))))
