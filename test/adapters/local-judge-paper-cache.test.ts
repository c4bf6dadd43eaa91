/**
 * The local judge keeps each paper's tokens, text vector and salient stems for the next note that judges it, up to
 * PAPER_CACHE_SIZE papers (`keptPapers`). Its answers must be the same as a fresh judge's and as the scoring rule's
 * with nothing kept, whether a paper was kept, never seen or dropped: real abstracts of the recorded corpus, the demo
 * vault's notes, the fixed and the learned relevance, the default size and one small enough to drop papers.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { gunzipSync } from "node:zlib"
import { arxivDfTable } from "../../src/adapters/judge/dfTable.js"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import { defaultParams, prepareConcept, scorePaper } from "../../src/adapters/judge/score.js"
import { arxivTermVectors } from "../../src/adapters/judge/termVectors.js"
import { extractKeywords, plainText } from "../../src/core/keywords.js"
import type { Concept } from "../../src/core/ports/LlmJudgePort.js"

const file = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const conceptOf = (title: string, markdown: string): Concept => ({
  title,
  text: plainText(markdown),
  keywords: extractKeywords(markdown, title).map((k) => k.term)
})
const notes = [
  "Generative Adversarial Networks.md",
  "Transformers Concept Note.md",
  "Papers/Word Embeddings.md"
].map((path) => conceptOf(path.replace(/^.*\//, "").replace(/\.md$/, ""), readFileSync(file(`../../examples/vault/${path}`), "utf8")))

// every 12th record of the recorded arXiv corpus (CC0 abstracts): 2,400 papers
const records = gunzipSync(readFileSync(file("../../fixtures/offline/arxiv-corpus.tsv.gz"))).toString("utf8").split("\n")
const header = records[0]!.split("\t")
const [id, title, abstract] = ["id", "title", "abstract"].map((c) => header.indexOf(c))
const papers = records.slice(1).filter((l, i) => l !== "" && i % 12 === 0).slice(0, 2400).map((l) => {
  const c = l.split("\t")
  return { arxivId: c[id!]!, title: c[title!]!, abstract: c[abstract!]! }
})

describe("the local judge's per-paper preparation, kept across notes", { timeout: 120_000 }, () => {
  for (const [ranker, keptPapers] of [[null, 1000], [LocalJudge.arxivRanker(), undefined]] as const) {
    const named = `${ranker === null ? "fixed" : "learned"} relevance, ${keptPapers ?? LocalJudge.PAPER_CACHE_SIZE} papers kept`
    it.effect(`answers as a fresh judge and as the rule with nothing kept (${named})`, () =>
      Effect.gen(function*() {
        assert.isAbove(papers.length, 1000)
        const kept = LocalJudge.makeWith({ ranker, keptPapers })
        const table = arxivDfTable()
        const vectors = arxivTermVectors()
        // each note judges papers the one before judged (kept), papers new to the judge, and, with 1,000 kept, papers
        // dropped from what it keeps; the first note is judged again at the end
        const slices = [[0, 1500], [1000, 2400], [0, papers.length], [0, 1500]] as const
        for (const [n, [from, to]] of slices.entries()) {
          const concept = notes[n % notes.length]!
          const batch = papers.slice(from, to)
          const answers = yield* kept.judge(concept, batch)
          assert.deepStrictEqual(answers, yield* LocalJudge.makeWith({ ranker }).judge(concept, batch))
          const prepared = prepareConcept(concept, table, defaultParams, vectors)
          answers.forEach((j, i) => {
            const s = scorePaper(prepared, batch[i]!, table, defaultParams, vectors, ranker)
            assert.strictEqual(j.relevance, s.relevance, j.arxivId)
            assert.strictEqual(j.novelty, s.novelty, j.arxivId)
            assert.strictEqual(j.rationale, LocalJudge.rationale(s), j.arxivId)
          })
        }
      }))
  }
})
