/**
 * One process of `judge.bench.ts`: the local judge of the checkout at BENCH_ROOT (its sources, through tsx) judges a
 * pool of papers against a concept, both read from the JSON file named on the command line, RUNS times; the first
 * call is what a CLI run pays (tables read, code not yet optimised). Prints one JSON line: CPU and wall time of each
 * call, and a digest of the judgements (the same digest: the same judgements, to the last digit).
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

interface Input {
  readonly concept: { readonly title: string; readonly text: string; readonly keywords: ReadonlyArray<string> }
  readonly papers: ReadonlyArray<{ readonly arxivId: string; readonly title: string; readonly abstract: string }>
}

const root = process.env["BENCH_ROOT"] ?? process.cwd()
const runs = Number(process.env["RUNS"] ?? 3)
const input = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as Input
const { Effect } = await import("effect")
const LocalJudge = (await import(pathToFileURL(path.join(root, "src", "adapters", "judge", "LocalJudge.ts")).href)) as
  typeof import("../src/adapters/judge/LocalJudge.js")
const judge = LocalJudge.makeWith()

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const calls: Array<{ cpuMs: number; wallMs: number }> = []
let digest = ""
for (let r = 0; r < runs; r++) {
  // a new text each call (a space more), so no call finds the texts of an earlier one tokenised
  const papers = input.papers.map((p) => ({ ...p, title: p.title + " ".repeat(r), abstract: p.abstract + " ".repeat(r) }))
  const c0 = cpuMs()
  const t0 = performance.now()
  const judgements = await Effect.runPromise(judge.judge(input.concept, papers))
  calls.push({ cpuMs: cpuMs() - c0, wallMs: performance.now() - t0 })
  if (r === 0) {
    digest = createHash("sha256")
      .update(JSON.stringify(judgements.map((j) => [j.arxivId, j.relevance, j.novelty, j.rationale])))
      .digest("hex")
      .slice(0, 16)
  }
}
process.stdout.write(JSON.stringify({ papers: input.papers.length, calls, digest }) + "\n")
