/**
 * One structured chat completion at a time, for the adapters that ask an
 * OpenAI-compatible endpoint for a JSON answer (the query builder, the note
 * reader): the judge's limiter for the endpoint, the HTTP policy's retries (a
 * 2xx that is no chat completion is worth another attempt), the key never in a
 * message.
 */
import { HttpClient, HttpClientError, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Data, Duration, Effect, Either, Option, Redacted, Schema } from "effect"
import { clipLine } from "../../core/text.js"
import { defaultRetryPolicy, failureOf, isTransientStatus, politeClient, type RetryPolicy, TransientFailure, userAgent, withRetries } from "../http/http.js"
import { JudgeLimiter, shared } from "../http/UpstreamLimiter.js"
import type { ChatMessage } from "./judgePrompt.js"
import { ChatCompletion, DEFAULT_CONCURRENCY, scrubber } from "./LlmJudge.js"

/** The endpoint could not be asked (after the transport's retries), in one line without the key. */
export class Unreachable extends Data.TaggedError("Unreachable")<{ readonly reason: string }> {}

/** Where and how to ask: the endpoint's settings every structured-answer adapter shares. */
export interface ChatClientOptions {
  readonly apiUrl: string
  readonly model: string
  readonly apiKey?: Redacted.Redacted | undefined
  readonly responseFormat?: "json_schema" | "json_object" | "none" | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly retries?: number | undefined
  readonly retryBaseDelay?: Duration.DurationInput | undefined
  readonly timeout?: Duration.DurationInput | undefined
}

/** The answer asked for: its JSON Schema's name and the schema, and the tokens it may take. */
export interface AnswerShape {
  readonly name: string
  readonly schema: unknown
  readonly maxTokens: number
}

/** `complete(conversation)`: one answer's text (empty when the completion carried none). */
export const makeChatClient = Effect.fn("ChatClient.make")(function*(options: ChatClientOptions, answer: AnswerShape) {
  // the endpoint's limiter, shared with the judge on the same endpoint (its layer's, else the process-wide one)
  const limiter = Option.getOrElse(yield* Effect.serviceOption(JudgeLimiter), () =>
    shared(options.apiUrl, { service: "LLM judge", interval: Duration.zero, concurrency: DEFAULT_CONCURRENCY }))
  const endpoint = `${options.apiUrl.replace(/\/+$/, "")}/chat/completions`
  const key = options.apiKey === undefined ? "" : Redacted.value(options.apiKey).trim()
  const scrub = scrubber(key)
  const policy: RetryPolicy = {
    ...defaultRetryPolicy,
    maxAttempts: 1 + Math.max(0, options.retries ?? 2),
    baseDelay: options.retryBaseDelay ?? "1 second"
  }
  const format = options.responseFormat ?? "json_schema"

  /** A 2xx that is no chat completion (or carries an error object) is worth another attempt. */
  const checkCompletion = (
    response: HttpClientResponse.HttpClientResponse
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, TransientFailure> =>
    response.status < 200 || response.status >= 300 ? Effect.succeed(response) : Effect.flatMap(
      Effect.orElseSucceed(response.text, () => ""),
      (text) => {
        const parsed = Schema.decodeUnknownEither(Schema.parseJson(ChatCompletion))(text)
        return Either.isRight(parsed) && (parsed.right.error === undefined || parsed.right.error === null)
          ? Effect.succeed(response)
          : Effect.fail(new TransientFailure({ reason: "the endpoint's answer was not a chat completion", status: response.status }))
      }
    )
  const client = politeClient(yield* HttpClient.HttpClient, { limiter, timeout: options.timeout ?? "60 seconds" }).pipe(
    HttpClient.transformResponse(Effect.flatMap(checkCompletion)),
    withRetries(policy, `LLM (${options.model})`)
  )

  const complete = (conversation: ReadonlyArray<ChatMessage>): Effect.Effect<string, Unreachable> => {
    const body = JSON.stringify({
      model: options.model,
      messages: conversation,
      temperature: 0,
      max_tokens: answer.maxTokens,
      ...(format === "json_schema"
        ? { response_format: { type: "json_schema", json_schema: { name: answer.name, strict: true, schema: answer.schema } } }
        : format === "json_object"
        ? { response_format: { type: "json_object" } }
        : {})
    })
    let request = HttpClientRequest.post(endpoint).pipe(
      HttpClientRequest.setHeaders({ "user-agent": userAgent(), ...options.headers }),
      HttpClientRequest.bodyText(body, "application/json")
    )
    if (key !== "") request = HttpClientRequest.bearerToken(request, key)
    return client.execute(request).pipe(
      Effect.flatMap((response) => response.text),
      Effect.map((text) =>
        Either.getOrUndefined(Schema.decodeUnknownEither(Schema.parseJson(ChatCompletion))(text))?.choices?.[0]?.message?.content ?? ""
      ),
      Effect.catchAll((error) =>
        HttpClientError.isHttpClientError(error) && error._tag === "ResponseError" && !isTransientStatus(error.response.status)
          ? Effect.flatMap(Effect.orElseSucceed(error.response.text, () => ""), (text) =>
            Effect.fail(new Unreachable({ reason: `HTTP ${error.response.status}: ${scrub(clipLine(text, 200))}` })))
          : Effect.fail(new Unreachable({ reason: scrub(failureOf(error).reason) }))
      )
    )
  }
  return { complete }
})
