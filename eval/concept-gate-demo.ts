/**
 * The concept gate (prec9, eval/precision/README.md): the places of a demo note (examples/vault, offline) with the
 * judge's defaults (no gate), prec13's citation-spared gate (score.ts `citationSparedGate`, an option) and each gate
 * of GATES (without spares, over the default match).
 *
 *   [NOTE="Transformers Concept Note"] [GATES=0.2,0.3] node --import tsx eval/concept-gate-demo.ts
 */
import { Effect, Layer } from "effect"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as LocalJudge from "../src/adapters/judge/LocalJudge.js"
import { citationSparedGate, type ScoringParams } from "../src/adapters/judge/score.js"
import { Layers, LlmJudgePort, Workflow } from "../src/index.js"
import { repoRoot } from "./retrieval-data.js"
const note = process.env.NOTE ?? "Transformers Concept Note"
const settings: ReadonlyArray<readonly [string, Partial<ScoringParams>]> = [
  ["the defaults", {}],
  ["the citation-spared gate (prec13)", citationSparedGate],
  ...(process.env.GATES ?? "0.2,0.3").split(",").filter((g) => g !== "").map((g) => [`conceptGate ${g}, no spare`, { conceptGate: Number(g) }] as const)
]
for (const [label, params] of settings) {
  const vault = mkdtempSync(join(tmpdir(), "prec9-demo-"))
  cpSync(join(repoRoot, "examples/vault"), vault, { recursive: true })
  const judge = LocalJudge.makeWith({ params })
  const report = await Effect.runPromise(
    Workflow.runCompanion(`Find papers related to my '${note}'`).pipe(
      Effect.provide(Layer.succeed(LlmJudgePort, judge)),
      Effect.provide(Layers.OfflineLayer({ vault, offline: true }))
    )
  )
  rmSync(vault, { recursive: true, force: true })
  const placed = report.candidates
    .filter((c) => c.decision.kind === "kept" || (c.decision.kind === "impact-not-recorded" && (c.decision.rank ?? 99) <= 10))
    .sort((a, b) => (a.decision.rank ?? 99) - (b.decision.rank ?? 99))
  console.log(`\n## ${note}, ${label}: ${placed.length} places`)
  for (const c of placed) console.log(`  ${c.decision.rank} ${c.decision.kind === "kept" ? "kept" : "no count"} ${c.paper.arxivId} ${c.judgement.relevance.toFixed(2)} ${c.paper.title.slice(0, 80)}`)
}
