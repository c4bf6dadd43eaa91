/**
 * `arxiv-companion ui`: the local page. The server's code is imported only
 * when this command runs.
 */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { integerFlag } from "./env.js"
import { reportFailure } from "./failure.js"
import { setupFlags, setupOf } from "./run.js"

const port = integerFlag(
  "port",
  { min: 0, max: 65535, fallback: 5178, note: "0 picks a free one" },
  "The port on 127.0.0.1 (default 5178; 0 picks a free one). The page is served on loopback only."
)

/** The `ui` command. */
export const uiCommand = Command.make(
  "ui",
  { port, ...setupFlags },
  (a) =>
    Effect.gen(function*() {
      const { serveUi } = yield* Effect.promise(() => import("../ui/server.js"))
      const setup = setupOf(a)
      yield* Effect.scoped(Effect.gen(function*() {
        const server = yield* serveUi({
          port: a.port,
          setup,
          log: (line) => console.error(line)
        })
        yield* Console.log(server.url)
        yield* Console.error(
          `arxiv-companion page on ${server.origin} (${setup.offline === true ? "offline" : "live"}` +
            `${Option.isSome(a.arxiv) ? `, arXiv: ${a.arxiv.value}` : ""}). ` +
            "Open the address above in your browser: it carries the access token. Ctrl-C stops the server."
        )
        yield* Effect.addFinalizer(() => Console.error("Stopped: runs in flight were cancelled and the server is closed."))
        return yield* Effect.never
      }))
    }).pipe(Effect.catchAll(reportFailure))
).pipe(Command.withDescription("Serve a local page (127.0.0.1 only) to find papers for a note or ask a question."))
