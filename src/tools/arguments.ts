/**
 * Argument checks shared by the tool functions. Each failure is an
 * InvalidArgument whose message says how to fix the call.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { parseArxivId } from "../core/arxiv.js"
import { normalizeCategories, unknownCategoriesMessage } from "../core/categories.js"
import { isCalendarDate } from "../core/dates.js"
import { InvalidArgument } from "../core/errors.js"
import { MAX_PROMPT_CHARS, shownSize } from "../core/limits.js"

/** A bare arXiv id (version dropped) from what a user wrote. */
export const arxivIdArg = (input: string, argument = "arxiv_id"): Effect.Effect<string, InvalidArgument> => {
  const parsed = parseArxivId(input)
  return parsed === undefined
    ? Effect.fail(
      new InvalidArgument({
        argument,
        reason: `"${input}" is not an arXiv id; use the form 1706.03762 or hep-th/9901001 (arXiv: prefixes, URLs and v2 suffixes are accepted)`
      })
    )
    : Effect.succeed(parsed.id)
}

/** Several arXiv ids, duplicates dropped, order kept. */
export const arxivIdsArg = (
  inputs: ReadonlyArray<string>,
  argument = "arxiv_ids",
  max = 50
): Effect.Effect<ReadonlyArray<string>, InvalidArgument> =>
  Effect.gen(function*() {
    if (inputs.length === 0 || inputs.length > max) {
      return yield* new InvalidArgument({ argument, reason: `give 1 to ${max} arXiv ids (got ${inputs.length})` })
    }
    const ids: Array<string> = []
    for (const [i, input] of inputs.entries()) {
      const id = yield* arxivIdArg(input, `${argument}[${i}]`)
      if (!ids.includes(id)) ids.push(id)
    }
    return ids
  })

/** An integer in `min..max`, or the default when absent. */
export const intArg = (
  argument: string,
  value: number | undefined,
  min: number,
  max: number,
  fallback: number
): Effect.Effect<number, InvalidArgument> => {
  const v = value ?? fallback
  return Number.isInteger(v) && v >= min && v <= max
    ? Effect.succeed(v)
    : Effect.fail(new InvalidArgument({ argument, reason: `${v} is out of range; use an integer from ${min} to ${max}` }))
}

/** An optional number in `min..max`. */
export const numberArg = (
  argument: string,
  value: number | undefined,
  min: number,
  max: number
): Effect.Effect<number | undefined, InvalidArgument> =>
  value === undefined || (Number.isFinite(value) && value >= min && value <= max)
    ? Effect.succeed(value)
    : Effect.fail(new InvalidArgument({ argument, reason: `${value} is out of range; use a number from ${min} to ${max}` }))

/** Category codes in arXiv's spelling; unknown codes fail with the closest known ones. */
export const categoriesArg = (
  codes: ReadonlyArray<string>,
  argument = "categories"
): Effect.Effect<ReadonlyArray<string>, InvalidArgument> => {
  const { unknown, valid } = normalizeCategories(codes)
  return unknown.length > 0
    ? Effect.fail(new InvalidArgument({ argument, reason: unknownCategoriesMessage(unknown) }))
    : Effect.succeed(valid)
}

/** One category code. */
export const categoryArg = (code: string, argument = "category"): Effect.Effect<string, InvalidArgument> =>
  Effect.map(categoriesArg([code], argument), (valid) => valid[0]!)

/** A real calendar date `YYYY-MM-DD`. */
export const dateArg = (argument: string, value: string | undefined): Effect.Effect<string | undefined, InvalidArgument> => {
  if (value === undefined) return Effect.succeed(undefined)
  return isCalendarDate(value)
    ? Effect.succeed(value)
    : Effect.fail(new InvalidArgument({ argument, reason: `"${value}" is not a date; use YYYY-MM-DD, e.g. 2024-01-31` }))
}

/** A non-empty text. */
export const textArg = (argument: string, value: string, example: string): Effect.Effect<string, InvalidArgument> =>
  value.trim() === ""
    ? Effect.fail(new InvalidArgument({ argument, reason: `is empty; give ${example}` }))
    : Effect.succeed(value.trim())

/**
 * A prompt or a question: non-empty, and at most MAX_PROMPT_CHARS characters,
 * refused before anything else is done (src/core/limits.ts).
 */
export const promptArg = (argument: string, value: string, example: string): Effect.Effect<string, InvalidArgument> =>
  value.length > MAX_PROMPT_CHARS
    ? Effect.fail(
      new InvalidArgument({
        argument,
        reason: `it is ${shownSize(value.length)} characters long; at most ${shownSize(MAX_PROMPT_CHARS)} are accepted. Give ${example}`
      })
    )
    : textArg(argument, value, example)
