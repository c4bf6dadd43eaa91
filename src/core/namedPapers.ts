/**
 * Papers a note already names: arXiv ids, arXiv abs/pdf/html URLs, arXiv
 * DOIs (`10.48550/arXiv.<id>`), exact paper titles written as a title
 * (quoted, in italics, as a Markdown link text) and `[[…]]` links whose text
 * is a paper's title. Pure parsing, no I/O: ids are found in the text; titles
 * are only candidates until they are matched against known papers.
 *
 * @since 0.2.0
 */
import { parseArxivId } from "./arxiv.js"
import { fitTo } from "./text.js"

/** How the note names a paper. */
export type MentionKind = "arxiv-id" | "arxiv-url" | "doi" | "title" | "link"

/** One mention of a paper in a note. */
export interface PaperMention {
  readonly kind: MentionKind
  /** What the note wrote, on one line and at most 200 characters. */
  readonly text: string
  /** The bare arXiv id (no version) for ids, URLs and arXiv DOIs. */
  readonly arxivId?: string | undefined
}

/** What a note names: papers by id, and title candidates that still need a paper to match. */
export interface NoteMentions {
  /** One mention per arXiv id, in order of first appearance. */
  readonly ids: ReadonlyArray<PaperMention & { readonly arxivId: string }>
  /** Quoted, italic, linked and `[[…]]` texts that could be a paper's title, each once. */
  readonly titles: ReadonlyArray<PaperMention>
}

/** A known paper the note names, and how. */
export interface NamedPaper {
  readonly arxivId: string
  readonly mention: PaperMention
}

/** Notes longer than this are scanned only up to it (a bound for hostile input). */
const MAX_SCAN = 1_000_000
const MAX_TEXT = 200
/** A title mention must be at least this many words: shorter ones ("Dropout", "Deep Learning") are concepts. */
const MIN_TITLE_WORDS = 3
const MAX_TITLE_CHARS = 300

const oneLine = (s: string): string => {
  const flat = s.replace(/\s+/g, " ").trim()
  return fitTo(flat, MAX_TEXT)
}

/**
 * A modern id is YYMM.NNNN (2007-04..2014-12) or YYMM.NNNNN (2015-01 on), with
 * a real month: "3.14159" or "2017.12345" in prose is not an arXiv id.
 */
const plausibleModern = (id: string): boolean => {
  const m = /^(\d{2})(\d{2})\.(\d{4,5})$/.exec(id)
  if (m === null) return false
  const yymm = Number(m[1]) * 100 + Number(m[2])
  const month = Number(m[2])
  if (month < 1 || month > 12 || yymm < 704) return false
  return m[3]!.length === 4 ? yymm <= 1412 : yymm >= 1501
}

/** The archives of pre-2007 ids ("hep-th/9901001"); a bare "foo/1234567" is not taken for an id. */
const LEGACY_ARCHIVES = new Set([
  "acc-phys", "adap-org", "alg-geom", "ao-sci", "astro-ph", "atom-ph", "bayes-an", "chao-dyn", "chem-ph", "cmp-lg",
  "comp-gas", "cond-mat", "cs", "dg-ga", "funct-an", "gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math",
  "math-ph", "mtrl-th", "nlin", "nucl-ex", "nucl-th", "patt-sol", "physics", "plasm-ph", "q-alg", "q-bio", "quant-ph",
  "solv-int", "supr-con"
])

const plausible = (id: string): boolean => {
  if (id.includes("/")) return LEGACY_ARCHIVES.has(id.slice(0, id.indexOf("/")).replace(/\.[A-Z]{2}$/, ""))
  return plausibleModern(id)
}

const ID_BODY = String.raw`(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?\/\d{7})(?:v\d+)?`
/** arxiv.org/abs|pdf|html/<id>, with or without scheme and www/export. */
const URL_RE = new RegExp(String.raw`(?:https?:\/\/)?(?:www\.|export\.)?arxiv\.org\/(?:abs|pdf|html)\/(${ID_BODY})(?:\.pdf)?`, "gi")
/** 10.48550/arXiv.<id>, alone or in a doi.org URL. */
const DOI_RE = new RegExp(String.raw`10\.48550\/arxiv\.(${ID_BODY})`, "gi")
/** arXiv:<id> */
const PREFIXED_RE = new RegExp(String.raw`\barxiv:\s?(${ID_BODY})`, "gi")
/** A bare modern id, not inside a longer number or word. */
const BARE_MODERN_RE = /(?<![\w.\/-])(\d{4}\.\d{4,5})(v\d+)?(?![\w\/-]|\.\d)/g
/** A bare legacy id. */
const BARE_LEGACY_RE = /(?<![\w.\/-])([a-z-]+(?:\.[A-Z]{2})?\/\d{7})(v\d+)?(?![\w\/-])/g

/** The normalised form titles are compared in: lower-case, diacritics gone, runs of non-alphanumerics one space. */
export const titleKey = (s: string): string =>
  s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, " ").trim()

const titleWords = (key: string): number => (key === "" ? 0 : key.split(" ").length)

/** Texts written the way a title is written: quoted, italic, as a link text, or as a `[[…]]` link. */
const titleCandidates = (text: string): Array<PaperMention> => {
  const out: Array<{ readonly at: number; readonly mention: PaperMention }> = []
  let at = 0
  const add = (kind: "title" | "link", raw: string) => {
    const t = raw.trim()
    if (t.length === 0 || t.length > MAX_TITLE_CHARS) return
    out.push({ at, mention: { kind, text: oneLine(t) } })
  }
  for (const m of text.matchAll(/\[\[([^\[\]\n]{1,400})\]\]/g)) {
    at = m.index!
    const [target, alias] = m[1]!.split("|", 2)
    // "[[Papers/Some Title#Section|alias]]": the note name is the last path segment, without the heading
    const name = target!.replace(/#.*$/, "").replace(/^.*\//, "").replace(/\.md$/i, "")
    add("link", name)
    if (alias !== undefined) add("link", alias)
  }
  for (const m of text.matchAll(/(?<!!)\[([^\[\]\n]{1,400})\]\([^()\s]{0,2000}\)/g)) {
    at = m.index!
    add("title", m[1]!)
  }
  for (const m of text.matchAll(/"([^"\n]{1,400})"|“([^”\n]{1,400})”|«([^»\n]{1,400})»/g)) {
    at = m.index!
    add("title", m[1] ?? m[2] ?? m[3]!)
  }
  // single * or _ emphasis (bold marks the note's own key terms, not titles)
  for (const m of text.matchAll(/(?<![*\w])\*(?!\*)([^*\n]{1,400}?)\*(?![*\w])|(?<![_\w])_(?!_)([^_\n]{1,400}?)_(?![_\w])/g)) {
    at = m.index!
    add("title", m[1] ?? m[2]!)
  }
  return out.sort((a, b) => a.at - b.at).map((o) => o.mention)
}

/**
 * Every paper the note names by id, URL or arXiv DOI, and the texts that
 * could be a paper's title. Hostile input is bounded: at most the first
 * 1,000,000 characters are read, every pattern is linear, and what a mention
 * quotes is cut to one line of 200 characters.
 */
export const findPaperMentions = (note: string): NoteMentions => {
  const text = note.length > MAX_SCAN ? note.slice(0, MAX_SCAN) : note
  const found: Array<{ readonly at: number; readonly mention: PaperMention & { readonly arxivId: string } }> = []
  const taken: Array<readonly [number, number]> = []
  const overlaps = (start: number, end: number) => taken.some(([s, e]) => start < e && end > s)
  const scan = (re: RegExp, kind: MentionKind, idOf: (m: RegExpMatchArray) => string) => {
    for (const m of text.matchAll(re)) {
      const start = m.index!
      const end = start + m[0].length
      if (overlaps(start, end)) continue
      const parsed = parseArxivId(idOf(m))
      if (parsed === undefined || !plausible(parsed.id)) continue
      taken.push([start, end])
      found.push({ at: start, mention: { kind, text: oneLine(m[0]), arxivId: parsed.id } })
    }
  }
  scan(URL_RE, "arxiv-url", (m) => m[1]!)
  scan(DOI_RE, "doi", (m) => m[1]!)
  scan(PREFIXED_RE, "arxiv-id", (m) => m[1]!)
  scan(BARE_MODERN_RE, "arxiv-id", (m) => m[1]! + (m[2] ?? ""))
  scan(BARE_LEGACY_RE, "arxiv-id", (m) => m[1]! + (m[2] ?? ""))
  found.sort((a, b) => a.at - b.at)
  const ids: Array<PaperMention & { readonly arxivId: string }> = []
  for (const f of found) if (!ids.some((i) => i.arxivId === f.mention.arxivId)) ids.push(f.mention)

  const seen = new Set<string>()
  const titles: Array<PaperMention> = []
  for (const t of titleCandidates(text)) {
    const key = titleKey(t.text)
    if (titleWords(key) < MIN_TITLE_WORDS || seen.has(key)) continue
    seen.add(key)
    titles.push(t)
  }
  return { ids, titles }
}

/**
 * The papers the note names: every id it gives (a paper named by id is named,
 * whether or not it was found), then the known papers whose title a title
 * mention equals once normalised (case, accents, punctuation). A title equal
 * to the note's own title is the note, not a paper. Each paper once, ids first.
 */
export const matchNamedPapers = (
  mentions: NoteMentions,
  papers: ReadonlyArray<{ readonly arxivId: string; readonly title: string }>,
  noteTitle = ""
): ReadonlyArray<NamedPaper> => {
  const out: Array<NamedPaper> = []
  const has = (id: string) => out.some((n) => n.arxivId === id)
  for (const m of mentions.ids) if (!has(m.arxivId)) out.push({ arxivId: m.arxivId, mention: m })
  const own = titleKey(noteTitle)
  const byTitle = new Map<string, string>()
  for (const p of papers) {
    const key = titleKey(p.title)
    if (titleWords(key) >= MIN_TITLE_WORDS && !byTitle.has(key)) byTitle.set(key, parseArxivId(p.arxivId)?.id ?? p.arxivId)
  }
  for (const t of mentions.titles) {
    const key = titleKey(t.text)
    if (key === own) continue
    const id = byTitle.get(key)
    if (id !== undefined && !has(id)) out.push({ arxivId: id, mention: t })
  }
  return out
}
