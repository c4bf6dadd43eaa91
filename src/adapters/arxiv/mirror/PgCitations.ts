/**
 * The citation counts of a lab's mirror on PostgreSQL (`mirror sync
 * --citations --to postgres://…`, read by `--citations mirror` with
 * `--arxiv postgres://…`): the table `arxiv_mirror.citations`, as the folder
 * mirror's `citations` table (MirrorIndex.ts). The writer holds the harvest's
 * advisory lock (one writer at a time, harvest or counts) and stores each
 * batch in one transaction; readers use a small pool.
 *
 * @since 0.4.0
 */
import { Effect, type Scope } from "effect"
import pg from "pg"
import { UpstreamUnavailable } from "../../../core/errors.js"
import { type CitationStatus, citationRow, type StoredCount } from "./MirrorIndex.js"
import { LOCK_KEYS, PG_SERVICE, pgFailure, redactUrl } from "./PgIndex.js"

const DDL = [
  `CREATE TABLE IF NOT EXISTS arxiv_mirror.citations(
     id text PRIMARY KEY,
     cited_by_count integer,
     counts_by_year jsonb,
     openalex_id text,
     referenced_works jsonb,
     publication_date text,
     fetched_at timestamptz NOT NULL
   )`,
  "CREATE INDEX IF NOT EXISTS citations_fetched ON arxiv_mirror.citations(fetched_at)",
  "CREATE INDEX IF NOT EXISTS citations_openalex ON arxiv_mirror.citations(openalex_id)"
]

export { redactUrl }

type Row = Record<string, unknown>
const num = (v: unknown): number => (typeof v === "number" ? v : typeof v === "string" || typeof v === "bigint" ? Number(v) : 0)
const iso = (v: unknown): string | undefined => (v instanceof Date ? v.toISOString() : typeof v === "string" ? v : undefined)

const countOf = (r: Row): StoredCount => ({
  id: String(r["id"]),
  citedByCount: r["cited_by_count"] === null || r["cited_by_count"] === undefined ? undefined : num(r["cited_by_count"]),
  countsByYear: (r["counts_by_year"] ?? undefined) as StoredCount["countsByYear"],
  openalexId: typeof r["openalex_id"] === "string" ? r["openalex_id"] : undefined,
  referencedWorks: (r["referenced_works"] ?? undefined) as StoredCount["referencedWorks"],
  publicationDate: typeof r["publication_date"] === "string" ? r["publication_date"] : undefined,
  fetchedAt: iso(r["fetched_at"]) ?? ""
})

/** What the counting needs of a mirror, whichever engine holds it. */
export interface CountStore {
  readonly due: (limit: number, staleBefore: string) => Effect.Effect<{ readonly ids: ReadonlyArray<string>; readonly due: number }, UpstreamUnavailable>
  readonly commit: (counts: ReadonlyArray<StoredCount>) => Effect.Effect<void, UpstreamUnavailable>
}

/** What `--citations mirror` reads of a mirror. */
export interface CountReader {
  readonly countsByIds: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, StoredCount>, UpstreamUnavailable>
  readonly countsByOpenAlexIds: (
    ids: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<StoredCount & { readonly title: string; readonly published: string }>, UpstreamUnavailable>
  readonly status: Effect.Effect<CitationStatus, UpstreamUnavailable>
  /** How many papers are due for counting: never counted, or counted before `staleBefore` (ISO). */
  readonly due: (staleBefore: string) => Effect.Effect<number, UpstreamUnavailable>
}

/** The counting writer of the mirror in `url`: the harvest's lock taken (else one line naming why), the table made. Closed with the scope. */
export const openCountWriter = (url: string): Effect.Effect<CountStore, UpstreamUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const where = redactUrl(url)
    const client = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const c = new pg.Client({ connectionString: url, application_name: `arxiv-companion mirror citations pid ${process.pid}` })
          c.on("error", () => undefined)
          await c.connect()
          return c
        },
        catch: pgFailure(url, "connecting")
      }),
      (c) => Effect.promise(() => c.end().catch(() => undefined))
    )
    const run = <A>(what: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: pgFailure(url, what) })
    const got = yield* run("taking the mirror's lock", async () => {
      const r = await client.query("SELECT pg_try_advisory_lock($1, $2) AS got", [LOCK_KEYS[0], LOCK_KEYS[1]])
      return (r.rows[0] as Row)["got"] === true
    })
    if (!got) {
      return yield* new UpstreamUnavailable({
        service: PG_SERVICE,
        reason: `a sync holds the mirror's lock in ${where}; one writer at a time: run the counts when it has ended`
      })
    }
    // the papers must be there: the table of a mirror never harvested is refused in one line (42P01)
    yield* run("opening the mirror", () => client.query("SELECT 1 FROM arxiv_mirror.papers LIMIT 1"))
    yield* run("creating the citations table", async () => {
      for (const statement of DDL) await client.query(statement)
    })
    return {
      due: (limit, staleBefore) =>
        run("reading the papers due for counting", async () => {
          const from = "FROM arxiv_mirror.papers p LEFT JOIN arxiv_mirror.citations c ON c.id = p.id WHERE c.id IS NULL OR c.fetched_at < $1"
          const [ids, due] = await Promise.all([
            client.query(`SELECT p.id AS id ${from} ORDER BY c.fetched_at IS NOT NULL, c.fetched_at, p.id LIMIT $2`, [staleBefore, limit]),
            client.query(`SELECT count(*) AS c ${from}`, [staleBefore])
          ])
          return { ids: (ids.rows as Array<Row>).map((r) => String(r["id"])), due: num((due.rows[0] as Row)["c"]) }
        }),
      commit: (counts) =>
        run("storing a batch of citation counts", async () => {
          await client.query("BEGIN")
          try {
            for (const c of counts) {
              await client.query(
                `INSERT INTO arxiv_mirror.citations(id, cited_by_count, counts_by_year, openalex_id, referenced_works, publication_date, fetched_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT(id) DO UPDATE SET cited_by_count = excluded.cited_by_count, counts_by_year = excluded.counts_by_year,
                   openalex_id = excluded.openalex_id, referenced_works = excluded.referenced_works,
                   publication_date = excluded.publication_date, fetched_at = excluded.fetched_at`,
                citationRow(c)
              )
            }
            await client.query("COMMIT")
          } catch (e) {
            await client.query("ROLLBACK").catch(() => undefined)
            throw e
          }
        })
    } satisfies CountStore
  })

/** A reader of the counts of the mirror in `url` (a small pool, ended with the scope); a mirror never counted reads as no counts. */
export const openCountReader = (url: string, connections = 2): Effect.Effect<CountReader, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const p = new pg.Pool({ connectionString: url, max: connections, idleTimeoutMillis: 10_000, allowExitOnIdle: true })
        p.on("error", () => undefined)
        return p
      }),
      (p) => Effect.promise(() => p.end().catch(() => undefined))
    )
    const run = <A>(what: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: pgFailure(url, what) })
    const hasTable = async () =>
      (await pool.query("SELECT to_regclass('arxiv_mirror.citations') IS NOT NULL AS t")).rows[0]?.["t"] === true
    return {
      countsByIds: (ids) =>
        run("reading the citation counts", async () => {
          if (ids.length === 0 || !(await hasTable())) return new Map()
          const r = await pool.query("SELECT * FROM arxiv_mirror.citations WHERE id = ANY($1::text[])", [[...ids]])
          return new Map((r.rows as Array<Row>).map((row) => [String(row["id"]), countOf(row)]))
        }),
      countsByOpenAlexIds: (ids) =>
        run("reading the citation counts", async () => {
          if (ids.length === 0 || !(await hasTable())) return []
          const r = await pool.query(
            `SELECT c.*, p.title AS title, p.published AS published FROM arxiv_mirror.citations c JOIN arxiv_mirror.papers p ON p.id = c.id
             WHERE c.openalex_id = ANY($1::text[]) AND c.cited_by_count IS NOT NULL`,
            [[...ids]]
          )
          return (r.rows as Array<Row>).map((row) => ({ ...countOf(row), title: String(row["title"]), published: String(iso(row["published"]) ?? "") }))
        }),
      due: (staleBefore) =>
        run("reading the papers due for counting", async () => {
          if (!(await hasTable())) return num((await pool.query("SELECT count(*) AS c FROM arxiv_mirror.papers")).rows[0]?.["c"])
          const r = await pool.query(
            `SELECT count(*) AS c FROM arxiv_mirror.papers p LEFT JOIN arxiv_mirror.citations c ON c.id = p.id
             WHERE c.id IS NULL OR c.fetched_at < $1`,
            [staleBefore]
          )
          return num((r.rows[0] as Row)["c"])
        }),
      status: run("reading the citation counts", async () => {
        const records = num((await pool.query("SELECT count(*) AS c FROM arxiv_mirror.papers")).rows[0]?.["c"])
        if (!(await hasTable())) return { counted: 0, notFound: 0, uncounted: records, oldest: undefined, newest: undefined }
        const row = (await pool.query(
          `SELECT count(c.cited_by_count) AS counted, count(c.id) - count(c.cited_by_count) AS unknown,
             min(c.fetched_at) AS oldest, max(c.fetched_at) AS newest
           FROM arxiv_mirror.citations c JOIN arxiv_mirror.papers p ON p.id = c.id`
        )).rows[0] as Row
        const counted = num(row["counted"])
        const notFound = num(row["unknown"])
        return { counted, notFound, uncounted: records - counted - notFound, oldest: iso(row["oldest"]), newest: iso(row["newest"]) }
      })
    } satisfies CountReader
  })
