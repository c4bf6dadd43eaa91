/**
 * arXiv's OAI-PMH endpoint (`https://oaipmh.arxiv.org/oai`, or ARXIV_OAI_URL),
 * asked one page of `ListRecords` at a time, as politely as arXiv asks: the
 * same process-wide limiter as the arXiv API when both are arxiv.org (one
 * request at a time, 3 s between the answer to one and the start of the
 * next), a descriptive User-Agent with a contact, a 503's Retry-After
 * honoured (it holds every arXiv request of the process back), a page cut off
 * in transfer asked for again. An OAI-PMH error (`badResumptionToken`,
 * `noRecordsMatch`, ...) is an answer, for the harvester to act on.
 *
 * @since 0.3.0
 */
import { HttpClient, HttpClientError, type HttpClientResponse } from "@effect/platform"
import { Duration, Effect } from "effect"
import { UpstreamUnavailable } from "../../../core/errors.js"
import {
  afterRetries,
  bodyOf,
  countingRetries,
  defaultRetryPolicy,
  failureOf,
  politeClient,
  type RetryPolicy,
  TransientFailure,
  userAgent as makeUserAgent,
  withRetries
} from "../../http/http.js"
import { DEFAULT_ARXIV_URL, limiterLayer } from "../LiveArxiv.js"
import { ArxivLimiter } from "../../http/UpstreamLimiter.js"
import { type OaiAnswer, OaiPageUnreadable, parseOaiPage } from "./OaiPage.js"

/** arXiv's OAI-PMH endpoint (the server since 2025). */
export const DEFAULT_OAI_URL = "https://oaipmh.arxiv.org/oai"

/** The name users see in messages. */
export const OAI_SERVICE = "arXiv OAI-PMH"

/** What to ask for: a new list (a set, from a day) or the next page of one. */
export type OaiRequest =
  | { readonly _tag: "List"; readonly set: string; readonly from?: string | undefined }
  | { readonly _tag: "Resume"; readonly token: string }

/** Options of the OAI-PMH client. */
export interface OaiClientOptions {
  /** The endpoint; default https://oaipmh.arxiv.org/oai (ARXIV_OAI_URL). */
  readonly oaiUrl?: string | undefined
  /** A contact for the User-Agent (ARXIV_COMPANION_CONTACT). */
  readonly contact?: string | undefined
  /**
   * Minimum time between requests. Default 3 s, and never less against
   * arxiv.org; a shorter one is for a stand-in server in tests.
   */
  readonly minInterval?: Duration.DurationInput | undefined
  /** Per-attempt timeout (a page of 2,500 records is a few MB). Default 120 s. */
  readonly timeout?: Duration.DurationInput | undefined
  /** Retries; default 8 attempts, 3 s doubling to 60 s, a Retry-After honoured up to 10 minutes. */
  readonly retry?: Partial<RetryPolicy> | undefined
}

/**
 * The harvest's retries: a harvest runs for minutes to hours, so it waits out
 * a longer Retry-After than an interactive call (arXiv asks for 10–20 s).
 */
export const oaiRetryPolicy: RetryPolicy = {
  ...defaultRetryPolicy,
  maxAttempts: 8,
  baseDelay: "3 seconds",
  maxDelay: "60 seconds",
  maxRetryAfter: "10 minutes"
}

const isArxivOrg = (url: string): boolean => {
  try {
    return /(^|\.)arxiv\.org$/i.test(new URL(url).hostname)
  } catch {
    return false
  }
}

/** The URL of a request. */
export const requestUrl = (oaiUrl: string, request: OaiRequest): string => {
  const params = new URLSearchParams({ verb: "ListRecords" })
  if (request._tag === "Resume") params.set("resumptionToken", request.token)
  else {
    params.set("metadataPrefix", "arXiv")
    if (request.from !== undefined) params.set("from", request.from)
    params.set("set", request.set)
  }
  return `${oaiUrl}?${params.toString()}`
}

/** The OAI-PMH client as the harvester uses it. */
export interface OaiClient {
  readonly url: string
  /** One page (or the OAI-PMH error it was), after the retries a page deserves. */
  readonly fetch: (request: OaiRequest) => Effect.Effect<OaiAnswer, UpstreamUnavailable>
}

/** Build the client from the context's HttpClient and arXiv's limiter. */
export const make = (options: OaiClientOptions = {}): Effect.Effect<OaiClient, never, HttpClient.HttpClient | ArxivLimiter> =>
  Effect.gen(function*() {
    const limiter = yield* ArxivLimiter
    const oaiUrl = options.oaiUrl ?? DEFAULT_OAI_URL
    const policy: RetryPolicy = { ...oaiRetryPolicy, ...options.retry }
    const headers = {
      "user-agent": makeUserAgent(options.contact),
      accept: "text/xml, application/xml;q=0.9, */*;q=0.1"
    }
    // a page is parsed once to judge it and once to use it: keep the last one
    let last: { readonly body: string; readonly answer: OaiAnswer | OaiPageUnreadable } | undefined
    const parse = (body: string) => {
      if (last?.body !== body) last = { body, answer: parseOaiPage(body) }
      return last.answer
    }
    /** A 200 that is not a whole OAI-PMH answer was cut off or garbled in transfer: worth another attempt. */
    const checkPage = (response: HttpClientResponse.HttpClientResponse) =>
      response.status !== 200 ? Effect.succeed(response) : Effect.flatMap(
        Effect.orElseSucceed(response.text, () => ""),
        (body): Effect.Effect<HttpClientResponse.HttpClientResponse, TransientFailure> => {
          const answer = parse(body)
          return answer instanceof OaiPageUnreadable
            ? Effect.fail(new TransientFailure({ reason: `the page was unreadable: ${answer.reason}`, status: 200 }))
            : Effect.succeed(response)
        }
      )
    // a page is spaced from the moment its answer began to arrive (arXiv had the request by then), not from its
    // start: so arXiv never sees two of a harvest's requests closer than the interval, however late a request
    // reaches it; a harvest is not in a hurry, and its pages take seconds to answer
    const client = politeClient((yield* HttpClient.HttpClient).pipe(HttpClient.withTracerPropagation(false)), {
      limiter,
      timeout: options.timeout ?? "120 seconds",
      spacing: "answer"
    }).pipe(HttpClient.transformResponse(Effect.flatMap(checkPage)), withRetries(policy, OAI_SERVICE))

    /** A refused answer that carries an OAI-PMH error is that error; anything else is the server unavailable. */
    const refused = (error: unknown, retries: number): Effect.Effect<OaiAnswer, UpstreamUnavailable> => {
      const f = failureOf(error)
      const fail = Effect.fail(
        new UpstreamUnavailable({
          service: OAI_SERVICE,
          reason: `${f.reason}${afterRetries(retries)}; run the sync again later: it resumes where it stopped`,
          ...(f.status === undefined ? {} : { status: f.status }),
          ...(f.retryAfterMillis === undefined ? {} : { retryAfterSeconds: Math.ceil(f.retryAfterMillis / 1000) })
        })
      )
      if (!(HttpClientError.isHttpClientError(error) && error._tag === "ResponseError")) return fail
      return Effect.flatMap(bodyOf(error), (body) => {
        const answer = body.trimStart().startsWith("<") ? parse(body) : undefined
        return answer !== undefined && !(answer instanceof OaiPageUnreadable) && answer._tag === "OaiError"
          ? Effect.succeed(answer)
          : fail
      })
    }

    const fetch = (request: OaiRequest): Effect.Effect<OaiAnswer, UpstreamUnavailable> => {
      const url = requestUrl(oaiUrl, request)
      return countingRetries(
        client.get(url, { headers }).pipe(Effect.flatMap((response) => response.text)),
        refused
      ).pipe(
        Effect.flatMap((body) => {
          if (typeof body !== "string") return Effect.succeed(body)
          const answer = parse(body)
          return answer instanceof OaiPageUnreadable
            ? Effect.fail(new UpstreamUnavailable({ service: OAI_SERVICE, reason: answer.reason }))
            : Effect.succeed(answer)
        }),
        Effect.withSpan("OaiClient.fetch", { attributes: { url } })
      )
    }
    return { url: oaiUrl, fetch }
  })

/**
 * arXiv's process-wide limiter for the OAI-PMH endpoint: against arxiv.org
 * the very one the arXiv API uses (one politeness budget for every arXiv
 * request of the process), never under 3 s apart; a stand-in at another
 * address gets its own, at `minInterval`.
 */
export const limiterFor = (options: Pick<OaiClientOptions, "oaiUrl" | "minInterval">) =>
  isArxivOrg(options.oaiUrl ?? DEFAULT_OAI_URL)
    ? limiterLayer({ apiUrl: DEFAULT_ARXIV_URL, minInterval: options.minInterval })
    : limiterLayer({ apiUrl: options.oaiUrl, minInterval: options.minInterval ?? Duration.seconds(3) })
