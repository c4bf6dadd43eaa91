/**
 * The mirror's embedded index: one SQLite file on disk (`arxiv.sqlite` in the
 * mirror's directory), read through `node-sqlite3-wasm` (SQLite compiled to
 * WebAssembly, reading and writing the file with Node's own `fs`: nothing
 * downloaded or compiled at install, the same on every platform).
 *
 * - `papers`: one row per paper (its current version), keyed by arXiv id;
 * - `papers_fts`: an FTS5 full-text index over title, abstract, authors,
 *   comments, journal reference, categories, report number and id, Porter
 *   stemmed, accents folded; contentless (the text is kept once, in `papers`),
 *   ranked by `bm25()` with a weight per column;
 * - `paper_categories`: the categories of each paper (counts, filters);
 * - `harvest`: where each harvest stands (its resumption token, pages, the
 *   datestamp the next one starts from);
 * - `citations`: OpenAlex's count for a paper (`mirror sync --citations`),
 *   with the date it was fetched; a row with no count says OpenAlex had no
 *   work for the paper on that date. Kept beside the records (a paper's newer
 *   version keeps its count); created in older indexes by the next sync.
 *
 * Opening reads nothing but the schema: queries page the file in through
 * SQLite's own cache (`CACHE_KIB`, 64 MiB), so a mirror of all arXiv is opened as
 * fast as an empty one. A page of the harvest and the harvest's position are
 * written in one transaction: committed whole, or not at all.
 *
 * Synchronous code; the adapters wrap it in Effect.
 *
 * @since 0.3.0
 */
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readSync, rmSync, statfsSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { setFlagsFromString } from "node:v8"
import type sqlite from "node-sqlite3-wasm"
import type { MirrorRecord, OaiEntry } from "./OaiPage.js"

/**
 * SQLite's WebAssembly, loaded on the first open. V8 compiles WebAssembly
 * lazily with its baseline compiler (Liftoff) and recompiles the hot
 * functions with its optimising one (TurboFan) in the background: for a
 * process that opens the index, searches a few times and exits (every CLI
 * run), those recompilations cost more CPU than they save: the first concept
 * search took ~1,000 ms of CPU with them and ~300 ms without, at 100,000
 * records (bench/mirror.bench.ts). So the baseline compiler alone is asked
 * for before the module is compiled (`--liftoff-only`; it applies to
 * WebAssembly only, the process's JavaScript is compiled as before).
 */
let loaded: typeof sqlite | undefined
const engine = (): typeof sqlite => {
  if (loaded === undefined) {
    if (process.env["ARXIV_COMPANION_WASM_TIERUP"] !== "1") setFlagsFromString("--liftoff-only")
    const require = createRequire(import.meta.url)
    loaded = require("node-sqlite3-wasm") as typeof sqlite
    answerReservedLockFromOwnLock(require("node:fs") as typeof import("node:fs"))
  }
  return loaded
}

/**
 * The lock paths (`<file>.lock`) of the index files this process opens with locks: see
 * {@link answerReservedLockFromOwnLock}.
 */
const lockedIndexes = new Set<string>()

/**
 * A write killed in the middle of its commit leaves changed pages in the file and their former contents in the
 * journal beside it (`<file>-journal`), which the next connection must copy back before it reads ("a hot journal",
 * https://sqlite.org/atomiccommit.html#hot_rollback_journals). SQLite decides a journal is hot by asking the file
 * layer, while it holds its SHARED lock, whether any connection holds a RESERVED lock (xCheckReservedLock), and
 * rolls back only if none does. node-sqlite3-wasm's file layer has one lock, a folder beside the file made whole for
 * any level (`mkdir <file>.lock`), and answers that question with whether the folder exists, which it always does
 * then, being the asking connection's own: so no wasm connection ever rolled a journal back, a reader read the
 * killed write's half (the file failing `PRAGMA integrity_check`), and the next write committed over it and deleted
 * the journal. Since SQLite asks only while it holds its lock (pager.c, `hasHotJournal`) and that folder excludes
 * every other connection, the true answer is always "no": the package's file layer reads `fs.accessSync` from
 * Node's `fs` module object when it asks, so for the lock folders of the indexes opened here that call answers "no
 * such folder" (ENOENT), and only that call: this module reads the file system through its own imports, which do not
 * see the change (Node's ES module bindings of `node:fs` are not synced with the CommonJS object unless
 * `module.syncBuiltinESMExports()` is called).
 */
const answerReservedLockFromOwnLock = (fs: typeof import("node:fs")): void => {
  const accessSync = fs.accessSync
  fs.accessSync = ((path: import("node:fs").PathLike, mode?: number): void => {
    if (typeof path === "string" && lockedIndexes.has(path)) {
      throw Object.assign(new Error(`ENOENT: no such file or directory, access '${path}'`), { code: "ENOENT", path })
    }
    accessSync(path, mode)
  }) as typeof fs.accessSync
}

/**
 * A reader's connection is read-only, and a read-only connection cannot roll a hot journal back (SQLite refuses:
 * "attempt to write a readonly database"): in a folder it can write, a reader that finds one rolls it back first,
 * through a connection of its own opened for writing, which SQLite rolls back with as it starts its first read
 * (waiting, as any connection does, while a live writer holds the lock: a live writer's journal is not hot, and is
 * gone once it commits).
 */
const rollBackInterruptedWrite = (file: string): void => {
  try {
    if (statSync(`${file}-journal`).size === 0) return
  } catch {
    return // no journal
  }
  const db = new (engine().Database)(file, { fileMustExist: true })
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_MILLIS}`)
    db.get("SELECT count(*) AS n FROM sqlite_master")
  } finally {
    db.close()
  }
}

/**
 * Open `file` read-only and unlocked: SQLite's `immutable=1` URI parameter
 * (https://sqlite.org/uri.html#uriimmutable) tells it the file cannot change
 * while it is open, so it takes no lock at all, and node-sqlite3-wasm's file
 * layer makes no `<file>.lock` folder. The package opens every database
 * without `SQLITE_OPEN_URI` (and its SQLite is built without
 * `SQLITE_USE_URI`), so the connection is opened here through the C API the
 * package exports (`cwrap`, `_malloc`), the URI flag given, and wrapped in the
 * package's own `Database` class (its `_ptr` and `_functions`, as its
 * constructor sets them). Only for an index nothing writes while it is read.
 */
const SQLITE_OPEN_READONLY = 0x1
const SQLITE_OPEN_URI = 0x40
interface WasmModule {
  readonly cwrap: (name: string, returns: string | null, args: ReadonlyArray<string>) => (...args: Array<unknown>) => unknown
  readonly _malloc: (bytes: number) => number
  readonly _free: (pointer: number) => void
  readonly _sqlite3_bind_blob: (stmt: number, at: number, pointer: number, bytes: number, destructor: number) => number
}
const openImmutable = (file: string): sqlite.Database => {
  const s = engine()
  const m = s as unknown as WasmModule
  if (typeof m.cwrap !== "function" || typeof m._malloc !== "function" || typeof m._sqlite3_bind_blob !== "function") {
    throw new Error("this node-sqlite3-wasm does not export its C API (cwrap, _malloc): an index cannot be opened unlocked")
  }
  const open = m.cwrap("sqlite3_open_v2", "number", ["string", "number", "number", "string"])
  const errmsg = m.cwrap("sqlite3_errmsg", "string", ["number"])
  const closeV2 = m.cwrap("sqlite3_close_v2", "number", ["number"])
  const slot = m._malloc(4)
  let pointer = 0
  try {
    const rc = open(`${pathToFileURL(file).href}?immutable=1`, slot, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, null) as number
    pointer = readPointer(s, m, slot)
    if (rc !== 0) {
      const why = pointer === 0 ? `code ${rc}` : String(errmsg(pointer))
      if (pointer !== 0) closeV2(pointer)
      throw new Error(`could not open ${file} unlocked: ${why}`)
    }
  } finally {
    m._free(slot)
  }
  const db = Object.create(s.Database.prototype) as sqlite.Database & { _ptr: number; _functions: Map<string, number> }
  db._ptr = pointer
  db._functions = new Map()
  return db
}

/** The 32-bit little-endian word at `pointer` in SQLite's memory: bound to a statement as a 4-byte blob, read back as hex. */
const readPointer = (s: typeof sqlite, m: WasmModule, pointer: number): number => {
  const scratch = new s.Database(":memory:")
  try {
    const stmt = scratch.prepare("SELECT hex(?1) AS h")
    try {
      const handle = (stmt as unknown as { _ptr: number })._ptr
      const SQLITE_TRANSIENT = -1
      if (m._sqlite3_bind_blob(handle, 1, pointer, 4, SQLITE_TRANSIENT) !== 0) throw new Error("could not read the connection's handle")
      const step = m.cwrap("sqlite3_step", "number", ["number"])
      const text = m.cwrap("sqlite3_column_text", "string", ["number", "number"])
      if (step(handle) !== 100) throw new Error("could not read the connection's handle")
      const hex = String(text(handle, 0))
      return Buffer.from(hex, "hex").readUInt32LE(0)
    } finally {
      stmt.finalize()
    }
  } finally {
    scratch.close()
  }
}

/** The index file inside a mirror's directory. */
export const INDEX_FILE = "arxiv.sqlite"

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION = 1

/** The columns of the full-text index, in order, with their BM25 weights (title counts 3 times, as the corpus search). */
export const FTS_COLUMNS = ["title", "abstract", "authors", "comments", "journal", "categories", "report", "ids"] as const
export type FtsColumn = typeof FTS_COLUMNS[number]
export const FTS_WEIGHTS: Readonly<Record<FtsColumn, number>> = {
  title: 3,
  abstract: 1,
  authors: 1,
  comments: 0.5,
  journal: 0.5,
  categories: 0,
  report: 0,
  ids: 0
}

/**
 * A category as one token of the index: letters and digits only, lower case
 * (`cs.LG` → `cslg`, `hep-th` → `hepth`), so the tokenizer keeps it whole.
 */
export const categoryToken = (category: string): string => category.toLowerCase().replace(/[^a-z0-9]/g, "")

/** Where a harvest of one set (and category filter) stands. */
export interface HarvestState {
  /** The harvest's key: the set, and the categories kept (`cs|cs.CL,cs.LG`; `cs|` for all of it). */
  readonly key: string
  readonly set: string
  readonly categories: ReadonlyArray<string>
  /** The newest datestamp of the last complete list: the next list starts `from=` it. */
  readonly doneUntil?: string | undefined
  /** The list in progress: its next token and when it expires. */
  readonly token?: string | undefined
  readonly tokenExpires?: string | undefined
  /** The `from=` the list in progress started with (undefined: from the beginning). */
  readonly listFrom?: string | undefined
  /** Pages and records committed of the list in progress. */
  readonly pages: number
  readonly records: number
  /** The list's size, when the server says it (the old server did). */
  readonly listSize?: number | undefined
  /** The newest datestamp seen in the list in progress. */
  readonly newest?: string | undefined
}

/**
 * A harvest's state as the harvest table's row, in its columns' order (key, set_spec, categories, done_until,
 * token, token_expires, list_from, pages, records, list_size, newest): the same row for the SQLite and the
 * PostgreSQL mirror.
 */
export const harvestRow = (s: HarvestState): Array<string | number | null> => [
  s.key,
  s.set,
  s.categories.join(","),
  s.doneUntil ?? null,
  s.token ?? null,
  s.tokenExpires ?? null,
  s.listFrom ?? null,
  s.pages,
  s.records,
  s.listSize ?? null,
  s.newest ?? null
]

/** What a committed page changed. */
export interface PageChanges {
  readonly added: number
  readonly replaced: number
  readonly deleted: number
  /** Records of the page outside the categories kept. */
  readonly skipped: number
  /** Records older than the version already held. */
  readonly unchanged: number
}

/** A paper row as stored. */
export interface PaperRow {
  readonly id: string
  readonly title: string
  readonly abstract: string
  readonly authors: string
  readonly published: string
  readonly updated: string | null
  readonly categories: string
  readonly doi: string | null
  readonly journal_ref: string | null
  readonly comments: string | null
  readonly report_no: string | null
  readonly license: string | null
  readonly datestamp: string
}

/** A search over the index. */
export interface IndexQuery {
  /** An FTS5 MATCH expression; undefined: every paper (filtered by the rest). */
  readonly match?: string | undefined
  /**
   * When `match` is one OR of these alternatives, ANDed with `within` (the
   * categories): a relevance search may then narrow it (see `search`).
   */
  readonly alternatives?: ReadonlyArray<string> | undefined
  /** The category filter ANDed into `match`, when there is one. */
  readonly within?: string | undefined
  /** `match` without `within`: a relevance search ranks it alone and filters its papers after (see `search`). */
  readonly text?: string | undefined
  /** How many papers a wide OR is narrowed to (default 8,000 or 5 % of the index, the more); 0: never narrowed. */
  readonly narrowTo?: number | undefined
  /**
   * Rank with the category filter inside the MATCH even where the papers could be filtered after the ranking
   * (`rankedThenFiltered`): the same answers, slower; for comparing the two.
   */
  readonly filterInRanking?: boolean | undefined
  /** First-version date range, inclusive, YYYY-MM-DD. */
  readonly publishedFrom?: string | undefined
  readonly publishedTo?: string | undefined
  /** Latest-version date range (the first version's when there is one only). */
  readonly updatedFrom?: string | undefined
  readonly updatedTo?: string | undefined
  readonly sortBy: "relevance" | "submittedDate" | "lastUpdatedDate"
  readonly sortOrder: "ascending" | "descending"
  readonly start: number
  readonly limit: number
}

/** What `mirror status` reports. */
export interface IndexStatus {
  readonly records: number
  readonly categories: ReadonlyArray<{ readonly category: string; readonly records: number }>
  readonly newestDatestamp: string | undefined
  readonly harvests: ReadonlyArray<HarvestState>
}

/**
 * The service name of the index in messages. It lives here, not with the harvester, so that reading a mirror does
 * not load the harvester's OAI-PMH page reader and its XML parser (~40 ms of every offline run).
 */
export const MIRROR_SERVICE = "the arXiv mirror"

/** The index is missing, unreadable or of another schema: `reason` says what to do. */
export class IndexUnavailable extends Error {
  readonly _tag = "IndexUnavailable"
  constructor(readonly reason: string) {
    super(reason)
  }
}

/**
 * node-sqlite3-wasm locks a file with a directory beside it (`<file>.lock`),
 * held only while a statement or transaction runs: a search holds it for
 * well under a second, a page being written for seconds. One older than
 * STALE_LOCK_MILLIS was left by a process killed while it held it (a sync
 * killed mid-page) and is removed by the next open.
 */
const STALE_LOCK_MILLIS = 2 * 60_000

const removeStaleLock = (file: string): void => {
  try {
    const lock = statSync(`${file}.lock`)
    if (Date.now() - lock.mtimeMs > STALE_LOCK_MILLIS) rmSync(`${file}.lock`, { recursive: true, force: true })
  } catch {
    // no lock: nothing to do
  }
}

/** Free bytes on the file system holding `dir`, when it can be told. */
const freeBytes = (dir: string): number | undefined => {
  try {
    const s = statfsSync(dir)
    return s.bavail * s.bsize
  } catch {
    return undefined
  }
}

const writable = (dir: string): boolean => {
  try {
    accessSync(dir, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/**
 * Below this much free space a write that failed is taken for a full disk:
 * SQLite in WebAssembly reports any failed write as "disk I/O error".
 */
const LOW_DISK_BYTES = 64 * 1024 ** 2

const mib = (bytes: number | undefined) => (bytes === undefined ? "?" : `${(bytes / 1024 ** 2).toFixed(1)} MiB`)

/**
 * One line for a failure of the index in `dir` (an error SQLite or the file
 * system raised while reading or writing `what`): what happened, and what to
 * do about it.
 */
export const failureReason = (dir: string, e: unknown, what: string, mode: "read" | "write"): string => {
  if (e instanceof IndexUnavailable) return e.reason
  const message = e instanceof Error ? e.message : String(e)
  const file = `${dir.replace(/\/+$/, "")}/${INDEX_FILE}`
  const free = freeBytes(dir)
  if (/full/i.test(message) || (mode === "write" && /I\/O|disk/i.test(message) && free !== undefined && free < LOW_DISK_BYTES)) {
    return `the disk holding ${dir} is full (${mib(free)} free); free some space and run the sync again: nothing of ${what} was written, ` +
      "the index is as it was after the last whole page"
  }
  if (/readonly|read-only|EACCES|EROFS|permission/i.test(message) || !writable(dir)) return readOnlyReason(dir, mode)
  if (/busy|locked/i.test(message)) {
    let since: string | undefined
    try {
      since = new Date(statSync(`${file}.lock`).mtimeMs).toISOString().slice(11, 19)
    } catch {
      since = undefined
    }
    return since === undefined
      ? `the index is busy (${message}): another process is writing it; try again in a moment`
      : `the index is locked since ${since} UTC (${file}.lock): a sync or a search is using it; if none is running, remove that folder ` +
        `(the next open removes a lock older than ${STALE_LOCK_MILLIS / 60_000} minutes)`
  }
  return mode === "write"
    ? `${what} could not be written (${message}); nothing of it was kept, run the sync again`
    : `the index could not be read (${message}); run \`arxiv-companion mirror sync --dir ${dir}\` to repair an interrupted page, or sync it anew in another folder`
}

const readOnlyReason = (dir: string, mode: "read" | "write"): string =>
  mode === "write"
    ? `the mirror's folder ${dir} cannot be written (read-only or not yours); sync into a folder you can write (--dir DIR), or make it writable`
    : `the mirror's folder ${dir} is read-only and its index could not be read as it stands; ` +
      "copy the mirror to a folder you can write, or make it writable"

/**
 * Page size of a new index: FTS5 reads a common term's doclist page by page,
 * each page one call into Node's fs; 32 KiB pages make eight times fewer
 * calls than SQLite's 4 KiB default (bench/mirror.bench.ts).
 */
const PAGE_SIZE = 32_768

/** How long a reader waits for a page being written (or the harvester for a reader) before saying the index is busy. */
const BUSY_MILLIS = 15_000

/**
 * A wide OR (the companion's concept query: twenty terms, a pool of 1000)
 * that matches more than max(NARROW_TO, NARROW_SHARE of the index) papers is
 * narrowed: its rarest alternatives are kept, rarest first, until they match
 * about that many (estimated on the newest SAMPLE_ROWS), and those are
 * ranked. FTS5 scores every match of a query and counts every match of each
 * phrase for its IDF, so ranking a wide OR whole over a million papers costs
 * seconds; a term found in half the papers adds little to BM25 (its IDF is
 * near 0). Pages up to NARROW_POOL deep are taken from the narrowed ranking
 * (so they agree with each other); a page past it, from the whole one.
 * Measured with bench/mirror.bench.ts (the corpus repeated under new ids):
 * at 100,000 records the narrowed pool of 1000 held 97 of the whole
 * ranking's top 100 papers; at 1,000,000, 8,000 papers held 3 of its first
 * 20 distinct titles and 5 % of the index (50,000) 14 of them.
 */
const NARROW_TO = 8_000
const NARROW_SHARE = 0.05
const NARROW_POOL = 2_000
const SAMPLE_ROWS = 2_000

/**
 * A sync leaves the full-text index merged into one segment when it holds this many or more (`compact`): FTS5 writes
 * a segment per committed page and lets up to sixteen pile up, so a harvest soon holds ten or more, and a search
 * reads each word's list once per segment. At 1,000,000 records (bench/README.md) the concept query took 509 ms of
 * CPU on 12 segments and 359 on one; the merge took 22 s in steps of MERGE_STEP_PAGES.
 */
export const COMPACT_AT = 8
/** Pages of the full-text index a merge step writes, each step its own transaction (the longest 2.4 s above). */
const MERGE_STEP_PAGES = 2_000

/** SQLite's page cache (KiB): a process that searches again finds the common terms' pages in memory. */
const CACHE_KIB = 65_536
/**
 * The page cache of a sealed index (the recorded corpus's, 75.7 MB): read without locks, its pages stay in the
 * operating system's cache between searches anyway. 64 MiB took a digest of 136 notes to 310 MiB at its peak, 16 MiB
 * to 277 MiB, with the same CPU time and the same digest (eval/README.md, "The memory of the demo run").
 */
const SEALED_CACHE_KIB = 16_384
const cacheKib = (sealed: boolean) => (sealed ? SEALED_CACHE_KIB : CACHE_KIB)

/** The full-text index's tokenizer (a category filter is matched through the same, `admitsCategories`). */
const TOKENIZER = "porter unicode61 remove_diacritics 2"

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS papers(
  n INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  abstract TEXT NOT NULL,
  authors TEXT NOT NULL,
  published TEXT NOT NULL,
  updated TEXT,
  categories TEXT NOT NULL,
  doi TEXT,
  journal_ref TEXT,
  comments TEXT,
  report_no TEXT,
  license TEXT,
  datestamp TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS papers_published ON papers(published);
CREATE INDEX IF NOT EXISTS papers_datestamp ON papers(datestamp);
CREATE TABLE IF NOT EXISTS paper_categories(category TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY(category, n)) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS papers_fts USING fts5(
  ${FTS_COLUMNS.join(", ")},
  content='', contentless_delete=1,
  tokenize='${TOKENIZER}'
);
CREATE TABLE IF NOT EXISTS harvest(
  key TEXT PRIMARY KEY,
  set_spec TEXT NOT NULL,
  categories TEXT NOT NULL,
  done_until TEXT,
  token TEXT,
  token_expires TEXT,
  list_from TEXT,
  pages INTEGER NOT NULL DEFAULT 0,
  records INTEGER NOT NULL DEFAULT 0,
  list_size INTEGER,
  newest TEXT
);
CREATE TABLE IF NOT EXISTS citations(
  id TEXT PRIMARY KEY,
  cited_by_count INTEGER,
  counts_by_year TEXT,
  openalex_id TEXT,
  referenced_works TEXT,
  publication_date TEXT,
  fetched_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS citations_fetched ON citations(fetched_at);
`

const BM25 = `bm25(papers_fts, ${FTS_COLUMNS.map((c) => FTS_WEIGHTS[c]).join(", ")})`

/**
 * Whether one category token (`categoryToken`) matches a search's category filter (`IndexQuery.within`, an OR of
 * category tokens in the `categories` column), answered by FTS5 itself, so with the index's own stemming: a table
 * of one row per token seen, in memory, for the process; each answer kept. A paper is in the filter when one of its
 * categories is, as its full-text cell holds each category as one token.
 */
let categoryTable: sqlite.Database | undefined
const categoryRows = new Map<string, number>()
const categoryAnswers = new Map<string, boolean>()
const categoryMatches = (within: string, token: string): boolean | undefined => {
  const key = `${within}\u0000${token}`
  const known = categoryAnswers.get(key)
  if (known !== undefined) return known
  if (categoryTable === undefined) {
    categoryTable = new (engine().Database)()
    categoryTable.exec(`CREATE VIRTUAL TABLE categories_seen USING fts5(categories, tokenize='${TOKENIZER}')`)
  }
  let row = categoryRows.get(token)
  if (row === undefined) {
    row = categoryRows.size + 1
    categoryTable.run("INSERT INTO categories_seen(rowid, categories) VALUES (?, ?)", [row, token])
    categoryRows.set(token, row)
  }
  let answer: boolean
  try {
    answer = categoryTable.get("SELECT 1 AS y FROM categories_seen WHERE categories_seen MATCH ? AND rowid = ?", [within, row]) !== null
  } catch {
    return undefined // a filter on more than the categories column: only the index can answer it
  }
  if (categoryAnswers.size >= 4_096) categoryAnswers.clear()
  categoryAnswers.set(key, answer)
  return answer
}

/**
 * Whether a paper (its `categories` as the papers table holds them, space-separated) is in a category filter;
 * undefined when the filter is not one its categories alone answer.
 */
const admitsCategories = (within: string, categories: string): boolean | undefined => {
  for (const c of categories.split(" ")) {
    const token = categoryToken(c)
    if (token === "") continue
    const answer = categoryMatches(within, token)
    if (answer !== false) return answer
  }
  return false
}

type Row = Record<string, unknown>
/** The matches an FTS5 statement selects (its columns `n`, …), restricted to the papers a search's date range admits. */
type Filtered = (matches: string) => string
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined)
const num = (v: unknown): number => (typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : 0)

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

/** The full-text cells of a record, in FTS_COLUMNS order. */
const ftsCells = (r: MirrorRecord): Array<string> => [
  r.title,
  r.abstract,
  r.authors.join(", "),
  r.comments ?? "",
  r.journalRef ?? "",
  r.categories.map(categoryToken).join(" "),
  r.reportNo ?? "",
  r.id
]

/** One paper's OpenAlex count as the mirror keeps it (`citedByCount` undefined: OpenAlex had no work for it). */
export interface StoredCount {
  readonly id: string
  readonly citedByCount?: number | undefined
  /** OpenAlex's counts per year, newest first, as it answers them. */
  readonly countsByYear?: ReadonlyArray<{ readonly year: number; readonly citedByCount: number }> | undefined
  readonly openalexId?: string | undefined
  /** OpenAlex ids of the works the paper cites; undefined when OpenAlex listed none. */
  readonly referencedWorks?: ReadonlyArray<string> | undefined
  /** The work's publication date when the record is the preprint's own. */
  readonly publicationDate?: string | undefined
  /** When the count was fetched (ISO date-time, UTC). */
  readonly fetchedAt: string
}

/**
 * A stored count as the citations table's row, in its columns' order (id, cited_by_count, counts_by_year,
 * openalex_id, referenced_works, publication_date, fetched_at): the lists as JSON text. The same row for the
 * SQLite and the PostgreSQL mirror.
 */
export const citationRow = (c: StoredCount): Array<string | number | null> => [
  c.id,
  c.citedByCount ?? null,
  c.countsByYear === undefined ? null : JSON.stringify(c.countsByYear),
  c.openalexId ?? null,
  c.referencedWorks === undefined ? null : JSON.stringify(c.referencedWorks),
  c.publicationDate ?? null,
  c.fetchedAt
]

/** How far the mirror's counts go. */
export interface CitationStatus {
  /** Papers held with a count. */
  readonly counted: number
  /** Papers held that OpenAlex had no work for when asked. */
  readonly notFound: number
  /** Papers held never asked about. */
  readonly uncounted: number
  /** When the oldest and the newest counts of papers held were fetched. */
  readonly oldest: string | undefined
  readonly newest: string | undefined
}

const countOf = (row: Row): StoredCount => {
  const years = str(row["counts_by_year"])
  const refs = str(row["referenced_works"])
  return {
    id: String(row["id"]),
    citedByCount: row["cited_by_count"] === null || row["cited_by_count"] === undefined ? undefined : num(row["cited_by_count"]),
    countsByYear: years === undefined ? undefined : JSON.parse(years) as StoredCount["countsByYear"],
    openalexId: str(row["openalex_id"]),
    referencedWorks: refs === undefined ? undefined : JSON.parse(refs) as Array<string>,
    publicationDate: str(row["publication_date"]),
    fetchedAt: String(row["fetched_at"])
  }
}

/** What tells one version of a file from another: a reader opened unlocked reopens the file when it changes. */
const signatureOf = (file: string): string => {
  const st = statSync(file)
  return `${st.ino}:${st.size}:${st.mtimeMs}`
}

/**
 * Why a file nobody here can lock cannot be read as unchanging now, if it
 * cannot: a write in progress (its lock folder or a sync's lock beside it),
 * or a write interrupted (its journal, which only a writer can roll back).
 */
const unsteady = (dir: string, file: string): string | undefined => {
  if (existsSync(`${file}-journal`)) {
    return `the mirror in ${dir} holds an interrupted write (${file}-journal) that only a sync can undo, and its folder is read-only; ` +
      `run \`arxiv-companion mirror sync --dir ${dir}\` as a user who can write it, or copy the mirror to a folder you can write`
  }
  for (const lock of [`${file}.lock`, `${dir}/sync.lock`]) {
    if (existsSync(lock)) {
      return `the mirror in ${dir} is being written (${lock}), and a read-only folder is read as unchanging; try again once the sync has ended`
    }
  }
  return undefined
}

/**
 * The `application_id` (https://sqlite.org/fileformat.html#application_id,
 * four bytes at offset 68 of the file's header) of an index built once for
 * reading (`seal`): read unlocked by every reader, refused to every writer.
 * Read from the header with a plain read, before SQLite opens the file.
 */
const SEALED_ID = 0x61786331 // "axc1"

const isSealed = (file: string): boolean => {
  let fd: number | undefined
  try {
    fd = openSync(file, "r")
    const header = Buffer.alloc(100)
    return readSync(fd, header, 0, 100, 0) === 100 && header.readUInt32BE(68) === SEALED_ID
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Rankings of this many recent searches are kept (the corpus search keeps as many). */
const RANKINGS_KEPT = 64

/** An open index. Not safe to share between threads; one per process and directory is plenty. */
export class MirrorIndex {
  /** Recent searches' results by the query's key, least recently used first; valid for `generation` only. */
  private readonly rankings = new Map<string, { readonly rows: ReadonlyArray<PaperRow>; readonly total: number }>()
  /** The row-number range of each published range searched (`rowRange`), valid for `generation` only. */
  private readonly rowRanges = new Map<string, string>()
  /** The newest papers' sample (`newest`) and each category filter's share of it (`shareIn`), valid for `generation` only. */
  private sampled: { readonly newest: number; readonly from: number; readonly sampled: number } | undefined
  private readonly shares = new Map<string, number>()
  private generation = ""
  /** Bumped by every commit of this connection and every reopening (SQLite's data_version counts other connections' commits). */
  private epoch = 0

  private constructor(
    private db: sqlite.Database,
    /** The index file. */
    readonly file: string,
    readonly readOnly: boolean,
    /**
     * Opened unlocked (`immutable=1`): a sealed index, or one in a folder this
     * process cannot write. The file's signature at opening: a changed file is
     * reopened before the next read.
     */
    private unlocked: { readonly dir: string; signature: string; readonly sealed: boolean } | undefined
  ) {}

  /** The index's folder. */
  get dir(): string {
    return dirname(this.file)
  }

  /** Whether this index is read without locks (sealed, or in a read-only folder): no `<file>.lock` is ever made. */
  get readsUnlocked(): boolean {
    return this.unlocked !== undefined
  }

  /**
   * Open the index of `dir`: created when `create` (the harvester), else it
   * must exist (a reader); `scratch`: a new index built whole in a folder thrown away if the build fails, written
   * without a journal. A reader never writes. A reader of a folder it
   * cannot write, or of a sealed index, opens the file unlocked
   * (`immutable=1`), and reopens it if it changes; every other open locks the
   * file per transaction, so readers and the harvester take turns.
   */
  static open(dir: string, options: { readonly create: boolean; readonly scratch?: boolean }): MirrorIndex {
    const file = `${dir.replace(/\/+$/, "")}/${INDEX_FILE}`
    if (!options.create) {
      try {
        statSync(file)
      } catch {
        throw new IndexUnavailable(
          `no mirror in ${dir} (${INDEX_FILE} is missing); build one with \`arxiv-companion mirror sync --categories cs.LG --dir ${dir}\``
        )
      }
    } else {
      try {
        mkdirSync(dir, { recursive: true })
      } catch (e) {
        throw new IndexUnavailable(`cannot create the mirror's folder ${dir}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`)
      }
    }
    const sealed = isSealed(file)
    if (sealed && options.create) {
      throw new IndexUnavailable(
        `${file} is sealed: built once for reading (npm run mirror:corpus) and read without locks, so it is never written again; ` +
          "sync into another folder (--dir DIR)"
      )
    }
    if (sealed) return MirrorIndex.openUnlocked(dir, file, true)
    const canWrite = writable(dir)
    if (!canWrite && options.create) throw new IndexUnavailable(readOnlyReason(dir, "write"))
    if (!canWrite) return MirrorIndex.openUnlocked(dir, file, false)
    removeStaleLock(file)
    // the path as the package's file layer names it (SQLite's full path name: `path.resolve` of the one given)
    lockedIndexes.add(`${resolve(file)}.lock`)
    if (!options.create) {
      try {
        rollBackInterruptedWrite(file)
      } catch (e) {
        throw new IndexUnavailable(failureReason(dir, e, "the index", "read"))
      }
    }
    let db: sqlite.Database
    try {
      db = new (engine().Database)(file, options.create ? {} : { readOnly: true, fileMustExist: true })
    } catch (e) {
      throw new IndexUnavailable(`cannot open ${file}: ${(e as Error).message}`)
    }
    const index = new MirrorIndex(db, file, !options.create, undefined)
    try {
      db.exec(`PRAGMA busy_timeout = ${BUSY_MILLIS}; PRAGMA cache_size = -${CACHE_KIB}`)
      // an index built whole in a folder of its own and thrown away if the build fails (the recorded corpus's):
      // no journal and no sync to disk per page, as nothing of it is read before it is complete
      if (options.create && options.scratch === true) db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
      if (options.create) index.migrate()
      else index.checkSchema()
    } catch (e) {
      db.close()
      throw e instanceof IndexUnavailable ? e : new IndexUnavailable(failureReason(dir, e, "the index", options.create ? "write" : "read"))
    }
    return index
  }

  /** Open `file` unlocked for reading (see `open`). */
  private static openUnlocked(dir: string, file: string, sealed: boolean): MirrorIndex {
    // a sealed index is never written: a lock folder beside it is no writer's
    const busy = sealed ? undefined : unsteady(dir, file)
    if (busy !== undefined) throw new IndexUnavailable(busy)
    let db: sqlite.Database
    let signature: string
    try {
      signature = signatureOf(file)
      db = openImmutable(file)
    } catch (e) {
      throw new IndexUnavailable(`cannot open ${file}: ${(e as Error).message}`)
    }
    const index = new MirrorIndex(db, file, true, { dir, signature, sealed })
    try {
      db.exec(`PRAGMA cache_size = -${cacheKib(sealed)}`)
      index.checkSchema()
    } catch (e) {
      db.close()
      throw e instanceof IndexUnavailable ? e : new IndexUnavailable(failureReason(dir, e, "the index", "read"))
    }
    return index
  }

  /**
   * An index read unlocked whose file changed since it was opened (a copy
   * replaced, a sync by a user who can write the folder) is opened again
   * before it is read, and its kept rankings forgotten.
   */
  private refresh(): void {
    const unlocked = this.unlocked
    if (unlocked === undefined) return
    let now: string
    try {
      now = signatureOf(this.file)
    } catch (e) {
      throw new IndexUnavailable(`the mirror's index ${this.file} is gone (${(e as NodeJS.ErrnoException).code ?? String(e)})`)
    }
    if (now === unlocked.signature) return
    const busy = isSealed(this.file) ? undefined : unsteady(unlocked.dir, this.file)
    if (busy !== undefined) throw new IndexUnavailable(busy)
    const db = openImmutable(this.file)
    db.exec(`PRAGMA cache_size = -${cacheKib(isSealed(this.file))}`)
    if (this.db.isOpen) this.db.close()
    this.db = db
    unlocked.signature = now
    this.epoch++
    this.checkSchema()
  }

  /**
   * Seal the index: it is then read unlocked by every reader and refused to
   * every writer (`open`). Its full-text index merged into one segment and the
   * file rewritten without free pages first (`VACUUM`): for an index built
   * once and shipped, as the recorded corpus.
   */
  seal(): void {
    if (this.readOnly) throw new Error("seal: the index was opened for reading")
    this.db.exec("INSERT INTO papers_fts(papers_fts) VALUES ('optimize')")
    this.db.exec(`PRAGMA application_id = ${SEALED_ID}`)
    this.db.exec("VACUUM")
  }

  /** How many segments the full-text index holds (FTS5 reads a word's list once per segment). */
  fullTextSegments(): number {
    return this.read(() => num((this.db.get("SELECT count(DISTINCT segid) AS c FROM papers_fts_idx") as Row)["c"]))
  }

  /**
   * Merge the full-text index into one segment when it holds `atSegments` or more (COMPACT_AT): FTS5's incremental
   * merge, `stepPages` pages a step (MERGE_STEP_PAGES), each step its own transaction (a reader waits for one step at most; a merge
   * killed between steps leaves a whole index, merged on by the next; `onStep` hears each step's time). The segments
   * before and after.
   */
  compact(
    atSegments = COMPACT_AT,
    stepPages = MERGE_STEP_PAGES,
    onStep: (millis: number) => void = () => {}
  ): { readonly before: number; readonly after: number } {
    if (this.readOnly) throw new Error("compact: the index was opened for reading")
    const before = this.fullTextSegments()
    if (before < atSegments || before < 2) return { before, after: before }
    const changes = () => num((this.db.get("SELECT total_changes() AS c") as Row)["c"])
    for (let step = 0;; step++) {
      const done = changes()
      const started = performance.now()
      // a negative page count starts merging every segment into one; a positive one goes on with it
      this.transaction(() =>
        this.db.run("INSERT INTO papers_fts(papers_fts, rank) VALUES ('merge', ?)", [step === 0 ? -stepPages : stepPages])
      )
      onStep(performance.now() - started)
      // FTS5 writes fewer than two rows in a step that found nothing left to merge
      if (changes() - done < 2) break
    }
    return { before, after: this.fullTextSegments() }
  }

  private migrate(): void {
    // large pages (a new file only): FTS5's doclists are read through the JS file system a page at a time
    this.db.exec(`PRAGMA page_size = ${PAGE_SIZE}`)
    this.db.exec(SCHEMA)
    const version = this.db.get("SELECT value FROM meta WHERE key = 'schema'")
    if (version === null) this.db.run("INSERT INTO meta(key, value) VALUES ('schema', ?)", [String(SCHEMA_VERSION)])
    else this.checkSchema()
  }

  private checkSchema(): void {
    const row = this.db.get("SELECT value FROM meta WHERE key = 'schema'") as Row | null
    if (row === null || row["value"] !== String(SCHEMA_VERSION)) {
      throw new IndexUnavailable(
        `${this.file} is not a mirror index of this version (schema ${row === null ? "none" : String(row["value"])}, ` +
          `this version reads ${SCHEMA_VERSION}); move it away and sync again`
      )
    }
  }

  close(): void {
    if (this.db.isOpen) this.db.close()
  }

  /** Write entries of the index's `meta` table (what an index built for a purpose says about itself), in one transaction. */
  writeMeta(entries: Readonly<Record<string, string>>): void {
    this.transaction(() => {
      for (const [key, value] of Object.entries(entries)) {
        this.db.run("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [key, value])
      }
    })
  }

  /** An entry of the index's `meta` table, if written. */
  readMeta(key: string): string | undefined {
    return this.read(() => str((this.db.get("SELECT value FROM meta WHERE key = ?", [key]) as Row | null)?.["value"]))
  }

  /** Where the harvest `key` stands, if it ever started. */
  harvestState(key: string): HarvestState | undefined {
    const row = this.db.get("SELECT * FROM harvest WHERE key = ?", [key]) as Row | null
    return row === null ? undefined : stateOf(row)
  }

  /** Every harvest's state. */
  harvests(): ReadonlyArray<HarvestState> {
    return (this.db.all("SELECT * FROM harvest ORDER BY key") as Array<Row>).map(stateOf)
  }

  /** Save a harvest's state alone (a restart after a refused token, a list found empty). */
  saveState(state: HarvestState): void {
    this.transaction(() => this.writeState(state))
  }

  private writeState(s: HarvestState): void {
    this.db.run(
      `INSERT INTO harvest(key, set_spec, categories, done_until, token, token_expires, list_from, pages, records, list_size, newest)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET done_until = excluded.done_until, token = excluded.token,
         token_expires = excluded.token_expires, list_from = excluded.list_from, pages = excluded.pages,
         records = excluded.records, list_size = excluded.list_size, newest = excluded.newest`,
      harvestRow(s)
    )
  }

  private transaction<A>(body: () => A): A {
    this.epoch++
    this.db.exec("BEGIN IMMEDIATE")
    try {
      const result = body()
      this.db.exec("COMMIT")
      return result
    } catch (e) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK")
      throw e
    }
  }

  /**
   * Apply one page and the harvest's new state in one transaction: a record
   * is added, or replaces the version held when it is as new or newer; a
   * deletion removes the paper; records `keep` refuses are skipped.
   */
  commitPage(entries: ReadonlyArray<OaiEntry>, keep: (record: MirrorRecord) => boolean, state: HarvestState): PageChanges {
    return this.transaction(() => {
      let added = 0
      let replaced = 0
      let deleted = 0
      let skipped = 0
      let unchanged = 0
      for (const entry of entries) {
        const held = this.db.get("SELECT n, datestamp FROM papers WHERE id = ?", [entry._tag === "Record" ? entry.record.id : entry.id]) as
          | Row
          | null
        if (entry._tag === "Deleted") {
          if (held !== null) {
            this.remove(num(held["n"]))
            deleted++
          }
          continue
        }
        const r = entry.record
        if (!keep(r)) {
          skipped++
          continue
        }
        if (held !== null && String(held["datestamp"]) > r.datestamp) {
          unchanged++
          continue
        }
        if (held !== null) {
          this.remove(num(held["n"]))
          replaced++
        } else added++
        this.insert(r, held === null ? undefined : num(held["n"]))
      }
      this.writeState(state)
      return { added, replaced, deleted, skipped, unchanged }
    })
  }

  private remove(n: number): void {
    this.db.run("DELETE FROM papers_fts WHERE rowid = ?", [n])
    // by the paper's own categories: paper_categories is keyed (category, n), and `WHERE n = ?` alone read all of it
    // (2.5 million rows at 1,000,000 papers: a page of 2,500 deletions took minutes)
    const categories = str((this.db.get("SELECT categories FROM papers WHERE n = ?", [n]) as Row | null)?.["categories"]) ?? ""
    this.db.run("DELETE FROM paper_categories WHERE category IN (SELECT value FROM json_each(?)) AND n = ?", [
      JSON.stringify(categories.split(" ").filter((c) => c !== "")),
      n
    ])
    this.db.run("DELETE FROM papers WHERE n = ?", [n])
  }

  private insert(r: MirrorRecord, n: number | undefined): void {
    const result = this.db.run(
      `INSERT INTO papers(n, id, title, abstract, authors, published, updated, categories, doi, journal_ref, comments, report_no, license, datestamp)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        n ?? null,
        r.id,
        r.title,
        r.abstract,
        JSON.stringify(r.authors),
        r.published,
        r.updated ?? null,
        r.categories.join(" "),
        r.doi ?? null,
        r.journalRef ?? null,
        r.comments ?? null,
        r.reportNo ?? null,
        r.license ?? null,
        r.datestamp
      ]
    )
    const rowid = n ?? num(result.lastInsertRowid)
    this.db.run(`INSERT INTO papers_fts(rowid, ${FTS_COLUMNS.join(", ")}) VALUES (?, ${FTS_COLUMNS.map(() => "?").join(", ")})`, [
      rowid,
      ...ftsCells(r)
    ])
    for (const c of new Set(r.categories)) this.db.run("INSERT INTO paper_categories(category, n) VALUES (?, ?)", [c, rowid])
  }

  /**
   * A read in one transaction: node-sqlite3-wasm takes its file lock (a
   * directory made and removed) per transaction, so a search's statements
   * share one.
   */
  private read<A>(body: () => A): A {
    if (this.db.inTransaction) return body()
    this.refresh()
    try {
      return this.inReadTransaction(body)
    } catch (e) {
      // a write killed mid-commit since this reader opened: its journal rolled back, then read again (once)
      if (this.unlocked !== undefined || !/readonly/i.test(String(e)) || !existsSync(`${this.file}-journal`)) throw e
      rollBackInterruptedWrite(this.file)
      return this.inReadTransaction(body)
    }
  }

  private inReadTransaction<A>(body: () => A): A {
    this.db.exec("BEGIN")
    try {
      return body()
    } finally {
      if (this.db.inTransaction) this.db.exec("COMMIT")
    }
  }

  /** Rows by their row number, in the order given. */
  private rowsOf(ns: ReadonlyArray<number>): Array<PaperRow> {
    if (ns.length === 0) return []
    const rows = this.db.all(`SELECT * FROM papers WHERE n IN (${ns.map(() => "?").join(",")})`, [...ns]) as unknown as Array<
      PaperRow & { n: number }
    >
    const byN = new Map(rows.map((r) => [num(r.n), r]))
    return ns.map((n) => byN.get(n)).filter((r): r is PaperRow & { n: number } => r !== undefined)
  }

  /** Papers by bare id, in the order asked; ids not held are left out. */
  byIds(ids: ReadonlyArray<string>): ReadonlyArray<PaperRow> {
    if (ids.length === 0) return []
    return this.read(() => {
      const rows = this.db.all(`SELECT * FROM papers WHERE id IN (${ids.map(() => "?").join(",")})`, [...ids]) as unknown as Array<PaperRow>
      const byId = new Map(rows.map((r) => [r.id, r]))
      return ids.map((id) => byId.get(id)).filter((r): r is PaperRow => r !== undefined)
    })
  }

  /** The row numbers of the papers held among `ids` (bare ids), by id: what `matching` answers in. */
  numbersOf(ids: ReadonlyArray<string>): ReadonlyMap<string, number> {
    if (ids.length === 0) return new Map()
    return this.read(() =>
      new Map(
        (this.db.all("SELECT id, n FROM papers WHERE id IN (SELECT value FROM json_each(?))", [JSON.stringify(ids)]) as Array<Row>).map((
          r
        ) => [String(r["id"]), num(r["n"])])
      )
    )
  }

  /** The row numbers of every paper an FTS5 MATCH expression matches (unranked: a set to intersect with others). */
  matching(match: string): ReadonlySet<number> {
    return this.read(() =>
      new Set((this.db.all("SELECT rowid AS n FROM papers_fts WHERE papers_fts MATCH ?", [match]) as Array<Row>).map((r) => num(r["n"])))
    )
  }

  /**
   * One page of a search, and how many papers match in all. The results of
   * the last 64 searches are kept, keyed by the whole query (filters, sort
   * and page included), so the same search again is a lookup; they are
   * forgotten as soon as the index changes: a page committed by this
   * connection, by another process (SQLite's `data_version`, read in the
   * search's own read transaction), or a file read unlocked replaced. A text search
   * ranks the index's row numbers alone (bm25 and the count in one pass over
   * the matches) and reads the page's papers after: a pool of 1000 out of a
   * million matches reads 1000 records, not a million.
   */
  search(q: IndexQuery): { readonly rows: ReadonlyArray<PaperRow>; readonly total: number } {
    const key = JSON.stringify([
      q.match ?? null,
      q.alternatives ?? null,
      q.within ?? null,
      q.text ?? null,
      q.narrowTo ?? null,
      q.filterInRanking ?? null,
      q.publishedFrom ?? null,
      q.publishedTo ?? null,
      q.updatedFrom ?? null,
      q.updatedTo ?? null,
      q.sortBy,
      q.sortOrder,
      q.start,
      q.limit
    ])
    // a file read unlocked changes only by being replaced (`refresh` reopens it and counts an epoch): no statement needed
    if (this.unlocked !== undefined) {
      this.refresh()
      return this.kept(`${this.epoch}`, key, () => this.read(() => this.searchNow(q)))
    }
    return this.read(() =>
      this.kept(`${this.epoch}:${num((this.db.get("PRAGMA data_version") as Row)["data_version"])}`, key, () => this.searchNow(q))
    )
  }

  /** The kept result of `key` if the index is still at `generation`, else `search`'s, kept. */
  private kept(
    generation: string,
    key: string,
    search: () => { readonly rows: ReadonlyArray<PaperRow>; readonly total: number }
  ): { readonly rows: ReadonlyArray<PaperRow>; readonly total: number } {
    if (generation !== this.generation) {
      this.rankings.clear()
      this.rowRanges.clear()
      this.sampled = undefined
      this.shares.clear()
      this.generation = generation
    }
    const kept = this.rankings.get(key)
    if (kept !== undefined) {
      this.rankings.delete(key)
      this.rankings.set(key, kept) // most recently used last
      return kept
    }
    const found = search()
    if (this.rankings.size >= RANKINGS_KEPT) this.rankings.delete(this.rankings.keys().next().value!)
    this.rankings.set(key, found)
    return found
  }

  /** How many searches' results are kept now (at most 64; emptied when the index changes). */
  get keptSearches(): number {
    return this.rankings.size
  }

  private searchNow(q: IndexQuery): { readonly rows: ReadonlyArray<PaperRow>; readonly total: number } {
    const where: Array<string> = []
    const params: Array<string | number> = []
    const range = (column: string, from: string | undefined, to: string | undefined) => {
      if (from !== undefined) {
        where.push(`${column} >= ?`)
        params.push(from)
      }
      if (to !== undefined) {
        where.push(`${column} <= ?`)
        params.push(to)
      }
    }
    range("published", q.publishedFrom, q.publishedTo)
    range("coalesce(updated, published)", q.updatedFrom, q.updatedTo)
    const direction = q.sortOrder === "ascending" ? "ASC" : "DESC"
    return this.read(() => {
      if (q.match === undefined || q.sortBy !== "relevance") {
        const text = q.match === undefined ? "" : "n IN (SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?)"
        const conditions = [...(text === "" ? [] : [text]), ...where]
        const clause = conditions.length === 0 ? "" : `WHERE ${conditions.join(" AND ")}`
        const all = [...(q.match === undefined ? [] : [q.match]), ...params]
        const order = q.sortBy === "lastUpdatedDate" ? `coalesce(updated, published) ${direction}` : q.sortBy === "submittedDate"
          ? `published ${direction}`
          : "published DESC"
        const total = num((this.db.get(`SELECT count(*) AS c FROM papers ${clause}`, all) as Row)["c"])
        const rows = this.db.all(`SELECT * FROM papers ${clause} ORDER BY ${order}, id LIMIT ? OFFSET ?`, [...all, q.limit, q.start]) as unknown as Array<
          PaperRow
        >
        return { rows, total }
      }
      // the date filter applies to the matches once FTS5 has found them: a `rowid IN (…)` beside the MATCH made
      // FTS5 evaluate the whole expression once per paper of the range (seconds for one title word and a year).
      // A range of row numbers holding every paper of the published range goes inside the MATCH, which FTS5 seeks
      // to: the papers outside it are never scored (BM25's IDF is the whole index's whatever the rows read)
      const rows = this.rowRange(q.publishedFrom, q.publishedTo)
      const filtered: Filtered = (matches) =>
        where.length === 0
          ? matches
          : `SELECT f.* FROM (${matches}${rows} LIMIT -1) AS f JOIN papers p ON p.n = f.n WHERE ${where.join(" AND ")}`
      const narrow = this.narrowing(q, filtered, params)
      const match = narrow?.match ?? q.match
      const text = narrow !== undefined ? narrow.text : q.text
      if (text !== undefined && match !== undefined && q.within !== undefined && q.filterInRanking !== true) {
        const found = this.rankedThenFiltered(q, text, q.within, narrow?.share ?? this.shareIn(q.within), filtered, params)
        if (found !== undefined) {
          // every match read: the count is those in the filter; a narrowed search's total is its estimate (at least
          // the papers it found), else the matches are counted
          const total = narrow !== undefined
            ? Math.max(narrow.total, found.kept)
            : found.readAll
            ? found.kept
            : this.countOf(match, filtered, params)
          return { rows: found.rows, total }
        }
      }
      const ranked = this.db.all(
        `SELECT n, score, count(*) OVER () AS total
         FROM (${filtered(`SELECT rowid AS n, ${BM25} AS score FROM papers_fts WHERE papers_fts MATCH ?`)})
         ORDER BY score, n DESC LIMIT ? OFFSET ?`,
        [match, ...params, q.limit, q.start]
      ) as Array<Row>
      const total = narrow !== undefined
        ? Math.max(narrow.total, ranked.length > 0 ? num(ranked[0]!["total"]) : 0)
        : ranked.length > 0
        ? num(ranked[0]!["total"])
        : q.start === 0
        ? 0
        : this.countOf(match, filtered, params)
      return { rows: this.rowsOf(ranked.map((r) => num(r["n"]))), total }
    })
  }

  /** How many papers a MATCH expression matches, within a search's date range. */
  private countOf(match: string, filtered: Filtered, params: ReadonlyArray<string | number>): number {
    return num(
      (this.db.get(`SELECT count(*) AS c FROM (${filtered("SELECT rowid AS n FROM papers_fts WHERE papers_fts MATCH ?")})`, [match, ...params]) as Row)["c"]
    )
  }

  /**
   * The newest papers' row numbers start after `from`; `sampled` of them (at most SAMPLE_ROWS) are held. Read once
   * until the index changes.
   */
  private newest(): { readonly newest: number; readonly from: number; readonly sampled: number } {
    if (this.sampled !== undefined) return this.sampled
    const newest = num((this.db.get("SELECT max(n) AS m FROM papers") as Row)["m"])
    const from = Math.max(0, newest - SAMPLE_ROWS)
    const sampled = num((this.db.get("SELECT count(*) AS c FROM papers WHERE n > ?", [from]) as Row)["c"])
    this.sampled = { newest, from, sampled }
    return this.sampled
  }

  /** The share of the newest papers (SAMPLE_ROWS) in a category filter, read once until the index changes. */
  private shareIn(within: string): number {
    const known = this.shares.get(within)
    if (known !== undefined) return known
    const sample = this.newest()
    const share = sample.sampled === 0
      ? 0
      : num((this.db.get("SELECT count(*) AS c FROM papers_fts WHERE papers_fts MATCH ? AND rowid > ?", [within, sample.from]) as Row)["c"]) /
        sample.sampled
    if (this.shares.size >= RANKINGS_KEPT) this.shares.clear()
    this.shares.set(within, share)
    return share
  }

  /**
   * The least and greatest row numbers of the papers first published in [from, to], as a condition on an FTS5
   * statement's rowid (" AND rowid BETWEEN lo AND hi"; "" without a published range): it admits every paper of the
   * range (the date filter still decides), and the index's row numbers follow the harvest's order, so it leaves
   * out most papers of other years. Found once per range until the index changes (read through `papers_published`).
   */
  private rowRange(from: string | undefined, to: string | undefined): string {
    if (from === undefined && to === undefined) return ""
    const key = `${from ?? ""}|${to ?? ""}`
    const known = this.rowRanges.get(key)
    if (known !== undefined) return known
    const conditions = [...(from === undefined ? [] : ["published >= ?"]), ...(to === undefined ? [] : ["published <= ?"])]
    const row = this.db.get(`SELECT min(n) AS lo, max(n) AS hi FROM papers WHERE ${conditions.join(" AND ")}`, [
      ...(from === undefined ? [] : [from]),
      ...(to === undefined ? [] : [to])
    ]) as Row
    const lo = row["lo"]
    const hi = row["hi"]
    // no paper in the range: the date filter alone answers (nothing); row numbers are integers, written as such
    const range = lo == null || hi == null || !Number.isSafeInteger(num(lo)) || !Number.isSafeInteger(num(hi))
      ? ""
      : ` AND rowid BETWEEN ${num(lo)} AND ${num(hi)}`
    if (this.rowRanges.size >= RANKINGS_KEPT) this.rowRanges.clear()
    this.rowRanges.set(key, range)
    return range
  }

  /**
   * A relevance search with a category filter (`within`), ranked on its `text` alone (a narrowed search's: the OR
   * kept) and its papers read in that order, each kept when one of its categories is in the filter, until the page is
   * full: the same papers in the same order as ranking `text AND within`, where FTS5's `bm25()` would count every
   * match of each category phrase (most of the index) for its IDF, while the phrases add exactly 0 to a score (their
   * column weighs 0). At 1,000,000 records the narrowed concept query's ranking took 245 ms of CPU without them and
   * 550 ms with them, a title search 28 ms and 267 (bench/README.md). `kept`: the papers in the filter among those
   * read, all of them when `readAll` (every paper matching `text` read). Undefined, to rank with the filter as before,
   * when the newest papers are mostly outside the filter (`share` below half), when the filter is not one the
   * categories alone answer, or when the papers ranked cannot fill the page while more matched.
   */
  private rankedThenFiltered(
    q: IndexQuery,
    text: string,
    within: string,
    share: number,
    filtered: Filtered,
    params: ReadonlyArray<string | number>
  ): { readonly rows: ReadonlyArray<PaperRow>; readonly kept: number; readonly readAll: boolean } | undefined {
    if (share < 0.5) return undefined
    const want = q.start + q.limit
    const cap = Math.ceil((want / share) * 1.2) + 100
    // no count of the matches beside the ranking (a window over every match): the first `cap` are all it reads
    const ranked = (this.db.all(
      `SELECT n FROM (${filtered(`SELECT rowid AS n, ${BM25} AS score FROM papers_fts WHERE papers_fts MATCH ?`)}) ORDER BY score, n DESC LIMIT ?`,
      [text, ...params, cap]
    ) as Array<Row>).map((r) => num(r["n"]))
    const more = ranked.length === cap // more papers may match than were ranked
    const kept: Array<PaperRow> = []
    let read = 0
    // a first batch of 256 measures the papers' rate in the filter; a page it cannot fill is ranked again at once
    for (let at = 0; kept.length < want && at < ranked.length;) {
      const size = Math.ceil((want - kept.length) / (at === 0 ? share : Math.max(kept.length / at, 0.01))) + 16
      const batch = ranked.slice(at, at + (at === 0 ? Math.min(size, 256) : size))
      at += batch.length
      for (const row of this.rowsOf(batch)) {
        read++
        const admitted = admitsCategories(within, row.categories)
        if (admitted === undefined) return undefined // a filter on more than the categories: FTS5 answers it in the MATCH
        if (admitted) kept.push(row)
        if (kept.length === want) break
      }
      if (more && kept.length < want && kept.length + (ranked.length - at) * (kept.length / at) < want) return undefined
    }
    if (more && kept.length < want) return undefined
    return { rows: kept.slice(q.start), kept: kept.length, readAll: !more && read === ranked.length }
  }

  /**
   * The narrowed form of a wide OR, and its estimated total, or undefined
   * when the query is not one OR or matches few enough papers to rank them
   * all. Estimates count the matches among the newest SAMPLE_ROWS papers;
   * with a category filter, also the share of those papers in it, and the
   * narrowed OR without it (`text`, see `rankedThenFiltered`).
   */
  private narrowing(
    q: IndexQuery,
    filtered: Filtered,
    params: ReadonlyArray<string | number>
  ): { readonly match: string; readonly total: number; readonly text: string; readonly share: number } | undefined {
    const alternatives = q.alternatives
    if (alternatives === undefined || alternatives.length < 2 || q.match === undefined) return undefined
    const { from, newest, sampled } = this.newest()
    if (sampled === 0) return undefined
    const scale = newest / sampled
    if (q.start + q.limit > NARROW_POOL) return undefined
    const want = q.narrowTo ?? Math.max(NARROW_TO, Math.round(NARROW_SHARE * newest))
    if (want <= 0) return undefined
    const within = q.within === undefined ? "" : ` AND ${q.within}`
    const count = (match: string) =>
      num(
        (this.db.get(`SELECT count(*) AS c FROM (${filtered("SELECT rowid AS n FROM papers_fts WHERE papers_fts MATCH ? AND rowid > ?")})`, [
          match,
          from,
          ...params
        ]) as Row)["c"]
      )
    const total = Math.round(count(q.match) * scale)
    if (total <= want) return undefined
    const rarest = alternatives.map((a) => ({ a, c: count(`(${a})${within}`) })).sort((x, y) => x.c - y.c)
    const kept: Array<string> = []
    let covered = 0
    for (const { a, c } of rarest) {
      if (covered * scale >= want) break
      kept.push(a)
      covered += c
    }
    if (kept.length === alternatives.length) return undefined
    const text = `(${kept.join(" OR ")})`
    if (q.within === undefined) return { match: text, total, text, share: 1 }
    return { match: `${text}${within}`, total, text, share: this.shareIn(q.within) }
  }

  /**
   * For the bench only: add a copy of the papers numbered 1 to `upTo`, the
   * id suffixed with `suffix` (digits), indexed as `commitPage` indexes a
   * record (the same cells, built in SQL). One transaction.
   */
  replicate(suffix: string, upTo: number): number {
    if (!/^[0-9]+$/.test(suffix)) throw new Error("replicate: the suffix must be digits")
    return this.transaction(() => {
      const top = num((this.db.get("SELECT coalesce(max(n), 0) AS m FROM papers") as Row)["m"])
      this.db.run(
        `INSERT INTO papers(n, id, title, abstract, authors, published, updated, categories, doi, journal_ref, comments, report_no, license, datestamp)
         SELECT n + ?, id || ?, title, abstract, authors, published, updated, categories, doi, journal_ref, comments, report_no, license, datestamp
         FROM papers WHERE n <= ? AND id NOT LIKE '%/%'`,
        [top, suffix, upTo]
      )
      this.db.run(
        `INSERT INTO papers_fts(rowid, ${FTS_COLUMNS.join(", ")})
         SELECT n, title, abstract, authors, coalesce(comments, ''), coalesce(journal_ref, ''),
           lower(replace(replace(categories, '.', ''), '-', '')), coalesce(report_no, ''), id
         FROM papers WHERE n > ?`,
        [top]
      )
      this.db.run(
        "INSERT INTO paper_categories(category, n) SELECT category, n + ? FROM paper_categories WHERE n <= ? AND n + ? IN (SELECT n FROM papers WHERE n > ?)",
        [top, upTo, top, top]
      )
      return num((this.db.get("SELECT count(*) AS c FROM papers WHERE n > ?", [top]) as Row)["c"])
    })
  }

  /** Whether this index has the citations table (an index made before it has none until its next sync). */
  private hasCitations(): boolean {
    return this.db.get("SELECT 1 AS y FROM sqlite_master WHERE type = 'table' AND name = 'citations'") !== null
  }

  /**
   * Up to `limit` ids of papers held whose count is due: never asked about
   * first (oldest first by their number), then counts fetched before
   * `staleBefore` (ISO), oldest fetched first. And how many are due in all.
   */
  dueForCounting(limit: number, staleBefore: string): { readonly ids: ReadonlyArray<string>; readonly due: number } {
    return this.read(() => {
      if (!this.hasCitations()) {
        const ids = (this.db.all("SELECT id FROM papers ORDER BY n LIMIT ?", [limit]) as Array<Row>).map((r) => String(r["id"]))
        return { ids, due: num((this.db.get("SELECT count(*) AS c FROM papers") as Row)["c"]) }
      }
      const from = "FROM papers p LEFT JOIN citations c ON c.id = p.id WHERE c.id IS NULL OR c.fetched_at < ?"
      const ids = (this.db.all(
        `SELECT p.id AS id ${from} ORDER BY c.fetched_at IS NOT NULL, c.fetched_at, p.n LIMIT ?`,
        [staleBefore, limit]
      ) as Array<Row>).map((r) => String(r["id"]))
      return { ids, due: num((this.db.get(`SELECT count(*) AS c ${from}`, [staleBefore]) as Row)["c"]) }
    })
  }

  /** Store one batch of counts in one transaction: all of them, or none. */
  commitCounts(counts: ReadonlyArray<StoredCount>): void {
    this.transaction(() => {
      for (const c of counts) {
        this.db.run(
          `INSERT INTO citations(id, cited_by_count, counts_by_year, openalex_id, referenced_works, publication_date, fetched_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT(id) DO UPDATE SET cited_by_count = excluded.cited_by_count, counts_by_year = excluded.counts_by_year,
             openalex_id = excluded.openalex_id, referenced_works = excluded.referenced_works,
             publication_date = excluded.publication_date, fetched_at = excluded.fetched_at`,
          citationRow(c)
        )
      }
    })
  }

  /** The stored counts of these ids (those asked about), by id. */
  countsByIds(ids: ReadonlyArray<string>): ReadonlyMap<string, StoredCount> {
    if (ids.length === 0) return new Map()
    return this.read(() => {
      if (!this.hasCitations()) return new Map()
      const rows = this.db.all(`SELECT * FROM citations WHERE id IN (${ids.map(() => "?").join(",")})`, [...ids]) as Array<Row>
      return new Map(rows.map((r) => [String(r["id"]), countOf(r)]))
    })
  }

  /** Papers held whose stored count has one of these OpenAlex ids (a reference that is itself in the mirror). */
  countsByOpenAlexIds(openalexIds: ReadonlyArray<string>): ReadonlyArray<StoredCount & { readonly title: string; readonly published: string }> {
    if (openalexIds.length === 0) return []
    return this.read(() => {
      if (!this.hasCitations()) return []
      const rows = this.db.all(
        `SELECT c.*, p.title AS title, p.published AS published FROM citations c JOIN papers p ON p.id = c.id
         WHERE c.openalex_id IN (${openalexIds.map(() => "?").join(",")}) AND c.cited_by_count IS NOT NULL`,
        [...openalexIds]
      ) as Array<Row>
      return rows.map((r) => ({ ...countOf(r), title: String(r["title"]), published: String(r["published"]) }))
    })
  }

  /** How many papers held have a count, how many OpenAlex did not know, and the dates of the oldest and newest counts. */
  citationStatus(): CitationStatus {
    return this.read(() => {
      const records = num((this.db.get("SELECT count(*) AS c FROM papers") as Row)["c"])
      if (!this.hasCitations()) return { counted: 0, notFound: 0, uncounted: records, oldest: undefined, newest: undefined }
      const row = this.db.get(
        `SELECT count(c.cited_by_count) AS counted, count(c.id) - count(c.cited_by_count) AS unknown,
           min(c.fetched_at) AS oldest, max(c.fetched_at) AS newest
         FROM citations c JOIN papers p ON p.id = c.id`
      ) as Row
      const counted = num(row["counted"])
      const notFound = num(row["unknown"])
      return { counted, notFound, uncounted: records - counted - notFound, oldest: str(row["oldest"]), newest: str(row["newest"]) }
    })
  }

  /** Records, categories with their counts, the newest datestamp and every harvest's state. */
  status(): IndexStatus {
    const records = num((this.db.get("SELECT count(*) AS c FROM papers") as Row)["c"])
    const categories = (this.db.all(
      "SELECT category, count(*) AS c FROM paper_categories GROUP BY category ORDER BY c DESC, category"
    ) as Array<Row>).map((r) => ({ category: String(r["category"]), records: num(r["c"]) }))
    const newest = str((this.db.get("SELECT max(datestamp) AS d FROM papers") as Row)["d"])
    return { records, categories, newestDatestamp: newest, harvests: this.harvests() }
  }
}
