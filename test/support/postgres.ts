/**
 * A real PostgreSQL server for the tests and the bench, started on loopback:
 * `initdb` into a temporary folder, `pg_ctl start` on 127.0.0.1 with a free
 * port, a database created; stopped and removed after. PostgreSQL refuses to
 * run as root, so as root the server runs as the `postgres` OS user
 * (`runuser -u postgres --`), as Debian's package creates it.
 *
 * The binaries: PG_BIN, else Debian's /usr/lib/postgresql/<newest>/bin, else
 * `initdb` on the PATH. When there are none, `postgresUnavailable` says why:
 * a test skips with that reason locally and fails under CI=true (.ci/run
 * installs Debian's `postgresql`).
 */
import { execFileSync } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The folder holding initdb, pg_ctl and postgres; undefined when none is installed. */
export const postgresBin = (): string | undefined => {
  const fromEnv = process.env["PG_BIN"]
  if (fromEnv !== undefined && existsSync(join(fromEnv, "initdb"))) return fromEnv
  const debian = "/usr/lib/postgresql"
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))
    for (const v of versions) if (existsSync(join(debian, v, "bin", "initdb"))) return join(debian, v, "bin")
  }
  for (const dir of (process.env["PATH"] ?? "").split(":")) if (dir !== "" && existsSync(join(dir, "initdb"))) return dir
  return undefined
}

/** Why no server can be started here (undefined: one can). */
export const postgresUnavailable = (): string | undefined => {
  if (postgresBin() === undefined) {
    return "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: apt-get install postgresql, or set PG_BIN"
  }
  if (process.getuid?.() === 0) {
    try {
      execFileSync("id", ["-u", "postgres"], { stdio: "ignore" })
    } catch {
      return "running as root and there is no `postgres` OS user to run the server as (Debian's postgresql package creates it)"
    }
  }
  return undefined
}

/** Under CI a missing server is a failure, not a skip. */
export const requirePostgresInCi = (): void => {
  const reason = postgresUnavailable()
  if (reason !== undefined && process.env["CI"] === "true") throw new Error(`CI needs a PostgreSQL server for these tests: ${reason}`)
  if (reason !== undefined) console.warn(`skipping the PostgreSQL tests: ${reason}`)
}

/** A running server. */
export interface PgServer {
  readonly port: number
  /** A database's URL on this server (the superuser `postgres`, no password: trust on loopback). */
  readonly url: (database: string) => string
  /** Create a database; returns its URL. */
  readonly createDatabase: (name: string) => string
  /** Run SQL as the superuser in `database` (psql); returns its output. */
  readonly psql: (database: string, sql: string) => string
  readonly stop: () => void
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Start a server (throws when it cannot: check `postgresUnavailable` first). */
export const startPostgres = async (options: { readonly fsync?: boolean } = {}): Promise<PgServer> => {
  const bin = postgresBin()
  if (bin === undefined) throw new Error(postgresUnavailable())
  const root = process.getuid?.() === 0
  const asServer = (command: string, args: ReadonlyArray<string>): string =>
    root
      ? execFileSync("runuser", ["-u", "postgres", "--", join(bin, command), ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
      : execFileSync(join(bin, command), [...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
  const base = mkdtempSync(join(tmpdir(), "arxiv-pg-"))
  if (root) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
    chownSync(base, uid, gid)
  }
  const data = join(base, "data")
  const log = join(base, "server.log")
  asServer("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"])
  let port = 0
  for (let attempt = 1;; attempt++) {
    port = await freePort()
    const settings = [
      `-p ${port}`,
      "-h 127.0.0.1",
      `-k ${base}`,
      "-c max_connections=200",
      ...(options.fsync === true ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"])
    ].join(" ")
    try {
      asServer("pg_ctl", ["-D", data, "-l", log, "-o", settings, "-w", "-t", "120", "start"])
      break
    } catch (e) {
      // another process took the port between the probe and the start: try another
      if (attempt >= 3) {
        const tail = existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-10).join("\n") : ""
        rmSync(base, { recursive: true, force: true })
        throw new Error(`PostgreSQL did not start: ${(e as Error).message}\n${tail}`)
      }
    }
  }
  const psql = (database: string, sql: string): string =>
    execFileSync(join(bin, "psql"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-qAtc", sql], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"]
    })
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`
  return {
    port,
    url,
    psql,
    createDatabase: (name) => {
      psql("postgres", `CREATE DATABASE "${name.replace(/"/g, '""')}"`)
      return url(name)
    },
    stop: () => {
      try {
        asServer("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
      } finally {
        rmSync(base, { recursive: true, force: true })
      }
    }
  }
}
