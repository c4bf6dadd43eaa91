/**
 * `MIRROR_BENCH_DIR=DIR npm run bench -- impact-lists`: a prototype measured, not shipped (README, "A local mirror
 * of arXiv"): the concept query of bench/mirror.bench.ts over per-alternative impact-ordered lists of the top K
 * papers (IMPACT_LISTS_K, default 2000,5000,10000), against FTS5's whole ranking, on the index in DIR (a mirror bench
 * index kept by MIRROR_BENCH_DIR, or the recorded corpus's: fixtures/offline/arxiv-corpus), in a fresh process each.
 */
import { execFileSync } from "node:child_process"
import { loadavg } from "node:os"
import { join } from "node:path"
import { CONCEPT } from "./mirror.bench.js"

export default async () => {
  const dir = process.env["MIRROR_BENCH_DIR"] ?? join(import.meta.dirname, "..", "fixtures", "offline", "arxiv-corpus")
  const ks = (process.env["IMPACT_LISTS_K"] ?? "2000,5000,10000").split(",").map(Number)
  console.log(`index: ${dir}; load average ${loadavg().map((l) => l.toFixed(1)).join(", ")}`)
  for (const k of ks) {
    const r = JSON.parse(execFileSync(process.execPath, ["--import", "tsx", join(import.meta.dirname, "impact-lists-child.ts"), dir, String(k), CONCEPT], { encoding: "utf8" })) as Record<
      string,
      number
    >
    console.log(
      `K = ${k}: the lists read and summed in ${r["listsMillis"]!.toFixed(0)} ms, with the 1000 papers read ${r["queryMillis"]!.toFixed(0)} ms ` +
        `(CPU ${r["queryCpuMillis"]!.toFixed(0)} ms); the whole ranking by FTS5 ${r["wholeMillis"]!.toFixed(0)} ms (CPU ${r["wholeCpuMillis"]!.toFixed(0)} ms); ` +
        `the lists' pool holds ${r["held10"]}/10, ${r["held100"]}/100, ${r["held1000"]}/1000 of the whole ranking's first, ` +
        `${r["sameOrder10"]} of its first 10 in place, ${r["titles20"]}/20 and ${r["titles100"]}/${r["wholeTitles"]} of its first distinct titles; building the ${r["alternatives"]} lists ${(r["buildMillis"]! / 1000).toFixed(1)} s; ` +
        `peak RSS ${r["maxRssMiB"]!.toFixed(0)} MiB (load ${loadavg()[0]!.toFixed(1)})`
    )
  }
}
