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
 * The cache is best effort: an unreadable, corrupt or expired entry is a miss,
 * and a failed write is logged and ignored. It never fails a run.
 *
 * @since 0.1.0
 */
import { FileSystem, KeyValueStore, Path } from "@effect/platform"
import type * as PlatformError from "@effect/platform/Error"
import { Clock, Config, Context, Deferred, Duration, Effect, FiberRef, Layer, Option, type Scope } from "effect"
import { createHash } from "node:crypto"
import { homedir } from "node:os"
import { upstreamWaitReporter, type UpstreamWait } from "../../core/waiting.js"

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
}

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
      if (!ENTRY_FILE.test(name)) continue
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
  store: KeyValueStore.KeyValueStore | undefined,
  directory: string | undefined,
  ttlTable: Readonly<Record<string, Duration.DurationInput>>,
  scope: Scope.Scope,
  prune: Effect.Effect<number> = Effect.succeed(0)
): ResponseCacheService => {
  const ttls = ttlMap(ttlTable)
  const fallback = Duration.decode(defaultTtl)
  const ttlOf = (endpoint: string): Duration.Duration =>
    ttls.get(endpoint) ?? ttls.get(endpoint.split(".")[0]!) ?? fallback

  const counters = { hits: 0, misses: 0, coalesced: 0, writes: 0 }
  const inflight = new Map<string, InFlight>()

  const read = (id: string, request: CacheRequest): Effect.Effect<Option.Option<string>> =>
    store === undefined ? Effect.succeedNone : store.get(id).pipe(
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
    store === undefined ? Effect.void : Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const envelope: Envelope = {
        v: 1,
        endpoint: request.endpoint,
        key: request.key,
        storedAt: now,
        expiresAt: now + Duration.toMillis(ttlOf(request.endpoint)),
        body
      }
      return store.set(id, JSON.stringify(envelope)).pipe(
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
      // The leader's fetch runs in the cache's scope, so interrupting one caller
      // does not cancel the answer the others are waiting for; its waits go to
      // whoever is still waiting for it.
      const run = fetch.pipe(
        Effect.tap((body) => write(id, request, body)),
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
    enabled: store !== undefined,
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
      yield* fs.makeDirectory(level).pipe(Effect.mapError((e) => `could not create ${level}: ${describeFsError(e)}`))
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
      if (options.enabled === false) return makeService(undefined, undefined, options.ttls ?? {}, scope)
      const dir = options.dir ?? (yield* defaultCacheDir)
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const context = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
      const store = yield* prepareDirectory(fs, path, dir).pipe(
        Effect.zipRight(Layer.build(KeyValueStore.layerFileSystem(dir))),
        Effect.map((ctx) => Context.get(ctx, KeyValueStore.KeyValueStore)),
        Effect.provide(context),
        Effect.map(Option.some),
        Effect.catchAll((problem) =>
          Effect.as(
            Effect.logWarning(
              `response cache off for this run: cannot use ${dir} (${
                typeof problem === "string" ? problem : describeFsError(problem)
              }); set --cache-dir or ARXIV_COMPANION_CACHE_DIR to a writable folder, or pass --no-cache`
            ),
            Option.none<KeyValueStore.KeyValueStore>()
          )
        )
      )
      if (Option.isNone(store)) return makeService(undefined, undefined, options.ttls ?? {}, scope)
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
          Effect.zipRight(fs.writeFileString(marker, "").pipe(Effect.ignore), prune),
          due
        ).pipe(Effect.ignore),
        scope
      )
      return makeService(store.value, dir, options.ttls ?? {}, scope, prune)
    })
  )

/** A cache that keeps nothing on disk (still coalescing identical concurrent requests). */
export const layerDisabled: Layer.Layer<ResponseCache> = Layer.scoped(
  ResponseCache,
  Effect.map(Effect.scope, (scope) => makeService(undefined, undefined, {}, scope))
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
