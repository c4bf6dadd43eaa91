/**
 * Which notes a digest covers: the vault's concept notes (never the
 * companion's generated notes), narrowed by a glob over paths or a tag.
 * Pure.
 *
 * @since 0.4.0
 */
import { BEGIN } from "./compose.js"
import { COMPANION_FOLDER, isDigestTitle } from "./digestNote.js"
import { splitFrontmatter } from "./keywords.js"
import { generatedFrom } from "./noteReference.js"

/** Why a note is the companion's own, or undefined for a note of the student's. */
export const generatedBecause = (note: { readonly path: string; readonly title: string }, text: string): string | undefined => {
  if (note.path.startsWith(`${COMPANION_FOLDER}/`)) return "in the companion's folder"
  if (isDigestTitle(note.title)) return "a digest"
  if (generatedFrom(note.title) !== undefined) return "a Related Papers note"
  if (BEGIN.test(text)) return "holds the companion's generated block"
  return undefined
}

/**
 * A glob over vault-relative paths as a RegExp: `*` any run of characters
 * but `/`, `**` any run (folders too; `**\/` also none), `?` one character
 * but `/`, `{a,b}` either; everything else literal. A pattern without `/`
 * matches a note's file name in any folder, as shells' `--include` do.
 */
export const globRegExp = (glob: string): RegExp => {
  const body = globSource(glob)
  return new RegExp(glob.includes("/") ? `^${body}$` : `(?:^|/)${body}$`, "u")
}

const literal = (c: string): string => c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** A glob's RegExp source; `{…}` alternatives are globs themselves (one level of nesting is enough for paths). */
const globSource = (glob: string): string => {
  let out = ""
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/"
        out += slash ? "(?:.*/)?" : ".*"
        i += slash ? 2 : 1
      } else out += "[^/]*"
    } else if (c === "?") out += "[^/]"
    else if (c === "{" && glob.indexOf("}", i) > i) {
      const close = glob.indexOf("}", i)
      out += `(?:${glob.slice(i + 1, close).split(",").map(globSource).join("|")})`
      i = close
    } else out += literal(c)
  }
  return out
}

/** Whether a note's path matches a glob (with or without its `.md`). */
export const matchesGlob = (re: RegExp, path: string): boolean => re.test(path) || re.test(path.replace(/\.md$/, ""))

const unquote = (s: string): string => s.trim().replace(/^(["'])(.*)\1$/, "$2").trim()

/** A note's tags: its frontmatter's `tags` (flow list, comma list, block list) and the `#tags` of its text, without `#`, lower-case. */
export const noteTags = (text: string): ReadonlySet<string> => {
  const { frontmatter, body } = splitFrontmatter(text)
  const tags = new Set<string>()
  const lines = (frontmatter ?? "").split(/\r?\n/)
  const at = lines.findIndex((l) => /^tags:/.test(l))
  if (at >= 0) {
    const inline = lines[at]!.slice("tags:".length).trim()
    if (inline !== "") for (const t of inline.replace(/^\[|\]$/g, "").split(",")) tags.add(unquote(t))
    for (let i = at + 1; i < lines.length && /^(?:[ \t]+\S|-(?:[ \t]|$))/.test(lines[i]!); i++) tags.add(unquote(lines[i]!.trim().replace(/^-\s*/, "")))
  }
  for (const m of body.matchAll(/(?<![\p{L}\p{N}_&/#])#([\p{L}_][\p{L}\p{N}_/-]*)/gu)) tags.add(m[1]!)
  return new Set([...tags].map((t) => t.replace(/^#/, "").toLowerCase()).filter((t) => t !== ""))
}

/** Whether a note carries a tag (or a nested tag under it: `ml` matches `ml/vision`). */
export const hasTag = (text: string, tag: string): boolean => {
  const wanted = tag.replace(/^#/, "").toLowerCase()
  return [...noteTags(text)].some((t) => t === wanted || t.startsWith(`${wanted}/`))
}
