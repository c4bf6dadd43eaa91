/**
 * The bin's one runtime: built from the composition root on first use and kept for
 * the process's lifetime, logging to stderr.
 *
 * @since 0.1.0
 */
import { Exit, Layer, Logger, ManagedRuntime } from "effect"
import type { CompanionSetup } from "../layers.js"
import type { McpPorts, McpRuntime } from "./server.js"

/** A lazily built runtime and how to dispose of it. */
export interface LazyRuntime extends McpRuntime {
  /** Build the layer now (e.g. to warm it). */
  readonly warm: () => Promise<void>
  readonly dispose: () => Promise<void>
}

/** One runtime over every port of the composition root (`allPortsLayer(setup)`), built on first use. */
export const lazyRuntime = (setup: CompanionSetup): LazyRuntime => {
  let runtime: Promise<ManagedRuntime.ManagedRuntime<McpPorts, unknown>> | undefined
  // Built before the first call runs: calls waiting for the build inside the runtime resume last-first
  // (24 searches at start-up reached arXiv in reverse), calls chained on this promise run in arrival order.
  // A layer that fails to build fails each call that runs on it, as before.
  const get = () =>
    runtime ??= import("../layers.js").then(({ allPortsLayer }) => {
      const rt = ManagedRuntime.make(
        Layer.merge(allPortsLayer(setup), Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.stringLogger)))
      )
      return rt.runtime().then(() => rt, () => rt)
    })
  return {
    runPromiseExit: (effect, options) =>
      get().then((rt) => rt.runPromiseExit(effect, options), (e: unknown) => Exit.die(e)),
    warm: () => get().then((rt) => rt.runtime()).then(() => undefined),
    dispose: async () => {
      if (runtime !== undefined) await (await runtime).dispose()
    }
  }
}
