/**
 * A persistent cache of upstream responses, shared by the live adapters.
 *
 * Bodies are kept in an `@effect/platform` KeyValueStore on disk (one file per
 * request under `$XDG_CACHE_HOME/arxiv-companion` or
 * `~/.cache/arxiv-companion`), keyed by the full request without secrets,
 * with a time-to-live per endpoint. Identical requests in flight at the same
 * time share one upstream call, with or without the disk cache; every caller
 * sharing it hears what it waits for (its place in the upstream's queue, a
 * Retry-After, a retry: src/core/waiting.ts), a caller joining late the last
 * wait reported at once.
 *
 * Identical cold requests of two processes sharing the folder are made once:
 * the process asking first holds the entry's lock file (`<entry>.lock`)
 * until its answer is stored; the other waits for it and reads the entry.
 *
 * Nobody can turn it against its user: entries are read without following a
 * symbolic link and written as a new file renamed into place (a link planted
 * where an entry goes is replaced, never written through), and a folder that
 * another user owns or can write is refused (a warning; the run goes on
 * uncached). An entry larger than `maxEntryBytes` is a miss: it is removed,
 * unread, with a warning, and the upstream asked again.
 *
 * The cache is best effort: an unreadable, corrupt or expired entry is a miss,
 * and a failed write is logged and ignored. It never fails a run.
 *
 * @since 0.1.0
 */
import { FileSystem, Path } from "@effect/platform"
import type * as PlatformError from "@effect/platform/Error"
import { Clock, Config, Context, Deferred, Duration, Effect, FiberRef, Layer, Option, type Scope } from "effect"
import { createHash } from "node:crypto"
import * as nodeFs from "node:fs"
import { homedir } from "node:os"
import * as nodePath from "node:path"
import { upstreamWaitReporter, type UpstreamWait } from "../../core/waiting.js"
import { foreignDirectoryProblem, isTemporaryName, readPrivateFile, writePrivateFile } from "./privateFiles.js"
import { withFileLock } from "./UpstreamLease.js"

/** One cacheable request. */
export interface CacheRequest {
  /**
   * The endpoint, which selects the time-to-live: `arxiv.search`, `arxiv.ids`,
   * `openalex.works`, ... A TTL is looked up by the full name, then by the
   * part before the first dot (`openalex`), then the default.
   */
  readonly endpoint: string
  /**
   * The full request without secrets, e.g. `GET https://...?...` (see
   * `requestKey`). Two requests with the same key must have the same answer.
   */
  readonly key: string
  /**
   * Whether a stored body can still be used (e.g. it parses as the upstream's
   * format). An entry whose body fails this check is a miss: the upstream is
   * asked again and the entry overwritten. Default: every body is usable.
   */
  readonly usable?: ((body: string) => boolean) | undefined
}

/** What the cache did since it was built (for tests, `--verbose` and the bench). */
export interface CacheStats {
  /** Answered from disk. */
  readonly hits: number
  /** Not on disk (or expired): the upstream was asked. */
  readonly misses: number
  /** Joined an identical request already in flight instead of asking again. */
  readonly coalesced: number
  /** Entries written. */
  readonly writes: number
}

/** The response cache service. */
export interface ResponseCacheService {
  /** False when caching on disk is off (`--no-cache`); coalescing still applies. */
  readonly enabled: boolean
  /** The directory entries live in, when enabled. */
  readonly directory: string | undefined
  /**
   * The body for `request`: from disk when a fresh entry exists, otherwise
   * from `fetch` (stored on success). Concurrent identical requests share one
   * `fetch`, which runs to completion even if its callers are interrupted;
   * the waits it reports reach every caller still waiting for it.
   * Only successes are stored; `fetch` must fail on anything not worth keeping.
   */
  readonly cached: <E, R>(request: CacheRequest, fetch: Effect.Effect<string, E, R>) => Effect.Effect<string, E, R>
  /** The TTL that applies to an endpoint. */
  readonly ttlOf: (endpoint: string) => Duration.Duration
  /** Counters since the layer was built. */
  readonly stats: Effect.Effect<CacheStats>
  /**
   * Delete entries older than the longest TTL (they can never be served) and
   * return how many went. Only the cache's own entry files are touched. Runs
   * in the background when the layer is built, at most once a day.
   */
  readonly prune: Effect.Effect<number>
}

/** @since 0.1.0 */
export class ResponseCache extends Context.Tag("arxiv-companion/ResponseCache")<ResponseCache, ResponseCacheService>() {}

/** Default TTLs: searches change daily, paper metadata and citation data slowly. */
export const defaultTtls: Readonly<Record<string, Duration.DurationInput>> = {
  "arxiv.search": "1 day",
  "arxiv.ids": "7 days",
  "arxiv.fulltext": "30 days",
  openalex: "7 days",
  judge: "30 days"
}

/** The TTL of an endpoint with no entry in the table. */
export const defaultTtl: Duration.DurationInput = "1 day"

/** Options of the cache layer. */
export interface ResponseCacheOptions {
  /** Directory of the entries; default `defaultCacheDir`. */
  readonly dir?: string | undefined
  /** Keep responses on disk (default true). False is `--no-cache`. */
  readonly enabled?: boolean | undefined
  /** TTLs by endpoint (or endpoint prefix), merged over `defaultTtls`. */
  readonly ttls?: Readonly<Record<string, Duration.DurationInput>> | undefined
  /** The largest entry file read (bytes); a larger one is removed unread. Default {@link DEFAULT_MAX_ENTRY_BYTES}. */
  readonly maxEntryBytes?: number | undefined
}

/**
 * The largest entry read: an upstream answer is at most 64 MB (http.ts), and
 * its JSON envelope escapes quotes and control characters; 96 MB leaves room
 * for that and refuses anything that could not have been written here.
 */
export const DEFAULT_MAX_ENTRY_BYTES = 96_000_000

/** How long a process waits for another one asking the same (its entry's lock) before asking itself. */
const COALESCE_WAIT_MILLIS = 60_000

/**
 * A canonical key for a request: the method, the URL with its query
 * parameters sorted and the secret ones removed, and the body if any.
 * `secretParams` defaults to the usual names (`api_key`, `key`, `token`, ...).
 */
export const requestKey = (
  method: string,
  url: string,
  options: { readonly body?: string | undefined; readonly secretParams?: ReadonlyArray<string> | undefined } = {}
): string => {
  const secrets = new Set(
    (options.secretParams ?? ["api_key", "apikey", "key", "token", "access_token"]).map((s) => s.toLowerCase())
  )
  let canonical = url
  try {
    const u = new URL(url)
    const params = [...u.searchParams.entries()]
      .filter(([name]) => !secrets.has(name.toLowerCase()))
      .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    u.search = ""
    canonical = params.length === 0
      ? u.toString()
      : `${u.toString()}?${params.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join("&")}`
  } catch {
    // not a URL: keep it as given
  }
  return `${method.toUpperCase()} ${canonical}${options.body === undefined ? "" : `\n${options.body}`}`
}

/**
 * `$ARXIV_COMPANION_CACHE_DIR`, else `$XDG_CACHE_HOME/arxiv-companion`, else
 * `~/.cache/arxiv-companion`.
 */
export const defaultCacheDir: Effect.Effect<string, never, Path.Path> = Effect.gen(function*() {
  const path = yield* Path.Path
  const explicit = yield* Config.option(Config.nonEmptyString("ARXIV_COMPANION_CACHE_DIR")).pipe(
    Effect.orElseSucceed(() => Option.none<string>())
  )
  if (Option.isSome(explicit)) return explicit.value
  const xdg = yield* Config.option(Config.nonEmptyString("XDG_CACHE_HOME")).pipe(
    Effect.orElseSucceed(() => Option.none<string>())
  )
  if (Option.isSome(xdg) && path.isAbsolute(xdg.value)) return path.join(xdg.value, "arxiv-companion")
  const home = yield* Config.option(Config.nonEmptyString("HOME")).pipe(
    Effect.orElseSucceed(() => Option.none<string>())
  )
  return path.join(Option.getOrElse(home, () => homedir()), ".cache", "arxiv-companion")
})

interface Envelope {
  readonly v: 1
  readonly endpoint: string
  readonly key: string
  readonly storedAt: number
  readonly expiresAt: number
  readonly body: string
}

const isEnvelope = (u: unknown): u is Envelope => {
  if (typeof u !== "object" || u === null) return false
  const e = u as Record<string, unknown>
  return e.v === 1 && typeof e.key === "string" && typeof e.body === "string" &&
    Number.isFinite(e.storedAt) && Number.isFinite(e.expiresAt)
}

/** How far in the future a stored time may lie (clocks of two machines sharing a cache folder). */
const CLOCK_SKEW_MILLIS = 5 * 60_000

/** The name of an entry file: `<endpoint>-<40 hex>`. Nothing else in the directory is ever deleted. */
const ENTRY_FILE = /^[A-Za-z0-9_.-]+-[0-9a-f]{40}$/
const PRUNE_MARKER = ".last-pruned"
const PRUNE_EVERY = Duration.days(1)

const fileKey = (request: CacheRequest): string =>
  `${request.endpoint.replace(/[^A-Za-z0-9_.-]/g, "_")}-${
    createHash("sha256").update(`${request.endpoint}\n${request.key}`).digest("hex").slice(0, 40)
  }`

const ttlMap = (ttlTable: Readonly<Record<string, Duration.DurationInput>>): Map<string, Duration.Duration> =>
  new Map(Object.entries({ ...defaultTtls, ...ttlTable }).map(([k, v]) => [k, Duration.decode(v)]))

/** Remove entry files last written longer ago than `maxAge`. Best effort: errors skip a file. */
const pruneDirectory = (
  fs: FileSystem.FileSystem,
  path: Path.Path,
  dir: string,
  maxAge: Duration.Duration
): Effect.Effect<number> =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const names = yield* fs.readDirectory(dir)
    let removed = 0
    for (const name of names) {
      if (!ENTRY_FILE.test(name) && !isTemporaryName(name)) continue
      const file = path.join(dir, name)
      const old = yield* fs.stat(file).pipe(
        Effect.map((info) =>
          info.type === "File" &&
          Option.exists(info.mtime, (m) => now - m.getTime() > Duration.toMillis(maxAge))
        ),
        Effect.orElseSucceed(() => false)
      )
      if (old && (yield* fs.remove(file).pipe(Effect.as(true), Effect.orElseSucceed(() => false)))) removed++
    }
    return removed
  }).pipe(Effect.orElseSucceed(() => 0))

/** One upstream call in flight, and the callers waiting for it. */
interface InFlight {
  readonly deferred: Deferred.Deferred<string, unknown>
  /** Each waiting caller's wait reporter (one object per caller, so two equal reporters both hear). */
  readonly listeners: Set<{ readonly report: (wait: UpstreamWait) => Effect.Effect<void> }>
  /** The last wait reported, told at once to a caller joining later. */
  last: UpstreamWait | undefined
}

/** Wait for `entry`'s answer, hearing its waits meanwhile with this fiber's reporter. */
const listen = <A, E, R>(entry: InFlight, answer: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(upstreamWaitReporter), (report) => {
    const listener = { report }
    return Effect.suspend(() => {
      entry.listeners.add(listener)
      return entry.last === undefined ? answer : Effect.zipRight(report(entry.last), answer)
    }).pipe(Effect.ensuring(Effect.sync(() => void entry.listeners.delete(listener))))
  })

const makeService = (
  directory: string | undefined,
  ttlTable: Readonly<Record<string, Duration.DurationInput>>,
  scope: Scope.Scope,
  prune: Effect.Effect<number> = Effect.succeed(0),
  maxEntryBytes: number = DEFAULT_MAX_ENTRY_BYTES
): ResponseCacheService => {
  const ttls = ttlMap(ttlTable)
  const fallback = Duration.decode(defaultTtl)
  const ttlOf = (endpoint: string): Duration.Duration =>
    ttls.get(endpoint) ?? ttls.get(endpoint.split(".")[0]!) ?? fallback

  const counters = { hits: 0, misses: 0, coalesced: 0, writes: 0 }
  const inflight = new Map<string, InFlight>()

  const fileOf = (id: string) => nodePath.join(directory!, id)

  /** The entry's text: a link or other non-file is never followed; one over the cap is removed unread. */
  const readEntry = (id: string): Effect.Effect<Option.Option<string>, Error> =>
    Effect.tryPromise({ try: () => readPrivateFile(fileOf(id), maxEntryBytes), catch: (e) => e as Error }).pipe(
      Effect.flatMap((found) => {
        if (found._tag === "Read") return Effect.succeed(Option.some(found.text))
        if (found._tag !== "TooLarge") return Effect.succeedNone
        return Effect.promise(() => nodeFs.promises.rm(fileOf(id), { force: true }).catch(() => undefined)).pipe(
          Effect.zipRight(Effect.logWarning(
            `response cache: an entry of ${Math.round(found.bytes / 1_000_000)} MB is over the ${
              Math.round(maxEntryBytes / 1_000_000)
            } MB cap; removed it unread and asking the upstream again (${fileOf(id)})`
          )),
          Effect.as(Option.none<string>())
        )
      })
    )

  const read = (id: string, request: CacheRequest): Effect.Effect<Option.Option<string>> =>
    directory === undefined ? Effect.succeedNone : readEntry(id).pipe(
      Effect.zipWith(Clock.currentTimeMillis, (raw, now) =>
        Option.flatMap(raw, (text) => {
          try {
            const e: unknown = JSON.parse(text)
            if (!isEnvelope(e) || e.key !== request.key) return Option.none()
            // the expiry on disk is a claim: never later than the endpoint's TTL allows, never stored in the future
            const expires = Math.min(e.expiresAt, e.storedAt + Duration.toMillis(ttlOf(request.endpoint)))
            if (e.storedAt > now + CLOCK_SKEW_MILLIS || expires <= now) return Option.none()
            return request.usable === undefined || request.usable(e.body) ? Option.some(e.body) : Option.none()
          } catch {
            return Option.none()
          }
        })),
      Effect.catchAll((error) =>
        Effect.as(Effect.logDebug("response cache: unreadable entry", id, error.message), Option.none<string>())
      )
    )

  const write = (id: string, request: CacheRequest, body: string): Effect.Effect<void> =>
    directory === undefined ? Effect.void : Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const envelope: Envelope = {
        v: 1,
        endpoint: request.endpoint,
        key: request.key,
        storedAt: now,
        expiresAt: now + Duration.toMillis(ttlOf(request.endpoint)),
        body
      }
      const text = JSON.stringify(envelope)
      // one it would refuse to read is not kept
      if (Buffer.byteLength(text) > maxEntryBytes) return Effect.logDebug("response cache: an answer too large to keep", id)
      return Effect.tryPromise({ try: () => writePrivateFile(fileOf(id), text), catch: (e) => e as Error }).pipe(
        Effect.tap(() => Effect.sync(() => counters.writes++)),
        Effect.catchAll((error) => Effect.logWarning("response cache: could not write an entry", error.message))
      )
    })

  const cached = <E, R>(request: CacheRequest, fetch: Effect.Effect<string, E, R>): Effect.Effect<string, E, R> => {
    const id = fileKey(request)
    const join = Effect.fiberIdWith((fiberId) =>
      Effect.sync(() => {
        const existing = inflight.get(id)
        if (existing !== undefined) return { leader: false as const, entry: existing }
        const entry: InFlight = { deferred: Deferred.unsafeMake<string, unknown>(fiberId), listeners: new Set(), last: undefined }
        inflight.set(id, entry)
        return { leader: true as const, entry }
      })
    )
    const upstream: Effect.Effect<string, E, R> = Effect.flatMap(join, ({ entry, leader }) => {
      const answer = listen(entry, Deferred.await(entry.deferred) as Effect.Effect<string, E>)
      if (!leader) {
        counters.coalesced++
        return answer
      }
      counters.misses++
      const fetched = fetch.pipe(Effect.tap((body) => write(id, request, body)))
      // Another process asking the same holds the entry's lock until its answer is stored: wait for it, read that.
      const acrossProcesses: Effect.Effect<string, E, R> = directory === undefined ? fetched : withFileLock(
        fileOf(id),
        Effect.flatMap(read(id, request), (stored) => {
          if (Option.isNone(stored)) return fetched
          counters.misses--
          counters.hits++
          return Effect.succeed(stored.value)
        }),
        { maxWaitMillis: COALESCE_WAIT_MILLIS }
      )
      // The leader's fetch runs in the cache's scope, so interrupting one caller
      // does not cancel the answer the others are waiting for; its waits go to
      // whoever is still waiting for it.
      const run = acrossProcesses.pipe(
        Effect.locally(upstreamWaitReporter, (wait: UpstreamWait) =>
          Effect.suspend(() => {
            entry.last = wait
            return Effect.forEach([...entry.listeners], (listener) => listener.report(wait), { discard: true })
          })),
        Effect.onExit((exit) =>
          Effect.sync(() => {
            inflight.delete(id)
            Deferred.unsafeDone(entry.deferred, exit)
          })
        )
      )
      return Effect.zipRight(Effect.forkIn(run, scope), answer)
    })
    return Effect.flatMap(read(id, request), (hit) => {
      if (Option.isSome(hit)) {
        counters.hits++
        return Effect.succeed(hit.value)
      }
      return upstream
    })
  }

  return {
    enabled: directory !== undefined,
    directory,
    cached,
    ttlOf,
    stats: Effect.sync(() => ({ ...counters })),
    prune
  }
}

/** A file-system error in one line: the reason and the system's code, never a stack. */
const errorCode = (error: PlatformError.PlatformError): string | undefined => {
  const cause: unknown = error.cause
  return typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined
}

const describeFsError = (error: PlatformError.PlatformError): string => {
  if (error._tag === "BadArgument") return error.description ?? "bad argument"
  const code = errorCode(error)
  return code ?? error.reason
}

/**
 * Make the cache folder exist, one level at a time (Node's recursive mkdir
 * spins forever under /proc), and check it is a writable folder. Fails with
 * what is wrong, in words.
 */
const prepareDirectory = (
  fs: FileSystem.FileSystem,
  path: Path.Path,
  dir: string
): Effect.Effect<void, string | PlatformError.PlatformError> =>
  Effect.gen(function*() {
    const missing: Array<string> = []
    let at = path.resolve(dir)
    for (;;) {
      const info = yield* fs.stat(at).pipe(
        Effect.map(Option.some),
        // ENOTDIR: some level above is a file; walk up to name it
        Effect.catchIf((e) => e._tag === "SystemError" && (e.reason === "NotFound" || errorCode(e) === "ENOTDIR"), () =>
          Effect.succeedNone)
      )
      if (Option.isSome(info)) {
        if (info.value.type !== "Directory") return yield* Effect.fail(`${at} is not a folder`)
        break
      }
      const parent = path.dirname(at)
      if (parent === at) break
      missing.unshift(at)
      at = parent
    }
    for (const level of missing) {
      yield* fs.makeDirectory(level, { mode: 0o700 }).pipe(Effect.mapError((e) => `could not create ${level}: ${describeFsError(e)}`))
    }
    yield* fs.access(dir, { readable: true, writable: true }).pipe(
      Effect.mapError((e) => `${dir} is not readable and writable: ${describeFsError(e)}`)
    )
  })

/**
 * The cache as a layer. With `enabled: false` nothing touches the disk (and no
 * directory is created), but identical concurrent requests are still
 * coalesced. A directory that cannot be created turns the disk cache off with
 * a warning instead of failing.
 */
export const layer = (
  options: ResponseCacheOptions = {}
): Layer.Layer<ResponseCache, never, FileSystem.FileSystem | Path.Path> =>
  Layer.scoped(
    ResponseCache,
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      if (options.enabled === false) return makeService(undefined, options.ttls ?? {}, scope)
      const dir = options.dir ?? (yield* defaultCacheDir)
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const usable = yield* prepareDirectory(fs, path, dir).pipe(
        Effect.zipRight(Effect.suspend(() => {
          const foreign = foreignDirectoryProblem(dir)
          return foreign === undefined ? Effect.void : Effect.fail(foreign)
        })),
        Effect.as(Option.some(dir)),
        Effect.catchAll((problem) =>
          Effect.as(
            Effect.logWarning(
              `response cache off for this run: cannot use ${dir} (${
                typeof problem === "string" ? problem : describeFsError(problem)
              }); set --cache-dir or ARXIV_COMPANION_CACHE_DIR to a writable folder, or pass --no-cache`
            ),
            Option.none<string>()
          )
        )
      )
      if (Option.isNone(usable)) return makeService(undefined, options.ttls ?? {}, scope)
      const longest = [...ttlMap(options.ttls ?? {}).values(), Duration.decode(defaultTtl)].reduce(Duration.max)
      const prune = pruneDirectory(fs, path, dir, longest)
      // At most once a day, in the background: a run never waits for it.
      const marker = path.join(dir, PRUNE_MARKER)
      const due = Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const last = yield* fs.stat(marker).pipe(
          Effect.map((info) => Option.getOrUndefined(Option.map(info.mtime, (m) => m.getTime()))),
          Effect.orElseSucceed(() => undefined)
        )
        return last === undefined || now - last > Duration.toMillis(PRUNE_EVERY)
      })
      yield* Effect.forkIn(
        Effect.whenEffect(
          Effect.zipRight(Effect.promise(() => writePrivateFile(marker, "").catch(() => undefined)), prune),
          due
        ).pipe(Effect.ignore),
        scope
      )
      return makeService(dir, options.ttls ?? {}, scope, prune, options.maxEntryBytes)
    })
  )

/** A cache that keeps nothing on disk (still coalescing identical concurrent requests). */
export const layerDisabled: Layer.Layer<ResponseCache> = Layer.scoped(
  ResponseCache,
  Effect.map(Effect.scope, (scope) => makeService(undefined, {}, scope))
)

/**
 * The cache configured from the environment: `ARXIV_COMPANION_CACHE_DIR`
 * (else the XDG default) and `ARXIV_COMPANION_CACHE=off` to disable it.
 * Explicit `options` (e.g. from `--cache-dir`, `--no-cache`) win.
 */
export const layerConfig = (
  options: ResponseCacheOptions = {}
): Layer.Layer<ResponseCache, never, FileSystem.FileSystem | Path.Path> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const switchValue = yield* Config.option(Config.string("ARXIV_COMPANION_CACHE")).pipe(
        Effect.orElseSucceed(() => Option.none<string>())
      )
      const off = Option.exists(switchValue, (v) => /^(off|false|0|no|disabled?)$/i.test(v.trim()))
      return layer({ ...options, enabled: options.enabled ?? !off })
    })
  )
