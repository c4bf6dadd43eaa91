/**
 * When a request really went out: the moment undici wrote its headers to the
 * socket (`undici:client:sendHeaders`), per origin. A request's start as the
 * limiter counts it comes before that by the time it takes to load the client,
 * resolve the name and connect (tens of ms on a busy machine, more for a first
 * TLS handshake), so spacing from the count alone lets the upstream see two
 * requests closer than the rule; the limiters also space from this moment.
 * Clients that publish nothing (node:http) leave the count alone.
 *
 * @since 0.3.0
 */
import * as diagnostics from "node:diagnostics_channel"
import { globalValue } from "effect/GlobalValue"

const sent = globalValue(Symbol.for("arxiv-companion/requestStarts"), () => {
  const last = new Map<string, number>()
  diagnostics.subscribe("undici:client:sendHeaders", (message) => {
    const origin = (message as { readonly request?: { readonly origin?: unknown } } | undefined)?.request?.origin
    if (origin === undefined) return
    try {
      last.set(new URL(String(origin)).origin, Date.now())
    } catch {
      // not a URL: nothing to record
    }
  })
  return last
})

/** When the last request to `origin` wrote its headers (wall-clock ms), if one did since `sinceMillis`. */
export const sentSince = (origin: string, sinceMillis: number): number | undefined => {
  const at = sent.get(origin)
  return at !== undefined && at >= sinceMillis ? at : undefined
}
