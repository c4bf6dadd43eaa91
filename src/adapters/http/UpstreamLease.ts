/**
 * One politeness budget per upstream for every process of the user: several
 * MCP hosts, a digest and a shell loop share arXiv's "one request every 3 s,
 * one connection at a time" as one client.
 *
 * A lease is a lock file (`proper-lockfile`: an atomic `mkdir` of
 * `<state>.lock`, its mtime refreshed while held, taken over when it has not
 * been refreshed for `STALE_MILLIS`, so a process killed while holding it
 * blocks the others for seconds, not for ever) guarding a small state file
 * beside it: when the last request started and until when the upstream asked
 * everyone to hold back (Retry-After). A process takes the lock, waits until
 * `lastStart + interval` and the hold have passed, writes its own start and
 * sends; an exclusive lease (arXiv) is kept until the answer is read, so no
 * two requests of any process are in flight at once; a shared one (OpenAlex)
 * is let go as soon as the start is written.
 *
 * The times are the wall clock's and the waits real time, whatever Clock the
 * fiber has: the lease is shared with other processes, which have no
 * TestClock. Leases live in `ARXIV_COMPANION_LEASE_DIR`, else in `leases/`
 * of the user's default cache folder (`$XDG_CACHE_HOME/arxiv-companion`,
 * `~/.cache/arxiv-companion`), whichever cache folder (or none) a run uses,
 * one per service and address. A folder another user owns or can write is
 * refused: the process then keeps to its own limiter, with a warning.
 *
 * @since 0.3.0
 */
import { Config, Effect, Option } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { homedir } from "node:os"
import * as path from "node:path"
import { createRequire } from "node:module"
import lockfile from "proper-lockfile"
import { preparePrivateDirectory, readPrivateFile, writePrivateFileSync } from "./privateFiles.js"
import { sentSince } from "./requestStarts.js"

/**
 * proper-lockfile loads signal-exit 3, which, on SIGINT or SIGTERM, raises the signal again once its own listener is
 * the last one left: a face that handles the signal itself (the local page and the MCP server interrupt their work,
 * close and exit 0) was killed by it instead. Its exit hook only removes locks that the lease releases itself after
 * each request; a lock left by a killed process goes stale after STALE_MILLIS, as for SIGKILL.
 */
try {
  const fromLockfile = createRequire(createRequire(import.meta.url).resolve("proper-lockfile"))
  ;(fromLockfile("signal-exit") as { unload?: () => void }).unload?.()
} catch {
  // another signal-exit, or none: nothing to undo
}

/** A lock not refreshed for this long belongs to a process that is gone (proper-lockfile's minimum is 2 s). */
export const STALE_MILLIS = 10_000

/** How often a process waiting for another's lease looks again. */
const POLL_MILLIS = 25

/** A start recorded this far in the future is a clock that jumped, not a plan: it is ignored. */
const CLOCK_JUMP_MILLIS = 60_000

/** What every process agrees on, in wall-clock milliseconds. */
export interface LeaseState {
  readonly lastStart: number
  readonly heldUntil: number
}

/** What a process waiting for its turn is told, to decide whether to go on waiting. */
export interface LeaseWait {
  /** Least time until it could start, from now (ms): the spacing or the hold; 0 while another process holds the lease. */
  readonly waitMillis: number
  /** The hold (Retry-After) from now (ms), 0 when none. */
  readonly heldMillis: number
  /** Whether another process holds the lease right now (its request is in flight, or it waits for its start). */
  readonly busy: boolean
}

/** The lease of one upstream. */
export interface UpstreamLease {
  /** The state file (the lock is `<file>.lock`). */
  readonly file: string
  /**
   * Run `request` as the next start every process allows: wait for the lock,
   * then for `lastStart + intervalMillis` and the hold, record the start and
   * run it; with `exclusive` the lease is kept until `request` ends.
   * `check` is asked before each wait and may fail (a deadline it would
   * miss); `onWait` hears each wait once.
   */
  readonly run: <A, E, R, E2>(options: {
    readonly intervalMillis: number
    readonly exclusive: boolean
    readonly check: (wait: LeaseWait) => Effect.Effect<void, E2>
    readonly onWait?: ((wait: LeaseWait) => Effect.Effect<void>) | undefined
  }, request: Effect.Effect<A, E, R>) => Effect.Effect<A, E | E2, R>
  /** No request of any process starts before `untilMillis` (wall clock). */
  readonly holdBack: (untilMillis: number) => Effect.Effect<void>
  /** The shared state now (for tests and the bench). */
  readonly state: Effect.Effect<LeaseState>
}

/** Sleep in real time (timers, not the fiber's Clock: see the module's comment); interruptible. */
const realSleep = (millis: number): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), Math.max(0, millis))
    return Effect.sync(() => clearTimeout(timer))
  })

const parseState = (text: string): LeaseState => {
  try {
    const raw = JSON.parse(text) as Record<string, unknown>
    const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0)
    return { lastStart: num(raw["lastStart"]), heldUntil: num(raw["heldUntil"]) }
  } catch {
    return { lastStart: 0, heldUntil: 0 }
  }
}

/** Try the lock of `file` once: its release when taken, none while another process holds it. */
const tryLock = (file: string) =>
  Effect.promise(() =>
    lockfile.lock(file, {
      realpath: false,
      stale: STALE_MILLIS,
      retries: 0,
      // refreshing failed (the folder went away, a long pause): the next taker sees it stale; nothing to undo here
      onCompromised: () => undefined
    }).then(
      (release) => Option.some(release),
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ELOCKED") return Option.none<() => Promise<void>>()
        // a lock that cannot be made at all (a read-only folder): go on without it rather than never
        return Option.some(() => Promise.resolve())
      }
    )
  )

/**
 * Run `use` holding the lock of `file` (`<file>.lock`), shared with every
 * process: waiting for it is interruptible and polls every 25 ms (`check`
 * is asked before each wait and may fail), a lock taken is always let go.
 * After `maxWaitMillis` without it, `use` runs anyway.
 */
export const withFileLock = <A, E, R, E2 = never>(
  file: string,
  use: Effect.Effect<A, E, R>,
  options: {
    readonly check?: ((wait: LeaseWait) => Effect.Effect<void, E2>) | undefined
    readonly readState?: Effect.Effect<LeaseState> | undefined
    readonly maxWaitMillis?: number | undefined
    readonly onHeld?: ((held: boolean) => void) | undefined
  } = {}
): Effect.Effect<A, E | E2, R> =>
  Effect.suspend(() => {
    let release: (() => Promise<void>) | undefined
    const since = Date.now()
    const acquire: Effect.Effect<void, E2> = Effect.gen(function*() {
      for (;;) {
        yield* Effect.uninterruptible(Effect.tap(tryLock(file), (taken) =>
          Effect.sync(() => {
            if (Option.isSome(taken)) release = taken.value
          })))
        if (release !== undefined) return
        if (options.maxWaitMillis !== undefined && Date.now() - since >= options.maxWaitMillis) return
        if (options.check !== undefined) {
          const state = options.readState === undefined ? { lastStart: 0, heldUntil: 0 } : yield* options.readState
          yield* options.check({ waitMillis: 0, heldMillis: Math.max(0, state.heldUntil - Date.now()), busy: true })
        }
        yield* realSleep(POLL_MILLIS)
      }
    })
    const letGo = Effect.suspend(() => {
      const r = release
      release = undefined
      options.onHeld?.(false)
      return r === undefined ? Effect.void : Effect.promise(() => r().catch(() => undefined))
    })
    return Effect.zipRight(acquire, Effect.zipRight(Effect.sync(() => options.onHeld?.(true)), use)).pipe(
      Effect.ensuring(letGo)
    )
  })

/**
 * The lease whose state is `file` (its folder must exist and be the user's
 * own), for requests to `origin`: an exclusive request's start is recorded
 * again when its headers really went out (requestStarts.ts).
 */
export const make = (file: string, origin?: string | undefined): UpstreamLease => {
  // the lock of this process, while it holds it (a Retry-After read during an exclusive request writes at once)
  let holding = false
  // one fiber of this process at a time asks for the lock; the others queue here, first come first served
  const local = Effect.unsafeMakeSemaphore(1)

  const readState = Effect.promise(async (): Promise<LeaseState> => {
    const read = await readPrivateFile(file, 64 * 1024).catch(() => ({ _tag: "Missing" as const }))
    return read._tag === "Read" ? parseState(read.text) : { lastStart: 0, heldUntil: 0 }
  })
  const writeState = (state: LeaseState) =>
    Effect.sync(() => {
      try {
        writePrivateFileSync(file, JSON.stringify({ ...state, pid: process.pid }))
      } catch {
        // a lease that cannot be written spaces this process only; the lock still orders them
      }
    })

  const locked = <A, E, R, E2>(
    check: (wait: LeaseWait) => Effect.Effect<void, E2>,
    use: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | E2, R> =>
    withFileLock(file, use, { check, readState, onHeld: (held) => void (holding = held) })

  /** Still holding the lock after an exclusive request: its start is when its headers went out, if later than claimed. */
  const recordSent = (claimedAt: number) =>
    Effect.suspend(() => {
      const sent = origin === undefined ? undefined : sentSince(origin, claimedAt)
      if (sent === undefined) return Effect.void
      return Effect.flatMap(readState, (state) =>
        sent <= state.lastStart ? Effect.void : writeState({ lastStart: sent, heldUntil: state.heldUntil }))
    })

  /** With the lock: wait for the next start every process allows, then claim it (the wall-clock time claimed). */
  const claim = <E2>(
    intervalMillis: number,
    check: (wait: LeaseWait) => Effect.Effect<void, E2>,
    onWait: ((wait: LeaseWait) => Effect.Effect<void>) | undefined
  ): Effect.Effect<number, E2> =>
    Effect.gen(function*() {
      let told = false
      for (;;) {
        const state = yield* readState
        const now = Date.now()
        const lastStart = state.lastStart > now + CLOCK_JUMP_MILLIS ? 0 : state.lastStart
        const at = Math.max(lastStart + intervalMillis, state.heldUntil)
        const wait: LeaseWait = { waitMillis: Math.max(0, at - now), heldMillis: Math.max(0, state.heldUntil - now), busy: false }
        yield* check(wait)
        if (at <= now) {
          yield* writeState({ lastStart: now, heldUntil: state.heldUntil })
          return now
        }
        if (!told && onWait !== undefined) yield* onWait(wait)
        told = true
        yield* realSleep(Math.min(at - now, 5_000))
      }
    })

  return {
    file,
    run: (options, request) => {
      const claimed = claim(options.intervalMillis, options.check, options.onWait)
      return options.exclusive
        ? local.withPermits(1)(
          locked(options.check, Effect.flatMap(claimed, (claimedAt) => Effect.ensuring(request, recordSent(claimedAt))))
        )
        : Effect.zipRight(local.withPermits(1)(locked(options.check, claimed)), request)
    },
    holdBack: (untilMillis) =>
      Effect.suspend(() => {
        const write = Effect.flatMap(readState, (state) =>
          state.heldUntil >= untilMillis ? Effect.void : writeState({ ...state, heldUntil: untilMillis }))
        // inside an exclusive request this process holds the lock already
        return holding ? write : locked(() => Effect.void, write)
      }),
    state: readState
  }
}

/**
 * The folder of the leases: `ARXIV_COMPANION_LEASE_DIR`, else `leases` in
 * the user's default cache folder. Read from `env` (the configuration the
 * adapters' `layerConfig` pass on).
 */
export const defaultLeaseDir = (env: {
  readonly leaseDir?: string | undefined
  readonly xdgCacheHome?: string | undefined
  readonly home?: string | undefined
}): string => {
  if (env.leaseDir !== undefined && env.leaseDir !== "") return env.leaseDir
  if (env.xdgCacheHome !== undefined && path.isAbsolute(env.xdgCacheHome)) {
    return path.join(env.xdgCacheHome, "arxiv-companion", "leases")
  }
  return path.join(env.home ?? homedir(), ".cache", "arxiv-companion", "leases")
}

/** The state file of `service` at `origin` in `dir`: `<service>-<16 hex of the origin>`. */
export const leaseFile = (dir: string, service: string, origin: string): string =>
  path.join(
    dir,
    `${service.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${createHash("sha256").update(origin).digest("hex").slice(0, 16)}`
  )

/**
 * The lease of `service` at `origin` in `dir`, or why there is none (the
 * folder cannot be made, or may not be used: another user owns it or can
 * write in it).
 */
export const open = (dir: string, service: string, origin: string): { readonly lease?: UpstreamLease; readonly problem?: string } => {
  const problem = preparePrivateDirectory(dir)
  if (problem !== undefined) return { problem }
  try {
    fs.accessSync(dir, fs.constants.W_OK)
  } catch {
    return { problem: `${dir} is not writable` }
  }
  return { lease: make(leaseFile(dir, service, origin), origin) }
}

/** {@link defaultLeaseDir} from configuration: ARXIV_COMPANION_LEASE_DIR, XDG_CACHE_HOME, HOME. */
const blankIsUnset = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((v) => v.trim() !== "")))

export const leaseDirConfig: Config.Config<string> = Config.all({
  leaseDir: blankIsUnset("ARXIV_COMPANION_LEASE_DIR"),
  xdgCacheHome: blankIsUnset("XDG_CACHE_HOME"),
  home: blankIsUnset("HOME")
}).pipe(
  Config.map((env) =>
    defaultLeaseDir({
      leaseDir: Option.getOrUndefined(env.leaseDir),
      xdgCacheHome: Option.getOrUndefined(env.xdgCacheHome),
      home: Option.getOrUndefined(env.home)
    })
  )
)
