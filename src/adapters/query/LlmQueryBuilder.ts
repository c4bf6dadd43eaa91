/**
 * QueryBuilderPort by a language model: the model writes the arXiv query
 * under a JSON Schema (`{"query": "..."}`), over any OpenAI-compatible chat
 * endpoint — configured like the LLM judge (OPENROUTER_API_KEY, or
 * LLM_BASE_URL + LLM_MODEL).
 *
 * The answer is checked by the same arXiv query parser the offline search
 * uses, plus a check that every `field:` is one arXiv knows. An unusable
 * answer (not JSON, not the format, bad syntax, unknown field) is sent back
 * once with what was wrong; if the second answer is unusable too, or the
 * endpoint cannot be reached, the rule-based query is used and the report
 * says so. The rule-based query also rides along as the fallback for a query
 * arXiv itself rejects.
 *
 * @since 0.1.0
 */
import { HttpClient } from "@effect/platform"
import { Duration, Effect, Either, Layer, Redacted, Schema } from "effect"
import { type BuiltQuery, QueryBuilderPort, type QueryBuilderService } from "../../core/ports/QueryBuilderPort.js"
import type { TermStatistics } from "../../core/question.js"
import { clipLine } from "../../core/text.js"
import { checkQuery, read, structured } from "./queryParser.js"
import { keywordsOf, rulesFor } from "./RuleQueryBuilder.js"
import { fromDfTable } from "./termStatistics.js"
import { makeChatClient } from "../judge/chatClient.js"
import { type ChatMessage, parseJsonIn } from "../judge/judgePrompt.js"
import { endpointConfig } from "../judge/LlmJudge.js"

/** Options of the LLM query builder. */
export interface LlmQueryBuilderOptions {
  readonly apiUrl: string
  readonly model: string
  readonly apiKey?: Redacted.Redacted | undefined
  /** Structured output: a JSON Schema (default), JSON mode, or the prompt alone. */
  readonly responseFormat?: "json_schema" | "json_object" | "none" | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Retries of one call on transient HTTP failures. Default 2. */
  readonly retries?: number | undefined
  readonly retryBaseDelay?: Duration.DurationInput | undefined
  /** Per-call timeout. Default 60 s. */
  readonly timeout?: Duration.DurationInput | undefined
  /** Term statistics for the rule-based fallback (default: the shipped arXiv table). */
  readonly statistics?: TermStatistics | undefined
}

/** The instructions the model writes a query under. */
export const SYSTEM_PROMPT = [
  "You turn a researcher's question into ONE query for the arXiv API (the search_query parameter).",
  "Syntax: field prefixes ti: (title), abs: (abstract), au: (author surname), cat: (category, e.g. cs.LG), all: (any field);",
  "bare terms mean all:. Quote phrases: abs:\"generative adversarial\". Combine with AND, OR, ANDNOT and parentheses;",
  "space-separated terms are ANDed, so put synonyms and acronyms in an OR group: (ti:GAN OR abs:\"generative adversarial\").",
  "Dates: submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]. No other fields exist.",
  "Write the question's concept, not its words ANDed: an OR of its central concepts, each with its usual synonyms and",
  "acronyms (quoted phrases), so that papers about the concept match in whichever words they use; the results are ranked",
  "and judged afterwards, so a wide OR is right. AND only what the question requires: authors it names (au:), phrases",
  "it quotes, categories and years it names. Leave out words that only ask (best, main, way, how, papers).",
  "Answer with only a JSON object: {\"query\": \"<the arXiv query>\"}."
].join("\n")

/** The answer's JSON Schema (`response_format: json_schema`). */
export const QUERY_JSON_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["query"],
  properties: { query: { type: "string", description: "An arXiv search_query" } }
} as const

const Answer = Schema.Struct({ query: Schema.String })

/** The model's query from its answer, or what is wrong with the answer. */
export const readAnswer = (content: string): Either.Either<string, string> => {
  const parsed = parseJsonIn(content)
  if (parsed === undefined) return Either.left("it is not valid JSON")
  const decoded = Schema.decodeUnknownEither(Answer)(parsed.json)
  if (Either.isLeft(decoded)) return Either.left("it is not an object with a string \"query\"")
  const query = decoded.right.query.trim()
  if (query === "") return Either.left("the query is empty")
  const problem = checkQuery(query)
  return problem === undefined ? Either.right(query) : Either.left(`the query ${JSON.stringify(query)} has a ${problem}`)
}

/** Build the builder from the context's HttpClient. Nothing is sent until a question comes. */
export const make = Effect.fn("LlmQueryBuilder.make")(function*(options: LlmQueryBuilderOptions) {
  const { complete } = yield* makeChatClient(options, { name: "arxiv_query", schema: QUERY_JSON_SCHEMA, maxTokens: 400 })
  let statistics = options.statistics

  const build = Effect.fn("QueryBuilderPort.build")(function*(question: string) {
    const rules = yield* rulesFor(question, statistics ??= fromDfTable())
    const keywords = keywordsOf(rules)
    const conversation: Array<ChatMessage> = [
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: `Question: ${question.replace(/\s+/g, " ").trim()}` }
    ]
    const problems: Array<string> = []
    for (let attempt = 1; attempt <= 2; attempt++) {
      const content = yield* Effect.either(complete(conversation))
      if (Either.isLeft(content)) {
        return {
          query: rules.query,
          builder: options.model,
          keywords,
          concept: rules.concept,
          search: structured(rules.query, undefined, rules.concept.required),
          attempts: attempt,
          fellBack: true,
          notes: [...problems, `The model could not be reached (${content.left.reason}); the rule-based query was used.`]
        } satisfies BuiltQuery
      }
      const answer = readAnswer(content.right)
      if (Either.isRight(answer)) {
        return {
          query: answer.right,
          builder: options.model,
          fallback: rules.query,
          keywords,
          concept: rules.concept,
          search: structured(answer.right, rules.query, rules.concept.required),
          attempts: attempt,
          fellBack: false,
          notes: problems.length === 0 ? [] : [`${problems[0]}; it was sent back with the error, and the second answer was used.`]
        } satisfies BuiltQuery
      }
      problems.push(`The model's answer ${attempt} was unusable: ${answer.left}`)
      conversation.push(
        { role: "assistant", content: clipLine(content.right, 2000) || "(empty answer)" },
        { role: "user", content: `That answer could not be used: ${answer.left}. Answer again with only {"query": "<the arXiv query>"}.` }
      )
    }
    return {
      query: rules.query,
      builder: options.model,
      keywords,
      concept: rules.concept,
      search: structured(rules.query, undefined, rules.concept.required),
      attempts: 2,
      fellBack: true,
      notes: [`${problems.join("; ")}; the rule-based query was used.`]
    } satisfies BuiltQuery
  })

  return { name: options.model, build, read } satisfies QueryBuilderService
})

/** The LLM query builder as a layer, with explicit options. */
export const layer = (options: LlmQueryBuilderOptions): Layer.Layer<QueryBuilderPort, never, HttpClient.HttpClient> =>
  Layer.effect(QueryBuilderPort, make(options))

/** The LLM query builder configured like the LLM judge (see LlmJudge.endpointConfig); `overrides` win. */
export const layerConfig = (overrides: Partial<LlmQueryBuilderOptions> = {}) =>
  Layer.effect(QueryBuilderPort, Effect.flatMap(endpointConfig, (endpoint) => make({ ...endpoint, ...overrides })))
