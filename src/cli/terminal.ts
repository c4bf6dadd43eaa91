/**
 * What the CLI writes where: results on stdout, everything else (logs,
 * errors, progress) on stderr; colour only for a terminal that wants it.
 */
import { ValidationError } from "@effect/cli"
import { Cause, Console, Effect, Logger, Option } from "effect"
import { colourful, plain as plainText } from "./colour.js"

const plain = (arg: unknown): unknown => (typeof arg === "string" ? plainText(arg) : arg)

/** A console that writes the same text without ANSI escape sequences. */
const plainConsole = (base: Console.Console): Console.Console => ({
  ...base,
  log: (...args) => base.log(...args.map(plain)),
  error: (...args) => base.error(...args.map(plain)),
  info: (...args) => base.info(...args.map(plain)),
  warn: (...args) => base.warn(...args.map(plain)),
  unsafe: {
    ...base.unsafe,
    log: (...args) => base.unsafe.log(...args.map(plain)),
    error: (...args) => base.unsafe.error(...args.map(plain)),
    info: (...args) => base.unsafe.info(...args.map(plain)),
    warn: (...args) => base.unsafe.warn(...args.map(plain))
  }
})

/**
 * Run the CLI program so that stdout carries only its result: log lines go to
 * stderr; a refused flag or subcommand (which @effect/cli has already said on
 * stderr) only sets the exit code; a defect is one line on stderr.
 */
export const asCli = <E, R>(program: Effect.Effect<void, E, R>): Effect.Effect<void, never, R> =>
  Effect.gen(function*() {
    const colour = yield* Effect.sync(() => colourful())
    const run = program.pipe(
      Effect.catchAllCause((cause) =>
        Effect.sync(() => {
          if (process.exitCode === undefined || process.exitCode === 0) process.exitCode = 1
          const failure = Cause.failureOption(cause)
          if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) return
          if (Cause.isInterruptedOnly(cause)) return
          const defect = Cause.squash(cause)
          process.stderr.write(`arxiv-companion: internal error: ${defect instanceof Error ? defect.message : String(defect)}\n`)
        })
      ),
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)))
    )
    return yield* (colour ? run : Console.consoleWith((base) => Effect.withConsole(run, plainConsole(base))))
  })
