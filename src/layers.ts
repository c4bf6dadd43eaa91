/**
 * The composition root: which adapter serves each port.
 *
 * @since 0.1.0
 */
import { NodeContext } from "@effect/platform-node"
import { Layer } from "effect"
import * as FixtureArxiv from "./adapters/fixture/FixtureArxiv.js"
import * as FixtureOpenAlex from "./adapters/fixture/FixtureOpenAlex.js"
import * as LocalJudge from "./adapters/judge/LocalJudge.js"
import * as FileSystemVault from "./adapters/vault/FileSystemVault.js"
import type { CompanionError } from "./core/errors.js"
import type { ArxivPort } from "./core/ports/ArxivPort.js"
import type { LlmJudgePort } from "./core/ports/LlmJudgePort.js"
import type { OpenAlexPort } from "./core/ports/OpenAlexPort.js"
import type { VaultPort } from "./core/ports/VaultPort.js"

/** Every port the companion needs. */
export type CompanionPorts = ArxivPort | OpenAlexPort | LlmJudgePort | VaultPort

/** Where the companion reads and writes, and which data it uses. */
export interface CompanionSetup {
  /** The vault folder (an Obsidian vault is a folder of Markdown files). */
  readonly vault: string
  /** Serve arXiv and citation data from the recorded offline corpus; no network, no key. */
  readonly offline?: boolean | undefined
  /** Offline citation counts: one source per run (default Semantic Scholar). */
  readonly offlineCitations?: FixtureOpenAlex.CitationSource | undefined
}

/** The recorded arXiv corpus and citation data, the local judge and a filesystem vault. */
export const OfflineLayer = (setup: CompanionSetup): Layer.Layer<CompanionPorts, CompanionError> =>
  Layer.mergeAll(
    FixtureArxiv.layer(),
    FixtureOpenAlex.layer({ citations: setup.offlineCitations }),
    LocalJudge.layer,
    FileSystemVault.layer({ root: setup.vault })
  ).pipe(Layer.provide(NodeContext.layer))

/** The layer a setup asks for. */
export const companionLayer = (setup: CompanionSetup): Layer.Layer<CompanionPorts, CompanionError> =>
  OfflineLayer(setup)
