/**
 * A lab's shared mirror on PostgreSQL: the same index as the embedded SQLite
 * one (MirrorIndex), on PostgreSQL's full-text search, through `pg`
 * (node-postgres, pure JavaScript). Everything lives in the schema
 * `arxiv_mirror` of the database the URL names:
 *
 * - `papers`: one row per paper (its current version), keyed by arXiv id,
 *   with `document`, a tsvector of title (weight A), abstract (B), authors (C),
 *   comments and journal reference (D), and lexemes of its own for the
 *   categories, the id and the report number (`cat=cs.lg`, `id=…`, `rn=…`);
 *   a GIN index on `document`, another on `categories` (the filter), b-trees
 *   on the dates;
 * - `harvest`: where each harvest stands (resumption token, pages, datestamp);
 * - `meta`: the schema version.
 *
 * The text search configuration `arxiv_mirror.arxiv` is Snowball English
 * stemming without stop words (SQLite FTS5's Porter tokenizer drops none
 * either); accents are folded before the text reaches the server, so no
 * extension is needed. Ranking: `ts_rank_cd` (cover density) with the weights
 * {A 1, B 1/3, C 1/3, D 1/6}, the SQLite mirror's BM25 column weights (title
 * 3, abstract and authors 1, comments and journal 0.5) scaled to A, divided by
 * 1 + log(document length).
 *
 * The harvester holds one connection for the whole sync: on it the session
 * advisory lock (`pg_try_advisory_lock`) that lets one harvester at a time
 * write the database, whatever machine it runs on, and every page's
 * transaction (the page's records and the harvest's new position committed
 * together). A sync killed anywhere loses its connection, PostgreSQL rolls
 * back the open transaction and frees the lock. Readers use a small pool
 * each; PostgreSQL's MVCC lets any number read while a page is written, and
 * each sees whole pages only.
 *
 * @since 0.3.0
 */
import { Effect, type Scope } from "effect"
import { hostname } from "node:os"
import pg from "pg"
import { UpstreamUnavailable } from "../../../core/errors.js"
import { type HarvestState, harvestRow, type IndexStatus, type PageChanges, type PaperRow } from "./MirrorIndex.js"
import type { HarvestStore } from "./MirrorStore.js"
import type { MirrorRecord, OaiEntry } from "./OaiPage.js"
import {
  categoryLexeme,
  foldAccents,
  idLexeme,
  type LexemeStats,
  narrowOr,
  type PgExpr,
  type PgQuery,
  renderTsQuery,
  reportLexemes,
  UnsupportedQuery,
  wordsOf
} from "./pgQuery.js"

/** The service name of the PostgreSQL mirror in messages. */
export const PG_SERVICE = "the arXiv mirror on PostgreSQL"

/** The schema version this code writes and reads. */
export const PG_SCHEMA_VERSION = 1

/** The text search configuration of the index. */
const CONFIG = "arxiv_mirror.arxiv"

/** ts_rank_cd's weights, in its order {D, C, B, A}. */
export const RANK_WEIGHTS = [1 / 6, 1 / 3, 1 / 3, 1] as const
/** ts_rank_cd's normalisation: divide by 1 + the logarithm of the document's length. */
const RANK_NORMALIZATION = 1

/**
 * A relevance search ranks in two steps: every match by `ts_rank` (term
 * frequencies alone, the same weights and normalisation), the best
 * max(RANK_POOL, 4 × (start + limit)) of them kept, and only those ranked by
 * `ts_rank_cd` (cover density, which reads each match's positions and cost
 * three quarters of a wide OR's time ranked whole). A search with fewer
 * matches than the pool ranks exactly as `ts_rank_cd` over all of them.
 * Measured with bench/mirror-pg.bench.ts at 100,000 records (the concept
 * query, 64,682 matches, a pool of 1000; load 1.2–2.0): 2.3 s whole, 1.2 s in
 * two steps, the same first 10 and 94 of the first 100.
 */
export const RANK_POOL = 2_000
const RANK_POOL_FACTOR = 4

/**
 * A reader given `narrowTo` narrows a wide OR (the companion's concept query)
 * estimated to match more than that many papers to its rarest alternatives,
 * as the SQLite mirror narrows one (MirrorIndex): matching alone re-reads
 * every matching paper's tsvector (a phrase or a weight needs its positions),
 * 2.2 s for the concept query's 64,682 matches at 100,000 records. The
 * estimates are the server's own statistics of the index (`pg_stats`, kept
 * by ANALYZE and autovacuum; none yet: no narrowing); the total reported is
 * then an estimate. Pages up to NARROW_POOL deep. Not the default: measured
 * with bench/mirror-pg.bench.ts at 100,000 records, narrowed to 8,000 the
 * concept query took 350 ms instead of 1,185 ms in two steps, but its first
 * 10 held none of the whole ranking's (5 of the first 100): `ts_rank_cd`
 * weighs a common word as much as a rare one, so the words left out decide
 * much of its order (BM25 gives them almost nothing).
 */
const NARROW_POOL = 2_000

/** The advisory lock of the harvest (the two-key form: pg_locks shows classid, objid, objsubid 2). */
export const LOCK_KEYS = [0x61727869, 0x6d697272] as const // "arxi", "mirr"

/** The URL without its password, for messages. */
export const redactUrl = (url: string): string => {
  try {
    const u = new URL(url)
    if (u.password !== "") u.password = "***"
    return u.toString()
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@")
  }
}

const DDL = [
  "CREATE SCHEMA IF NOT EXISTS arxiv_mirror",
  `DO $$ BEGIN
     IF NOT EXISTS (SELECT 1 FROM pg_ts_dict d JOIN pg_namespace n ON n.oid = d.dictnamespace
                    WHERE n.nspname = 'arxiv_mirror' AND d.dictname = 'english_stem_all') THEN
       CREATE TEXT SEARCH DICTIONARY arxiv_mirror.english_stem_all (TEMPLATE = snowball, Language = english);
     END IF;
     IF NOT EXISTS (SELECT 1 FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace
                    WHERE n.nspname = 'arxiv_mirror' AND c.cfgname = 'arxiv') THEN
       CREATE TEXT SEARCH CONFIGURATION arxiv_mirror.arxiv (COPY = pg_catalog.english);
       ALTER TEXT SEARCH CONFIGURATION arxiv_mirror.arxiv
         ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH arxiv_mirror.english_stem_all;
     END IF;
   END $$`,
  "CREATE TABLE IF NOT EXISTS arxiv_mirror.meta(key text PRIMARY KEY, value text NOT NULL)",
  `CREATE TABLE IF NOT EXISTS arxiv_mirror.papers(
     n bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
     id text PRIMARY KEY,
     title text NOT NULL,
     abstract text NOT NULL,
     authors text NOT NULL,
     published text NOT NULL,
     updated text,
     categories text[] NOT NULL,
     doi text,
     journal_ref text,
     comments text,
     report_no text,
     license text,
     datestamp text NOT NULL,
     document tsvector NOT NULL
   )`,
  "CREATE INDEX IF NOT EXISTS papers_document ON arxiv_mirror.papers USING gin(document)",
  "CREATE INDEX IF NOT EXISTS papers_categories ON arxiv_mirror.papers USING gin(categories)",
  "CREATE INDEX IF NOT EXISTS papers_published ON arxiv_mirror.papers(published)",
  "CREATE INDEX IF NOT EXISTS papers_datestamp ON arxiv_mirror.papers(datestamp)",
  `CREATE TABLE IF NOT EXISTS arxiv_mirror.harvest(
     key text PRIMARY KEY,
     set_spec text NOT NULL,
     categories text NOT NULL,
     done_until text,
     token text,
     token_expires text,
     list_from text,
     pages integer NOT NULL DEFAULT 0,
     records integer NOT NULL DEFAULT 0,
     list_size integer,
     newest text
   )`
]

type Row = Record<string, unknown>
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined)
const num = (v: unknown): number => (typeof v === "number" ? v : typeof v === "string" || typeof v === "bigint" ? Number(v) : 0)

const stateOf = (row: Row): HarvestState => ({
  key: String(row["key"]),
  set: String(row["set_spec"]),
  categories: String(row["categories"]).split(",").filter((c) => c !== ""),
  doneUntil: str(row["done_until"]),
  token: str(row["token"]),
  tokenExpires: str(row["token_expires"]),
  listFrom: str(row["list_from"]),
  pages: num(row["pages"]),
  records: num(row["records"]),
  listSize: row["list_size"] === null || row["list_size"] === undefined ? undefined : num(row["list_size"]),
  newest: str(row["newest"])
})

/** A failure of the server or the connection, in one line that says what to do. */
export const pgFailure = (url: string, what: string) => (e: unknown): UpstreamUnavailable => {
  const err = e as { code?: string; message?: string }
  const message = (err.message ?? String(e)).replace(/\s+/g, " ").trim()
  const where = redactUrl(url)
  const reason = err.code === "ECONNREFUSED" || err.code === "ENOTFOUND" || err.code === "EAI_AGAIN" || err.code === "ETIMEDOUT"
    ? `cannot reach PostgreSQL at ${where} (${err.code}); check the host and port, and that the server is running`
    : err.code === "28P01" || err.code === "28000"
    ? `PostgreSQL refused the login to ${where} (${message}); check the user and password in the URL`
    : err.code === "3D000"
    ? `${message} on ${where}; create it first (createdb), see the README's "A lab's shared mirror"`
    : err.code === "42P01" || err.code === "3F000"
    ? `no mirror in ${where} yet; build one with \`arxiv-companion mirror sync --categories cs.LG --to ${where}\``
    : err.code === "42501"
    ? `${message} (${where}); a read-only role may search the mirror but not sync it: sync as the role that owns it`
    : err.code === "53100"
    ? `the database server's disk is full (${message}); nothing of ${what} was written`
    : err.code === "25006"
    ? `${where} is read-only (${message}); sync into the primary server`
    : `${what} failed on ${where} (${message})`
  return new UpstreamUnavailable({ service: PG_SERVICE, reason })
}

const schemaCheck = async (db: pg.ClientBase | pg.Pool, url: string): Promise<void> => {
  const found = await db.query("SELECT value FROM arxiv_mirror.meta WHERE key = 'schema'")
  const version = str((found.rows[0] as Row | undefined)?.["value"])
  if (version !== String(PG_SCHEMA_VERSION)) {
    throw Object.assign(
      new Error(
        `${redactUrl(url)} holds a mirror of another version (schema ${version ?? "none"}, this version reads ${PG_SCHEMA_VERSION}); ` +
          "drop the schema arxiv_mirror and sync again"
      ),
      { code: "SCHEMA" }
    )
  }
}

const schemaFailure = (url: string, what: string) => (e: unknown): UpstreamUnavailable =>
  (e as { code?: string }).code === "SCHEMA"
    ? new UpstreamUnavailable({ service: PG_SERVICE, reason: (e as Error).message })
    : pgFailure(url, what)(e)

const writeState = (db: pg.ClientBase, s: HarvestState) =>
  db.query(
    `INSERT INTO arxiv_mirror.harvest(key, set_spec, categories, done_until, token, token_expires, list_from, pages, records, list_size, newest)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT(key) DO UPDATE SET done_until = excluded.done_until, token = excluded.token,
       token_expires = excluded.token_expires, list_from = excluded.list_from, pages = excluded.pages,
       records = excluded.records, list_size = excluded.list_size, newest = excluded.newest`,
    harvestRow(s)
  )

/** The columns a page's records are sent in, one array each (`unnest`). */
const COLUMNS = [
  "id",
  "title",
  "abstract",
  "authors",
  "published",
  "updated",
  "categories",
  "doi",
  "journal_ref",
  "comments",
  "report_no",
  "license",
  "datestamp",
  "f_title",
  "f_abstract",
  "f_authors",
  "f_more",
  "lexemes"
] as const

const cellsOf = (r: MirrorRecord): Record<typeof COLUMNS[number], string | null> => ({
  id: r.id,
  title: r.title,
  abstract: r.abstract,
  authors: JSON.stringify(r.authors),
  published: r.published,
  updated: r.updated ?? null,
  categories: r.categories.join(" "),
  doi: r.doi ?? null,
  journal_ref: r.journalRef ?? null,
  comments: r.comments ?? null,
  report_no: r.reportNo ?? null,
  license: r.license ?? null,
  datestamp: r.datestamp,
  f_title: foldAccents(r.title),
  f_abstract: foldAccents(r.abstract),
  f_authors: foldAccents(r.authors.join(", ")),
  f_more: foldAccents(`${r.comments ?? ""} ${r.journalRef ?? ""}`),
  lexemes: [...new Set([...r.categories.map(categoryLexeme), idLexeme(r.id), ...reportLexemes(r.reportNo ?? "")])].join(" ")
})

const UPSERT = `
INSERT INTO arxiv_mirror.papers AS p (id, title, abstract, authors, published, updated, categories, doi, journal_ref, comments,
  report_no, license, datestamp, document)
SELECT t.id, t.title, t.abstract, t.authors, t.published, t.updated, string_to_array(t.categories, ' '), t.doi, t.journal_ref,
  t.comments, t.report_no, t.license, t.datestamp,
  setweight(to_tsvector('${CONFIG}', t.f_title), 'A') || setweight(to_tsvector('${CONFIG}', t.f_abstract), 'B') ||
  setweight(to_tsvector('${CONFIG}', t.f_authors), 'C') || setweight(to_tsvector('${CONFIG}', t.f_more), 'D') ||
  array_to_tsvector(string_to_array(t.lexemes, ' '))
FROM unnest(${COLUMNS.map((_, i) => `$${i + 1}::text[]`).join(", ")}) AS t(${COLUMNS.join(", ")})
ON CONFLICT (id) DO UPDATE SET title = excluded.title, abstract = excluded.abstract, authors = excluded.authors,
  published = excluded.published, updated = excluded.updated, categories = excluded.categories, doi = excluded.doi,
  journal_ref = excluded.journal_ref, comments = excluded.comments, report_no = excluded.report_no,
  license = excluded.license, datestamp = excluded.datestamp, document = excluded.document`

/**
 * Apply one page and the harvest's new state in one transaction, as
 * MirrorIndex.commitPage does: a record is added, or replaces the version
 * held when it is as new or newer; a deletion removes the paper; records
 * `keep` refuses are skipped. The page is applied in order in memory first
 * (a paper listed twice counts as the SQLite index counts it), then written
 * in three statements.
 */
const commitPage = async (
  db: pg.ClientBase,
  entries: ReadonlyArray<OaiEntry>,
  keep: (record: MirrorRecord) => boolean,
  state: HarvestState
): Promise<PageChanges> => {
  await db.query("BEGIN")
  try {
    const ids = [...new Set(entries.map((e) => (e._tag === "Record" ? e.record.id : e.id)))]
    const heldRows = ids.length === 0
      ? []
      : (await db.query("SELECT id, datestamp FROM arxiv_mirror.papers WHERE id = ANY($1::text[]) FOR UPDATE", [ids])).rows as Array<Row>
    const held = new Map<string, string | undefined>(heldRows.map((r) => [String(r["id"]), String(r["datestamp"])]))
    const wasHeld = new Set(held.keys())
    const write = new Map<string, MirrorRecord>()
    let added = 0
    let replaced = 0
    let deleted = 0
    let skipped = 0
    let unchanged = 0
    for (const entry of entries) {
      if (entry._tag === "Deleted") {
        if (held.get(entry.id) !== undefined) {
          held.set(entry.id, undefined)
          write.delete(entry.id)
          deleted++
        }
        continue
      }
      const r = entry.record
      if (!keep(r)) {
        skipped++
        continue
      }
      const stamp = held.get(r.id)
      if (stamp !== undefined && stamp > r.datestamp) {
        unchanged++
        continue
      }
      if (stamp !== undefined) replaced++
      else added++
      held.set(r.id, r.datestamp)
      write.set(r.id, r)
    }
    const gone = [...wasHeld].filter((id) => held.get(id) === undefined)
    if (gone.length > 0) await db.query("DELETE FROM arxiv_mirror.papers WHERE id = ANY($1::text[])", [gone])
    if (write.size > 0) {
      const cells = [...write.values()].map(cellsOf)
      await db.query(UPSERT, COLUMNS.map((c) => cells.map((row) => row[c])))
    }
    await writeState(db, state)
    await db.query("COMMIT")
    return { added, replaced, deleted, skipped, unchanged }
  } catch (e) {
    await db.query("ROLLBACK").catch(() => undefined)
    throw e
  }
}

/** Who holds the harvest lock of the database, as pg_stat_activity says. */
const lockHolder = async (db: pg.ClientBase): Promise<string | undefined> => {
  const found = await db.query(
    `SELECT a.application_name, a.pid, host(a.client_addr) AS client_addr, a.usename, a.backend_start
     FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 2
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [LOCK_KEYS[0], LOCK_KEYS[1]]
  )
  const row = found.rows[0] as Row | undefined
  if (row === undefined) return undefined
  const since = row["backend_start"] instanceof Date ? row["backend_start"].toISOString() : str(row["backend_start"]) ?? "?"
  const app = str(row["application_name"]) ?? ""
  return `application_name "${app === "" ? "?" : app}", server pid ${num(row["pid"])}, from ${str(row["client_addr"]) ?? "a local socket"}` +
    `, as ${str(row["usename"]) ?? "?"}, connected since ${since}`
}

/** How this process names its connections (pg_stat_activity's application_name). */
const applicationName = (role: string) => `arxiv-companion ${role} on ${hostname()} pid ${process.pid}`.slice(0, 63)

/**
 * Connect to `url` as the one harvester: the advisory lock taken (else the
 * sync fails in one line naming the holder), the schema created or checked.
 * The connection, with its lock, is closed with the scope.
 */
export const openWriter = (url: string): Effect.Effect<HarvestStore, UpstreamUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const client = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const c = new pg.Client({ connectionString: url, application_name: applicationName("mirror sync") })
          c.on("error", () => undefined)
          await c.connect()
          return c
        },
        catch: pgFailure(url, "connecting")
      }),
      (c) => Effect.promise(() => c.end().catch(() => undefined))
    )
    const got = yield* Effect.tryPromise({
      try: async () => {
        const r = await client.query("SELECT pg_try_advisory_lock($1, $2) AS got", [LOCK_KEYS[0], LOCK_KEYS[1]])
        return (r.rows[0] as Row)["got"] === true
      },
      catch: pgFailure(url, "taking the harvest lock")
    })
    if (!got) {
      const holder = yield* Effect.tryPromise({ try: () => lockHolder(client), catch: pgFailure(url, "asking who holds the lock") })
      return yield* new UpstreamUnavailable({
        service: PG_SERVICE,
        reason: `a sync holds the mirror's lock in ${redactUrl(url)} (${holder ?? "it has just ended; run the sync again"}); ` +
          "one harvester at a time: wait for it to end, or stop it"
      })
    }
    yield* Effect.tryPromise({
      try: async () => {
        for (const statement of DDL) await client.query(statement)
        await client.query("INSERT INTO arxiv_mirror.meta(key, value) VALUES ('schema', $1) ON CONFLICT (key) DO NOTHING", [
          String(PG_SCHEMA_VERSION)
        ])
        await schemaCheck(client, url)
      },
      catch: schemaFailure(url, "creating the mirror's schema")
    })
    const run = <A>(what: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: pgFailure(url, what) })
    return {
      harvestState: (key) =>
        run("reading the harvest's state", async () => {
          const r = await client.query("SELECT * FROM arxiv_mirror.harvest WHERE key = $1", [key])
          return r.rows[0] === undefined ? undefined : stateOf(r.rows[0] as Row)
        }),
      saveState: (state) => run("the harvest's state", async () => void (await writeState(client, state))),
      commitPage: (entries, keep, state) => run(`page ${state.pages} of ${state.set}`, () => commitPage(client, entries, keep, state)),
      records: run("counting the records", async () => num((await client.query("SELECT count(*) AS c FROM arxiv_mirror.papers")).rows[0]["c"])),
      // the GIN indexes take new entries into a pending list that every search reads whole until a vacuum merges it
      // (the categories' index held all 100,000 records after a sync; the concept query 1.3 s, 0.9 s once vacuumed:
      // bench/README.md), and ANALYZE renews the statistics the planner and narrowing read
      tidy: (changed) =>
        Effect.succeed(
          changed === 0 ? undefined : {
            note: "vacuuming and analysing the mirror's papers table, so that searches read the new papers through its indexes " +
              "(seconds; searches go on meanwhile)",
            run: run("vacuuming the papers table", async () => void (await client.query("VACUUM (ANALYZE) arxiv_mirror.papers"))),
            notDone: (reason) => `the papers table was not vacuumed (${reason}); searches work, slower until the next sync or the server's autovacuum does it`
          }
        )
    } satisfies HarvestStore
  })

/** A search over the PostgreSQL index. */
export interface PgSearch {
  readonly query: PgQuery
  /** Any of these categories (none: every category). */
  readonly categories: ReadonlyArray<string>
  readonly sortBy: "relevance" | "submittedDate" | "lastUpdatedDate"
  readonly sortOrder: "ascending" | "descending"
  readonly start: number
  readonly limit: number
}

const PAPER_COLUMNS = "p.id, p.title, p.abstract, p.authors, p.published, p.updated, array_to_string(p.categories, ' ') AS categories, " +
  "p.doi, p.journal_ref, p.comments, p.report_no, p.license, p.datestamp"

/** A reader of the index: a small pool of connections, opened on the first query. */
export interface PgReader {
  readonly url: string
  readonly search: (q: PgSearch) => Effect.Effect<{ readonly rows: ReadonlyArray<PaperRow>; readonly total: number }, UpstreamUnavailable | UnsupportedQuery>
  readonly byIds: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<PaperRow>, UpstreamUnavailable>
  readonly status: Effect.Effect<IndexStatus & { readonly sizeBytes: number }, UpstreamUnavailable>
}

/** A reader of the mirror in `url`; its pool is ended with the scope. */
export const openReader = (
  url: string,
  options: {
    readonly connections?: number | undefined
    /** The pool the cheap rank keeps (see RANK_POOL; default max(RANK_POOL, 4 × (start + limit))); 0: `ts_rank_cd` over every match. */
    readonly rankPool?: number | undefined
    /** How many papers a wide OR is narrowed to (see NARROW_POOL); undefined or 0: never narrowed (the default). */
    readonly narrowTo?: number | undefined
  } = {}
): Effect.Effect<PgReader, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const p = new pg.Pool({
          connectionString: url,
          application_name: applicationName("reader"),
          max: options.connections ?? 4,
          idleTimeoutMillis: 10_000,
          allowExitOnIdle: true
        })
        // an idle connection the server closed: the pool replaces it on the next query
        p.on("error", () => undefined)
        return p
      }),
      (p) => Effect.promise(() => p.end().catch(() => undefined))
    )
    // the schema's version, checked until it passes once (a server started before the first sync finds it later)
    let schemaOk = false
    const checked = Effect.suspend(() =>
      schemaOk ? Effect.void : Effect.tryPromise({
        try: async () => {
          await schemaCheck(pool, url)
          schemaOk = true
        },
        catch: schemaFailure(url, "opening the mirror")
      })
    )
    const run = <A>(what: string, f: () => Promise<A>) =>
      Effect.zipRight(checked, Effect.tryPromise({ try: f, catch: pgFailure(url, what) }))

    /** The narrowed form of a wide OR (see NARROW_POOL), from the server's statistics of the index. */
    const narrowing = (expr: PgExpr, normalised: ReadonlyMap<string, string>, narrowTo: number) =>
      Effect.gen(function*() {
        if (expr._tag !== "Or") return undefined
        const stats = yield* run("reading the index's statistics", async () => {
          const r = await pool.query(
            `SELECT c.reltuples::float8 AS papers, s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             LEFT JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = 'document'
             WHERE n.nspname = 'arxiv_mirror' AND c.relname = 'papers'`
          )
          const row = r.rows[0] as { papers: number; elems: Array<string> | null; freqs: Array<number> | null } | undefined
          if (row === undefined || row.elems === null || row.freqs === null || row.papers <= 0) return undefined
          // the frequencies of the listed lexemes, then the least and the greatest of them and the share of nulls
          const elems = row.elems
          const freqs = row.freqs
          return {
            papers: row.papers,
            frequency: new Map(elems.map((e, i) => [e, freqs[i]!])),
            floor: freqs[elems.length] ?? Math.min(...freqs.slice(0, elems.length))
          } satisfies LexemeStats
        })
        if (stats === undefined) return undefined
        return narrowOr(expr, normalised, stats, narrowTo)
      })

    const search = (q: PgSearch) =>
      Effect.gen(function*() {
        const words = wordsOf(q.query.expr)
        const normalised = words.length === 0 ? new Map<string, string>() : yield* run("normalising the query", async () => {
          const r = await pool.query(
            `SELECT t.text, phraseto_tsquery('${CONFIG}', t.text)::text AS q FROM unnest($1::text[]) AS t(text)`,
            [words]
          )
          return new Map((r.rows as Array<Row>).map((row) => [String(row["text"]), String(row["q"])]))
        })
        const narrowed = q.query.expr !== undefined && q.sortBy === "relevance" && q.start + q.limit <= NARROW_POOL &&
            options.narrowTo !== undefined && options.narrowTo > 0
          ? yield* narrowing(q.query.expr, normalised, options.narrowTo)
          : undefined
        const expr = narrowed?.expr ?? q.query.expr
        const match = expr === undefined ? undefined : renderTsQuery(expr, normalised)
        if (match instanceof UnsupportedQuery) return yield* Effect.fail(match)
        const rank = expr === undefined ? undefined : renderTsQuery(expr, normalised, { withLexemes: false })
        if (rank instanceof UnsupportedQuery) return yield* Effect.fail(rank)
        const params: Array<unknown> = []
        const param = (v: unknown) => {
          params.push(v)
          return `$${params.length}`
        }
        const where: Array<string> = []
        if (match !== undefined) where.push(`p.document @@ ${param(match)}::tsquery`)
        if (q.categories.length > 0) where.push(`p.categories && ${param([...q.categories])}::text[]`)
        const range = (column: string, from: string | undefined, to: string | undefined) => {
          if (from !== undefined) where.push(`${column} >= ${param(from)}`)
          if (to !== undefined) where.push(`${column} <= ${param(to)}`)
        }
        range("p.published", q.query.publishedFrom, q.query.publishedTo)
        range("coalesce(p.updated, p.published)", q.query.updatedFrom, q.query.updatedTo)
        const clause = where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`
        const filterParams = params.length
        const direction = q.sortOrder === "ascending" ? "ASC" : "DESC"
        const ranked = q.sortBy === "relevance" && rank !== undefined
        const weights = ranked ? param([...RANK_WEIGHTS]) : ""
        const tsquery = ranked ? param(rank) : ""
        const rankWith = (f: string) => `${f}(${weights}::float4[], p.document, ${tsquery}::tsquery, ${RANK_NORMALIZATION})`
        const order = q.sortBy === "relevance"
          ? (match === undefined ? "s.published DESC, s.id" : "s.score DESC, s.n DESC")
          : q.sortBy === "lastUpdatedDate"
          ? `coalesce(s.updated, s.published) ${direction}, s.id`
          : `s.published ${direction}, s.id`
        const rankPool = options.rankPool ?? Math.max(RANK_POOL, RANK_POOL_FACTOR * (q.start + q.limit))
        const pooled = ranked && rankPool > 0
        const limit = param(q.limit)
        const offset = param(q.start)
        const poolSize = pooled ? param(rankPool) : ""
        // two steps (see RANK_POOL): the pool by ts_rank, then ts_rank_cd over the pool alone
        const selected = pooled
          ? `WITH m AS (
               SELECT p.n, ${rankWith("ts_rank")} AS cheap, count(*) OVER () AS total
               FROM arxiv_mirror.papers p ${clause}
               ORDER BY cheap DESC, p.n DESC LIMIT ${poolSize}
             ), s AS (
               SELECT m.n, ${rankWith("ts_rank_cd")} AS score, m.total
               FROM m JOIN arxiv_mirror.papers p ON p.n = m.n
               ORDER BY score DESC, m.n DESC LIMIT ${limit} OFFSET ${offset}
             )`
          : `WITH s AS (
               SELECT p.n, p.id, p.published, p.updated, ${ranked ? rankWith("ts_rank_cd") : "0::float4"} AS score, count(*) OVER () AS total
               FROM arxiv_mirror.papers p ${clause}
               ORDER BY ${order.replace(/\bs\./g, "")} LIMIT ${limit} OFFSET ${offset}
             )`
        return yield* run("searching", async () => {
          const r = await pool.query(
            `${selected}
             SELECT ${PAPER_COLUMNS}, s.total FROM s JOIN arxiv_mirror.papers p ON p.n = s.n ORDER BY ${order}`,
            params
          )
          const rows = r.rows as Array<PaperRow & { total: string }>
          let total = Math.max(narrowed?.estimated ?? 0, rows.length > 0 ? num(rows[0]!.total) : 0)
          if (rows.length === 0 && q.start > 0) {
            const c = await pool.query(`SELECT count(*) AS c FROM arxiv_mirror.papers p ${clause}`, params.slice(0, filterParams))
            total = num((c.rows[0] as Row)["c"])
          }
          return { rows: rows.map(({ total: _, ...row }) => row as PaperRow), total }
        })
      })

    const byIds = (ids: ReadonlyArray<string>) =>
      ids.length === 0 ? Effect.succeed([]) : run("looking papers up", async () => {
        const r = await pool.query(`SELECT ${PAPER_COLUMNS} FROM arxiv_mirror.papers p WHERE p.id = ANY($1::text[])`, [[...ids]])
        const byId = new Map((r.rows as Array<PaperRow>).map((row) => [row.id, row]))
        return ids.map((id) => byId.get(id)).filter((row): row is PaperRow => row !== undefined)
      })

    const status = run("reading the status", async () => {
      const [records, categories, newest, harvests, size] = await Promise.all([
        pool.query("SELECT count(*) AS c FROM arxiv_mirror.papers"),
        pool.query("SELECT c AS category, count(*) AS n FROM arxiv_mirror.papers, unnest(categories) AS c GROUP BY c ORDER BY n DESC, c"),
        pool.query("SELECT max(datestamp) AS d FROM arxiv_mirror.papers"),
        pool.query("SELECT * FROM arxiv_mirror.harvest ORDER BY key"),
        pool.query(
          `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS b FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'arxiv_mirror' AND c.relkind = 'r'`
        )
      ])
      return {
        records: num((records.rows[0] as Row)["c"]),
        categories: (categories.rows as Array<Row>).map((r) => ({ category: String(r["category"]), records: num(r["n"]) })),
        newestDatestamp: str((newest.rows[0] as Row)["d"]),
        harvests: (harvests.rows as Array<Row>).map(stateOf),
        sizeBytes: num((size.rows[0] as Row)["b"])
      }
    })

    return { url, search, byIds, status } satisfies PgReader
  })
