/**
 * The local work of writing the Related Papers note for 50 candidates: the
 * extractive summaries, shared foundations, reading order, citation map and
 * the Markdown itself, then the merge with the note already in the vault.
 *
 * Two measures, both in-process and offline (recorded corpus and counts,
 * local judge, in-memory vault):
 * - a whole run with 50 candidates, timed from the "Judged" progress event to
 *   "Written" (foundations from the recorded data, summaries, teaching,
 *   composition, merge, the in-memory write): the first run, then reruns;
 * - the pure composition alone for 50 kept papers (every candidate of that run
 *   treated as kept, the heaviest note): summaries + teaching + composeNote +
 *   mergeNote against the note just written.
 * The goal is under 100 ms; medians and the 90th percentile are printed, of
 * wall time and of this process's CPU time (user + system), which a loaded
 * machine inflates far less than wall time.
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as CorpusArxiv from "../src/adapters/arxiv/CorpusArxiv.js"
import * as RecordedOpenAlex from "../src/adapters/openalex/RecordedOpenAlex.js"
import * as ArxivTermStats from "../src/adapters/judge/ArxivTermStats.js"
import * as LocalJudge from "../src/adapters/judge/LocalJudge.js"
import * as InMemoryVault from "../src/adapters/vault/InMemoryVault.js"
import { composeNote, mergeNote, type RelatedNoteInput, relatedTitle } from "../src/core/compose.js"
import { CompanionOptions, ScoredPaper } from "../src/core/models.js"
import { abstractSummary, teaching } from "../src/core/teaching.js"
import { vaultIndex } from "../src/core/vaultLinks.js"
import { runCompanion } from "../src/core/workflow.js"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const NOTE = "Transformers Concept Note"
const PROMPT = `Find papers related to my '${NOTE}'`
const RUNS = 15

const quantile = (xs: ReadonlyArray<number>, q: number): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}
const ms = (x: number) => `${x.toFixed(1)} ms`
/** CPU time (user + system) of this process so far, in ms. */
const cpuMs = (): number => {
  const { system, user } = process.cpuUsage()
  return (user + system) / 1000
}

export default async (): Promise<void> => {
  const vault = { [`${NOTE}.md`]: fs.readFileSync(path.join(ROOT, "examples", "vault", `${NOTE}.md`), "utf8") }
  const layer = Layer.mergeAll(CorpusArxiv.layer(), RecordedOpenAlex.layer(), LocalJudge.layer, ArxivTermStats.layer, InMemoryVault.layer(vault)).pipe(
    Layer.provide(NodeContext.layer)
  )
  const options = new CompanionOptions({ maxResults: 50 })
  const measured = await Effect.runPromise(
    Effect.gen(function*() {
      const local: Array<number> = []
      const localCpu: Array<number> = []
      const runs: Array<Effect.Effect.Success<ReturnType<typeof runCompanion>>> = []
      for (let i = 0; i < RUNS; i++) {
        const at: Record<string, number> = {}
        const cpu: Record<string, number> = {}
        const mark = (tag: string) => Effect.sync(() => {
          at[tag] = performance.now()
          cpu[tag] = cpuMs()
        })
        runs.push(yield* runCompanion(PROMPT, options, { onProgress: (e) => mark(e._tag) }))
        local.push(at["Written"]! - at["Judged"]!)
        localCpu.push(cpu["Written"]! - cpu["Judged"]!)
      }
      return { local, localCpu, report: runs[runs.length - 1]! }
    }).pipe(Effect.provide(layer))
  )
  const { local, localCpu, report } = measured
  const summary = (xs: ReadonlyArray<number>) =>
    `first ${ms(xs[0]!)}, then median ${ms(quantile(xs.slice(1), 0.5))}, p90 ${ms(quantile(xs.slice(1), 0.9))}`
  console.log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(", ")} on ${os.cpus().length} CPUs`)
  console.log(
    `whole run, 50 candidates (${report.candidates.length} judged, ${report.survivors.length} kept; ${RUNS - 1} reruns, written: ${report.written.status}), "Judged" → "Written":\n` +
      `  wall ${summary(local)}\n  CPU  ${summary(localCpu)}`
  )

  // the heaviest note: all 50 candidates kept
  const kept = report.candidates.map((c) => new ScoredPaper({ ...c, decision: { kept: true, kind: "kept", reasons: c.decision.reasons } }))
  const keywords = report.keywords
  const pure: Array<number> = []
  const pureCpu: Array<number> = []
  let size = 0
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now()
    const startedCpu = cpuMs()
    const summaries = kept.map((k) => abstractSummary(k, keywords))
    const taught = teaching({
      sourceTitle: NOTE,
      kept,
      references: new Map(),
      works: new Map(),
      impacts: new Map(),
      foundations: report.foundations,
      summaries
    })
    const input: RelatedNoteInput = {
      source: report.note,
      keywords,
      query: report.query,
      options,
      judge: "local",
      impactSource: undefined,
      candidates: kept,
      survivors: kept,
      foundations: report.foundations,
      teaching: taught,
      vault: vaultIndex([report.note], [relatedTitle(NOTE)])
    }
    const note = composeNote(input, "2026-11-30T00:00:00Z")
    const merged = mergeNote(note, input, "2026-12-01T00:00:00Z")
    pure.push(performance.now() - started)
    pureCpu.push(cpuMs() - startedCpu)
    size = note.length
    if (merged._tag !== "Unchanged") throw new Error(`a rerun of the same note should be Unchanged, got ${merged._tag}`)
  }
  console.log(
    `composition alone, 50 kept papers (note ${(size / 1024).toFixed(0)} KB; ${RUNS - 1} repeats):\n` +
      `  wall ${summary(pure)}\n  CPU  ${summary(pureCpu)}\ngoal: under 100 ms`
  )
}
