/**
 * The offline corpus's prebuilt index (src/adapters/corpus/corpusIndex.ts):
 * searches over it give exactly what the regular-expression search over the
 * TSV gave (test/support/corpus-search-reference.ts), records come back
 * character for character, the build is deterministic, the shipped index is
 * current, and the corpus is loaded once per process.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { gunzipSync, gzipSync } from "node:zlib"
import { buildCorpusIndex, CorpusIndex, readIndexHeader } from "../../src/adapters/corpus/corpusIndex.js"
import { Corpus, type CorpusQuery } from "../../src/adapters/corpus/corpusSearch.js"
import * as CorpusArxiv from "../../src/adapters/arxiv/CorpusArxiv.js"
import { parseQuery, type QueryNode } from "../../src/adapters/query/queryParser.js"
import { ArxivPort } from "../../src/core/ports/ArxivPort.js"
import { Corpus as Reference } from "../support/corpus-search-reference.js"
import { typedQuery } from "../support/query.js"

const OFFLINE = fileURLToPath(new URL("../../fixtures/offline/", import.meta.url))
const HEADER = "id\tpublished\tupdated\tcategories\tdoi\tjournalRef\tcomment\tauthors\ttitle\tabstract"

/** Records that exercise the word rule's corners: "_", digits, non-ASCII, repeated words, empty cells. */
const EDGE_CASES = [
  "9901.00001\t2010-01-02\t\tcs.LG\t\t\t\tA. Author\tSub_script and x_i terms\tLet x_i be foo_bar; _lead and trail_ words. Attention_based attention-based models.",
  "9901.00002\t2010-01-03\t2011-05-06\tcs.LG stat.ML\t10.1000/x_y\tJ. Foo 12 (2010)\t3 pages; v2\tÉmile Müller; José Núñez\tSchrödinger café naïve façade\tThe the the a a a of of deep deep learning; 2D 3d CNN-RNN nets.",
  "9901.00003\t2010-01-03\t\tcs.CL\t\t\t\t\tEmpty authors\tword\u00e9word œuvre ﬁne: x–y — z…",
  "9901.00004\t2012-12-12\t\tCS.CV\t\t\t\tB. Writer; C. Writer\tUPPER CASE TITLE\tMiXeD CaSe AtTeNtIoN, attention; attentional ATTENTIVE attends."
]

/** A corpus of every 12th recorded record, plus the edge cases: what both searches index. */
const sampleTsv = (() => {
  let cached: string | undefined
  return () => {
    if (cached !== undefined) return cached
    const lines = gunzipSync(fs.readFileSync(nodePath.join(OFFLINE, CorpusArxiv.CORPUS_FILE))).toString("utf8").split("\n")
    const records = lines.slice(1).filter((l, i) => l !== "" && i % 12 === 0)
    return (cached = [HEADER, ...records, ...EDGE_CASES].join("\n") + "\n")
  }
})()

/** A small deterministic generator (mulberry32), so a failing query can be re-run. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** Queries in arXiv syntax built from the sample's own words: terms, phrases, prefixes, authors, fields, combinations. */
const queries = (tsv: string, n: number, seed: number): Array<string> => {
  const rand = random(seed)
  const rows = tsv.split("\n").slice(1, -1).map((l) => l.split("\t"))
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(rand() * xs.length)]!
  const wordsOf = (s: string) => s.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0)
  const term = (): string => {
    const row = pick(rows)
    const kind = rand()
    const field = pick(["ti", "abs", "all", "co", "jr"])
    const col = field === "ti" ? 8 : field === "co" ? 6 : field === "jr" ? 5 : pick([8, 9])
    const ws = wordsOf(row[col] ?? "")
    if (kind < 0.1) {
      const name = pick((row[7] ?? "").split("; "))
      const parts = wordsOf(name)
      return parts.length === 0 ? "au:smith" : rand() < 0.5 ? `au:${parts[parts.length - 1]}` : `au:"${name}"`
    }
    if (ws.length === 0) return `${field}:learning`
    const at = Math.floor(rand() * ws.length)
    if (kind < 0.45) return `${field}:${ws[at]}`
    if (kind < 0.55) return `${field}:${ws[at]!.slice(0, Math.max(2, ws[at]!.length - 2))}*`
    const len = 2 + Math.floor(rand() * 2)
    return `${field}:"${ws.slice(at, at + len).join(" ")}"`
  }
  const out: Array<string> = []
  for (let i = 0; i < n; i++) {
    const r = rand()
    out.push(
      r < 0.5
        ? term()
        : r < 0.7
        ? `${term()} OR ${term()} OR ${term()}`
        : r < 0.85
        ? `(${term()} OR ${term()}) AND ${term()}`
        : `${term()} ANDNOT ${term()}`
    )
  }
  return out
}

const FIXED = [
  'ti:"generative adversarial"', "ti:attentional", 'all:"sequence to sequence"', "au:bahdanau", "au:bahdanau_d",
  "all:x_i", "all:i", "all:bar", "all:trail", 'all:"a a"', 'all:"the the"', 'all:"deep deep learning"', "all:schrodinger",
  "all:cafe", "all:emile", "au:muller", 'au:"jose nunez"', "all:2d", "all:3d", "all:cnn", 'all:"cnn rnn"', "ti:upper",
  "all:attention", "abs:attent*", "all:wordeword", "all:word", "co:pages", "jr:foo", "cat:cs.cv", "cat:cs.*",
  "all:learning AND submittedDate:[201001010000 TO 201012312359]", "id:9901.00002", "-all:the", "all:uvre"
]

describe("the prebuilt corpus index", () => {
  const tsv = sampleTsv()
  const reference = Reference.fromTsv(tsv)
  const corpus = Corpus.fromTsv(tsv)

  const compare = (query: string) => {
    const parsed = parseQuery(query)
    assert.strictEqual(parsed._tag, "Ok", query)
    if (parsed._tag !== "Ok") return
    for (const sortBy of ["relevance", "submittedDate", "lastUpdatedDate"] as const) {
      for (const categories of [[], ["cs.LG", "stat.ML"]]) {
        const q: CorpusQuery = { query: parsed.query, categories, start: 0, maxResults: 40, sortBy, sortOrder: "descending" }
        const want = reference.search(q)
        const got = corpus.search(q)
        assert.strictEqual(got.total, want.total, `${query} (${sortBy}, ${categories.join(",")}): total`)
        assert.deepStrictEqual(got.indices, want.indices, `${query} (${sortBy}, ${categories.join(",")}): ranking`)
      }
    }
  }

  it("finds and ranks what the text search found, for the word rule's corner cases", () => {
    assert.strictEqual(corpus.size, reference.size)
    for (const q of FIXED) compare(q)
  })

  it("asked again, or for another page, a search gives what it gave", () => {
    for (const query of [...FIXED, ...queries(tsv, 60, 15)]) {
      const parsed = parseQuery(query)
      if (parsed._tag !== "Ok") throw new Error(query)
      for (const start of [0, 7, 0]) {
        const q: CorpusQuery = { query: parsed.query, categories: [], start, maxResults: 15, sortBy: "relevance", sortOrder: "descending" }
        const want = reference.search(q)
        assert.deepStrictEqual(corpus.search(q), want, `${query} from ${start}`)
      }
    }
  })

  it("keeps the word rule: a word after \"_\" starts no match but continues a phrase; accents split words", () => {
    const edges = Corpus.fromTsv([HEADER, ...EDGE_CASES].join("\n") + "\n")
    const total = (q: string) => {
      const parsed = parseQuery(q)
      if (parsed._tag !== "Ok") throw new Error(q)
      return edges.search({ query: parsed.query, categories: [], start: 0, maxResults: 5, sortBy: "relevance", sortOrder: "descending" }).total
    }
    assert.strictEqual(total("all:lead"), 0)
    assert.strictEqual(total("abs:foo"), 1)
    assert.strictEqual(total('abs:"foo bar"'), 1)
    assert.strictEqual(total("all:schrodinger"), 0) // "Schrödinger" is the words "Schr" and "dinger"
    assert.strictEqual(total("all:dinger"), 1)
    assert.strictEqual(total("ti:attention"), 0)
    assert.strictEqual(total("abs:attention"), 2)
  })

  it("finds and ranks what the text search found, for 400 queries made of the corpus's own words", () => {
    for (const q of queries(tsv, 400, 14)) compare(q)
  }, 120_000) // 400 reference scans: 10–30 s of CPU, longer when the machine is loaded

  it("rebuilds every record character for character", () => {
    for (let d = 0; d < corpus.size; d++) assert.deepStrictEqual(corpus.paper(d), reference.paper(d))
  })

  it("is deterministic: the same corpus gives the same bytes", () => {
    const source = { file: "sample.tsv.gz", sha1: "0" }
    const a = buildCorpusIndex(tsv, source)
    const b = buildCorpusIndex(tsv, source)
    assert.strictEqual(Buffer.compare(a, b), 0)
    assert.deepStrictEqual(readIndexHeader(a)?.source, source)
    assert.isUndefined(readIndexHeader(new TextEncoder().encode("not an index at all")))
  })

  it("over the whole recorded corpus, words stored apart (ids past 16 bits) are found as the text search finds them", () => {
    const bytes = fs.readFileSync(nodePath.join(OFFLINE, CorpusArxiv.INDEX_FILE))
    const index = CorpusIndex.read(bytes)!
    const whole = Corpus.fromIndex(bytes)!
    const full = Reference.fromTsv(gunzipSync(fs.readFileSync(nodePath.join(OFFLINE, CorpusArxiv.CORPUS_FILE))).toString("utf8"))
    const rare = [0, 0.3, 0.6, 0.9].map((at) => index.wordVocab.at(index.rareWords[Math.floor(at * index.rareWords.length)]!))
    const asked: Array<string> = []
    for (const word of rare) {
      asked.push(`all:${word}`, `ti:${word} OR abs:${word}`)
      // the rare word inside a phrase, second and first, as a record writes it
      const d = full.search({ query: (parseQuery(`all:${word}`) as { query: QueryNode }).query, categories: [], start: 0, maxResults: 1, sortBy: "relevance", sortOrder: "descending" }).indices[0]!
      const p = full.paper(d)
      const text = [p.title, p.abstract, p.comment ?? "", p.journalRef ?? "", p.authors.join("; ")].join(" ")
      const around = new RegExp(`([A-Za-z0-9]+)[^A-Za-z0-9_]+${word}[^A-Za-z0-9_]+([A-Za-z0-9]+)`).exec(text)
      if (around !== null) asked.push(`all:"${around[1]} ${word}"`, `all:"${word} ${around[2]}"`)
    }
    assert.isAtLeast(asked.length, 10)
    for (const query of asked) {
      const q: CorpusQuery = { query: (parseQuery(query) as { query: QueryNode }).query, categories: [], start: 0, maxResults: 50, sortBy: "relevance", sortOrder: "descending" }
      const want = full.search(q)
      if (query.startsWith("all:")) assert.isAbove(want.total, 0, query)
      assert.deepStrictEqual(whole.search(q), want, query)
    }
  })

  it("the index `npm run build` wrote was built from the corpus the manifest lists", () => {
    const manifest = JSON.parse(fs.readFileSync(nodePath.join(OFFLINE, "manifest.json"), "utf8")) as Record<string, { sha1: string }>
    const header = readIndexHeader(fs.readFileSync(nodePath.join(OFFLINE, CorpusArxiv.INDEX_FILE)))
    assert.strictEqual(header?.source.sha1, manifest[CorpusArxiv.CORPUS_FILE]!.sha1)
    assert.strictEqual(header?.documents, 36421)
  })
})

describe("loading the corpus", () => {
  const dataDir = (index: "current" | "stale" | "none") => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "corpus-load-"))
    const tsv = [HEADER, ...EDGE_CASES].join("\n") + "\n"
    const gz = gzipSync(tsv)
    const sha1 = "test-sha1"
    fs.writeFileSync(nodePath.join(dir, CorpusArxiv.CORPUS_FILE), gz)
    fs.writeFileSync(nodePath.join(dir, "manifest.json"), JSON.stringify({ [CorpusArxiv.CORPUS_FILE]: { sha1 } }))
    if (index !== "none") {
      // a stale index holds other records: using it would show
      const records = index === "current" ? EDGE_CASES : EDGE_CASES.slice(0, 1)
      fs.writeFileSync(
        nodePath.join(dir, CorpusArxiv.INDEX_FILE),
        buildCorpusIndex([HEADER, ...records].join("\n") + "\n", { file: CorpusArxiv.CORPUS_FILE, sha1: index === "current" ? sha1 : "old" })
      )
    }
    return dir
  }

  it.effect("once per process: every call and every layer gets the same corpus", () =>
    Effect.gen(function*() {
      const dir = dataDir("current")
      const a = yield* CorpusArxiv.loadCorpus(dir)
      const b = yield* CorpusArxiv.loadCorpus(dir)
      assert.strictEqual(a, b)
      assert.strictEqual(a.size, EDGE_CASES.length)
      // a second data directory is a second corpus
      assert.notStrictEqual(yield* CorpusArxiv.loadCorpus(dataDir("current")), a)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a stale index (built from another corpus) is not used: the TSV is", () =>
    Effect.gen(function*() {
      const stale = yield* CorpusArxiv.loadCorpus(dataDir("stale"))
      assert.strictEqual(stale.size, EDGE_CASES.length)
      const none = yield* CorpusArxiv.loadCorpus(dataDir("none"))
      assert.strictEqual(none.size, EDGE_CASES.length)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("two layers over one directory answer from one load", () =>
    Effect.gen(function*() {
      const dir = dataDir("current")
      const port = Layer.build(CorpusArxiv.layer({ dataDir: dir }).pipe(Layer.provide(NodeContext.layer))).pipe(
        Effect.map(Context.get(ArxivPort))
      )
      const one = yield* port
      const two = yield* port
      const before = yield* CorpusArxiv.loadCorpus(dir).pipe(Effect.provide(NodeContext.layer))
      assert.deepStrictEqual(
        (yield* one.search({ query: typedQuery("ti:upper"), categories: [], maxResults: 5 })).papers.map((p) => p.arxivId),
        ["9901.00004"]
      )
      assert.strictEqual((yield* two.getPapers(["9901.00003"])).papers[0]!.title, "Empty authors")
      assert.strictEqual(yield* CorpusArxiv.loadCorpus(dir).pipe(Effect.provide(NodeContext.layer)), before)
    }))
})
