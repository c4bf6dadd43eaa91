/**
 * Run an effect with every log line captured (all levels), for tests that
 * check what an adapter logs — e.g. that a key never appears.
 */
import { Effect, Logger, LogLevel } from "effect"

export const captureLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
  const lines: Array<string> = []
  const logger = Logger.make(({ message }) => {
    lines.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
  })
  return effect.pipe(
    Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
    Logger.withMinimumLogLevel(LogLevel.All),
    Effect.exit,
    Effect.map((exit) => ({ exit, lines }))
  )
}
