/**
 * Flags that fall back to environment variables, read so that a bad value is
 * one line naming the variable, the value and what is allowed (not a
 * configuration error's dump).
 *
 * @since 0.1.0
 */
import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Config, Effect, Option } from "effect"

/** A variable's text, not yet checked. */
class FromEnv {
  constructor(readonly name: string, readonly text: string | undefined) {}
}

/** The variable as text (unset or blank: undefined); never a configuration error. */
const fromEnv = (name: string): Config.Config<FromEnv> =>
  Config.map(Config.option(Config.string(name)), (text) => new FromEnv(name, Option.getOrUndefined(Option.map(text, (t) => t.trim()))))

/** One line for a refused value, `shown` as the person typed it (text quoted, a number as it is). */
const refused = (name: string, shown: string, allowed: string) =>
  ValidationError.invalidValue(HelpDoc.p(`Invalid ${name}: got ${shown}; use ${allowed}.`))

/** A variable's value checked by `parse`: undefined when unset or blank. */
const checked = <A>(value: FromEnv, parse: (text: string) => A | undefined, allowed: string) => {
  if (value.text === undefined || value.text === "") return Effect.succeed(undefined)
  const parsed = parse(value.text)
  return parsed === undefined ? Effect.fail(refused(value.name, JSON.stringify(value.text), allowed)) : Effect.succeed(parsed)
}

/**
 * A flag that falls back to the variable `env`, and to the library default
 * when neither is set; the variable's text is read by `parse` (undefined: not
 * allowed, refused naming `env` and `allowed`).
 */
export const withEnv = <A>(
  options: Options.Options<A>,
  env: string,
  parse: (text: string) => A | undefined,
  allowed: string,
  description: string
): Options.Options<Option.Option<A>> =>
  options.pipe(
    Options.optional,
    Options.withFallbackConfig(fromEnv(env)),
    Options.mapEffect((value) =>
      value instanceof FromEnv ? Effect.map(checked(value, parse, allowed), Option.fromNullable) : Effect.succeed(value)
    ),
    Options.withDescription(description)
  )

const BOOLEAN: Readonly<Record<string, boolean>> = { true: true, yes: true, on: true, "1": true, false: false, no: false, off: false, "0": false }

/** A boolean flag that falls back to the variable `env` (true/false, yes/no, on/off, 1/0), else false. */
export const booleanWithEnv = (flag: string, env: string, description: string): Options.Options<boolean> =>
  Options.boolean(flag).pipe(
    Options.withFallbackConfig(fromEnv(env)),
    Options.mapEffect((value) =>
      value instanceof FromEnv
        ? Effect.map(checked(value, (t) => BOOLEAN[t.toLowerCase()], "true or false"), (b) => b ?? false)
        : Effect.succeed(value)
    ),
    Options.withDescription(description)
  )

/** Text as it is. */
export const asText = (text: string): string => text

/** One of `values`. */
export const oneOf = <L extends string>(...values: ReadonlyArray<L>) => (text: string): L | undefined =>
  (values as ReadonlyArray<string>).includes(text) ? text as L : undefined

const INTEGER = /^[+-]?\d+$/

/**
 * An integer flag from `min` to `max` (else `fallback`): a value that is not
 * one is refused in one line naming the flag, the value and the range, as
 * `run`'s options are (not @effect/cli's "'abc' is not a integer").
 */
export const integerFlag = (
  flag: string,
  range: { readonly min: number; readonly max: number; readonly fallback: number; readonly note?: string },
  description: string
): Options.Options<number> =>
  Options.text(flag).pipe(
    Options.withPseudoName("integer"),
    Options.mapEffect((text) => {
      const n = INTEGER.test(text.trim()) ? Number(text) : Number.NaN
      return Number.isSafeInteger(n) && n >= range.min && n <= range.max
        ? Effect.succeed(n)
        : Effect.fail(refused(
          `--${flag}`,
          Number.isNaN(Number(text)) || text.trim() === "" ? JSON.stringify(text) : text,
          `an integer from ${range.min} to ${range.max}${range.note === undefined ? "" : ` (${range.note})`}`
        ))
    }),
    Options.withDefault(range.fallback),
    Options.withDescription(description)
  )

/** A setting of the setup (src/layers.ts's SETUP), as the CLI spells it. */
interface Setting<A> {
  readonly flag: string
  readonly pseudoName: string
  readonly env: string
  readonly allowed: string
  readonly description: string
  readonly parse: (text: string) => A | undefined
  readonly choices?: ReadonlyArray<A & string> | undefined
}

/**
 * The flag of a setup setting, falling back to its variable: a choice among
 * words when it is one, else text read by the setting's `parse` (a refused
 * value is one line naming the flag or the variable and what is allowed).
 */
export const setupFlag = <A>(s: Setting<A>): Options.Options<Option.Option<A>> => {
  if (s.choices !== undefined) {
    return withEnv(Options.choice(s.flag, s.choices) as Options.Options<A>, s.env, s.parse, s.allowed, s.description)
  }
  // the variable's text is checked (and named) where it is read; the flag's, below (naming the flag)
  const checkedText = (t: string) => s.parse(t) === undefined ? undefined : t
  return withEnv(Options.text(s.flag).pipe(Options.withPseudoName(s.pseudoName)), s.env, checkedText, s.allowed, s.description).pipe(
    Options.mapEffect((value) =>
      Option.match(value, {
        onNone: () => Effect.succeed(Option.none<A>()),
        onSome: (text) => {
          const parsed = s.parse(text)
          return parsed === undefined
            ? Effect.fail(refused(`--${s.flag}`, JSON.stringify(text), s.allowed))
            : Effect.succeed(Option.some(parsed))
        }
      })
    )
  )
}
