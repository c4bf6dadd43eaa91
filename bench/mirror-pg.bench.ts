/**
 * `npm run bench -- mirror-pg`: the lab's mirror on PostgreSQL at scale, on a
 * real server started here (test/support/postgres.ts; fsync on). The recorded
 * corpus's 36,421 real records are repeated under new ids until the index
 * holds MIRROR_PG_BENCH_RECORDS records (default 100,000), committed through
 * the harvester's store in pages of 2,500 (each page one transaction); then
 * build time, the vacuum a sync ends with, the tables' size, and the companion's concept query (an OR of
 * 20 terms + title clauses, the ML categories, a pool of 1000), a title search
 * and an id lookup, each in a new process: 5 runs one after the other, then
 * 10 runs at once (a lab's users), medians and the slowest, with the load.
 * The concept query is also read ranked whole by ts_rank_cd (the ranking
 * before PgIndex's two steps), 5 runs in turn with the others, and the two
 * rankings' first 10 and 100 are compared.
 */
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { loadavg } from "node:os"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { gunzipSync } from "node:zlib"
import type { OaiEntry } from "../src/adapters/arxiv/mirror/OaiPage.js"
import { openWriter } from "../src/adapters/arxiv/mirror/PgIndex.js"
import * as PgMirror from "../src/adapters/arxiv/mirror/PgMirror.js"
import { postgresUnavailable, startPostgres } from "../test/support/postgres.js"

const TARGET = Number(process.env["MIRROR_PG_BENCH_RECORDS"] ?? 100_000)
const PAGE = 2_500
const root = join(import.meta.dirname, "..")
const run = promisify(execFile)

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`
const load = () => loadavg().map((l) => l.toFixed(1)).join(" ")

type Record = Extract<OaiEntry, { _tag: "Record" }>["record"]

/** The corpus's records, as the harvester hands them to the index (as bench/mirror.bench.ts reads them). */
const corpus = (): Array<Record> => {
  const lines = gunzipSync(readFileSync(join(root, "fixtures", "offline", "arxiv-corpus.tsv.gz"))).toString("utf8").split("\n").slice(1)
  return lines.filter((l) => l !== "").map((l) => {
    const [id, published, updated, categories, doi, journalRef, comments, authors, title, abstract] = l.split("\t")
    return {
      id: id!,
      published: published!,
      updated: updated === "" ? undefined : updated,
      categories: categories!.split(" "),
      doi: doi === "" ? undefined : doi,
      journalRef: journalRef === "" ? undefined : journalRef,
      comments: comments === "" ? undefined : comments,
      authors: authors!.split("; "),
      title: title!,
      abstract: abstract!,
      datestamp: updated === "" ? published! : updated!
    }
  })
}

const CONCEPT =
  '(all:"attention mechanism" OR all:transformer OR all:"self attention" OR all:encoder OR all:decoder OR all:"machine translation" ' +
  'OR all:sequence OR all:recurrent OR all:"neural network" OR all:bleu OR all:alignment OR all:softmax OR all:embedding ' +
  'OR all:"multi head" OR all:positional OR all:layer OR all:residual OR all:convolutional OR all:language OR all:model ' +
  'OR ti:attention OR ti:transformer)'

interface Reading {
  readonly connectMillis: number
  readonly queryMillis: number
  readonly titleMillis: number
  readonly idMillis: number
  readonly total: number
  /** The concept query's first 100 ids. */
  readonly top: ReadonlyArray<string>
  readonly maxRssMiB: number
}

/** A reading in a new process; `whole` ranks the concept query by ts_rank_cd over every match, `narrowed` narrows it first. */
const reader = async (url: string, mode?: "whole" | "narrowed"): Promise<Reading> => {
  const args = ["--import", "tsx", join(import.meta.dirname, "mirror-pg-child.ts"), url, CONCEPT, ...(mode === undefined ? [] : [mode])]
  const { stdout } = await run(process.execPath, args, {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024
  })
  return JSON.parse(stdout) as Reading
}

export default async () => {
  const missing = postgresUnavailable()
  if (missing !== undefined) {
    console.log(`skipped: ${missing}`)
    return
  }
  const server = await startPostgres({ fsync: true })
  try {
    const url = server.createDatabase("bench")
    const records = corpus()
    console.log(`load average before the build: ${load()}`)
    const started = performance.now()
    let n = 0
    let buildMillis = 0
    let tidyMillis = 0
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const store = yield* openWriter(url)
      let round = 0
      while (n < TARGET) {
        const page: Array<OaiEntry> = []
        for (let i = 0; i < PAGE && n < TARGET; i++, n++) {
          const r = records[n % records.length]!
          const id = round === 0 ? r.id : `${r.id}.${round}`
          page.push({ _tag: "Record", record: { ...r, id: id.replace(/^(\d{4})\.(\d+)\.(\d+)$/, (_, a, b, c) => `${a}.${b}${c}`) } })
          if ((n + 1) % records.length === 0) round++
        }
        yield* store.commitPage(page, () => true, { key: "bench|", set: "bench", categories: [], pages: Math.ceil(n / PAGE), records: n })
      }
      buildMillis = performance.now() - started
      // as a sync ends (PgIndex's `tidy`: VACUUM (ANALYZE) of the papers table)
      const tidying = store.tidy === undefined ? undefined : yield* store.tidy(n)
      if (tidying !== undefined) yield* tidying.run
      tidyMillis = performance.now() - started - buildMillis
    })))
    const status = await Effect.runPromise(PgMirror.status(url))
    console.log(`records: ${status.records.toLocaleString("en-US")} (the corpus's ${records.length.toLocaleString("en-US")} repeated under new ids)`)
    console.log(`build: ${(buildMillis / 1000).toFixed(0)} s (${Math.round(n / (buildMillis / 1000)).toLocaleString("en-US")} records/s, pages of ${PAGE}, one transaction each)`)
    console.log(`vacuum and analyse as a sync ends: ${(tidyMillis / 1000).toFixed(1)} s`)
    console.log(`size in the database (tables, TOAST and indexes): ${(status.sizeBytes / 1024 ** 2).toFixed(0)} MB (${Math.round(status.sizeBytes / n)} bytes a record)`)
    console.log(`load average before the readings: ${load()}`)
    // before (ts_rank_cd over every match), the two steps (the default), and the two steps over the OR narrowed to
    // its rarest alternatives (an option), in turn, so all three see the same load
    const whole: Array<Reading> = []
    const narrowed: Array<Reading> = []
    const serial: Array<Reading> = []
    for (let i = 0; i < 5; i++) {
      const order = [["whole", whole], ["narrowed", narrowed], [undefined, serial]] as const
      for (const [mode, into] of i % 2 === 0 ? order : [...order].reverse()) into.push(await reader(url, mode))
    }
    const line = (label: string, rs: ReadonlyArray<Reading>, pick: (r: Reading) => number) =>
      `${label}: median ${ms(median(rs.map(pick)))}, slowest ${ms(Math.max(...rs.map(pick)))}`
    const shared = (rs: ReadonlyArray<Reading>, k: number) => rs[0]!.top.slice(0, k).filter((id) => whole[0]!.top.slice(0, k).includes(id)).length
    console.log(`one run at a time (5 runs of each, each a new process, in turn; load average after: ${load()}):`)
    console.log(`  ${line("connect + schema check + first lookup", serial, (r) => r.connectMillis)}`)
    console.log(
      `  ${line(`concept query (OR of 20 terms + 2 title clauses, ML categories, pool 1000; ${serial[0]!.total.toLocaleString("en-US")} matches), ranked in two steps`, serial, (r) => r.queryMillis)} (goal ≤ 150 ms)`
    )
    console.log(`  ${line("the same ranked whole by ts_rank_cd (before)", whole, (r) => r.queryMillis)}`)
    console.log(
      `  ${line("the same narrowed to its rarest alternatives (8,000 papers), then in two steps", narrowed, (r) => r.queryMillis)}; ` +
        `total estimated ${narrowed[0]!.total.toLocaleString("en-US")}`
    )
    console.log(`  of the whole ranking's first 10 / 100: ${shared(serial, 10)} / ${shared(serial, 100)} in two steps, ${shared(narrowed, 10)} / ${shared(narrowed, 100)} narrowed`)
    console.log(`  ${line("title search (ti:attention AND ti:translation, 1000)", serial, (r) => r.titleMillis)}`)
    console.log(`  ${line("id lookup (50 ids)", serial, (r) => r.idMillis)}`)
    console.log(`  peak RSS of a reading process: median ${median(serial.map((r) => r.maxRssMiB)).toFixed(0)} MiB`)
    const wall = performance.now()
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => reader(url)))
    const wallMillis = performance.now() - wall
    console.log(`10 runs at once (10 processes, 10 connections; load average after: ${load()}):`)
    console.log(`  ${line("concept query", concurrent, (r) => r.queryMillis)}`)
    console.log(`  ${line("title search", concurrent, (r) => r.titleMillis)}`)
    console.log(`  ${line("id lookup", concurrent, (r) => r.idMillis)}`)
    console.log(`  all 10 processes, start to end: ${(wallMillis / 1000).toFixed(1)} s`)
  } finally {
    server.stop()
  }
}
