/**
 * Puts the figures of the last `npm run bench -- footprint` (bench/results/footprint.json)
 * into the README, between markers, so no figure there is typed by hand:
 *
 *   <!-- bench:ID -->…<!-- /bench -->
 *
 * ID is a row id of the bench (its median, in the row's unit: `run-wall`, `mcp-first-tool`, …),
 * `tools-list` ("14 tools, 13,488 characters (963 a tool)"), or `footprint-table` (the whole
 * table, with the baseline, goals, load and date).
 *
 *   node --import tsx scripts/readme-figures.ts [--check]
 *
 * `--check` changes nothing and exits 1 when the README is not what the JSON gives.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const ROOT = join(import.meta.dirname, "..")
const README = join(ROOT, "README.md")

interface Row {
  readonly id: string
  readonly figure: string
  readonly value: string
  readonly baseline: string
  readonly goal: string
  readonly met: boolean | undefined
  readonly load: string
  readonly median?: number
}
interface Results {
  readonly date: string
  readonly node: string
  readonly cpus: number
  readonly runs: number
  readonly commit: string
  readonly baseline: string | null
  readonly rows: ReadonlyArray<Row>
  readonly tools: { readonly tools: number; readonly chars: number }
}

const results = JSON.parse(readFileSync(join(ROOT, "bench", "results", "footprint.json"), "utf8")) as Results

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

const table = (): string => {
  const withBaseline = results.baseline !== null
  const head = ["figure", "median (min–max, n)", ...(withBaseline ? ["baseline, same run"] : []), "goal", "met", "load (1 min)"]
  const lines = [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...results.rows.map((r) =>
      `| ${[r.figure, r.value, ...(withBaseline ? [r.baseline] : []), r.goal, r.met === undefined ? "" : r.met ? "yes" : "no", r.load].join(" | ")} |`
    )
  ]
  const note = `Measured ${results.date.slice(0, 10)} at commit \`${results.commit}\` (Node ${results.node}, ${results.cpus} CPUs shared with other work; ` +
    `${results.runs} runs per figure after one warm-up)` +
    (withBaseline ? `; the baseline is \`${results.baseline}\`, measured in the same run, in turn with it.` : ".")
  return `${note}\n\n${lines.join("\n")}\n`
}

const value = (id: string): string => {
  if (id === "footprint-table") return `\n${table()}`
  if (id === "tools-list") {
    const { tools, chars } = results.tools
    return `${tools} tools, ${chars.toLocaleString("en-US")} characters (${Math.round(chars / tools)} a tool)`
  }
  const row = results.rows.find((r) => r.id === id)
  if (row === undefined || row.median === undefined) throw new Error(`README marks bench:${id}, which bench/results/footprint.json does not have`)
  return id.endsWith("-rss") ? `${row.median.toFixed(0)} MiB` : row.median >= 1000 ? seconds(row.median) : `${row.median.toFixed(0)} ms`
}

const before = readFileSync(README, "utf8")
const after = before.replace(/<!-- bench:([\w-]+) -->[\s\S]*?<!-- \/bench -->/g, (_, id: string) => `<!-- bench:${id} -->${value(id)}<!-- /bench -->`)
if (process.argv.includes("--check")) {
  if (after !== before) {
    console.error("README.md's bench figures differ from bench/results/footprint.json: run npm run readme:figures")
    process.exit(1)
  }
} else if (after !== before) {
  writeFileSync(README, after)
  console.error("README.md: bench figures updated")
}
