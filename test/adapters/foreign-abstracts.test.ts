/**
 * A record whose recorded abstract is another paper's is not judged on it
 * (src/adapters/corpus/foreignAbstracts.ts, fixtures/PROVENANCE.md): over
 * the whole shipped corpus no record serves an abstract that speaks of
 * another record's title and not of its own, and 1505.05561 — recorded with
 * the Normalization Propagation abstract of 1603.01431 — is served with its
 * title only.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { stemmer } from "stemmer"
import { gunzipSync, gzipSync } from "node:zlib"
import * as os from "node:os"
import * as CorpusArxiv from "../../src/adapters/arxiv/CorpusArxiv.js"
import { corpusRecords, FOREIGN_KEY } from "../../src/adapters/arxiv/mirror/corpusMirror.js"
import { MirrorIndex } from "../../src/adapters/arxiv/mirror/MirrorIndex.js"
import { ArxivPort } from "../../src/core/ports/ArxivPort.js"
import { typedQuery } from "../support/query.js"

const OFFLINE = fileURLToPath(new URL("../../fixtures/offline/", import.meta.url))
const HEADER = "id\tpublished\tupdated\tcategories\tdoi\tjournalRef\tcomment\tauthors\ttitle\tabstract"

// the test's own reading of "speaks of a title", kept apart from the adapter's code
const STOP = new Set(
  "the and for with from into over under using via based towards toward what why how when which that this are can does its our their".split(" ")
)
const OTHER_LANGUAGE = /\b(?:le|la|les|des|du|et|pour|une|dans|sur|avec|vers|und|fur|mit|zur|mittels|para|por|una|della|nel)\b/
const stems = (s: string): Array<string> => (s.toLowerCase().replace(/\\[a-z]+/g, " ").match(/[a-z0-9]+/g) ?? []).map(stemmer)
const titleStems = (title: string): Array<string> => [
  ...new Set(
    (title.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => w.length >= 3 && !/^\d+$/.test(w) && !STOP.has(w)).map(stemmer)
  )
]
const told = (title: ReadonlyArray<string>, abstract: ReadonlySet<string>): number =>
  title.length === 0 ? 0 : title.filter((w) => abstract.has(w)).length / title.length

/** Sentences of twelve words or more, as lower-case words: two abstracts that share one share text. */
const longSentences = (abstract: string): Array<string> =>
  abstract.split(/(?<=[.!?])\s+/).map((s) => (s.toLowerCase().match(/[a-z0-9]+/g) ?? []).join(" ")).filter((s) => s.split(" ").length >= 12)

/**
 * Pairs of records that share a long sentence of their abstracts, where one record's abstract speaks of the
 * other's title (≥ 80 % of its words) and hardly of its own (≤ 25 %): the record serves another paper's abstract.
 */
const servedForeign = (papers: ReadonlyArray<{ readonly arxivId: string; readonly title: string; readonly abstract: string }>) => {
  const bySentence = new Map<string, Array<number>>()
  papers.forEach((p, d) => {
    for (const s of new Set(longSentences(p.abstract))) {
      const list = bySentence.get(s)
      if (list === undefined) bySentence.set(s, [d])
      else list.push(d)
    }
  })
  const pairs = new Set<string>()
  for (const docs of bySentence.values()) {
    if (docs.length < 2 || docs.length > 20) continue
    for (const a of docs) for (const b of docs) if (a !== b) pairs.add(`${a} ${b}`)
  }
  const out: Array<string> = []
  for (const pair of pairs) {
    const [record, other] = pair.split(" ").map(Number) as [number, number]
    const r = papers[record]!
    const o = papers[other]!
    const own = titleStems(r.title)
    const theirs = titleStems(o.title)
    if (own.join(" ") === theirs.join(" ") || own.length === 0 || OTHER_LANGUAGE.test(r.title.toLowerCase())) continue
    const abstract = new Set(stems(r.abstract))
    if (told(own, abstract) <= 0.25 && told(theirs, abstract) >= 0.8) out.push(`${r.arxivId} serves the abstract of ${o.arxivId}`)
  }
  return out.sort()
}

describe("records whose abstract is another paper's", () => {
  it("over the whole shipped corpus, no record serves an abstract that speaks of another record's title and not of its own", () => {
    // the records the build writes into the corpus's index (corpusMirror.ts), read from the recorded TSV
    const { records } = corpusRecords(gunzipSync(fs.readFileSync(nodePath.join(OFFLINE, CorpusArxiv.CORPUS_FILE))).toString("utf8"))
    const papers = records.map((r) => ({ arxivId: r.id, title: r.title, abstract: r.abstract }))
    assert.strictEqual(papers.length, 36421)
    assert.deepStrictEqual(servedForeign(papers), [])
    // a scan of 36k abstracts: seconds alone, a minute or more on a loaded 2-CPU machine
  }, 240_000)

  it.effect("1505.05561 is served with its title and no abstract; 1603.01431, the abstract's paper, keeps it", () =>
    Effect.gen(function*() {
      const arxiv = yield* ArxivPort
      const { papers } = yield* arxiv.getPapers(["1505.05561", "1603.01431"])
      const [autoEncoders, normProp] = papers
      assert.strictEqual(autoEncoders?.title, "Why Regularized Auto-Encoders learn Sparse Representation?")
      assert.deepStrictEqual(autoEncoders?.authors, ["Devansh Arpit", "Yingbo Zhou", "Hung Ngo", "Venu Govindaraju"])
      assert.strictEqual(autoEncoders?.abstract, "")
      assert.match(normProp?.abstract ?? "", /that we call Normalization Propagation/)
      // a search on the abstract's words finds the paper it describes, not the record that carried it
      const found = yield* arxiv.search({ query: typedQuery('abs:"normalization propagation"'), categories: [], maxResults: 50 })
      const ids = found.papers.map((p) => p.arxivId)
      assert.include(ids, "1603.01431")
      assert.notInclude(ids, "1505.05561")
      const byTitle = yield* arxiv.search({ query: typedQuery('ti:"regularized auto-encoders"'), categories: [], maxResults: 50 })
      assert.include(byTitle.papers.map((p) => p.arxivId), "1505.05561")
    }).pipe(Effect.provide(CorpusArxiv.layer({ dataDir: OFFLINE })), Effect.provide(NodeContext.layer)))

  it("the index names each record it stores without its abstract, with the record the abstract belongs to", () => {
    const index = MirrorIndex.open(nodePath.join(OFFLINE, CorpusArxiv.CORPUS_INDEX_DIR), { create: false })
    try {
      assert.deepStrictEqual(JSON.parse(index.readMeta(FOREIGN_KEY) ?? "null"), [
        { id: "1301.3850", owner: "1301.6710" },
        { id: "1401.6112", owner: "1311.6740" },
        { id: "1505.05561", owner: "1603.01431" }
      ])
    } finally {
      index.close()
    }
  })

  describe("the rule, on a corpus of a few records", () => {
    const ABSTRACT = "We address the drawbacks of batch normalization by proposing a non-adaptive normalization technique " +
      "for removing internal covariate shift, that we call Normalization Propagation. Our approach does not depend on batch " +
      "statistics, but rather uses a data-independent parametric estimate of mean and standard deviation in every layer, " +
      "thus being computationally faster than batch normalization. We exploit the observation that the pre-activation " +
      "before rectified linear units follows a Gaussian distribution in deep networks."
    const OTHER = "Sparse codes are learned by many auto-encoders without an explicit penalty. We show which regularisation " +
      "of the hidden units makes the representation sparse, and which activation functions allow it, with experiments on " +
      "images and text that agree with the analysis of the encoder's weights and biases."
    const row = (id: string, title: string, abstract: string) => `${id}\t2016-03-04\t\tcs.LG\t\t\t\tA. Author\t${title}\t${abstract}`
    const tsv = (...rows: Array<string>) => [HEADER, ...rows].join("\n") + "\n"
    /** A data directory holding this TSV: the corpus adapter builds its index there on first use. */
    const dataDir = (text: string) => {
      const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "foreign-abstracts-"))
      fs.writeFileSync(nodePath.join(dir, CorpusArxiv.CORPUS_FILE), gzipSync(text))
      fs.writeFileSync(nodePath.join(dir, "manifest.json"), "{}\n")
      return dir
    }
    const search = (dir: string, query: string) =>
      Effect.gen(function*() {
        const arxiv = yield* ArxivPort
        const found = yield* arxiv.search({ query: typedQuery(query), categories: [], maxResults: 10 })
        return found.papers.map((p) => p.arxivId)
      }).pipe(Effect.provide(CorpusArxiv.layer({ dataDir: dir })), Effect.provide(NodeContext.layer))
    const abstracts = (text: string) => corpusRecords(text).records.map((r) => r.abstract)

    it.effect("a record carrying another record's abstract is stored without it, whichever came first", () =>
      Effect.gen(function*() {
        const text = tsv(
          row("1505.00001", "Why Regularized Auto-Encoders learn Sparse Representation?", ABSTRACT),
          row("1603.00002", "Normalization Propagation: A Parametric Technique for Removing Internal Covariate Shift in Deep Networks", ABSTRACT),
          row("1603.00003", "Sparse codes of auto-encoders", OTHER)
        )
        assert.deepStrictEqual(abstracts(text), ["", ABSTRACT, OTHER])
        assert.deepStrictEqual(corpusRecords(text).foreign, [{ id: "1505.00001", owner: "1603.00002" }])
        const dir = dataDir(text)
        assert.deepStrictEqual(yield* search(dir, 'abs:"normalization propagation"'), ["1603.00002"])
        assert.deepStrictEqual(yield* search(dir, "ti:regularized"), ["1505.00001"])
        fs.rmSync(dir, { recursive: true, force: true })
      }))

    it("one work under two titles that its abstract both speaks of, or one title twice, keeps its abstract in both", () => {
      const retitled = abstracts(tsv(
        row("1601.00001", "Normalization Propagation", ABSTRACT),
        row("1603.00002", "Normalization Propagation: A Parametric Technique for Removing Internal Covariate Shift in Deep Networks", ABSTRACT),
        row("1603.00003", "Normalization Propagation: A Parametric Technique for Removing Internal Covariate Shift in Deep Networks", ABSTRACT)
      ))
      assert.deepStrictEqual(retitled, [ABSTRACT, ABSTRACT, ABSTRACT])
    })

    it("a title in another language over its English abstract is a translation, not a mistake", () => {
      const translated = abstracts(tsv(
        row("1603.00001", "Une propagation de la normalisation pour les réseaux profonds", ABSTRACT),
        row("1603.00002", "Normalization Propagation: A Parametric Technique for Removing Internal Covariate Shift in Deep Networks", ABSTRACT)
      ))
      assert.strictEqual(translated[0], ABSTRACT)
    })

    it("a one-line abstract shared by many records (\"This paper has been withdrawn\") is no paper's", () => {
      const withdrawn = "This paper has been withdrawn by the author due to an error in the proof of the main theorem of normalization propagation."
      assert.deepStrictEqual(abstracts(tsv(
        row("1603.00001", "Deep Sparse Coding", withdrawn),
        row("1603.00002", "Normalization Propagation", withdrawn)
      )), [withdrawn, withdrawn])
    })
  })
})
