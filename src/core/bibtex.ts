/**
 * BibTeX for arXiv papers, from metadata only: stable citation keys and
 * LaTeX-safe field values.
 *
 * @since 0.1.0
 */
import { absUrl } from "./arxiv.js"
import type { Paper } from "./models.js"
import { STOP_WORDS } from "./text.js"

const ACCENTS: Readonly<Record<string, string>> = {
  "\u0300": "`",
  "\u0301": "'",
  "\u0302": "^",
  "\u0303": "~",
  "\u0304": "=",
  "\u0306": "u",
  "\u0307": ".",
  "\u0308": "\"",
  "\u030A": "r",
  "\u030B": "H",
  "\u030C": "v",
  "\u0327": "c",
  "\u0328": "k"
}

const LETTERS: Readonly<Record<string, string>> = {
  "ß": "{\\ss}",
  "ø": "{\\o}",
  "Ø": "{\\O}",
  "æ": "{\\ae}",
  "Æ": "{\\AE}",
  "œ": "{\\oe}",
  "Œ": "{\\OE}",
  "ł": "{\\l}",
  "Ł": "{\\L}",
  "ı": "{\\i}",
  "–": "--",
  "—": "---",
  "‘": "`",
  "’": "'",
  "“": "``",
  "”": "''",
  "\u00A0": "~"
}

const SPECIALS: Readonly<Record<string, string>> = {
  "\\": "\\textbackslash{}",
  "{": "\\{",
  "}": "\\}",
  "&": "\\&",
  "%": "\\%",
  "#": "\\#",
  "_": "\\_",
  "$": "\\$",
  "^": "\\^{}",
  "~": "\\~{}"
}

/** Plain text → LaTeX: specials escaped, accented Latin letters as TeX accents. */
const escapeText = (text: string): string => {
  let out = ""
  // NFD splits "é" into "e" + U+0301 so the accent can become {\'e}.
  const chars = [...text.normalize("NFD")]
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!
    const next = chars[i + 1]
    if (next !== undefined && ACCENTS[next] !== undefined && /[A-Za-z]/.test(ch)) {
      const base = ch === "i" ? "\\i" : ch === "j" ? "\\j" : ch
      const cmd = ACCENTS[next]!
      out += /[a-zA-Z]/.test(cmd) ? `{\\${cmd} ${base}}` : `{\\${cmd}${base}}`
      i++
      continue
    }
    out += SPECIALS[ch] ?? LETTERS[ch.normalize("NFC")] ?? ch
  }
  return out.normalize("NFC")
}

const balanced = (s: string): boolean => {
  let depth = 0
  for (const ch of s) {
    if (ch === "{") depth++
    else if (ch === "}" && --depth < 0) return false
  }
  return depth === 0
}

/**
 * Escape a metadata string for a BibTeX field. Inline math (`$...$` with
 * balanced braces) is kept as written; everything else is treated as plain
 * text, so the result always has balanced braces and compiles.
 */
export const escapeLatex = (text: string): string => {
  const s = text.replace(/\s+/g, " ").trim()
  let out = ""
  let last = 0
  for (const m of s.matchAll(/\$([^$]+)\$/g)) {
    const math = m[1]!
    if (!balanced(math) || /\\(?:end|begin)\b/.test(math)) continue
    out += escapeText(s.slice(last, m.index)) + `$${math}$`
    last = m.index + m[0].length
  }
  return out + escapeText(s.slice(last))
}

const ascii = (s: string): string =>
  s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/ß/g, "ss").replace(/[øØ]/g, "o").replace(/[łŁ]/g, "l")
    .toLowerCase().replace(/[^a-z0-9]/g, "")

/** The family name of an author written "First Last" or "Last, First". */
export const familyName = (author: string): string => {
  const a = author.trim()
  if (a.includes(",")) return a.split(",")[0]!.trim()
  const parts = a.split(/\s+/).filter((p) => !/^(jr|sr|ii|iii|iv)\.?$/i.test(p))
  return parts[parts.length - 1] ?? a
}

/**
 * The base citation key of a paper: first author's family name, year of the
 * first version and the first significant title word, e.g. `bahdanau2014neural`.
 */
export const citationKeyBase = (paper: Pick<Paper, "authors" | "published" | "title">): string => {
  const first = paper.authors[0]
  const name = (first === undefined ? "" : ascii(familyName(first))) || "anon"
  const year = paper.published.slice(0, 4)
  const word = (paper.title.toLowerCase().normalize("NFKD").match(/[a-z0-9]+/g) ?? [])
    .find((w) => w.length > 2 && !STOP_WORDS.has(w) && !/^\d+$/.test(w)) ?? ""
  return `${name}${year}${word}`
}

/**
 * Citation keys for papers in order: the base key, and on collision the
 * base key with a, b, c, ... (the same papers in the same order always get
 * the same keys).
 */
export const citationKeys = (
  papers: ReadonlyArray<Pick<Paper, "authors" | "published" | "title">>
): ReadonlyArray<string> => {
  const seen = new Map<string, number>()
  return papers.map((p) => {
    const base = citationKeyBase(p)
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    return n === 0 ? base : `${base}${String.fromCharCode(96 + Math.min(n, 26))}${n > 26 ? n : ""}`
  })
}

/** One `@misc` entry for an arXiv paper, in arXiv's own export style. */
export const bibtexEntry = (paper: Paper, key: string): string => {
  const fields: Array<readonly [string, string]> = [
    ["title", `{${escapeLatex(paper.title)}}`],
    ["author", paper.authors.map(escapeLatex).join(" and ")],
    ["year", paper.published.slice(0, 4)],
    ["eprint", paper.arxivId],
    ["archivePrefix", "arXiv"]
  ]
  const primary = paper.primaryCategory ?? paper.categories[0]
  if (primary !== undefined) fields.push(["primaryClass", primary])
  if (paper.doi !== undefined) fields.push(["doi", escapeLatex(paper.doi)])
  if (paper.journalRef !== undefined) fields.push(["note", escapeLatex(paper.journalRef)])
  fields.push(["url", absUrl(paper.arxivId)])
  const width = Math.max(...fields.map(([k]) => k.length))
  return `@misc{${key},\n${fields.map(([k, v]) => `  ${k.padEnd(width)} = {${v}}`).join(",\n")}\n}`
}

/** A BibTeX file for papers, entries in the given order, keys from {@link citationKeys}. */
export const bibtexFile = (papers: ReadonlyArray<Paper>): { readonly text: string; readonly keys: ReadonlyArray<string> } => {
  const keys = citationKeys(papers)
  return { text: papers.map((p, i) => bibtexEntry(p, keys[i]!)).join("\n\n") + (papers.length > 0 ? "\n" : ""), keys }
}
