/**
 * Preloaded into a benched process (`node --import ./bench/peak-rss.mjs ...`):
 * when it exits, writes its peak resident set size (KiB) and the CPU time it
 * used (user + system, ms) as JSON to the file named by BENCH_RSS_FILE.
 */
import { writeFileSync } from "node:fs"

const file = process.env["BENCH_RSS_FILE"]
if (file !== undefined && file !== "") {
  process.on("exit", () => {
    const usage = process.resourceUsage()
    writeFileSync(file, JSON.stringify({ maxRssKb: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }))
  })
}
