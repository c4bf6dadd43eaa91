/**
 * How the CLI reports a failure: a message that says what to fix, and an exit code
 * (2 = not enough information, 1 = anything else).
 */
import { Console, Effect } from "effect"

/** Exit codes of `arxiv-companion run`. */
export const ExitCode = { ok: 0, failure: 1, notEnoughInformation: 2 } as const

/** Print a typed error's message on stderr and set the exit code. */
export const reportFailure = (error: { readonly _tag: string; readonly message: string }) =>
  Effect.gen(function*() {
    yield* Console.error(error.message)
    process.exitCode = error._tag === "NotEnoughInformation" ? ExitCode.notEnoughInformation : ExitCode.failure
  })
