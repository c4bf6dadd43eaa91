/**
 * Where a mirror lives when no directory is named: the user's data directory
 * (`$XDG_DATA_HOME/arxiv-companion/mirror`, else
 * `~/.local/share/arxiv-companion/mirror`). Data, not cache: a mirror of a
 * few categories takes hours of polite harvesting to rebuild.
 *
 * @since 0.3.0
 */
import { Path } from "@effect/platform"
import { Config, Effect, Option } from "effect"
import { homedir } from "node:os"

const optional = (name: string) => Config.option(Config.nonEmptyString(name)).pipe(Effect.orElseSucceed(() => Option.none<string>()))

/** The default mirror directory. */
export const defaultMirrorDir: Effect.Effect<string, never, Path.Path> = Effect.gen(function*() {
  const path = yield* Path.Path
  const xdg = yield* optional("XDG_DATA_HOME")
  if (Option.isSome(xdg) && path.isAbsolute(xdg.value)) return path.join(xdg.value, "arxiv-companion", "mirror")
  const home = yield* optional("HOME")
  return path.join(Option.getOrElse(home, () => homedir()), ".local", "share", "arxiv-companion", "mirror")
})
