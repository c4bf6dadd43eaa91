/**
 * A refused option as a user can act on it (flags, environment,
 * library fields), with a refusal that is one line: the option's name, the
 * value given and what is allowed.
 *
 * @since 0.1.0
 */
import { ParseResult } from "effect"
import { InvalidArgument } from "./errors.js"

const show = (value: unknown): string => (typeof value === "number" ? String(value) : JSON.stringify(value) ?? String(value))

const at = (input: unknown, path: ReadonlyArray<PropertyKey>): unknown =>
  path.reduce<unknown>(
    (value, key) => (typeof value === "object" && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined),
    input
  )

/**
 * One line for a refused value: `InvalidArgument` naming the option as the
 * caller calls it (`nameOf("maxResults")` → `--max-results`), the value given
 * and what is allowed.
 */
export const invalidOption = (
  error: ParseResult.ParseError,
  input: unknown,
  nameOf: (key: string) => string = (key) => key
): InvalidArgument => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  // an optional value is also checked against `undefined`; that alternative says nothing useful
  const issue = issues.find((i) => !i.message.startsWith("Expected undefined")) ?? issues[0]
  const path = issue?.path ?? []
  const key = path.length === 0 ? "options" : String(path[0])
  return new InvalidArgument({
    argument: nameOf(key),
    reason: `got ${show(at(input, path))}; ${issue?.message ?? "see the documentation"}.`
  })
}
