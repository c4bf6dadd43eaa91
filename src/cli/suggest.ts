/**
 * What @effect/cli says of a word it does not know, made actionable: an
 * unknown flag gets the closest flag of its command ("Did you mean
 * --offline?"), an unknown subcommand the closest subcommand.
 *
 * @since 0.1.0
 */
import { CliConfig, Command, HelpDoc } from "@effect/cli"
import { levenshtein } from "../core/text.js"
import { plain } from "./colour.js"

/** The flags a command takes, as its help spells them (`--offline`, `--max-results`, `-h`, …). */
export const flagsOf = <Name extends string, R, E, A>(command: Command.Command<Name, R, E, A>): ReadonlyArray<string> =>
  [...new Set(plain(HelpDoc.toAnsiText(Command.getHelp(command, CliConfig.defaultConfig))).match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? [])]

/** The closest of `known` to `word`: at most 2 edits away, or `known` starting with it; undefined when none is close. */
export const closest = (word: string, known: ReadonlyArray<string>): string | undefined => {
  const scored = known
    .map((k) => ({ k, d: k.startsWith(word) && word.length >= 3 ? 0.5 : levenshtein(word, k) }))
    .filter((x) => x.d <= Math.min(2, Math.max(1, Math.floor(word.length / 3))))
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
  return scored[0]?.k
}

/**
 * The line @effect/cli printed, with a suggestion when it is about an unknown
 * flag of `flags` or an unknown subcommand of `subcommands` (`word` is what
 * the user typed there). `flags` is asked for only when the line is about an
 * unknown flag: reading a command's flags renders its whole help, and every
 * progress line on stderr passes through here.
 */
export const withSuggestion = (
  line: string,
  flags: () => ReadonlyArray<string>,
  subcommands: ReadonlyArray<string>,
  typedSubcommand: string | undefined
): string => {
  const text = plain(line).trim()
  const unknown = /^Received unknown argument: '(--?[^'=]+)(?:=[^']*)?'$/.exec(text)
  if (unknown !== null) {
    const near = closest(unknown[1]!, flags())
    return near === undefined ? line : `${text}. Did you mean ${near}?`
  }
  if (/^Invalid subcommand for /.test(text) && typedSubcommand !== undefined) {
    const near = closest(typedSubcommand, subcommands)
    return near === undefined ? line : `${text}. Did you mean '${near}'?`
  }
  return line
}
