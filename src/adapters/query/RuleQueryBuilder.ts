/**
 * QueryBuilderPort by rules: offline, deterministic, no key (the default).
 * See src/core/question.ts for the rules.
 *
 * @since 0.1.0
 */
import { Effect, Either, Layer } from "effect"
import { NotEnoughInformation } from "../../core/errors.js"
import { type BuiltQuery, QueryBuilderPort, type QueryBuilderService } from "../../core/ports/QueryBuilderPort.js"
import { analyseQuestion, ruleQuery, type RuleQuery, type TermStatistics } from "../../core/question.js"
import { read, structured } from "./queryParser.js"
import { fromDfTable } from "./termStatistics.js"

/** The builder's name in reports. */
export const name = "rules"

/** Options of the rule-based builder. */
export interface RuleQueryBuilderOptions {
  /** Term statistics (default: the shipped arXiv document-frequency table). */
  readonly statistics?: TermStatistics | undefined
}

/** The rule-based query of a question, or NotEnoughInformation saying what to add. */
export const rulesFor = (question: string, statistics: TermStatistics): Either.Either<RuleQuery, NotEnoughInformation> => {
  const built = ruleQuery(analyseQuestion(question), statistics)
  return built._tag === "Right" ? Either.right(built.right) : Either.left(new NotEnoughInformation({ detail: built.left }))
}

/** The key terms of a rule query as the judge's keywords. */
export const keywordsOf = (rules: RuleQuery): ReadonlyArray<string> => [
  ...rules.analysis.phrases,
  ...rules.terms.flatMap((t) => t.forms)
]

/** Build the service (the statistics are read on the first question). */
export const makeWith = (options: RuleQueryBuilderOptions = {}): QueryBuilderService => {
  let statistics = options.statistics
  const build = Effect.fn("QueryBuilderPort.build")(function*(question: string) {
    const rules = yield* rulesFor(question, statistics ??= fromDfTable())
    return {
      query: rules.query,
      builder: name,
      keywords: keywordsOf(rules),
      concept: rules.concept,
      search: structured(rules.query, undefined, rules.concept.required),
      attempts: 0,
      fellBack: false,
      notes: []
    } satisfies BuiltQuery
  })
  return { name, build, read }
}

/** The rule-based builder with the shipped statistics. */
export const make: Effect.Effect<QueryBuilderService> = Effect.sync(() => makeWith())

/** The rule-based builder as the QueryBuilderPort. */
export const layer: Layer.Layer<QueryBuilderPort> = Layer.effect(QueryBuilderPort, make)
