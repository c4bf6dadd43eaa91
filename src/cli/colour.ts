/**
 * Colour in what the CLI prints: only on a terminal that shows colours, as
 * Node reads it (a TTY; NO_COLOR, NODE_DISABLE_COLORS, FORCE_COLOR, TERM).
 * Small on purpose: the static help (src/cli/main.ts) loads it.
 *
 * @since 0.1.0
 */

// SGR and other CSI sequences, as @effect/cli's help and error text carry them
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g

/** The text without ANSI escape sequences. */
export const plain = (text: string): string => text.replace(ANSI, "")

/** Whether `stream` is a terminal that wants colour (https://no-color.org is honoured by Node's hasColors). */
export const colourful = (stream: NodeJS.WriteStream = process.stdout): boolean =>
  stream.isTTY === true && typeof stream.hasColors === "function" && stream.hasColors()
