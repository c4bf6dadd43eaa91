/**
 * A speech program run as a process the adapter owns: input written to its
 * stdin, its stdout read whole, a timeout, and the process killed when the
 * call is interrupted or times out (the platform's executor kills it when
 * its scope closes). A program that is not installed is SpeechUnavailable
 * with the Debian package to install.
 *
 * @since 0.1.0
 */
import type { CommandExecutor } from "@effect/platform"
import { Command } from "@effect/platform"
import { Chunk, Duration, Effect, Stream } from "effect"
import { SpeechFailed, SpeechUnavailable } from "../../core/speech.js"

/** One run of a program. */
export interface ProcessRun {
  readonly program: string
  readonly args: ReadonlyArray<string>
  readonly stdin?: Uint8Array | undefined
  readonly timeout: Duration.DurationInput
  /** For messages, e.g. "pocketsphinx". */
  readonly engine: string
  /** What to install when the program is missing, e.g. "apt-get install pocketsphinx". */
  readonly install: string
}

/** What a run gave back. */
export interface ProcessOutput {
  readonly stdout: Uint8Array
  readonly stderr: string
  readonly exitCode: number
}

const concat = (chunks: Chunk.Chunk<Uint8Array>): Uint8Array => {
  const parts = Chunk.toReadonlyArray(chunks)
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

const MAX_STDERR = 64_000

/** Run a program to its end; fails with SpeechUnavailable (not installed) or SpeechFailed (timeout, broken pipe). */
export const runOwned = (executor: CommandExecutor.CommandExecutor, run: ProcessRun) =>
  Effect.scoped(Effect.gen(function*() {
    const command = Command.make(run.program, ...run.args).pipe(
      Command.stdin(run.stdin === undefined ? "pipe" : Stream.make(run.stdin))
    )
    const proc = yield* executor.start(command)
    const [stdout, stderr, exitCode] = yield* Effect.all([
      Stream.runCollect(proc.stdout).pipe(Effect.map(concat)),
      Stream.runCollect(proc.stderr).pipe(Effect.map((c) => new TextDecoder().decode(concat(c)).slice(-MAX_STDERR))),
      proc.exitCode
    ], { concurrency: "unbounded" })
    return { stdout, stderr, exitCode: Number(exitCode) } satisfies ProcessOutput
  })).pipe(
    Effect.timeoutFail({
      duration: run.timeout,
      onTimeout: () =>
        new SpeechFailed({ engine: run.engine, reason: `${run.program} took longer than ${Duration.format(Duration.decode(run.timeout))} and was stopped` })
    }),
    Effect.catchTags({
      SystemError: (e): Effect.Effect<never, SpeechUnavailable | SpeechFailed> =>
        e.reason === "NotFound" || /ENOENT/.test(e.message)
          ? Effect.fail(
            new SpeechUnavailable({ engine: run.engine, reason: `the program ${run.program} is not installed`, hint: `Install it (${run.install}).` })
          )
          : Effect.fail(new SpeechFailed({ engine: run.engine, reason: `${run.program}: ${e.message}` })),
      BadArgument: (e) => Effect.fail(new SpeechFailed({ engine: run.engine, reason: `${run.program}: ${e.message}` }))
    })
  )
