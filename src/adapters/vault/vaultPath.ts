/**
 * Path rules shared by every VaultPort adapter: a vault path is relative, uses
 * `/`, stays inside the vault, and names a Markdown file Obsidian can open.
 *
 * @since 0.1.0
 */
import { isSafeVaultPath } from "../../core/compose.js"
import { NoteRef } from "../../core/models.js"
import { clip } from "../../core/text.js"

/** Characters Obsidian (and Windows) forbid in file names, and control characters. */
const RESERVED = /[*"\\<>:|?\u0000-\u001f\u007f]/
/** Device names Windows refuses as file names, whatever the extension. */
const DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i
/** Most file systems cap one name at 255 bytes. */
const MAX_SEGMENT_BYTES = 255
const MAX_PATH_BYTES = 1024

const utf8Length = (s: string): number => new TextEncoder().encode(s).length

/** Folder names never listed as part of the vault. */
export const isSkippedFolder = (name: string): boolean => name.startsWith(".") || name === "node_modules"

/**
 * Why a vault-relative path may not be written, or undefined when it may.
 * Rejects absolute paths, `..`, backslashes, drive letters, hidden segments,
 * reserved characters and names, over-long names, and non-Markdown files.
 */
export const unsafeWriteReason = (path: string): string | undefined => {
  if (!isSafeVaultPath(path)) return "the path must be relative to the vault, with no '..', '.', '\\' or drive letter"
  if (!path.endsWith(".md")) return "only Markdown notes (.md) are written"
  if (utf8Length(path) > MAX_PATH_BYTES) return `the path is longer than ${MAX_PATH_BYTES} bytes`
  for (const segment of path.split("/")) {
    if (segment.startsWith(".")) return `"${segment}" is hidden (starts with '.'); the companion does not write there`
    if (segment === "node_modules") return "the companion does not write into node_modules"
    if (RESERVED.test(segment)) return `"${segment}" contains a character Obsidian forbids in file names (* " \\ < > : | ?)`
    if (DEVICE.test(segment)) return `"${segment}" is a reserved device name`
    if (/[ .]$/.test(segment)) return `"${segment}" ends with a space or a dot`
    if (utf8Length(segment) > MAX_SEGMENT_BYTES) return `"${clip(segment, 40)}" is longer than ${MAX_SEGMENT_BYTES} bytes`
  }
  return undefined
}

/** Whether a vault-relative path may be read: inside the vault, not hidden. */
export const isReadablePath = (path: string): boolean =>
  isSafeVaultPath(path) && path.split("/").every((segment) => !isSkippedFolder(segment))

/** The note title of a vault path: its file name without `.md`. */
export const titleOf = (path: string): string => {
  const name = path.slice(path.lastIndexOf("/") + 1)
  return name.endsWith(".md") ? name.slice(0, -3) : name
}

/** A NoteRef for a vault-relative Markdown path. */
export const noteRefOf = (path: string): NoteRef => new NoteRef({ title: titleOf(path), path })

/** Whether a vault-relative path is a Markdown note the vault lists. */
export const isListedNote = (path: string): boolean => path.endsWith(".md") && isReadablePath(path)

/** Notes sorted by path, for deterministic listings. */
export const sortNotes = (notes: ReadonlyArray<NoteRef>): ReadonlyArray<NoteRef> =>
  [...notes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
