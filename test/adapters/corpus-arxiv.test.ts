/**
 * The recorded-corpus ArxivPort over the real recorded corpus in fixtures/offline
 * (36,421 arXiv records, 2007 to April 2017), searched through the mirror's engine
 * (its index: fixtures/offline/arxiv-corpus/arxiv.sqlite, built by `npm run build`).
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { gzipSync } from "node:zlib"
import * as CorpusArxiv from "../../src/adapters/arxiv/CorpusArxiv.js"
import type { Paper } from "../../src/core/models.js"
import { ArxivPort, type ArxivSearch } from "../../src/core/ports/ArxivPort.js"
import { typedOrNone } from "../support/query.js"

const ML = ["cs.LG", "cs.AI", "cs.CL", "stat.ML"]
const req = (query: string, more: Partial<ArxivSearch> = {}): ArxivSearch => ({
  query: typedOrNone(query),
  categories: [],
  maxResults: 50,
  ...more
})
const ids = (papers: ReadonlyArray<Paper>) => papers.map((p) => p.arxivId)

const failure = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const e = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (e === undefined) throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return e
}

layer(CorpusArxiv.layer().pipe(Layer.provide(NodeContext.layer)), { timeout: "60 seconds" })("CorpusArxiv over the corpus", (it) => {
  it.effect("ti: with a phrase finds the GAN paper, and every hit has the phrase in its title", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      // every match on one page: BM25 over the whole record (FTS5's) ranks papers with short abstracts first, so
      // GAN is not among the first 50 of the 73
      const r = yield* arxiv.search(req('ti:"generative adversarial"', { maxResults: 100 }))
      assert.include(ids(r.papers), "1406.2661")
      assert.strictEqual(r.total, 73)
      assert.strictEqual(r.papers.length, 73)
      // Porter stems "generative" and "generating" alike, as arXiv does
      for (const p of r.papers) assert.match(p.title, /generat[a-z]*[^a-z0-9]+adversarial/i)
      const gan = (yield* arxiv.getPapers(["1406.2661"])).papers[0]!
      assert.strictEqual(gan.title, "Generative Adversarial Networks")
      assert.strictEqual(gan.authors[0], "Ian J. Goodfellow")
      assert.strictEqual(gan.published, "2014-06-10")
    }))

  it.effect("matching is stemming-insensitive, also in phrases and across hyphens", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const attentional = yield* arxiv.search(req("ti:attentional", { maxResults: 50 }))
      const attention = yield* arxiv.search(req("ti:attention", { maxResults: 50 }))
      assert.strictEqual(attentional.total, attention.total)
      assert.isTrue(attention.papers.some((p) => /\battention\b/i.test(p.title)))
      const s2s = yield* arxiv.search(req('ti:"sequence to sequence"'))
      assert.isTrue(s2s.papers.some((p) => /sequence-to-sequence/i.test(p.title)))
      assert.isTrue(s2s.papers.some((p) => /sequence to sequence/i.test(p.title)))
    }))

  it.effect("au: matches one author's name, in either order, with initials", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const bahdanau = yield* arxiv.search(req("au:bahdanau"))
      assert.include(ids(bahdanau.papers), "1409.0473")
      for (const p of bahdanau.papers) assert.isTrue(p.authors.some((a) => /bahdanau/i.test(a)))
      const full = yield* arxiv.search(req('au:"Dzmitry Bahdanau"'))
      const initial = yield* arxiv.search(req("au:bahdanau_d"))
      assert.deepStrictEqual(ids(full.papers).sort(), ids(bahdanau.papers).sort())
      assert.deepStrictEqual(ids(initial.papers).sort(), ids(bahdanau.papers).sort())
      // two authors' words in one au: must be one person: nobody is called "Bahdanau Bengio"
      assert.strictEqual((yield* arxiv.search(req('au:"bahdanau bengio"'))).total, 0)
      const both = yield* arxiv.search(req("au:bahdanau AND au:bengio"))
      assert.include(ids(both.papers), "1409.0473")
    }))

  it.effect("au: with a surname alone matches the authors column, as arXiv does: never a name in a title or abstract", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const hasAuthor = (p: Paper, surname: RegExp) => p.authors.some((a) => a.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").split(/[^A-Za-z]+/).some((w) => surname.test(w)))
      const ruder = yield* arxiv.search(req("au:Ruder", { maxResults: 2000 }))
      assert.include(ids(ruder.papers), "1609.04747")
      for (const p of ruder.papers) assert.isTrue(hasAuthor(p, /^ruder$/i), p.arxivId)
      // papers whose text names Hinton but that he did not write are not his
      const aboutHinton = yield* arxiv.search(req("all:hinton ANDNOT au:hinton", { maxResults: 2000 }))
      assert.isAbove(aboutHinton.total, 0)
      const byHinton = new Set(ids((yield* arxiv.search(req("au:hinton", { maxResults: 2000 }))).papers))
      for (const id of ids(aboutHinton.papers)) assert.isFalse(byHinton.has(id), id)
      // letters are folded: au:Scholkopf finds "Bernhard Schölkopf"
      const scholkopf = yield* arxiv.search(req("au:Scholkopf", { maxResults: 2000 }))
      assert.isTrue(scholkopf.papers.some((p) => p.authors.includes("Bernhard Schölkopf")))
      for (const p of scholkopf.papers) assert.isTrue(hasAuthor(p, /^scholkopf$/i), p.arxivId)
    }))

  it.effect("the companion's title and author search: an author the note cites, among the papers the concept query matches", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const concept = 'all:"reinforcement learning" OR all:rnn'
      const r = yield* arxiv.search(req(`(ti:meta OR au:Duan) AND (${concept})`, { maxResults: 2000, sortBy: "relevance" }))
      const all = new Set(ids((yield* arxiv.search(req(concept, { maxResults: 2000 }))).papers))
      // RL² (Yan Duan et al.) is found; every hit matches the concept query and has "meta" in its title or a Duan among its authors
      assert.include(ids(r.papers), "1611.02779")
      for (const p of r.papers) {
        assert.isTrue(all.has(p.arxivId), p.arxivId)
        assert.isTrue(/meta/i.test(p.title) || p.authors.some((a) => /\bDuan\b/.test(a)), p.arxivId)
      }
      // Duan's papers that match no concept term are not
      const duan = ids((yield* arxiv.search(req("au:Duan", { maxResults: 2000 }))).papers)
      assert.isTrue(duan.some((id) => !all.has(id)))
      for (const id of duan.filter((id) => !all.has(id))) assert.notInclude(ids(r.papers), id)
    }))

  it.effect("AND, OR and ANDNOT combine as sets", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const total = (q: string) => arxiv.search(req(q, { maxResults: 1 })).pipe(Effect.map((r) => r.total))
      const a = yield* total("ti:attention")
      const b = yield* total("ti:translation")
      const and = yield* total("ti:attention AND ti:translation")
      const or = yield* total("ti:attention OR ti:translation")
      const andNot = yield* total("ti:attention ANDNOT ti:translation")
      assert.isAbove(and, 0)
      assert.isBelow(and, Math.min(a, b))
      assert.strictEqual(or, a + b - and)
      assert.strictEqual(andNot, a - and)
      assert.strictEqual(yield* total("ti:attention ti:translation"), and) // implicit AND
      assert.strictEqual(yield* total("ti:attention -ti:translation"), andNot)
      assert.strictEqual(yield* total("(ti:attention OR ti:translation) ANDNOT ti:attention"), b - and)
    }))

  it.effect("the request's categories are ORed and restrict every hit", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const all = yield* arxiv.search(req("ti:attention", { maxResults: 1 }))
      const cl = yield* arxiv.search(req("ti:attention", { categories: ["cs.CL"] }))
      const cv = yield* arxiv.search(req("ti:attention", { categories: ["cs.CV"], maxResults: 1 }))
      const either = yield* arxiv.search(req("ti:attention", { categories: ["cs.CL", "cs.CV"], maxResults: 1 }))
      for (const p of cl.papers) assert.include(p.categories, "cs.CL")
      assert.isBelow(cl.total, all.total)
      assert.isAtLeast(either.total, Math.max(cl.total, cv.total))
      assert.isAtMost(either.total, cl.total + cv.total)
      const viaQuery = yield* arxiv.search(req("ti:attention AND cat:cs.CL", { maxResults: 1 }))
      assert.strictEqual(viaQuery.total, cl.total)
    }))

  it.effect("since and submittedDate ranges filter on the first-version date", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const since = yield* arxiv.search(req("ti:attention", { since: "2016-06-01" }))
      for (const p of since.papers) assert.isTrue(p.published >= "2016-06-01")
      const all = yield* arxiv.search(req("ti:attention", { maxResults: 1 }))
      const before = yield* arxiv.search(req("ti:attention AND submittedDate:[200701010000 TO 201605312359]", { maxResults: 1 }))
      assert.strictEqual(since.total + before.total, all.total)
      // 1409.0473 was first submitted 2014-09-01 and revised in 2016: the first version counts
      const bahdanau = yield* arxiv.search(req("id:1409.0473 AND submittedDate:[20140901 TO 20140901]"))
      assert.deepStrictEqual(ids(bahdanau.papers), ["1409.0473"])
      const later = yield* arxiv.search(req("id:1409.0473", { since: "2015-01-01" }))
      assert.strictEqual(later.total, 0)
    }))

  it.effect("pages report the total; pages do not overlap; a page past the end is empty", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const q = 'all:"neural machine translation"'
      const p1 = yield* arxiv.search(req(q, { categories: ML, maxResults: 10 }))
      const p2 = yield* arxiv.search(req(q, { categories: ML, maxResults: 10, start: 10 }))
      assert.strictEqual(p1.papers.length, 10)
      assert.strictEqual(p2.start, 10)
      assert.strictEqual(p1.total, p2.total)
      assert.isAbove(p1.total, 20)
      assert.strictEqual(new Set([...ids(p1.papers), ...ids(p2.papers)]).size, 20)
      const past = yield* arxiv.search(req(q, { categories: ML, maxResults: 10, start: p1.total }))
      assert.deepStrictEqual(past.papers, [])
      assert.strictEqual(past.total, p1.total)
      const none = yield* arxiv.search(req("ti:zzzyxwvut"))
      assert.strictEqual(none.total, 0) // an empty result is a success
    }))

  it.effect("ranks by relevance (title hits first) or by date", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const rel = yield* arxiv.search(req("all:adversarial", { maxResults: 10 }))
      assert.isTrue(rel.papers.slice(0, 5).every((p) => /adversarial/i.test(p.title)))
      const newest = yield* arxiv.search(req("ti:adversarial", { sortBy: "submittedDate", maxResults: 20 }))
      const dates = newest.papers.map((p) => p.published)
      assert.deepStrictEqual(dates, [...dates].sort().reverse())
      const oldest = yield* arxiv.search(req("ti:adversarial", { sortBy: "submittedDate", sortOrder: "ascending", maxResults: 20 }))
      assert.deepStrictEqual(oldest.papers.map((p) => p.published), [...oldest.papers.map((p) => p.published)].sort())
    }))

  it.effect("an empty query with categories lists those categories", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const r = yield* arxiv.search(req("", { categories: ["cs.CL"], since: "2017-03-01", maxResults: 5 }))
      assert.isAbove(r.total, 0)
      for (const p of r.papers) assert.include(p.categories, "cs.CL")
    }))

  it.effect("getPapers normalises ids and reports the unknown ones", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const r = yield* arxiv.getPapers([
        "1409.0473",
        "arXiv:1406.2661v1",
        "https://arxiv.org/abs/1409.3215",
        "1409.0473v2",
        "cmp-lg/9404001",
        "1501.99999",
        "1706.03762"
      ])
      assert.deepStrictEqual(ids(r.papers), ["1409.0473", "1406.2661", "1409.3215", "cmp-lg/9404001"])
      assert.deepStrictEqual(r.missing, ["1501.99999", "1706.03762"])
      const bahdanau = r.papers[0]!
      assert.deepStrictEqual(bahdanau.authors, ["Dzmitry Bahdanau", "Kyunghyun Cho", "Yoshua Bengio"])
      assert.strictEqual(bahdanau.published, "2014-09-01")
      assert.strictEqual(bahdanau.updated, "2016-05-19")
      assert.deepStrictEqual(bahdanau.categories, ["cs.CL", "cs.LG", "cs.NE", "stat.ML"])
      assert.strictEqual(bahdanau.comment, "Accepted at ICLR 2015 as oral presentation")
      assert.deepStrictEqual(yield* arxiv.getPapers([]), { papers: [], missing: [] })
    }))

  it.effect("rejects what the live adapter rejects, with InvalidArgument", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const arg = (e: unknown) => (e as { _tag: string; argument: string })
      const cases: Array<[ArxivSearch, string]> = [
        [req("gan", { categories: ["cs LG"] }), "category"],
        [req("gan", { maxResults: 0 }), "max_results"],
        [req("gan", { maxResults: 2001 }), "max_results"],
        [req("gan", { since: "2017-13-01" }), "since"],
        [req("gan", { since: "last year" }), "since"],
        [req("gan", { start: -1 }), "start"],
        [req("   "), "query"]
      ]
      for (const [request, argument] of cases) {
        const e = arg(failure(yield* Effect.exit(arxiv.search(request))))
        assert.strictEqual(e._tag, "InvalidArgument")
        assert.strictEqual(e.argument, argument)
      }
      const bad = arg(failure(yield* Effect.exit(arxiv.getPapers(["1409.0473", "not-an-id"]))))
      assert.strictEqual(bad._tag, "InvalidArgument")
    }))
})

describe("CorpusArxiv data location", () => {
  const tinyCorpus = () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "offline-data-"))
    const header = "id\tpublished\tupdated\tcategories\tdoi\tjournalRef\tcomment\tauthors\ttitle\tabstract"
    const rows = [
      "1409.0473\t2014-09-01\t2016-05-19\tcs.CL stat.ML\t\t\t\tDzmitry Bahdanau; Yoshua Bengio\tNeural Machine Translation by Jointly Learning to Align and Translate\tAttention for translation.",
      "1406.2661\t2014-06-10\t\tcs.LG stat.ML\t\t\t\tIan J. Goodfellow\tGenerative Adversarial Networks\tTwo networks play a game."
    ]
    fs.writeFileSync(nodePath.join(dir, "arxiv-corpus.tsv.gz"), gzipSync([header, ...rows].join("\n") + "\n"))
    fs.writeFileSync(nodePath.join(dir, "manifest.json"), "{}\n")
    return dir
  }
  const port = (options: CorpusArxiv.CorpusArxivOptions = {}) =>
    Layer.build(CorpusArxiv.layer(options).pipe(Layer.provide(NodeContext.layer))).pipe(Effect.map(Context.get(ArxivPort)))

  it.scoped("dataDir points at another copy of the data", () =>
    Effect.gen(function*() {
      const arxiv = yield* port({ dataDir: tinyCorpus() })
      const r = yield* arxiv.search(req("attention"))
      assert.deepStrictEqual(ids(r.papers), ["1409.0473"])
      assert.strictEqual(r.total, 1)
    }))

  it.scoped("ARXIV_COMPANION_OFFLINE_DATA does the same through configuration", () =>
    Effect.gen(function*() {
      const dir = tinyCorpus()
      const arxiv = yield* port().pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["ARXIV_COMPANION_OFFLINE_DATA", dir]])))
      )
      const r = yield* arxiv.search(req("ti:adversarial")).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["ARXIV_COMPANION_OFFLINE_DATA", dir]])))
      )
      assert.deepStrictEqual(ids(r.papers), ["1406.2661"])
      const viaLayerConfig = yield* Layer.build(CorpusArxiv.layerConfig().pipe(Layer.provide(NodeContext.layer))).pipe(
        Effect.map(Context.get(ArxivPort)),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["ARXIV_COMPANION_OFFLINE_DATA", dir]])))
      )
      assert.strictEqual((yield* viaLayerConfig.search(req("game"))).total, 1)
    }))

  it.scoped("a directory without the data is UpstreamUnavailable that says what to set", () =>
    Effect.gen(function*() {
      const arxiv = yield* port({ dataDir: nodePath.join(os.tmpdir(), "no-such-offline-data") })
      const e = failure(yield* Effect.exit(arxiv.search(req("gan")))) as { _tag: string; message: string }
      assert.strictEqual(e._tag, "UpstreamUnavailable")
      assert.include(e.message, "ARXIV_COMPANION_OFFLINE_DATA")
    }))
})
