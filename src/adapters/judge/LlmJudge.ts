/**
 * LlmJudgePort over any OpenAI-compatible chat endpoint (`POST
 * <base>/chat/completions`): OpenRouter by default, or a local server
 * (Ollama, vLLM, llama.cpp) through LLM_BASE_URL.
 *
 * It also writes the kept papers' summaries (`summarise`): one more batched
 * request after the judging, with the same DATA fences, the same structured
 * output, correction and retry rules, and its own system prompt.
 *
 * Papers are judged in batches (10 per call by default, up to 5 calls at once),
 * with structured output requested as a JSON Schema and the answer decoded
 * with Schema. A malformed answer is sent back with what was wrong, a bounded
 * number of times, then the batch fails with JudgeFailed naming the model.
 * Transient HTTP failures (429, 5xx, timeouts, resets) are retried with the
 * shared backoff policy.
 *
 * Why plain HttpClient and not @effect/ai-openai 0.41: its language model
 * speaks only OpenAI's newer `/responses` API, which llama.cpp and many
 * local servers do not serve (and OpenRouter only in beta), and its generated
 * `/chat/completions` client decodes answers against OpenAI's full schema
 * (`created`, `object`, `logprobs`, a closed set of `finish_reason`s), which
 * Ollama-style answers do not all carry. The judge needs one call shape that
 * every OpenAI-compatible server answers, so it reads only
 * `choices[0].message.content`.
 *
 * The key goes in the Authorization header (redacted in traces by
 * @effect/platform); it is never logged, never put in an error (upstream
 * messages are scrubbed of it, as some servers echo keys), and never part of
 * a cache key.
 *
 * @since 0.1.0
 */
import { HttpClient, HttpClientError, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Config, ConfigError, Data, Duration, Effect, Either, Layer, Option, Redacted, Schema } from "effect"
import { JudgeFailed } from "../../core/errors.js"
import type { Judgement } from "../../core/models.js"
import { type Concept, LlmJudgePort, type LlmJudgeService, type WrittenSummary } from "../../core/ports/LlmJudgePort.js"
import { clipLine } from "../../core/text.js"
import {
  afterRetries,
  bodyOf,
  countingRetries,
  defaultRetryPolicy,
  failureOf,
  isTransientStatus,
  politeClient,
  PROJECT_URL,
  type RetryPolicy,
  TransientFailure,
  userAgent,
  withRetries
} from "../http/http.js"
import {
  type ChatMessage,
  correction,
  decodeAnswer,
  decodeSummaries,
  type JudgedPaper,
  messages,
  RESPONSE_JSON_SCHEMA,
  SUMMARY_RESPONSE_JSON_SCHEMA,
  summaryMessages
} from "./judgePrompt.js"
import { requestKey, ResponseCache } from "../http/ResponseCache.js"
import { JudgeLimiter, layerShared } from "../http/UpstreamLimiter.js"

/** OpenRouter's OpenAI-compatible API. */
export const OPENROUTER_URL = "https://openrouter.ai/api/v1"
/** The model used on OpenRouter when OPENROUTER_MODEL is not set. */
export const DEFAULT_OPENROUTER_MODEL = "openai/gpt-4o-mini"

/** Papers per call: small enough for a careful answer per paper, large enough for few round trips. */
export const DEFAULT_BATCH_SIZE = 10
/** Calls in flight at once: 5 × 10 covers the largest run (50 candidates) in one round. */
export const DEFAULT_CONCURRENCY = 5

/** How structured output is requested: a JSON Schema, plain JSON mode, or the prompt alone. */
export type ResponseFormat = "json_schema" | "json_object" | "none"

/** Options of the LLM judge. */
export interface LlmJudgeOptions {
  /** Base URL of the OpenAI-compatible API, e.g. https://openrouter.ai/api/v1 or http://localhost:11434/v1. */
  readonly apiUrl: string
  /** The model id, e.g. `openai/gpt-4o-mini` or `llama3.1:8b`. */
  readonly model: string
  /** Bearer key; optional for local servers. */
  readonly apiKey?: Redacted.Redacted | undefined
  /** Papers per call. Default 10 (DEFAULT_BATCH_SIZE). */
  readonly batchSize?: number | undefined
  /** Calls in flight at once. Default 5 (DEFAULT_CONCURRENCY). */
  readonly concurrency?: number | undefined
  /** Answers asked for per batch before giving up on malformed output. Default 3. */
  readonly maxAttempts?: number | undefined
  /** Retries of one call on transient HTTP failures. Default 3. */
  readonly retries?: number | undefined
  /** First transport backoff delay. Default 1 s. */
  readonly retryBaseDelay?: Duration.DurationInput | undefined
  /** Per-call timeout. Default 120 s (local models are slow). */
  readonly timeout?: Duration.DurationInput | undefined
  /** Structured-output mode. Default `json_schema`; a server that rejects it gets the prompt alone. */
  readonly responseFormat?: ResponseFormat | undefined
  /** Extra request headers (e.g. OpenRouter's X-Title). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** The chat completion fields the judge reads; everything else is ignored. */
export const ChatCompletion = Schema.Struct({
  choices: Schema.optional(Schema.Array(Schema.Struct({
    message: Schema.optional(Schema.NullOr(Schema.Struct({
      content: Schema.optional(Schema.NullOr(Schema.String))
    }))),
    finish_reason: Schema.optional(Schema.NullOr(Schema.String))
  }))),
  error: Schema.optional(Schema.NullOr(Schema.Unknown))
})

const ErrorMessage = Schema.Struct({
  error: Schema.optional(Schema.Union(
    Schema.String,
    Schema.Struct({ message: Schema.optional(Schema.String), code: Schema.optional(Schema.Unknown) })
  )),
  message: Schema.optional(Schema.String),
  detail: Schema.optional(Schema.String)
})

class Malformed extends Data.TaggedError("Malformed")<{
  readonly answer: string
  readonly problem: string
  /** The model stopped at max_tokens: the next attempt gets a larger budget. */
  readonly truncated: boolean
}> {}
/** The server refused a parameter it does not support; the call is repeated without it. */
class ParameterRejected extends Data.TaggedError("ParameterRejected")<{
  readonly parameter: "response_format" | "max_tokens" | "temperature"
  readonly said: string
}> {}

/** One kind of request the judge sends for a batch of papers: rating them, or summarising them. */
interface Task<A> {
  /** Name of the structured-output schema, and of the cache entries (`judge.<name>`). */
  readonly name: "judgements" | "summaries"
  readonly schema: object
  readonly messages: (concept: Concept, papers: ReadonlyArray<JudgedPaper>) => ReadonlyArray<ChatMessage>
  readonly decode: (content: string, papers: ReadonlyArray<JudgedPaper>) => Either.Either<ReadonlyArray<A>, string>
  /** Output tokens per paper: room for a rationale or a summary. */
  readonly tokensPerPaper: number
}

const JUDGE_TASK: Task<Judgement> = {
  name: "judgements",
  schema: RESPONSE_JSON_SCHEMA,
  messages,
  decode: decodeAnswer,
  tokensPerPaper: 200
}

const SUMMARY_TASK: Task<WrittenSummary> = {
  name: "summaries",
  schema: SUMMARY_RESPONSE_JSON_SCHEMA,
  messages: summaryMessages,
  decode: decodeSummaries,
  tokensPerPaper: 250
}

/** Output tokens asked for per call, doubled after a cut-off answer. */
const tokenBudget = (task: Task<unknown>, papers: number, scale: number): number => (256 + task.tokensPerPaper * papers) * scale

const chunk = <A>(items: ReadonlyArray<A>, size: number): Array<Array<A>> => {
  const out: Array<Array<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** A function that removes a secret (and a masked echo of it, "sk-or-v1-abc***xyz") from text an upstream sent. */
export const scrubber = (secret: string) => (text: string): string => {
  if (secret.length < 4) return text
  let out = text.split(secret).join("<redacted>")
  const prefix = secret.slice(0, Math.min(12, Math.floor(secret.length / 2)))
  if (prefix.length >= 8) out = out.split(prefix).join("<redacted>")
  return out
}

/** Build the judge from the context's HttpClient. Nothing is sent until `judge` runs. */
export const make = Effect.fn("LlmJudge.make")(function*(options: LlmJudgeOptions) {
  const model = options.model
  const base = options.apiUrl.replace(/\/+$/, "")
  const endpoint = `${base}/chat/completions`
  const secret = options.apiKey === undefined ? "" : Redacted.value(options.apiKey).trim()
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_BATCH_SIZE))
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY)
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3)
  const timeout = options.timeout ?? "120 seconds"
  const policy: RetryPolicy = {
    ...defaultRetryPolicy,
    maxAttempts: 1 + Math.max(0, options.retries ?? 3),
    baseDelay: options.retryBaseDelay ?? "1 second"
  }
  let format: ResponseFormat = options.responseFormat ?? "json_schema"
  // OpenAI's reasoning models refuse max_tokens and want max_completion_tokens
  let tokenParameter: "max_tokens" | "max_completion_tokens" = "max_tokens"
  // ... and some refuse any temperature but their default
  let sendTemperature = true
  const cache = Option.getOrUndefined(yield* Effect.serviceOption(ResponseCache))
  const limiter = yield* JudgeLimiter

  /** Whatever an upstream says goes through here: some servers echo the key they were sent. */
  const scrub = scrubber(secret)
  const failed = (reason: string) => new JudgeFailed({ model, reason: scrub(reason) })

  const describe = (response: { readonly body: string }): string => {
    const parsed = Schema.decodeUnknownOption(Schema.parseJson(ErrorMessage))(response.body)
    if (Option.isSome(parsed)) {
      const e = parsed.value.error
      const text = typeof e === "string" ? e : e?.message ?? parsed.value.message ?? parsed.value.detail
      if (text !== undefined && text !== "") return scrub(clipLine(text, 300))
    }
    if (/<html|<!doctype/i.test(response.body)) return "an HTML page"
    return response.body.trim() === "" ? "an empty body" : scrub(clipLine(response.body, 160))
  }

  const requestBody = (
    task: Task<unknown>,
    conversation: ReadonlyArray<ChatMessage>,
    papers: number,
    scale: number
  ): Record<string, unknown> => ({
    model,
    messages: conversation,
    ...(sendTemperature ? { temperature: 0 } : {}),
    [tokenParameter]: tokenBudget(task, papers, scale),
    ...(format === "json_schema"
      ? { response_format: { type: "json_schema", json_schema: { name: task.name, strict: true, schema: task.schema } } }
      : format === "json_object"
      ? { response_format: { type: "json_object" } }
      : {})
  })

  /**
   * Answers decided before the retries: a 2xx that is not complete JSON, or
   * carries OpenRouter's error object, is worth another attempt; a refused key,
   * an unknown model or a refused parameter is not.
   */
  const refuseEarly = (
    response: HttpClientResponse.HttpClientResponse
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, JudgeFailed | ParameterRejected | TransientFailure> => {
    const status = response.status
    return Effect.flatMap(Effect.orElseSucceed(response.text, () => ""), (text): Effect.Effect<
      HttpClientResponse.HttpClientResponse,
      JudgeFailed | ParameterRejected | TransientFailure
    > => {
      const said = () => describe({ body: text })
      if (status >= 200 && status < 300) {
        const parsed = Schema.decodeUnknownEither(Schema.parseJson(ChatCompletion))(text)
        if (Either.isLeft(parsed)) {
          return Effect.fail(new TransientFailure({ reason: "the endpoint's answer was not complete JSON", status }))
        }
        if (parsed.right.error !== undefined && parsed.right.error !== null) {
          // OpenRouter reports provider failures as 200 with an error object
          return Effect.fail(new TransientFailure({ reason: `the endpoint reported an error (${said()})`, status }))
        }
        return Effect.succeed(response)
      }
      if (status === 401 || status === 403) {
        return Effect.fail(failed(`${base} refused the request (HTTP ${status}: ${said()}); check OPENROUTER_API_KEY or LLM_API_KEY`))
      }
      if (status === 404) {
        return Effect.fail(failed(`${endpoint} or the model "${model}" was not found (HTTP 404: ${said()}); check LLM_BASE_URL and the model name`))
      }
      if (status === 400 || status === 422) {
        const why = said()
        if (format !== "none" && /response_format|json_schema|json_object|structured/i.test(why)) {
          return Effect.fail(new ParameterRejected({ parameter: "response_format", said: why }))
        }
        if (tokenParameter === "max_tokens" && /max_tokens/i.test(why)) {
          return Effect.fail(new ParameterRejected({ parameter: "max_tokens", said: why }))
        }
        if (sendTemperature && /temperature/i.test(why)) return Effect.fail(new ParameterRejected({ parameter: "temperature", said: why }))
      }
      return Effect.succeed(response)
    })
  }

  const client = politeClient(yield* HttpClient.HttpClient, { limiter, timeout }).pipe(
    HttpClient.transformResponse(Effect.flatMap(refuseEarly)),
    withRetries(policy, `LLM judge (${model})`)
  )

  /** What is left after the retries, as JudgeFailed (never with the key in it). */
  const translate = (error: unknown, retries: number): Effect.Effect<never, JudgeFailed | ParameterRejected> => {
    if (error instanceof JudgeFailed || error instanceof ParameterRejected) return Effect.fail(error)
    const retried = afterRetries(retries)
    if (HttpClientError.isHttpClientError(error) && error._tag === "ResponseError" && error.reason === "StatusCode") {
      const status = error.response.status
      return Effect.flatMap(bodyOf(error), (text) =>
        Effect.fail(
          isTransientStatus(status)
            ? failed(`${base} is unavailable: HTTP ${status} (${describe({ body: text })})${retried}`)
            : failed(`the endpoint answered HTTP ${status}: ${describe({ body: text })}`)
        ))
    }
    return Effect.fail(failed(`${base} is unavailable: ${failureOf(error).reason}${retried}`))
  }

  /** One call: the text of the first choice and whether it was cut off, after transport retries. */
  const complete = (body: string): Effect.Effect<{ readonly content: string; readonly truncated: boolean }, JudgeFailed | ParameterRejected> => {
    let request = HttpClientRequest.post(endpoint).pipe(
      HttpClientRequest.setHeaders({ "user-agent": userAgent(), ...options.headers }),
      HttpClientRequest.bodyText(body, "application/json")
    )
    if (secret !== "") request = HttpClientRequest.bearerToken(request, secret)
    return countingRetries(
      client.execute(request).pipe(
        Effect.flatMap((response) => response.text),
        Effect.map((text) => {
          const choice = Either.getOrUndefined(Schema.decodeUnknownEither(Schema.parseJson(ChatCompletion))(text))?.choices?.[0]
          return { content: choice?.message?.content ?? "", truncated: choice?.finish_reason === "length" }
        })
      ),
      translate
    )
  }

  /** One answer for a conversation, validated; cached when a cache is present. */
  const answer = <A>(
    task: Task<A>,
    conversation: ReadonlyArray<ChatMessage>,
    papers: ReadonlyArray<JudgedPaper>,
    scale: number
  ): Effect.Effect<ReadonlyArray<A>, JudgeFailed | Malformed> => {
    const send: Effect.Effect<string, JudgeFailed | Malformed> = Effect.suspend(() => {
      const body = JSON.stringify(requestBody(task, conversation, papers.length, scale))
      const call = complete(body).pipe(
        Effect.flatMap(({ content, truncated }) =>
          Either.match(task.decode(content, papers), {
            onLeft: (problem) =>
              Effect.fail(
                new Malformed({
                  answer: content,
                  problem: truncated ? `it was cut off at ${tokenBudget(task, papers.length, scale)} tokens (${problem})` : problem,
                  truncated
                })
              ),
            onRight: () => Effect.succeed(content)
          })
        )
      )
      return cache === undefined ? call : cache.cached({
          // the judgements keep the entry name they always had, so caches written before summaries stay warm
          endpoint: task.name === "judgements" ? "judge" : `judge.${task.name}`,
          key: requestKey("POST", endpoint, { body }),
          usable: (content) => Either.isRight(task.decode(content, papers))
        }, call)
    }).pipe(
      Effect.catchTag("ParameterRejected", (rejected) => {
        // a server without structured output gets the prompt alone; a reasoning model gets max_completion_tokens
        if (rejected.parameter === "response_format") format = "none"
        else if (rejected.parameter === "max_tokens") tokenParameter = "max_completion_tokens"
        else sendTemperature = false
        return Effect.logDebug(`LLM judge (${model}): the server refused ${rejected.parameter} (${rejected.said}); asking without it`).pipe(
          Effect.zipRight(send)
        )
      })
    )
    return Effect.flatMap(send, (content) =>
      Either.match(task.decode(content, papers), {
        onLeft: (problem) => Effect.fail(new Malformed({ answer: content, problem, truncated: false })),
        onRight: Effect.succeed
      }))
  }

  /** One batch of a task, asking again (a bounded number of times) after a malformed answer. */
  const runBatch = <A>(task: Task<A>, concept: Concept, papers: ReadonlyArray<JudgedPaper>): Effect.Effect<ReadonlyArray<A>, JudgeFailed> => {
    const loop = (
      conversation: ReadonlyArray<ChatMessage>,
      attempt: number,
      scale: number
    ): Effect.Effect<ReadonlyArray<A>, JudgeFailed> =>
      answer(task, conversation, papers, scale).pipe(
        Effect.catchTag("Malformed", (bad) =>
          attempt >= maxAttempts
            ? Effect.fail(failed(`its answer could not be used after ${maxAttempts} attempt${maxAttempts === 1 ? "" : "s"}: ${bad.problem}`))
            : Effect.logDebug(`LLM judge (${model}): ${task.name} answer ${attempt}/${maxAttempts} unusable (${bad.problem}); asking again`).pipe(
              Effect.zipRight(
                loop([...conversation, ...correction(bad.answer, bad.problem)], attempt + 1, bad.truncated ? Math.min(8, scale * 2) : scale)
              )
            ))
      )
    return loop(task.messages(concept, papers), 1, 1)
  }

  /** A task over all papers: batches of `batchSize`, `concurrency` at once, answers in the papers' order. */
  const runAll = <A>(task: Task<A>, concept: Concept, papers: ReadonlyArray<JudgedPaper>) =>
    papers.length === 0
      ? Effect.succeed<ReadonlyArray<A>>([])
      : Effect.forEach(chunk(papers, batchSize), (batch) => runBatch(task, concept, batch), { concurrency }).pipe(
        Effect.map((batches) => batches.flat())
      )

  const judge = Effect.fn("LlmJudgePort.judge")(function*(concept: Concept, papers: ReadonlyArray<JudgedPaper>) {
    return yield* runAll(JUDGE_TASK, concept, papers)
  })

  const summarise = Effect.fn("LlmJudgePort.summarise")(function*(concept: Concept, papers: ReadonlyArray<JudgedPaper>) {
    return yield* runAll(SUMMARY_TASK, concept, papers)
  })

  return { name: model, judge, summarise } satisfies LlmJudgeService
})

/** The LLM judge as a layer, with explicit options. */
export const layer = (options: LlmJudgeOptions): Layer.Layer<LlmJudgePort, never, HttpClient.HttpClient> =>
  Layer.effect(LlmJudgePort, make(options)).pipe(Layer.provide(limiterLayer(options)))

/**
 * The judge endpoint's process-wide limiter: at most `concurrency` calls in
 * flight (default 5) across every run of the process, no spacing.
 */
export const limiterLayer = (options: Pick<LlmJudgeOptions, "apiUrl" | "concurrency">): Layer.Layer<JudgeLimiter> =>
  layerShared(JudgeLimiter, options.apiUrl, {
    service: "LLM judge",
    interval: Duration.zero,
    concurrency: Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY)
  })

const optionalString = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map((o) => Option.filter(o, (s) => s.trim() !== "")))
const optionalSecret = (name: string) =>
  Config.option(Config.redacted(name)).pipe(Config.map((o) => Option.filter(o, (s) => Redacted.value(s).trim() !== "")))

/**
 * The judge's endpoint from configuration:
 * - LLM_BASE_URL set: that endpoint (Ollama, vLLM, llama.cpp, ...), with
 *   LLM_MODEL (required) and LLM_API_KEY (optional);
 * - else OPENROUTER_API_KEY set: OpenRouter (OPENROUTER_BASE_URL, default
 *   https://openrouter.ai/api/v1) with OPENROUTER_MODEL (default
 *   openai/gpt-4o-mini);
 * - else a ConfigError saying how to configure one.
 * LLM_RESPONSE_FORMAT (json_schema | json_object | none) applies to both.
 */
export const endpointConfig: Config.Config<
  Pick<LlmJudgeOptions, "apiUrl" | "model" | "apiKey" | "responseFormat" | "headers">
> = Config.all({
  baseUrl: optionalString("LLM_BASE_URL"),
  model: optionalString("LLM_MODEL"),
  apiKey: optionalSecret("LLM_API_KEY"),
  openrouterKey: optionalSecret("OPENROUTER_API_KEY"),
  openrouterModel: optionalString("OPENROUTER_MODEL"),
  openrouterUrl: optionalString("OPENROUTER_BASE_URL"),
  responseFormat: Config.option(Config.literal("json_schema", "json_object", "none")("LLM_RESPONSE_FORMAT"))
}).pipe(
  Config.mapOrFail((c) => {
    const responseFormat = Option.getOrUndefined(c.responseFormat)
    if (Option.isSome(c.baseUrl)) {
      if (Option.isNone(c.model)) {
        return Either.left(ConfigError.MissingData(["LLM_MODEL"], "LLM_BASE_URL is set, so LLM_MODEL must name the model to use (e.g. llama3.1:8b)"))
      }
      return Either.right({ apiUrl: c.baseUrl.value, model: c.model.value, apiKey: Option.getOrUndefined(c.apiKey), responseFormat })
    }
    if (Option.isSome(c.openrouterKey)) {
      return Either.right({
        apiUrl: Option.getOrElse(c.openrouterUrl, () => OPENROUTER_URL),
        model: Option.getOrElse(c.openrouterModel, () => DEFAULT_OPENROUTER_MODEL),
        apiKey: c.openrouterKey.value,
        responseFormat,
        // OpenRouter's optional attribution headers
        headers: { "HTTP-Referer": PROJECT_URL, "X-Title": "arxiv-companion" }
      })
    }
    return Either.left(ConfigError.MissingData(
      ["OPENROUTER_API_KEY"],
      "No LLM judge is configured: set OPENROUTER_API_KEY (and optionally OPENROUTER_MODEL), or LLM_BASE_URL and LLM_MODEL for a local OpenAI-compatible server."
    ))
  })
)

/**
 * True when a live judge is configured (LLM_BASE_URL or OPENROUTER_API_KEY
 * set): the rule for picking the LLM judge over the local scorer when
 * `--judge` is not given.
 */
export const liveJudgeConfigured: Config.Config<boolean> = Config.all([
  optionalString("LLM_BASE_URL"),
  optionalSecret("OPENROUTER_API_KEY")
]).pipe(Config.map(([url, key]) => Option.isSome(url) || Option.isSome(key)))

/** The LLM judge configured from the environment (see `endpointConfig`); `overrides` win. */
export const layerConfig = (overrides: Omit<Partial<LlmJudgeOptions>, "apiKey"> = {}) =>
  Layer.unwrapEffect(Effect.map(endpointConfig, (endpoint) => layer({ ...endpoint, ...overrides })))
