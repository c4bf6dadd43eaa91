/**
 * Files only this user can plant or change: the response cache's entries and
 * the upstream leases live in folders that must be the user's own, are read
 * without following a symbolic link, and are written as a new file renamed
 * into place, so a link planted where an entry goes is replaced, never
 * written through.
 *
 * @since 0.3.0
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * Why `dir` (an existing folder) must not hold this user's cache or leases,
 * or undefined when it may: it belongs to another user, or another user can
 * write in it (group or world write bits; `chmod go-w` mends that).
 * Platforms without user ids (Windows) are not checked.
 */
export const foreignDirectoryProblem = (dir: string): string | undefined => {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined
  if (uid === undefined) return undefined
  let info: fs.Stats
  try {
    info = fs.statSync(dir)
  } catch (error) {
    return `${dir} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`
  }
  if (!info.isDirectory()) return `${dir} is not a folder`
  // root may use a folder of its own making; anyone else only their own
  if (info.uid !== uid) return `${dir} belongs to another user (uid ${info.uid})`
  if ((info.mode & 0o022) !== 0) {
    return `${dir} can be written by other users (mode ${(info.mode & 0o777).toString(8)}; chmod go-w ${dir})`
  }
  return undefined
}

/** What reading an entry found. */
export type ReadResult =
  | { readonly _tag: "Missing" }
  /** A symbolic link, a folder or another non-file where an entry goes: never followed. */
  | { readonly _tag: "NotAFile" }
  | { readonly _tag: "TooLarge"; readonly bytes: number }
  | { readonly _tag: "Read"; readonly text: string }

/**
 * Read `file` as UTF-8 without following a symbolic link (O_NOFOLLOW), and
 * without reading more than `maxBytes`: a larger file is reported by its
 * size, unread.
 */
export const readPrivateFile = async (file: string, maxBytes: number): Promise<ReadResult> => {
  let handle: fs.promises.FileHandle
  try {
    handle = await fs.promises.open(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT") return { _tag: "Missing" }
    if (code === "ELOOP" || code === "EISDIR" || code === "ENOTDIR") return { _tag: "NotAFile" }
    throw error
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) return { _tag: "NotAFile" }
    if (info.size > maxBytes) return { _tag: "TooLarge", bytes: info.size }
    return { _tag: "Read", text: await handle.readFile({ encoding: "utf8" }) }
  } finally {
    await handle.close()
  }
}

/** The hidden temporary name a write of `file` goes through. */
const temporaryName = (file: string): string =>
  path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`)

/** Whether a name is one of {@link writePrivateFile}'s temporaries. */
export const isTemporaryName = (name: string): boolean => /^\..+\.\d+\.[0-9a-f]{12}\.tmp$/.test(name)

/**
 * Write `file` as a new file (created exclusively, mode 0600: O_EXCL never
 * follows a link) renamed into place: a reader sees the old entry or the new
 * one, never half of one, and a symbolic link at `file` is replaced, not
 * followed.
 */
export const writePrivateFile = async (file: string, data: string): Promise<void> => {
  const temporary = temporaryName(file)
  try {
    await fs.promises.writeFile(temporary, data, { flag: "wx", mode: 0o600 })
    await fs.promises.rename(temporary, file)
  } catch (error) {
    await fs.promises.rm(temporary, { force: true }).catch(() => undefined)
    throw error
  }
}

/** The same, synchronously (small files: the leases' state). */
export const writePrivateFileSync = (file: string, data: string): void => {
  const temporary = temporaryName(file)
  try {
    fs.writeFileSync(temporary, data, { flag: "wx", mode: 0o600 })
    fs.renameSync(temporary, file)
  } catch (error) {
    fs.rmSync(temporary, { force: true })
    throw error
  }
}

/**
 * Make `dir` exist, one level at a time (Node's recursive mkdir spins
 * forever under /proc), new levels private to the user (0700); the problem
 * in words when it cannot be made or may not be used.
 */
export const preparePrivateDirectory = (dir: string): string | undefined => {
  const missing: Array<string> = []
  let at = path.resolve(dir)
  for (;;) {
    try {
      const info = fs.statSync(at)
      if (!info.isDirectory()) return `${at} is not a folder`
      break
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== "ENOENT" && code !== "ENOTDIR") return `${at} cannot be read (${code ?? String(error)})`
    }
    const parent = path.dirname(at)
    if (parent === at) break
    missing.unshift(at)
    at = parent
  }
  for (const level of missing) {
    try {
      fs.mkdirSync(level, { mode: 0o700 })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== "EEXIST") return `could not create ${level}: ${code ?? String(error)}`
    }
  }
  return foreignDirectoryProblem(dir)
}
