/**
 * VaultPort over a folder on disk — the default. An Obsidian vault is a folder
 * of Markdown files: a note's title is its file name without `.md`, in any
 * subfolder; dot-folders (.obsidian, .trash, .git) and node_modules are skipped.
 *
 * Writes are atomic (a temp file in the same folder, flushed, then renamed over
 * the note; a killed write's temp file is removed by the next run that reads
 * or writes that note) and never leave the vault: the path is checked as text, then the
 * real path of its folder (after symlinks) is checked against the vault's.
 *
 * @since 0.1.0
 */
import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Clock, Config, Effect, Layer, Option } from "effect"
import * as NodeOs from "node:os"
import { hash32 } from "../../core/compose.js"
import { NoteNotFound, UnsafeWrite, VaultUnavailable } from "../../core/errors.js"
import type { NoteRef } from "../../core/models.js"
import { VaultPort, type VaultService } from "../../core/ports/VaultPort.js"
import { firstChars } from "../../core/text.js"
import { isListedNote, isReadablePath, isSkippedFolder, noteRefOf, sortNotes, titleOf, unsafeWriteReason } from "./vaultPath.js"

/** Options of the filesystem vault. */
export interface FileSystemVaultOptions {
  /** The vault folder (absolute or relative to the working directory). */
  readonly root: string
}

const STALE_TEMP_MS = 10 * 60 * 1000

const KEEP_BOM = new TextDecoder("utf-8", { ignoreBOM: true })

/** Temp files of a note: `.<name>.<host>.<pid>-<random>.tmp`, hidden, in the note's folder. */
const tempPrefix = (name: string): string => `.${firstChars(name, 40)}.`
/** This machine (a hash of its host name, since a synced vault may hold another's temps) and this process. */
const HOST = hash32(NodeOs.hostname())
const WRITER = `${HOST}.${process.pid}`

/** Whether the writer named in a temp file's name ran on this machine and has exited. */
const writerIsGone = (rest: string): boolean => {
  const m = /^([0-9a-f]{8})\.(\d+)-[0-9a-z]+\.tmp$/.exec(rest)
  if (m === null || m[1] !== HOST) return false
  const pid = Number(m[2])
  if (pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    // EPERM: alive, someone else's; ESRCH: no such process
    return (error as NodeJS.ErrnoException).code === "ESRCH"
  }
}

const FIX_HINT = "Pass --vault DIR or set ARXIV_COMPANION_VAULT to your Obsidian vault folder."

const describe = (error: PlatformError): string =>
  error._tag === "SystemError"
    ? `${error.reason}${error.description === undefined ? "" : ` (${error.description})`}`
    : error.message

/**
 * Build the filesystem vault. Nothing is touched until a method runs, so a
 * missing folder fails the first vault call (VaultUnavailable), not start-up.
 */
export const make = Effect.fn("FileSystemVault.make")(function*(options: FileSystemVaultOptions) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = path.resolve(options.root)

  const unavailable = (reason: string) => new VaultUnavailable({ vault: root, reason })
  const ioError = (what: string) => (error: PlatformError) =>
    unavailable(`could not ${what}: ${describe(error)}`)

  /** The vault's real path (symlinks resolved); VaultUnavailable when it is not a folder. */
  const realRoot = Effect.gen(function*() {
    const info = yield* fs.stat(root).pipe(Effect.option)
    if (Option.isNone(info)) return yield* unavailable(`the folder ${root} does not exist. ${FIX_HINT}`)
    if (info.value.type !== "Directory") return yield* unavailable(`${root} is not a folder. ${FIX_HINT}`)
    return yield* fs.realPath(root).pipe(Effect.mapError(ioError(`resolve ${root}`)))
  })

  const isInside = (real: string, base: string): boolean => {
    const rel = path.relative(base, real)
    return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
  }

  const absolute = (vaultPath: string) => path.join(root, ...vaultPath.split("/"))

  const listNotes = Effect.fn("FileSystemVault.listNotes")(function*() {
    const base = yield* realRoot
    const notes: Array<NoteRef> = []
    const visited = new Set<string>()
    const walk = (dir: string, prefix: string): Effect.Effect<void, VaultUnavailable> =>
      Effect.gen(function*() {
        const real = yield* fs.realPath(dir).pipe(Effect.orElseSucceed(() => undefined))
        // a symlinked folder pointing outside the vault, or a loop, is not part of it
        if (real === undefined || !isInside(real, base) || visited.has(real)) return
        visited.add(real)
        const entries = yield* fs.readDirectory(dir).pipe(Effect.mapError(ioError(`list ${dir}`)))
        for (const name of entries.sort()) {
          const child = path.join(dir, name)
          const info = yield* fs.stat(child).pipe(Effect.orElseSucceed(() => undefined))
          if (info === undefined) continue // dangling symlink, or removed meanwhile
          const rel = prefix === "" ? name : `${prefix}/${name}`
          if (info.type === "Directory") {
            if (!isSkippedFolder(name)) yield* walk(child, rel)
          } else if (info.type === "File" && isListedNote(rel)) {
            const realFile = yield* fs.realPath(child).pipe(Effect.orElseSucceed(() => undefined))
            if (realFile !== undefined && isInside(realFile, base)) notes.push(noteRefOf(rel))
          }
        }
      })
    yield* walk(root, "")
    return sortNotes(notes)
  })

  /** The real file of a readable vault path inside the vault, or None when there is no such note. */
  const locate = (vaultPath: string) =>
    Effect.gen(function*() {
      const base = yield* realRoot
      if (!isReadablePath(vaultPath)) return Option.none<string>()
      const file = absolute(vaultPath)
      const info = yield* fs.stat(file).pipe(Effect.option)
      if (Option.isNone(info) || info.value.type !== "File") return Option.none<string>()
      const real = yield* fs.realPath(file).pipe(Effect.mapError(ioError(`resolve ${vaultPath}`)))
      return isInside(real, base) ? Option.some(real) : Option.none<string>()
    })

  /** Before a note is read (every run reads the notes it may write): its stale temp files go, written or not. */
  const sweepTempsOf = (vaultPath: string) =>
    Effect.gen(function*() {
      if (!isReadablePath(vaultPath)) return
      const base = yield* realRoot
      const file = absolute(vaultPath)
      const folder = yield* fs.realPath(path.dirname(file))
      if (isInside(folder, base)) yield* sweepStaleTemps(folder, path.basename(file))
    }).pipe(Effect.ignore)

  const readNoteIfExists = Effect.fn("FileSystemVault.readNoteIfExists")(function*(vaultPath: string) {
    yield* sweepTempsOf(vaultPath)
    const file = yield* locate(vaultPath)
    if (Option.isNone(file)) return Option.none<string>()
    const bytes = yield* fs.readFile(file.value).pipe(Effect.mapError(ioError(`read ${vaultPath}`)))
    // a byte-order mark is part of the note: kept, so a rewrite keeps the file's own convention
    return Option.some(KEEP_BOM.decode(bytes))
  })

  const readNote = Effect.fn("FileSystemVault.readNote")(function*(vaultPath: string) {
    const text = yield* readNoteIfExists(vaultPath)
    if (Option.isNone(text)) return yield* new NoteNotFound({ title: titleOf(vaultPath), closest: [] })
    return text.value
  })

  /** Create the note's folder, one level at a time, checking each level's real path stays inside. */
  const ensureFolder = (base: string, vaultPath: string) =>
    Effect.gen(function*() {
      const segments = vaultPath.split("/").slice(0, -1)
      let dir = root
      for (const segment of segments) {
        dir = path.join(dir, segment)
        const info = yield* fs.stat(dir).pipe(Effect.option)
        if (Option.isNone(info)) {
          yield* fs.makeDirectory(dir).pipe(
            Effect.catchIf((e) => e._tag === "SystemError" && e.reason === "AlreadyExists", () => Effect.void),
            Effect.mapError(ioError(`create the folder ${dir}`))
          )
        } else if (info.value.type !== "Directory") {
          return yield* new UnsafeWrite({ path: vaultPath, reason: `${segment} is a file, not a folder` })
        }
        const real = yield* fs.realPath(dir).pipe(Effect.mapError(ioError(`resolve ${dir}`)))
        if (!isInside(real, base)) {
          return yield* new UnsafeWrite({ path: vaultPath, reason: "its folder is a link that leads outside the vault" })
        }
      }
      return yield* fs.realPath(dir).pipe(Effect.mapError(ioError(`resolve ${dir}`)))
    })

  const writeNote = Effect.fn("FileSystemVault.writeNote")(function*(vaultPath: string, content: string) {
    const reason = unsafeWriteReason(vaultPath)
    if (reason !== undefined) return yield* new UnsafeWrite({ path: vaultPath, reason })
    const base = yield* realRoot
    const folder = yield* ensureFolder(base, vaultPath)
    const name = vaultPath.slice(vaultPath.lastIndexOf("/") + 1)
    const target = path.join(folder, name)
    const existing = yield* fs.stat(target).pipe(Effect.option)
    if (Option.isSome(existing) && existing.value.type === "Directory") {
      return yield* new UnsafeWrite({ path: vaultPath, reason: "a folder has that name" })
    }
    // keep the note's permissions when replacing it
    const mode = Option.isSome(existing) ? existing.value.mode & 0o777 : 0o644
    const temp = path.join(folder, `${tempPrefix(name)}${WRITER}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`)
    const bytes = new TextEncoder().encode(content)
    const writeTemp = Effect.scoped(
      Effect.gen(function*() {
        const file = yield* fs.open(temp, { flag: "wx", mode })
        yield* file.writeAll(bytes)
        yield* file.sync
      })
    )
    yield* writeTemp.pipe(
      Effect.zipRight(fs.rename(temp, target)),
      Effect.tapError(() => fs.remove(temp).pipe(Effect.ignore)),
      Effect.mapError(ioError(`write ${vaultPath}`))
    )
    yield* sweepStaleTemps(folder, name)
  })

  /**
   * Remove temp files of this note that a killed run left behind: at once when
   * the writer that made it (this machine, its pid in the name) is gone, else
   * after 10 minutes, so never a live write's.
   */
  const sweepStaleTemps = (folder: string, name: string) =>
    Effect.gen(function*() {
      const prefix = tempPrefix(name)
      const now = yield* Clock.currentTimeMillis
      for (const entry of yield* fs.readDirectory(folder)) {
        if (!entry.startsWith(prefix) || !entry.endsWith(".tmp")) continue
        const file = path.join(folder, entry)
        const info = yield* fs.stat(file)
        if (info.type !== "File") continue
        const mtime = Option.getOrElse(info.mtime, () => new Date(now)).getTime()
        if (now - mtime > STALE_TEMP_MS || writerIsGone(entry.slice(prefix.length))) yield* fs.remove(file)
      }
    }).pipe(Effect.ignore)

  return {
    name: root,
    listNotes,
    readNote,
    readNoteIfExists,
    writeNote
  } satisfies VaultService
})

/** The filesystem vault at `root`. Requires FileSystem and Path (NodeContext at the entrypoint). */
export const layer = (options: FileSystemVaultOptions): Layer.Layer<VaultPort, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(VaultPort, make(options))

/** The vault folder from ARXIV_COMPANION_VAULT. */
export const layerConfig = (
  root: Config.Config<string> = Config.string("ARXIV_COMPANION_VAULT")
): Layer.Layer<VaultPort, import("effect/ConfigError").ConfigError, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(VaultPort, Effect.flatMap(root, (r) => make({ root: r })))
