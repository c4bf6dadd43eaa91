/**
 * THE REFERENCE: the offline search as it was before the prebuilt index —
 * regular expressions over the corpus TSV held as one string (git history:
 * src/adapters/corpus/corpusSearch.ts before issue 14). Kept, unchanged but
 * for its import paths, only so test/adapters/corpus-index.test.ts can check
 * that the index gives the same results, record for record and rank for rank.
 * Not used by the package.
 */
import { stem } from "../../src/adapters/corpus/stem.js"
import { parseArxivId } from "../../src/core/arxiv.js"
import { Paper } from "../../src/core/models.js"
import type { QueryNode, TermNode } from "../../src/adapters/query/queryParser.js"

/** Column order of the TSV (its header line says the same). */
export const COLUMNS = [
  "id",
  "published",
  "updated",
  "categories",
  "doi",
  "journalRef",
  "comment",
  "authors",
  "title",
  "abstract"
] as const
const NCOL = COLUMNS.length
const C_ID = 0
const C_PUBLISHED = 1
const C_UPDATED = 2
const C_CATEGORIES = 3
const C_DOI = 4
const C_JOURNAL = 5
const C_COMMENT = 6
const C_AUTHORS = 7
const C_TITLE = 8
const C_ABSTRACT = 9

/** Text columns a term can match, by query field. */
const FIELD_COLUMNS: Record<string, ReadonlyArray<number>> = {
  ti: [C_TITLE],
  abs: [C_ABSTRACT],
  co: [C_COMMENT],
  jr: [C_JOURNAL],
  all: [C_TITLE, C_ABSTRACT, C_AUTHORS, C_COMMENT, C_JOURNAL]
}
/** BM25 weight of a match in each column. */
const COLUMN_WEIGHT: Record<number, number> = {
  [C_TITLE]: 3,
  [C_ABSTRACT]: 1,
  [C_AUTHORS]: 1,
  [C_COMMENT]: 0.5,
  [C_JOURNAL]: 0.5
}
const TEXT_COLUMNS = [C_JOURNAL, C_COMMENT, C_AUTHORS, C_TITLE, C_ABSTRACT]
const K1 = 1.2
const B = 0.75

/** Matching documents of one term, per text column, in document order, with term frequencies. */
interface Postings {
  readonly docs: Map<number, Array<number>>
  readonly tf: Map<number, Array<number>>
}

/** A set of documents. */
type DocSet = Uint8Array

/** Lower-case, strip diacritics. */
export const fold = (s: string): string =>
  // eslint-disable-next-line no-control-regex
  /[^\u0000-\u007f]/.test(s) ? s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase() : s.toLowerCase()

/** The alphanumeric words of a string, folded. */
export const words = (s: string): Array<string> => fold(s).split(/[^a-z0-9]+/).filter((w) => w.length > 0)

export { stem }

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The part of a stem every surface form of it starts with. Porter rewrites at
 * most the last three letters of a word's stem (happy → happi, hoping → hope),
 * so the stem minus three letters is a safe prefix to scan for.
 */
const scanPrefix = (s: string): string => s.slice(0, Math.max(Math.min(2, s.length), s.length - 3))

/** One word of a term as the scanner checks it. */
interface WordPattern {
  readonly regex: string
  readonly accept: (surface: string) => boolean
}

const wordPattern = (word: string, prefixOnly: boolean): WordPattern => {
  if (prefixOnly) return { regex: `${escapeRegExp(word)}[a-z0-9]*`, accept: () => true }
  const s = stem(word)
  return { regex: `${escapeRegExp(scanPrefix(s))}[a-z0-9]*`, accept: (surface) => stem(surface) === s }
}

/** Ranking order of a search. */
export type SortKey = "relevance" | "submittedDate" | "lastUpdatedDate"

/** What `search` needs besides the parsed query. */
export interface CorpusQuery {
  readonly query: QueryNode | undefined
  readonly categories: ReadonlyArray<string>
  /** YYYY-MM-DD */
  readonly since?: string | undefined
  readonly start: number
  readonly maxResults: number
  readonly sortBy: SortKey
  readonly sortOrder: "ascending" | "descending"
}

/** The offline corpus, searchable. Build it with `Corpus.fromTsv`. */
export class Corpus {
  /** Number of records. */
  readonly size: number
  private readonly lineStart: Int32Array
  private readonly colStart: Int32Array
  private readonly published: Int32Array
  private readonly updated: Int32Array
  private readonly byId = new Map<string, number>()
  private readonly byCategory = new Map<string, Array<number>>()
  private readonly avgLength = new Map<number, number>()
  private readonly postingsCache = new Map<string, Postings>()
  private authorTokens: Array<Array<Array<string>>> | undefined

  private constructor(private readonly text: string) {
    const starts: Array<number> = []
    let pos = text.indexOf("\n") + 1 // skip the header line
    while (pos > 0 && pos < text.length) {
      starts.push(pos)
      const nl = text.indexOf("\n", pos)
      pos = nl < 0 ? text.length : nl + 1
    }
    this.size = starts.length
    this.lineStart = Int32Array.from([...starts, text.length])
    this.colStart = new Int32Array(this.size * NCOL)
    this.published = new Int32Array(this.size)
    this.updated = new Int32Array(this.size)
    const totals = new Float64Array(NCOL)
    for (let d = 0; d < this.size; d++) {
      let p = this.lineStart[d]!
      for (let c = 0; c < NCOL; c++) {
        this.colStart[d * NCOL + c] = p
        if (c < NCOL - 1) p = text.indexOf("\t", p) + 1
      }
      const id = this.cell(d, C_ID)
      this.byId.set(id, d)
      const pub = Number(this.cell(d, C_PUBLISHED).replace(/-/g, ""))
      const upd = this.cell(d, C_UPDATED)
      this.published[d] = pub
      this.updated[d] = upd === "" ? pub : Number(upd.replace(/-/g, ""))
      for (const cat of this.cell(d, C_CATEGORIES).split(" ")) {
        if (cat === "") continue
        const key = cat.toLowerCase()
        let list = this.byCategory.get(key)
        if (list === undefined) this.byCategory.set(key, list = [])
        list.push(d)
      }
      for (const c of TEXT_COLUMNS) totals[c]! += this.cellLength(d, c)
    }
    for (const c of TEXT_COLUMNS) this.avgLength.set(c, Math.max(1, totals[c]! / Math.max(1, this.size)))
  }

  /** Index a corpus TSV (header line first, columns as in `COLUMNS`). */
  static fromTsv(text: string): Corpus {
    const header = text.slice(0, text.indexOf("\n")).split("\t")
    if (header.join("\t") !== COLUMNS.join("\t")) {
      throw new Error(`unexpected corpus columns: ${header.join(", ")}`)
    }
    return new Corpus(text)
  }

  private cellEnd(d: number, c: number): number {
    return c < NCOL - 1 ? this.colStart[d * NCOL + c + 1]! - 1 : this.lineStart[d + 1]! - 1
  }

  private cellLength(d: number, c: number): number {
    return this.cellEnd(d, c) - this.colStart[d * NCOL + c]!
  }

  private cell(d: number, c: number): string {
    return this.text.slice(this.colStart[d * NCOL + c]!, this.cellEnd(d, c))
  }

  /** The document holding text offset `o`. */
  private docAt(o: number): number {
    let lo = 0
    let hi = this.size - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (this.lineStart[mid]! <= o) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  private columnAt(d: number, o: number): number {
    let c = NCOL - 1
    while (c > 0 && this.colStart[d * NCOL + c]! > o) c--
    return c
  }

  /** The record at index `d` as a Paper. */
  paper(d: number): Paper {
    const opt = (c: number) => {
      const v = this.cell(d, c)
      return v === "" ? undefined : v
    }
    const updated = opt(C_UPDATED)
    const doi = opt(C_DOI)
    const journalRef = opt(C_JOURNAL)
    const comment = opt(C_COMMENT)
    const authors = this.cell(d, C_AUTHORS)
    return new Paper({
      arxivId: this.cell(d, C_ID),
      title: this.cell(d, C_TITLE),
      abstract: this.cell(d, C_ABSTRACT),
      authors: authors === "" ? [] : authors.split("; "),
      published: this.cell(d, C_PUBLISHED),
      ...(updated === undefined ? {} : { updated }),
      categories: this.cell(d, C_CATEGORIES).split(" ").filter((c) => c !== ""),
      ...(doi === undefined ? {} : { doi }),
      ...(journalRef === undefined ? {} : { journalRef }),
      ...(comment === undefined ? {} : { comment })
    })
  }

  /** The index of a bare arXiv id (no version), if the corpus has it. */
  indexOf(arxivId: string): number | undefined {
    return this.byId.get(arxivId)
  }

  // ---------------------------------------------------------------------------
  // term postings

  private emptyPostings(): Postings {
    const docs = new Map<number, Array<number>>()
    const tf = new Map<number, Array<number>>()
    for (const c of TEXT_COLUMNS) {
      docs.set(c, [])
      tf.set(c, [])
    }
    return { docs, tf }
  }

  private addHit(postings: Postings, offset: number): void {
    const d = this.docAt(offset)
    const c = this.columnAt(d, offset)
    const ds = postings.docs.get(c)
    if (ds === undefined) return // id, dates, categories, doi
    const ts = postings.tf.get(c)!
    if (ds.length > 0 && ds[ds.length - 1] === d) ts[ts.length - 1]!++
    else {
      ds.push(d)
      ts.push(1)
    }
  }

  private cache(key: string, postings: Postings): void {
    if (this.postingsCache.size >= 256) this.postingsCache.clear() // bounded: common terms hold ~30k postings
    this.postingsCache.set(key, postings)
  }

  /**
   * Fill the cache for all uncached single words of a query in one pass over
   * the text (a query usually has several), instead of one pass per word.
   */
  private prefetch(node: QueryNode): void {
    const wanted = new Map<string, Postings>()
    const visit = (n: QueryNode): void => {
      switch (n._tag) {
        case "Term": {
          if (n.prefix || n.field === "au" || n.field === "cat" || n.field === "id" || n.field === "rn") return
          const ws = words(n.value)
          if (ws.length !== 1) return
          const s = stem(ws[0]!)
          if (!this.postingsCache.has(s) && !wanted.has(s)) wanted.set(s, this.emptyPostings())
          return
        }
        case "Range":
          return
        case "Not":
          return visit(n.operand)
        default:
          visit(n.left)
          visit(n.right)
      }
    }
    visit(node)
    if (wanted.size < 2) return
    const prefixes = [...new Set([...wanted.keys()].map(scanPrefix))].map(escapeRegExp)
    const regex = new RegExp(`\\b(?:${prefixes.join("|")})[a-z0-9]*`, "gi")
    let m: RegExpExecArray | null
    while ((m = regex.exec(this.text)) !== null) {
      const postings = wanted.get(stem(m[0].toLowerCase()))
      if (postings !== undefined) this.addHit(postings, m.index)
    }
    for (const [s, postings] of wanted) this.cache(s, postings)
  }

  /** Scan the text for a word or phrase; cached by its normalised form. */
  private postings(wordsOfTerm: ReadonlyArray<string>, prefixOnly: boolean): Postings {
    const key = `${prefixOnly ? "*" : ""}${wordsOfTerm.map((w) => (prefixOnly ? w : stem(w))).join(" ")}`
    const cached = this.postingsCache.get(key)
    if (cached !== undefined) return cached
    const patterns = wordsOfTerm.map((w, i) => wordPattern(w, prefixOnly && i === wordsOfTerm.length - 1))
    const gap = "[^a-z0-9\\t\\n]+"
    const regex = new RegExp(`\\b${patterns.map((p) => `(${p.regex})`).join(gap)}`, "gi")
    const postings = this.emptyPostings()
    let m: RegExpExecArray | null
    while ((m = regex.exec(this.text)) !== null) {
      let ok = true
      for (let i = 0; i < patterns.length; i++) {
        if (!patterns[i]!.accept(m[i + 1]!.toLowerCase())) {
          ok = false
          break
        }
      }
      if (!ok) {
        // a rejected first word may hide a match that starts inside this one
        regex.lastIndex = m.index + m[1]!.length
        continue
      }
      this.addHit(postings, m.index)
    }
    this.cache(key, postings)
    return postings
  }

  private authorIndex(): Array<Array<Array<string>>> {
    if (this.authorTokens === undefined) {
      const all: Array<Array<Array<string>>> = new Array(this.size)
      for (let d = 0; d < this.size; d++) {
        const cell = this.cell(d, C_AUTHORS)
        all[d] = cell === "" ? [] : cell.split("; ").map(words)
      }
      this.authorTokens = all
    }
    return this.authorTokens
  }

  /**
   * Authors matching `au:`: every word of the query in one author's name, in
   * any order; a one-letter word matches an initial (au:bengio_y).
   */
  private authorMatches(value: string, prefixOnly: boolean): Postings {
    const key = `au:${prefixOnly ? "*" : ""}${words(value).join(" ")}`
    const cached = this.postingsCache.get(key)
    if (cached !== undefined) return cached
    const q = words(value)
    const docs: Array<number> = []
    const tf: Array<number> = []
    const index = this.authorIndex()
    const matchesWord = (w: string, last: boolean) => (t: string) =>
      w.length === 1 ? t.startsWith(w) : prefixOnly && last ? t.startsWith(w) : t === w
    const matchers = q.map((w, i) => matchesWord(w, i === q.length - 1))
    if (q.length > 0) {
      for (let d = 0; d < this.size; d++) {
        let n = 0
        for (const name of index[d]!) {
          if (matchers.every((ok) => name.some(ok))) n++
        }
        if (n > 0) {
          docs.push(d)
          tf.push(n)
        }
      }
    }
    const postings: Postings = { docs: new Map([[C_AUTHORS, docs]]), tf: new Map([[C_AUTHORS, tf]]) }
    this.cache(key, postings)
    return postings
  }

  /** Postings of a term node, restricted to the columns its field searches. */
  private termPostings(node: TermNode): { postings: Postings; columns: ReadonlyArray<number> } {
    if (node.field === "au") return { postings: this.authorMatches(node.value, node.prefix), columns: [C_AUTHORS] }
    const ws = words(node.value)
    const columns = FIELD_COLUMNS[node.field] ?? []
    if (ws.length === 0) return { postings: { docs: new Map(), tf: new Map() }, columns }
    return { postings: this.postings(ws, node.prefix), columns }
  }

  // ---------------------------------------------------------------------------
  // boolean evaluation

  private empty(): DocSet {
    return new Uint8Array(this.size)
  }

  private setOf(docs: Iterable<number>): DocSet {
    const s = this.empty()
    for (const d of docs) s[d] = 1
    return s
  }

  private evalTerm(node: TermNode): DocSet {
    switch (node.field) {
      case "cat": {
        const v = node.value.toLowerCase()
        if (node.prefix || v.endsWith(".*")) {
          const p = v.replace(/\*$/, "")
          const s = this.empty()
          for (const [code, docs] of this.byCategory) if (code.startsWith(p)) for (const d of docs) s[d] = 1
          return s
        }
        return this.setOf(this.byCategory.get(v) ?? [])
      }
      case "id": {
        const parsed = parseArxivId(node.value)
        const d = parsed === undefined ? undefined : this.byId.get(parsed.id)
        return this.setOf(d === undefined ? [] : [d])
      }
      case "rn":
        return this.empty() // report numbers are not in the oai_dc records
      default: {
        const { columns, postings } = this.termPostings(node)
        const s = this.empty()
        for (const c of columns) for (const d of postings.docs.get(c) ?? []) s[d] = 1
        return s
      }
    }
  }

  /** The documents a query matches. */
  evaluate(node: QueryNode): DocSet {
    switch (node._tag) {
      case "Term":
        return this.evalTerm(node)
      case "Range": {
        const dates = node.field === "submittedDate" ? this.published : this.updated
        const from = Number(node.from)
        const to = Number(node.to)
        const s = this.empty()
        for (let d = 0; d < this.size; d++) {
          const day = dates[d]! * 10000
          if (day + 2359 >= from && day <= to) s[d] = 1
        }
        return s
      }
      case "Not": {
        const s = this.evaluate(node.operand)
        for (let d = 0; d < this.size; d++) s[d] = s[d]! ^ 1
        return s
      }
      case "And":
      case "Or":
      case "AndNot": {
        const l = this.evaluate(node.left)
        const r = this.evaluate(node.right)
        for (let d = 0; d < this.size; d++) {
          l[d] = node._tag === "And" ? l[d]! & r[d]! : node._tag === "Or" ? l[d]! | r[d]! : l[d]! & (r[d]! ^ 1)
        }
        return l
      }
    }
  }

  /** The terms that count for relevance: those not under a negation. */
  private positiveTerms(node: QueryNode, out: Array<TermNode> = []): Array<TermNode> {
    switch (node._tag) {
      case "Term":
        if (node.field !== "cat" && node.field !== "id" && node.field !== "rn") out.push(node)
        break
      case "And":
      case "Or":
        this.positiveTerms(node.left, out)
        this.positiveTerms(node.right, out)
        break
      case "AndNot":
        this.positiveTerms(node.left, out)
        break
      default:
        break
    }
    return out
  }

  /** BM25 over the matched documents, summed over the positive terms and their fields. */
  private scores(node: QueryNode, matched: DocSet): Float64Array {
    const score = new Float64Array(this.size)
    for (const term of this.positiveTerms(node)) {
      const { columns, postings } = this.termPostings(term)
      const seen = new Set<number>()
      for (const c of columns) for (const d of postings.docs.get(c) ?? []) seen.add(d)
      const df = seen.size
      if (df === 0) continue
      const idf = Math.log(1 + (this.size - df + 0.5) / (df + 0.5))
      for (const c of columns) {
        const docs = postings.docs.get(c) ?? []
        const tfs = postings.tf.get(c) ?? []
        const avg = this.avgLength.get(c) ?? 1
        const w = COLUMN_WEIGHT[c] ?? 1
        for (let i = 0; i < docs.length; i++) {
          const d = docs[i]!
          if (matched[d] !== 1) continue
          const tf = tfs[i]!
          const len = c === C_AUTHORS && term.field === "au" ? avg : this.cellLength(d, c)
          score[d]! += w * idf * (tf * (K1 + 1)) / (tf + K1 * (1 - B + B * len / avg))
        }
      }
    }
    return score
  }

  /** Evaluate, filter, rank and page a search. */
  search(q: CorpusQuery): { readonly indices: ReadonlyArray<number>; readonly total: number } {
    if (q.query !== undefined) this.prefetch(q.query)
    const matched = q.query === undefined ? new Uint8Array(this.size).fill(1) : this.evaluate(q.query)
    if (q.categories.length > 0) {
      const inCats = this.empty()
      for (const c of q.categories) for (const d of this.byCategory.get(c.toLowerCase()) ?? []) inCats[d] = 1
      for (let d = 0; d < this.size; d++) matched[d] = matched[d]! & inCats[d]!
    }
    if (q.since !== undefined) {
      const since = Number(q.since.replace(/-/g, ""))
      for (let d = 0; d < this.size; d++) if (this.published[d]! < since) matched[d] = 0
    }
    const hits: Array<number> = []
    for (let d = 0; d < this.size; d++) if (matched[d] === 1) hits.push(d)
    const sign = q.sortOrder === "ascending" ? -1 : 1
    const byId = (a: number, b: number) => (this.cell(a, C_ID) < this.cell(b, C_ID) ? -1 : 1)
    if (q.sortBy === "relevance" && q.query !== undefined) {
      const score = this.scores(q.query, matched)
      hits.sort((a, b) => sign * (score[b]! - score[a]!) || this.published[b]! - this.published[a]! || byId(a, b))
    } else {
      const dates = q.sortBy === "lastUpdatedDate" ? this.updated : this.published
      hits.sort((a, b) => sign * (dates[b]! - dates[a]!) || byId(a, b))
    }
    return { indices: hits.slice(q.start, q.start + q.maxResults), total: hits.length }
  }
}
