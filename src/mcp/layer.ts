/**
 * The ports the MCP server needs: the companion's four (from the composition
 * root) plus full text and citing works, offline or live. The vault is
 * tolerant: without one, every tool but run_companion still works, and
 * run_companion says how to configure it.
 *
 * @since 0.1.0
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as FixtureCitations from "../adapters/fixture/FixtureCitations.js"
import * as FixtureFullText from "../adapters/fixture/FixtureFullText.js"
import * as LiveFullText from "../adapters/live/LiveFullText.js"
import * as LiveOpenAlexCitations from "../adapters/live/LiveOpenAlexCitations.js"
import * as NotionPages from "../adapters/live/NotionPages.js"
import { type InvalidArgument, VaultUnavailable } from "../core/errors.js"
import { VaultPort, type VaultService } from "../core/ports/VaultPort.js"
import { type CompanionSetup, companionLayer, queryBuilderLayer, responseCacheLayer, vaultLayer } from "../layers.js"
import type { McpPorts } from "./server.js"

/** A vault whose every call fails with the reason it could not be set up. */
export const unavailableVault = (reason: string): VaultService => {
  const fail = Effect.fail(new VaultUnavailable({ vault: "(not configured)", reason }))
  return { name: "(not configured)", listNotes: () => fail, readNote: () => fail, readNoteIfExists: () => fail, writeNote: () => fail }
}

/** The vault of a setup; a setup error becomes a vault that reports it on use. */
export const tolerantVaultLayer = (setup: CompanionSetup): Layer.Layer<VaultPort> =>
  Layer.catchAll(vaultLayer(setup), (error) => Layer.succeed(VaultPort, unavailableVault(error.reason)))

/** Every port of the MCP server for a setup (offline: recorded data; live: HTTP, cached). */
export const mcpLayer = (setup: CompanionSetup): Layer.Layer<McpPorts, InvalidArgument> => {
  // the composition root's vault is replaced by the tolerant one (the right side of a merge wins)
  // one cache for the companion's ports and the extras (the same layer value is built once)
  const cache = responseCacheLayer(setup)
  const companion = Layer.merge(companionLayer({ ...setup, vault: setup.vault ?? "." }, cache), tolerantVaultLayer(setup))
  const extras = setup.offline === true
    ? Layer.merge(FixtureFullText.layer, FixtureCitations.layer())
    : Layer.merge(LiveFullText.layerConfig(), LiveOpenAlexCitations.layerConfig().pipe(Layer.orDie)).pipe(
      Layer.provide(cache),
      Layer.provide(NodeHttpClient.layerUndici),
      Layer.provide(NodeContext.layer)
    )
  // ask_arxiv: the query builder, and Notion for notion: true (it says what to set when unconfigured)
  const ask = Layer.merge(queryBuilderLayer(setup), NotionPages.layerConfig())
  return Layer.merge(Layer.provideMerge(extras, companion), ask)
}
