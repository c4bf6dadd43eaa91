/**
 * Start-up time, memory and size (issue 14), measured on the BUILT package
 * (`npm run build` first), each figure the median of RUNS runs after one
 * warm-up, printed beside its goal with the machine's load average (this
 * machine is shared: quote medians, and read them against the load).
 *
 * - `arxiv-companion --help`: wall time of the process;
 * - `import("arxiv-companion")`: time of the import inside a fresh process;
 * - the MCP server (stdio, offline): spawn → `initialize` answer, then the
 *   first answer to a tool call without I/O (`list_categories`) and to a
 *   first search, each timed from the `initialize` answer;
 * - offline `run` of the demo note: wall time and peak RSS of the process;
 * - the offline corpus (a fresh process each): load, a query of new terms,
 *   the same query again;
 * - `runCompanion` called twice in one process (offline);
 * - the package: `npm pack` size, dist size and the source maps' share.
 *
 * Wall times on a loaded machine stretch with the load; the CPU time of a
 * process (user + system) stretches much less, so it is printed beside the
 * wall time where the goal is a wall time.
 *
 * `npm run bench -- footprint` runs this file alone; BENCH_RUNS=n sets the runs.
 * A baseline is measured in the same run, sample for sample in turn with this
 * checkout, so both see the same load: its medians stand in a column of their
 * own. By default it is BASELINE_COMMIT, the commit before the start-up work,
 * extracted with `git archive` into a cache directory and built there once;
 * BENCH_BASELINE=<commit> picks another commit, BENCH_BASELINE=<dir> a built
 * checkout, BENCH_BASELINE=none none.
 *
 * The figures are also written to bench/results/footprint.json, from which
 * `npm run readme:figures` rewrites the README's marked figures.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { builtTree, git, ROOT } from "./baseline.js"

/** The commit before the start-up and size work of issue 25: the default baseline. */
const BASELINE_COMMIT = "2251ffd"
const RESULTS = path.join(ROOT, "bench", "results", "footprint.json")

const baselineOf = (spec: string | undefined): string | undefined => {
  const s = spec === undefined || spec === "" ? BASELINE_COMMIT : spec
  if (s === "none") return undefined
  return builtTree(s)
}
const BASELINE = baselineOf(process.env["BENCH_BASELINE"])
/** A baseline's commit when it is a git checkout, else its directory's name (a `git archive` copy names its commit). */
const baselineName = (dir: string): string => {
  const r = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: dir, encoding: "utf8" })
  return r.status === 0 && fs.existsSync(path.join(dir, ".git")) ? `${r.stdout.trim()} (${dir})` : path.basename(dir)
}
/** The checkouts measured: this one, then the baseline if there is one. */
const TREES: ReadonlyArray<string> = BASELINE === undefined ? [ROOT] : [ROOT, BASELINE]
const dist = (root: string) => path.join(root, "dist")
const CHILD = path.join(ROOT, "bench", "footprint-child.mjs")
const PEAK_RSS = path.join(ROOT, "bench", "peak-rss.mjs")
const RUNS = Number(process.env["BENCH_RUNS"] ?? 7)
const PROMPT = "Find papers related to my 'Transformers Concept Note'"

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

interface Row {
  /** A stable key, for the README's marked figures. */
  readonly id: string
  readonly figure: string
  readonly value: string
  readonly baseline: string
  readonly goal: string
  readonly met: boolean | undefined
  readonly load: string
  /** The medians as numbers (this checkout, the baseline), in the row's unit. */
  readonly median?: number | undefined
  readonly baselineMedian?: number | undefined
}

const rows: Array<Row> = []
const load = () => os.loadavg()[0]!.toFixed(1)

/**
 * `RUNS` samples of each checkout (after one warm-up each), the checkouts in
 * turn sample by sample; `samples` are this checkout's, `baseline` the baseline's.
 */
const measure = async <A>(
  sample: (root: string) => Promise<A>
): Promise<{ samples: Array<A>; baseline: Array<A>; load: string }> => {
  const before = load()
  for (const root of TREES) await sample(root)
  const byTree: Array<Array<A>> = TREES.map(() => [])
  for (let i = 0; i < RUNS; i++) {
    for (const [t, root] of TREES.entries()) byTree[t]!.push(await sample(root))
  }
  return { samples: byTree[0]!, baseline: byTree[1] ?? [], load: `${before}→${load()}` }
}

const ms = (x: number) => `${x.toFixed(0)} ms`
const spread = (xs: ReadonlyArray<number>, unit: (x: number) => string) =>
  `${unit(median(xs))} (${unit(Math.min(...xs))}–${unit(Math.max(...xs))}, n=${xs.length})`

const row = <A>(
  id: string,
  figure: string,
  m: { readonly samples: ReadonlyArray<A>; readonly baseline: ReadonlyArray<A>; readonly load: string },
  pick: (a: A) => number,
  unit: (x: number) => string,
  goal: number | undefined
) => {
  const xs = m.samples.map(pick)
  console.error(`measured: ${figure}: median ${unit(median(xs))}`)
  rows.push({
    id,
    figure,
    value: spread(xs, unit),
    baseline: m.baseline.length === 0 ? "" : spread(m.baseline.map(pick), unit),
    goal: goal === undefined ? "—" : `≤ ${unit(goal)}`,
    met: goal === undefined ? undefined : median(xs) <= goal,
    load: m.load,
    median: median(xs),
    baselineMedian: m.baseline.length === 0 ? undefined : median(m.baseline.map(pick))
  })
}

/** Run a process to its end; wall time, CPU time, peak RSS (KiB), stdout. */
const runProcess = (
  args: ReadonlyArray<string>,
  root = ROOT
): Promise<{ wallMs: number; cpuMs: number; rssKb: number; stdout: string }> =>
  new Promise((resolve, reject) => {
    const rssFile = path.join(os.tmpdir(), `footprint-rss-${process.pid}-${Math.random().toString(36).slice(2)}`)
    const t0 = performance.now()
    const child = spawn(process.execPath, ["--import", PEAK_RSS, ...args], {
      cwd: root,
      env: { ...process.env, BENCH_RSS_FILE: rssFile, BENCH_ROOT: root, ARXIV_COMPANION_OFFLINE: "" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")))
    child.on("error", reject)
    child.on("close", (code) => {
      const wallMs = performance.now() - t0
      const usage = fs.existsSync(rssFile)
        ? JSON.parse(fs.readFileSync(rssFile, "utf8")) as { maxRssKb: number; cpuMs: number }
        : { maxRssKb: NaN, cpuMs: NaN }
      fs.rmSync(rssFile, { force: true })
      if (code !== 0) reject(new Error(`${args.join(" ")} exited ${code}: ${stderr.trim()}`))
      else resolve({ wallMs, cpuMs: usage.cpuMs, rssKb: usage.maxRssKb, stdout })
    })
  })

const lastJson = <A>(stdout: string): A => JSON.parse(stdout.trim().split("\n").pop()!) as A

/** A fresh copy of the example vault (this checkout's, for every checkout measured). */
const freshVault = (): { dir: string; vault: string } => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "footprint-vault-"))
  const vault = path.join(dir, "vault")
  fs.cpSync(path.join(ROOT, "examples", "vault"), vault, { recursive: true })
  return { dir, vault }
}

/** MCP over stdio: spawn → initialize answer; then a tool call without I/O, and a first search. */
const mcpStart = (root: string): Promise<{ initMs: number; toolMs: number; searchMs: number }> =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, [path.join(dist(root), "mcp.js"), "--offline"], { cwd: root, stdio: ["pipe", "pipe", "ignore"] })
    const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + "\n")
    let buffer = ""
    let initAt = 0
    let toolMs = 0
    child.stdout.on("data", (d: Buffer) => {
      buffer += d.toString("utf8")
      let nl: number
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const message = JSON.parse(buffer.slice(0, nl)) as { id?: number; result?: { isError?: boolean } }
        buffer = buffer.slice(nl + 1)
        if (message.id === 1) {
          initAt = performance.now()
          send({ jsonrpc: "2.0", method: "notifications/initialized" })
          send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_categories", arguments: { group: "cs" } } })
        } else if (message.id === 2) {
          toolMs = performance.now() - initAt
          if (message.result?.isError === true) reject(new Error("list_categories failed"))
          send({
            jsonrpc: "2.0",
            id: 3,
            method: "tools/call",
            params: { name: "search_arxiv_papers", arguments: { query: "attention translation", max_results: 10 } }
          })
        } else if (message.id === 3) {
          const searchMs = performance.now() - initAt
          child.kill()
          if (message.result?.isError === true) reject(new Error("search_arxiv_papers failed"))
          resolve({ initMs: initAt - t0, toolMs, searchMs })
        }
      }
    })
    child.on("error", reject)
    // settled already when it was killed after its answers; else it died on the way
    child.on("exit", (code, signal) => reject(new Error(`${root}/dist/mcp.js exited (${code ?? signal}) before its answers`)))
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } }
    })
  })

/** The `tools/list` answer of a checkout's MCP bin (offline): its tools and its length in characters. */
const toolsList = (root: string): Promise<{ tools: number; chars: number }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(dist(root), "mcp.js"), "--offline"], { cwd: root, stdio: ["pipe", "pipe", "ignore"] })
    const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + "\n")
    let buffer = ""
    child.stdout.on("data", (d: Buffer) => {
      buffer += d.toString("utf8")
      let nl: number
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const message = JSON.parse(buffer.slice(0, nl)) as { id?: number; result?: { tools: Array<unknown> } }
        buffer = buffer.slice(nl + 1)
        if (message.id === 1) {
          send({ jsonrpc: "2.0", method: "notifications/initialized" })
          send({ jsonrpc: "2.0", id: 2, method: "tools/list" })
        } else if (message.id === 2) {
          child.kill()
          resolve({ tools: message.result!.tools.length, chars: JSON.stringify(message.result).length })
        }
      }
    })
    child.on("error", reject)
    child.on("exit", (code, signal) => reject(new Error(`${root}/dist/mcp.js exited (${code ?? signal}) before tools/list`)))
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } }
    })
  })

const sizeOf = (dir: string, pick: (f: string) => boolean): number =>
  fs.readdirSync(dir, { withFileTypes: true }).reduce((n, e) => {
    const full = path.join(dir, e.name)
    return n + (e.isDirectory() ? sizeOf(full, pick) : pick(e.name) ? fs.statSync(full).size : 0)
  }, 0)

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`

export default async function footprintBench(): Promise<void> {
  for (const root of TREES) {
    if (!fs.existsSync(path.join(dist(root), "cli.js"))) {
      console.log(`${dist(root)} is missing: run \`npm run build\` there first`)
      process.exitCode = 1
      return
    }
  }
  const mib = (x: number) => `${x.toFixed(0)} MiB`

  // bare Node, for reference
  const bare = await measure((root) => runProcess(["-e", "0"], root))
  row("bare-wall", "bare `node -e 0` wall (reference)", bare, (s) => s.wallMs, ms, undefined)
  row("bare-cpu", "bare `node -e 0` CPU time (reference)", bare, (s) => s.cpuMs, ms, undefined)

  const help = await measure((root) => runProcess([path.join(dist(root), "cli.js"), "--help"], root))
  row("help-wall", "`arxiv-companion --help` wall", help, (s) => s.wallMs, ms, 250)
  row("help-cpu", "`arxiv-companion --help` CPU time", help, (s) => s.cpuMs, ms, undefined)

  const imp = await measure((root) => runProcess([CHILD, "import"], root))
  row("import", "`import(\"arxiv-companion\")`", imp, (s) => lastJson<{ importMs: number }>(s.stdout).importMs, ms, 300)

  const mcp = await measure(mcpStart)
  row("mcp-init", "MCP: spawn → initialize answer", mcp, (s) => s.initMs, ms, undefined)
  row("mcp-first-tool", "MCP: first tool answer after initialize (list_categories)", mcp, (s) => s.toolMs, ms, 300)
  row("mcp-first-search", "MCP: first search answer after initialize (offline)", mcp, (s) => s.searchMs, ms, undefined)

  const offline = await measure(async (root) => {
    const { dir, vault } = freshVault()
    try {
      return await runProcess([path.join(dist(root), "cli.js"), "run", PROMPT, "--vault", vault, "--offline", "--json"], root)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
  row("run-wall", "offline `run` (demo note) wall", offline, (s) => s.wallMs, ms, 1000)
  row("run-cpu", "offline `run` (demo note) CPU time", offline, (s) => s.cpuMs, ms, undefined)
  row("run-rss", "offline `run` (demo note) peak RSS", offline, (s) => s.rssKb / 1024, mib, 200)

  type Corpus = { loadMs: number; newMs: Array<number>; repeatedMs: Array<number> }
  const corpus = await measure((root) => runProcess([CHILD, "corpus"], root))
  row("corpus-load", "offline corpus: load (first lookup)", corpus, (s) => lastJson<Corpus>(s.stdout).loadMs, ms, 150)
  row("corpus-new", "offline corpus: query of new terms (median per process)", corpus, (s) => median(lastJson<Corpus>(s.stdout).newMs), ms, 20)
  row("corpus-again", "offline corpus: same query again", corpus, (s) => median(lastJson<Corpus>(s.stdout).repeatedMs), (x) => `${x.toFixed(1)} ms`, 2)

  const twice = await measure(async (root) => {
    const { dir, vault } = freshVault()
    try {
      return await runProcess([CHILD, "twice", vault, PROMPT], root)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
  type Twice = { firstMs: number; secondMs: number }
  row("twice-first", "`runCompanion` offline, first call in a process", twice, (s) => lastJson<Twice>(s.stdout).firstMs, ms, undefined)
  row("twice-second", "`runCompanion` offline, second call in the same process", twice, (s) => lastJson<Twice>(s.stdout).secondMs, ms, undefined)

  // the package as `npm pack` would publish it
  const sizes = TREES.map((root) => {
    const pack = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" })
    const packed = (JSON.parse(pack.stdout) as Array<{ size: number; unpackedSize: number; entryCount: number }>)[0]!
    const all = sizeOf(dist(root), () => true)
    const maps = sizeOf(dist(root), (f) => f.endsWith(".map"))
    return {
      packed: packed.size,
      maps,
      pack: `${mb(packed.size)} / ${mb(packed.unpackedSize)} (${packed.entryCount} files)`,
      dist: `${mb(all)}, maps ${mb(maps)} (${((100 * maps) / all).toFixed(0)} %)`
    }
  })
  rows.push({
    id: "package",
    figure: "package (`npm pack`): packed / unpacked",
    value: sizes[0]!.pack,
    baseline: sizes[1]?.pack ?? "",
    goal: "known and justified (README)",
    met: undefined,
    load: "—",
    median: sizes[0]!.packed,
    baselineMedian: sizes[1]?.packed
  })
  rows.push({
    id: "dist",
    figure: "dist/: size, of which source maps",
    value: sizes[0]!.dist,
    baseline: sizes[1]?.dist ?? "",
    goal: "no source maps",
    met: sizes[0]!.maps === 0,
    load: "—"
  })

  // tools/list: deterministic, one answer per checkout
  const lists = await Promise.all(TREES.map(toolsList))
  const listText = (l: { tools: number; chars: number }) =>
    `${l.tools} tools, ${l.chars.toLocaleString("en-US")} characters (${Math.round(l.chars / l.tools)} a tool)`
  rows.push({
    id: "tools-list",
    figure: "MCP `tools/list` (offline)",
    value: listText(lists[0]!),
    baseline: lists[1] === undefined ? "" : listText(lists[1]),
    goal: "≤ 850 characters a tool",
    met: lists[0]!.chars / lists[0]!.tools <= 850,
    load: "—",
    median: lists[0]!.chars,
    baselineMedian: lists[1]?.chars
  })

  console.log(`node ${process.version}, ${os.cpus().length} CPUs, ${RUNS} runs per figure after one warm-up; ` +
    `load average (1 min) before→after each figure` +
    (BASELINE === undefined ? "" : `; baseline: ${BASELINE}, measured in turn with this checkout`))
  const header = ["figure", "median (min–max, n)", ...(BASELINE === undefined ? [] : ["baseline median (min–max, n)"]), "goal", "met", "load"]
  const cells = rows.map((r) => [
    r.figure,
    r.value,
    ...(BASELINE === undefined ? [] : [r.baseline]),
    r.goal,
    r.met === undefined ? "" : r.met ? "yes" : "no",
    r.load
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)))
  const line = (cs: ReadonlyArray<string>) => `| ${cs.map((x, i) => x.padEnd(widths[i]!)).join(" | ")} |`
  console.log(line(header))
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`)
  for (const r of cells) console.log(line(r))

  fs.mkdirSync(path.dirname(RESULTS), { recursive: true })
  fs.writeFileSync(RESULTS, JSON.stringify({
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    runs: RUNS,
    commit: git("rev-parse", "--short", "HEAD"),
    baseline: BASELINE === undefined ? null : baselineName(BASELINE),
    rows,
    tools: lists[0],
    toolsBaseline: lists[1] ?? null
  }, null, 2) + "\n")
  console.log(`figures written to ${path.relative(ROOT, RESULTS)} (npm run readme:figures puts them in the README)`)
}
