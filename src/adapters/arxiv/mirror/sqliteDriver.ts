/**
 * The two SQLite engines the mirror's index can be read through, behind one
 * small driver (`SqlDriver`), so that MirrorIndex's SQL is written once:
 *
 * - **wasm**: `node-sqlite3-wasm` (SQLite 3.53 compiled to WebAssembly, its
 *   file access through Node's `fs`), a dependency: always there, the same on
 *   every platform. Every write goes through it (the harvester, the citation
 *   counts, the corpus's build).
 * - **native**: `libsql` (SQLite 3.45 with FTS5, a prebuilt binary shipped in
 *   a platform package of the npm registry, nothing compiled or downloaded
 *   outside it), an optional dependency: the index's reads go through it
 *   when it loads, about ten times less CPU per search (README, "Why SQLite
 *   FTS5 …"). Where it does not (`npm ci --omit=optional`, a platform without
 *   a prebuilt binary), reads stay on wasm, silently.
 *
 * `ARXIV_COMPANION_SQLITE=wasm|native` forces one engine for reads (`native`
 * fails in one line when the package cannot be loaded).
 *
 * Locking. node-sqlite3-wasm locks a file with a directory beside it
 * (`<file>.lock`, made at the first lock of a transaction and removed at its
 * end; a reader and a writer alike), not with the operating system's locks
 * native SQLite takes, so the two engines do not see each other's locks. A
 * native reader of a writable mirror therefore takes the same directory
 * around each of its read transactions (and around each statement outside
 * one), waiting for it as the wasm reader's busy timeout does, before SQLite
 * reads a page: the harvester and every reader take turns through that one
 * lock whatever engine reads. A file nothing writes (sealed, or in a folder
 * this process cannot write) is opened `immutable=1` by either engine, with
 * no lock at all.
 *
 * @since 0.3.0
 */
import { mkdirSync, rmdirSync } from "node:fs"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { setFlagsFromString } from "node:v8"
import type sqlite from "node-sqlite3-wasm"

/** The engine a driver runs on. */
export type SqliteEngine = "wasm" | "native"

/** A row as a statement answers it, by column name. */
export type Row = Record<string, unknown>
/** A value bound to a statement's `?`. */
export type Param = string | number | bigint | null

/** What MirrorIndex asks of an open database, whichever engine holds it. */
export interface SqlDriver {
  readonly engine: SqliteEngine
  readonly isOpen: boolean
  /** Whether a transaction is open on the connection. */
  readonly inTransaction: boolean
  /** Run one or more statements, answering nothing. */
  exec(sql: string): void
  all(sql: string, params?: ReadonlyArray<Param>): Array<Row>
  /** The first row, or null. */
  get(sql: string, params?: ReadonlyArray<Param>): Row | null
  run(sql: string, params?: ReadonlyArray<Param>): { readonly changes: number; readonly lastInsertRowid: number | bigint }
  /**
   * `body` in one transaction: `write` takes the write lock at once (`BEGIN IMMEDIATE`) and rolls back if `body`
   * throws; `read` is a deferred one, ended whatever `body` does (it wrote nothing).
   */
  transaction<A>(mode: "read" | "write", body: () => A): A
  close(): void
}

// ---------------------------------------------------------------------------------------------------------------
// wasm

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
const wasmEngine = (): typeof sqlite => {
  if (loaded === undefined) {
    if (process.env["ARXIV_COMPANION_WASM_TIERUP"] !== "1") setFlagsFromString("--liftoff-only")
    loaded = createRequire(import.meta.url)("node-sqlite3-wasm") as typeof sqlite
  }
  return loaded
}

const wasmDriver = (db: sqlite.Database): SqlDriver => ({
  engine: "wasm",
  get isOpen() {
    return db.isOpen
  },
  get inTransaction() {
    return db.inTransaction
  },
  exec: (sql) => db.exec(sql),
  all: (sql, params) => db.all(sql, params === undefined ? undefined : [...params]) as Array<Row>,
  get: (sql, params) => db.get(sql, params === undefined ? undefined : [...params]) as Row | null,
  run: (sql, params) => db.run(sql, params === undefined ? undefined : [...params]),
  transaction: (mode, body) => inTransaction((sql) => db.exec(sql), () => db.inTransaction, mode, body),
  close: () => {
    if (db.isOpen) db.close()
  }
})

/** `body` between BEGIN and COMMIT (see SqlDriver.transaction). */
const inTransaction = <A>(exec: (sql: string) => void, active: () => boolean, mode: "read" | "write", body: () => A): A => {
  if (mode === "read") {
    exec("BEGIN")
    try {
      return body()
    } finally {
      if (active()) exec("COMMIT")
    }
  }
  exec("BEGIN IMMEDIATE")
  try {
    const result = body()
    exec("COMMIT")
    return result
  } catch (e) {
    if (active()) exec("ROLLBACK")
    throw e
  }
}

/** Open `file` through wasm, locked per transaction: created unless `readOnly` (which needs the file). */
export const openWasm = (file: string, options: { readonly readOnly: boolean }): SqlDriver =>
  wasmDriver(new (wasmEngine().Database)(file, options.readOnly ? { readOnly: true, fileMustExist: true } : {}))

/**
 * Open `file` read-only and unlocked through wasm: SQLite's `immutable=1` URI parameter
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
export const openWasmImmutable = (file: string): SqlDriver => {
  const s = wasmEngine()
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
  return wasmDriver(db)
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

// ---------------------------------------------------------------------------------------------------------------
// native

/** What the driver uses of libsql's better-sqlite3-like API (declared here: the package is optional). */
interface NativeStatement {
  all(params: ReadonlyArray<Param>): Array<Row>
  get(params: ReadonlyArray<Param>): Row | undefined
  run(params: ReadonlyArray<Param>): { readonly changes: number; readonly lastInsertRowid: number | bigint }
}
interface NativeDatabase {
  prepare(sql: string): NativeStatement
  exec(sql: string): void
  close(): void
  readonly open: boolean
  readonly inTransaction: boolean
}
type NativeConstructor = new(path: string) => NativeDatabase

/** libsql, once loaded; null when it could not be (with why). */
let native: NativeConstructor | null | undefined
let nativeFailure = ""
const nativeEngine = (): NativeConstructor | null => {
  if (native === undefined) {
    try {
      native = createRequire(import.meta.url)("libsql") as NativeConstructor
      if (typeof native !== "function") throw new Error("its export is not a Database class")
    } catch (e) {
      native = null
      nativeFailure = (e instanceof Error ? e.message : String(e)).split("\n")[0]!
    }
  }
  return native
}

/** The variable that forces an engine for the index's reads. */
export const ENGINE_VARIABLE = "ARXIV_COMPANION_SQLITE"

/**
 * The engine the index's reads go through: `ARXIV_COMPANION_SQLITE` when set, else native when libsql loads, else
 * wasm. Throws (one line) when the variable names an engine that cannot be had.
 */
export const readEngine = (): SqliteEngine => {
  const asked = (process.env[ENGINE_VARIABLE] ?? "").trim().toLowerCase()
  if (asked === "wasm") return "wasm"
  if (asked === "native") {
    if (nativeEngine() === null) {
      throw new Error(
        `${ENGINE_VARIABLE}=native, but the optional package libsql could not be loaded (${nativeFailure}); ` +
          `install it (npm install libsql) or unset ${ENGINE_VARIABLE} to read through WebAssembly`
      )
    }
    return "native"
  }
  if (asked !== "") throw new Error(`${ENGINE_VARIABLE} is ${JSON.stringify(process.env[ENGINE_VARIABLE])}: set it to wasm or native, or unset it`)
  return nativeEngine() === null ? "wasm" : "native"
}

/** What a native reader sleeps on while the lock folder is someone else's. */
const sleeper = new Int32Array(new SharedArrayBuffer(4))

/**
 * Take `<file>.lock` as node-sqlite3-wasm's file layer does (a directory made, EEXIST: someone holds it), waiting
 * up to `busyMillis` for it; then SQLite's own words for a lock not had, "database is locked".
 */
const takeLock = (lock: string, busyMillis: number): void => {
  const deadline = Date.now() + busyMillis
  for (let pause = 1;; pause = Math.min(pause * 2, 50)) {
    try {
      mkdirSync(lock)
      return
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code !== "EEXIST") throw new Error(`could not take the lock ${lock} (${code ?? String(e)})`)
    }
    if (Date.now() >= deadline) throw new Error("database is locked")
    Atomics.wait(sleeper, 0, 0, pause)
  }
}

const dropLock = (lock: string): void => {
  try {
    rmdirSync(lock)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
  }
}

/**
 * Open `file` read-only through libsql. `immutable`: unlocked (`immutable=1`), for a file nothing writes; else the
 * wasm engine's lock folder is taken around each read (see the header), waiting up to `busyMillis` for it.
 */
export const openNative = (file: string, options: { readonly immutable: boolean; readonly busyMillis: number }): SqlDriver => {
  const Database = nativeEngine()
  if (Database === null) throw new Error(`the optional package libsql could not be loaded (${nativeFailure})`)
  // libsql ignores better-sqlite3's `readonly` option; the URI's mode=ro is SQLite's own
  const db = new Database(`${pathToFileURL(file).href}?mode=ro${options.immutable ? "&immutable=1" : ""}`)
  const lock = options.immutable ? undefined : `${file}.lock`
  /** Whether this driver holds the lock folder for a transaction it began. */
  let held = false
  const locked = <A>(f: () => A): A => {
    if (lock === undefined || held || db.inTransaction) return f()
    takeLock(lock, options.busyMillis)
    try {
      return f()
    } finally {
      dropLock(lock)
    }
  }
  const statement = (sql: string) => db.prepare(sql)
  return {
    engine: "native",
    get isOpen() {
      return db.open
    },
    get inTransaction() {
      return db.inTransaction
    },
    exec: (sql) => locked(() => db.exec(sql)),
    all: (sql, params = []) => locked(() => statement(sql).all(params)),
    get: (sql, params = []) =>
      locked(() => {
        const row = statement(sql).get(params)
        if (row === undefined) return null
        // libsql adds the statement's duration to the row `get` answers
        delete row["_metadata"]
        return row
      }),
    run: (sql, params = []) => locked(() => statement(sql).run(params)),
    transaction: (mode, body) => {
      if (lock === undefined || held) return inTransaction((sql) => db.exec(sql), () => db.inTransaction, mode, body)
      takeLock(lock, options.busyMillis)
      held = true
      try {
        return inTransaction((sql) => db.exec(sql), () => db.inTransaction, mode, body)
      } finally {
        held = false
        dropLock(lock)
      }
    },
    close: () => {
      if (!db.open) return
      // libsql's statements hold their connection until the garbage collector takes them (it has no finalize), so
      // the file stays open a while after `close`; its page cache is given back now
      try {
        db.exec("PRAGMA shrink_memory")
      } catch {
        // closing anyway
      }
      db.close()
    }
  }
}

/**
 * Whether `e` is SQLite's refusal to read a file holding a write that a killed process left half done (a hot
 * journal) through a read-only connection, which may not roll it back (SQLITE_READONLY_ROLLBACK).
 */
export const isInterruptedWrite = (e: unknown): boolean =>
  typeof e === "object" && e !== null && (e as { code?: unknown }).code === "SQLITE_READONLY_ROLLBACK"
