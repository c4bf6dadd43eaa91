/**
 * One reader of the PostgreSQL mirror bench (bench/mirror-pg.bench.ts), as a
 * user's run reads it: a new process connects, runs the companion's concept
 * query, a title search and an id lookup through the ArxivPort adapter.
 * A third argument reads the concept query otherwise: `whole` ranks every
 * match by ts_rank_cd (before the two steps), `narrowed` narrows the OR to
 * its rarest alternatives (8,000 papers) first.
 */
import { Effect, Either } from "effect"
import * as PgArxiv from "../src/adapters/arxiv/mirror/PgArxiv.js"
import { readQuery } from "../src/adapters/query/queryParser.js"
import { ArxivPort } from "../src/core/ports/ArxivPort.js"

const [url, typed, mode] = process.argv.slice(2) as [string, string, "whole" | "narrowed" | undefined]
// `whole`: every match ranked by ts_rank_cd (before the two steps); `narrowed`: the OR narrowed to 8,000 papers first
const rankPool = mode === "whole" ? 0 : undefined
const narrowTo = mode === "narrowed" ? 8_000 : undefined
// the port takes the structured query: the concept query and the title search read as typed
const query = Either.getOrThrow(readQuery(typed))
const titled = Either.getOrThrow(readQuery("ti:attention AND ti:translation"))
const ML = ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"]
const timed = <A, E, R>(e: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const t = performance.now()
    const a = yield* e
    return [a, performance.now() - t] as const
  })
const out = await Effect.runPromise(
  Effect.gen(function*() {
    const arxiv = yield* ArxivPort
    // the first statement opens the connection and checks the schema: what a run pays once
    const [, connectMillis] = yield* timed(arxiv.getPapers(["1706.03762"]))
    const [r, queryMillis] = yield* timed(arxiv.search({ query, categories: ML, maxResults: 1000 }))
    const [, titleMillis] = yield* timed(arxiv.search({ query: titled, categories: ML, maxResults: 1000 }))
    // the corpus's own ids (the copies' made-up ids are not arXiv ids the port accepts)
    const real = r.papers.map((p) => p.arxivId).filter((id) => /^\d{4}\.\d{4,5}$|^[a-z-]+(\.[A-Z]{2})?\/\d{7}$/.test(id))
    const [, idMillis] = yield* timed(arxiv.getPapers(real.slice(0, 50)))
    return { connectMillis, queryMillis, titleMillis, idMillis, total: r.total, top: r.papers.slice(0, 100).map((p) => p.arxivId) }
  }).pipe(Effect.provide(PgArxiv.layer({ url, connections: 1, rankPool, narrowTo })))
)
process.stdout.write(JSON.stringify({ ...out, maxRssMiB: process.resourceUsage().maxRSS / 1024 }))
