/**
 * The companion workflow (runCompanion) end to end over small in-test port
 * implementations serving real recorded data (test/fixtures, see its README),
 * with "today" pinned by the TestClock.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, TestClock } from "effect"
import * as ArxivTermStats from "../../src/adapters/judge/ArxivTermStats.js"
import { absUrl } from "../../src/core/arxiv.js"
import { findBlock } from "../../src/core/compose.js"
import { NotEnoughInformation, NoteNotFound } from "../../src/core/errors.js"
import { CompanionOptions, Impact, type ImpactSource, Judgement, NoteRef, Paper } from "../../src/core/models.js"
import { ArxivPort, type ArxivSearch } from "../../src/core/ports/ArxivPort.js"
import { LlmJudgePort, type Shortlist } from "../../src/core/ports/LlmJudgePort.js"
import { type CitedPaper, OpenAlexPort } from "../../src/core/ports/OpenAlexPort.js"
import { VaultPort } from "../../src/core/ports/VaultPort.js"
import { ageInYears, IN_THE_PLACES } from "../../src/core/rules.js"
import { UNRECORDED_STEP } from "../../src/core/readingOrder.js"
import { runCompanion } from "../../src/core/workflow.js"
import { summarizeReport } from "../../src/tools/companion.js"
import { landmark, landmarks, openalexImpacts, openalexSource, openalexWorks, s2Impacts, s2Source } from "./fixtures.js"
import { queryText } from "../../src/core/arxiv.js"

// ---------------------------------------------------------------------------
// In-test ports: each records every call it receives
// ---------------------------------------------------------------------------

/** A search as the stand-in saw it, its query rendered as arXiv would receive it. */
interface SentSearch extends Omit<ArxivSearch, "query"> {
  readonly query: string
}

interface Calls {
  readonly search: Array<SentSearch>
  readonly getPapers: Array<ReadonlyArray<string>>
  readonly impacts: Array<ReadonlyArray<string>>
  readonly works: Array<ReadonlyArray<string>>
  readonly cited: Array<ReadonlyArray<string>>
  readonly judge: Array<ReadonlyArray<string>>
  /** a judge's shortlist ranking */
  readonly rank: Array<ReadonlyArray<string>>
  readonly vault: Array<string>
  readonly writes: Array<readonly [string, string]>
}

const newCalls = (): Calls => ({ search: [], getPapers: [], impacts: [], works: [], cited: [], judge: [], rank: [], vault: [], writes: [] })

/** Terms of an `all:` keyword query, lower-cased. */
const queryTerms = (query: string): ReadonlyArray<string> =>
  [...query.matchAll(/all:(?:"([^"]+)"|(\S+))/g)].map((m) => (m[1] ?? m[2]!).toLowerCase())

/** Surnames of the `au:` clauses of a title and author query, lower-cased. */
const authorTerms = (query: string): ReadonlyArray<string> =>
  [...query.matchAll(/au:(?:"([^"]+)"|([^\s)"]+))/g)].map((m) => (m[1] ?? m[2]!).toLowerCase())

/** Terms of the `ti:` clauses of a query, lower-cased. */
const titleTerms = (query: string): ReadonlyArray<string> =>
  [...query.matchAll(/ti:(?:"([^"]+)"|([^\s)"]+))/g)].map((m) => (m[1] ?? m[2]!).toLowerCase())

/**
 * arXiv over the recorded landmark papers: a paper matches when its title or
 * abstract holds any `all:` term and, for a title or author query (a `ti:` /
 * `au:` group ANDed with the concept query), its title any `ti:` term of the
 * group or an author's name any `au:` surname, and it is in any requested
 * category; in a concept query `ti:` terms are ORed with the rest (a paper
 * titled by one matches too). Ranked by how many terms it holds, then id.
 * `unseen` more papers match in arXiv than were recorded (counted in the
 * total, never returned).
 */
const arxivLayer = (calls: Calls, unseen = 0) =>
  Layer.succeed(ArxivPort, {
    search: (request) =>
      Effect.sync(() => {
        const query = queryText(request.query)
        calls.search.push({ ...request, query })
        const terms = queryTerms(query)
        const grouped = /^\((?:ti|au):/.test(query)
        const group = grouped ? query.slice(0, query.indexOf(") AND (")) : ""
        const inTitle = titleTerms(group)
        const byAuthor = authorTerms(group)
        const boost = grouped ? [] : titleTerms(query)
        const hits = landmarks
          .filter((p) =>
            inTitle.length + byAuthor.length === 0 || inTitle.some((t) => p.title.toLowerCase().includes(t)) ||
            byAuthor.some((a) => p.authors.some((name) => name.toLowerCase().split(/[^a-z]+/).includes(a)))
          )
          .filter((p) => request.categories.length === 0 || p.categories.some((c) => request.categories.includes(c)))
          .filter((p) => request.since === undefined || p.published >= request.since)
          .map((p) => ({
            p,
            n: terms.filter((t) => `${p.title} ${p.abstract}`.toLowerCase().includes(t)).length +
              boost.filter((t) => p.title.toLowerCase().includes(t)).length
          }))
          .filter((h) => h.n > 0)
          .sort((a, b) => b.n - a.n || a.p.arxivId.localeCompare(b.p.arxivId))
          .map((h) => h.p)
        return { papers: hits.slice(0, request.maxResults), total: hits.length + unseen, start: 0 }
      }),
    getPapers: (ids) =>
      Effect.sync(() => {
        calls.getPapers.push(ids)
        const papers = landmarks.filter((p) => ids.includes(p.arxivId))
        return { papers, missing: ids.filter((id) => !papers.some((p) => p.arxivId === id)) }
      })
  })

/** Citation data from one recorded source; reference lists resolve against the recorded OpenAlex works. */
const openalexLayer = (
  calls: Calls,
  impacts: ReadonlyArray<Impact>,
  source: ImpactSource,
  asOf?: string,
  cited: ReadonlyArray<CitedPaper> = []
) =>
  Layer.succeed(OpenAlexPort, {
    worksByArxivIds: (ids) =>
      Effect.sync(() => {
        calls.impacts.push(ids)
        const found = impacts.filter((i) => ids.includes(i.arxivId))
        return {
          impacts: found,
          missing: ids.filter((id) => !found.some((i) => i.arxivId === id)),
          source,
          ...(asOf === undefined ? {} : { asOf })
        }
      }),
    worksByIds: (ids) =>
      Effect.sync(() => {
        calls.works.push(ids)
        const works = openalexWorks.filter((w) => ids.includes(w.openalexId))
        return { works, missing: ids.filter((id) => !works.some((w) => w.openalexId === id)) }
      }),
    mostCitedArxivWorks: (search) =>
      Effect.sync(() => {
        calls.cited.push(search.phrases)
        return { papers: cited, query: search.phrases.join(" OR ") }
      })
  })

/** A judge with fixed relevance per paper (0.1 for any other), one judgement per paper in order. */
const judgeLayer = (calls: Calls, relevance: Readonly<Record<string, number>>) =>
  Layer.succeed(LlmJudgePort, {
    name: "fixed-test-judge",
    judge: (_concept, papers) =>
      Effect.sync(() => {
        calls.judge.push(papers.map((p) => p.arxivId))
        return papers.map((p) =>
          new Judgement({
            arxivId: p.arxivId,
            relevance: relevance[p.arxivId] ?? 0.1,
            novelty: 0.5,
            rationale: `fixed relevance for ${p.arxivId}`
          })
        )
      })
  })

/** A vault of Markdown files in a Map (path → content). */
const vaultLayer = (calls: Calls, files: Map<string, string>) =>
  Layer.succeed(VaultPort, {
    name: "in-test vault",
    listNotes: () =>
      Effect.sync(() => {
        calls.vault.push("listNotes")
        return [...files.keys()].map((path) => new NoteRef({ title: path.replace(/^.*\//, "").replace(/\.md$/, ""), path }))
      }),
    readNote: (path) =>
      Effect.suspend(() => {
        calls.vault.push(`readNote ${path}`)
        const text = files.get(path)
        return text === undefined ? Effect.fail(new NoteNotFound({ title: path, closest: [] })) : Effect.succeed(text)
      }),
    readNoteIfExists: (path) =>
      Effect.sync(() => {
        calls.vault.push(`readNoteIfExists ${path}`)
        return Option.fromNullable(files.get(path))
      }),
    writeNote: (path, content) =>
      Effect.sync(() => {
        calls.vault.push(`writeNote ${path}`)
        calls.writes.push([path, content])
        files.set(path, content)
      })
  })

// ---------------------------------------------------------------------------
// The vault and the scenario
// ---------------------------------------------------------------------------

const CONCEPT_PATH = "Concepts/Neural Machine Translation.md"
const CONCEPT = `---
tags: [concept, nlp]
---
# Neural Machine Translation

**Neural machine translation** trains one neural network to translate a source sentence into a
target sentence. An **encoder** reads the source sentence and a **decoder** generates the translation.

## Encoder-decoder models
- Recurrent encoder-decoder models compress the source sentence into a fixed-length vector.
- **Attention** lets the decoder look back at every source word while it translates.
- Rare words are split into subword units so the vocabulary stays small.

## Word representations
- Words enter the network as learned vector representations (word embeddings).
- Good word representations capture similar words and phrases.
`
const QUICK_IDEA = "# Quick idea\n\nTODO\n"
const OUTPUT_PATH = "Concepts/Neural Machine Translation — Related Papers.md"

const newVault = (): Map<string, string> =>
  new Map([
    [CONCEPT_PATH, CONCEPT],
    ["Quick Idea.md", QUICK_IDEA],
    ["Reading List.md", "# Reading List\n\n- [[Neural Machine Translation]]\n"],
    ["Papers/Generative Adversarial Networks.md", "# GANs\n\nA generator and a discriminator play a minimax game.\n"]
  ])

/** Relevance the fixed judge gives each recorded candidate. */
const RELEVANCE = {
  "1409.0473": 0.95, // Bahdanau et al.
  "1609.08144": 0.9, // GNMT
  "1409.3215": 0.8, // seq2seq
  "1508.07909": 0.7, // subword units
  "1310.4546": 0.6, // word2vec phrases
  "1301.3781": 0.3 // word2vec
}

const TODAY = Date.parse("2026-11-29T12:00:00Z")
const PROMPT = `Find papers related to my "Neural Machine Translation" note`

const setup = (
  impacts: ReadonlyArray<Impact> = openalexImpacts,
  source: ImpactSource = openalexSource,
  asOf?: string,
  cited: ReadonlyArray<CitedPaper> = [],
  shortlist?: (calls: Calls) => Shortlist,
  unseen = 0
) => {
  const calls = newCalls()
  const files = newVault()
  const judge = judgeLayer(calls, RELEVANCE)
  const layer = Layer.mergeAll(
    arxivLayer(calls, unseen),
    openalexLayer(calls, impacts, source, asOf, cited),
    shortlist === undefined
      ? judge
      : Layer.effect(LlmJudgePort, Effect.map(LlmJudgePort, (j) => ({ ...j, shortlist: shortlist(calls) }))).pipe(Layer.provide(judge)),
    vaultLayer(calls, files),
    ArxivTermStats.layer
  )
  const run = (prompt: string, options?: CompanionOptions) => runCompanion(prompt, options).pipe(Effect.provide(layer))
  return { calls, files, run }
}

const totalPortCalls = (c: Calls): number =>
  c.search.length + c.getPapers.length + c.impacts.length + c.works.length + c.cited.length + c.judge.length + c.vault.length

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

describe("runCompanion", () => {
  it.effect("halts with the exact message, touching no port, when the prompt names no note", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, files, run } = setup()
      const before = new Map(files)
      const error = yield* Effect.flip(run("What's a transformer?"))
      assert.instanceOf(error, NotEnoughInformation)
      assert.strictEqual(error.message, "Not enough information: no Obsidian note or page was named in the prompt.")
      assert.deepStrictEqual(calls.vault, [])
      assert.strictEqual(totalPortCalls(calls), 0)
      assert.deepStrictEqual(files, before)
    }))

  it.effect("fails with NoteNotFound naming the closest titles when the vault has no such note", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, run } = setup()
      const error = yield* Effect.flip(run(`Find papers related to my "Neural Machine Translations" note`))
      assert.instanceOf(error, NoteNotFound)
      if (!(error instanceof NoteNotFound)) return
      assert.strictEqual(error.title, "Neural Machine Translations")
      assert.strictEqual(error.closest[0], "Neural Machine Translation")
      assert.include(error.message, `Closest titles: "Neural Machine Translation"`)
      assert.deepStrictEqual(calls.vault, ["listNotes"])
      assert.strictEqual(calls.search.length, 0)
    }))

  it.effect("halts on a note that is not text (NUL bytes, or mostly bytes UTF-8 could not decode), before any arXiv call", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      for (const content of [`${CONCEPT}\u0000\u0001PK`, `\uFFFD\uFFFDx\uFFFD`.repeat(20)]) {
        const { calls, files, run } = setup()
        files.set(CONCEPT_PATH, content)
        const error = yield* Effect.flip(run(PROMPT))
        assert.instanceOf(error, NotEnoughInformation)
        assert.include(error.message, `(${CONCEPT_PATH}) is not text`)
        assert.include(error.message, "save this one as UTF-8 text")
        assert.strictEqual(calls.search.length + calls.judge.length + calls.writes.length, 0)
        assert.strictEqual(files.get(CONCEPT_PATH), content)
      }
      // a few undecodable bytes in a real note are not a reason to refuse it
      const { files, run } = setup()
      files.set(CONCEPT_PATH, `${CONCEPT}\n- a pasted symbol that did not survive: \uFFFD\uFFFD\n`)
      const report = yield* run(PROMPT)
      assert.isAbove(report.candidates.length, 0)
    }))

  it.effect("halts on a near-empty note after reading it, before any arXiv call", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, files, run } = setup()
      const error = yield* Effect.flip(run("Find papers for my 'Quick Idea'"))
      assert.instanceOf(error, NotEnoughInformation)
      assert.match(error.message, /^Not enough information: the note "Quick Idea" yields [01] keywords?\b/)
      assert.include(error.message, "at least 2 are needed")
      assert.deepStrictEqual(calls.vault, ["listNotes", "readNote Quick Idea.md"])
      assert.strictEqual(calls.search.length + calls.getPapers.length, 0)
      assert.strictEqual(calls.impacts.length + calls.works.length + calls.judge.length, 0)
      assert.strictEqual(files.get("Quick Idea.md"), QUICK_IDEA)
      assert.strictEqual(calls.writes.length, 0)
    }))

  it.effect("runs end to end: one search for a pool, one impact call for the relevant candidates, one works call for all survivors' references", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, files, run } = setup()
      const report = yield* run(PROMPT)

      // the note and what was taken from it
      assert.strictEqual(report.note.path, CONCEPT_PATH)
      assert.include(report.keywords, "neural machine translation")
      assert.strictEqual(calls.search.length, 1)
      // every machine-learning category by default, and a pool larger than what is kept
      assert.deepStrictEqual(calls.search[0]!.categories, ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"])
      assert.strictEqual(calls.search[0]!.maxResults, 1000)
      assert.include(
        report.query,
        `(${calls.search[0]!.query}) AND (cat:cs.LG OR cat:cs.AI OR cat:cs.CL OR cat:cs.CV OR cat:cs.NE OR cat:cs.IR OR cat:stat.ML)`
      )

      // every candidate is judged and in the report; impact asked once, for the relevant ones only
      const candidateIds = report.candidates.map((c) => c.paper.arxivId)
      assert.sameMembers(candidateIds, ["1301.3781", "1310.4546", "1406.2661", "1409.0473", "1409.3215", "1508.07909", "1609.08144"])
      assert.strictEqual(calls.judge.length, 1)
      assert.sameMembers([...calls.judge[0]!], candidateIds)
      assert.strictEqual(calls.impacts.length, 1)
      assert.sameMembers([...calls.impacts[0]!], ["1310.4546", "1409.0473", "1409.3215", "1508.07909", "1609.08144"])
      const word2vec = report.candidates.find((c) => c.paper.arxivId === "1301.3781")!
      assert.strictEqual(word2vec.impact.status, "not-assessed")
      assert.isFalse(word2vec.decision.kept)

      // survivors: relevant AND impact known and passing, by relevance
      assert.deepStrictEqual(report.survivors, ["1609.08144", "1310.4546"])
      const gnmt = report.candidates.find((c) => c.paper.arxivId === "1609.08144")!
      assert.strictEqual(gnmt.impact.status, "known")
      assert.strictEqual(gnmt.impact.citationCount, 5625)
      assert.strictEqual(gnmt.impact.asOf, "2025-11-17")
      assert.closeTo(gnmt.impact.ageYears, ageInYears("2016-09-26", "2025-11-17"), 1e-12)
      assert.isTrue(gnmt.decision.kept)

      // no impact record: not kept, not a crash, not a silent drop: each told the source asked and its place, and,
      // relevant, it takes one of the ten places (a missing count is not a low one), listed right after the kept papers
      for (const id of ["1409.0473", "1409.3215", "1508.07909"]) {
        const c = report.candidates.find((s) => s.paper.arxivId === id)!
        assert.strictEqual(c.impact.status, "unknown", id)
        assert.isFalse(c.impact.pass, id)
        assert.isFalse(c.decision.kept, id)
        assert.strictEqual(c.decision.kind, "impact-not-recorded", id)
        assert.include(c.decision.reasons, `impact not recorded (no citation count in ${openalexSource.name}, recorded ${openalexSource.recordedOn})`, id)
      }
      assert.deepStrictEqual(report.unrecordedAmongKept, ["1409.0473", "1409.3215", "1508.07909"])
      assert.deepStrictEqual(report.unrecordedInPlaces, ["1409.0473", "1409.3215", "1508.07909"])
      assert.deepStrictEqual(report.candidates.find((c) => c.paper.arxivId === "1409.0473")!.decision.rank, 2)
      assert.isTrue(report.candidates.find((c) => c.paper.arxivId === "1409.0473")!.decision.reasons.some((r) => r.includes(IN_THE_PLACES)))
      assert.deepStrictEqual(report.counts, {
        candidates: 7,
        relevant: 5,
        clearedBothBars: 2,
        kept: 2,
        cutByCap: 0,
        impactNotRecorded: 3,
        unrecordedInPlaces: 3,
        dropped: 2
      })
      const note = files.get(OUTPUT_PATH)!
      const unrecorded = note.indexOf("## Relevant, impact not recorded")
      assert.isAbove(unrecorded, note.indexOf("### 2. "))
      assert.isBelow(unrecorded, note.indexOf("## Dropped candidates"))
      assert.include(note, "2 kept (relevance ≥ 0.50, ≥ 5 citations/year unless younger than 1 y); 3 relevant without a recorded citation count, 3 of them in the 10 places.")
      assert.include(note, "3 of them take places among the 10 (a missing count is not read as a low one).")

      // foundations: one batched works call with every survivor's recorded references
      const refsOf = (id: string) => openalexImpacts.find((i) => i.arxivId === id)!.referencedWorks!
      const allRefs = [...new Set([...refsOf("1609.08144"), ...refsOf("1310.4546")])]
      assert.strictEqual(calls.works.length, 1)
      assert.sameMembers([...calls.works[0]!], allRefs)
      // a paper that takes a place is looked up as a kept one is: no reference list recorded for these three
      assert.deepStrictEqual(report.foundations.map((f) => f.arxivId), ["1609.08144", "1310.4546", ...report.unrecordedInPlaces])
      for (const id of report.unrecordedInPlaces) assert.strictEqual(report.foundations.find((f) => f.arxivId === id)!.status, "not-recorded", id)
      // and each has its summary, by the same summariser as the kept, and its step in the reading order, marked
      assert.deepStrictEqual(report.summaries.map((x) => x.arxivId), [...report.survivors, ...report.unrecordedInPlaces])
      const steps = report.readingOrder.filter((x) => x.kind === "paper")
      assert.sameMembers(steps.map((x) => x.id), [...report.survivors, ...report.unrecordedInPlaces])
      for (const step of steps) {
        assert.strictEqual(step.why.includes(UNRECORDED_STEP), report.unrecordedInPlaces.includes(step.id), step.id)
      }
      for (const id of report.unrecordedInPlaces) {
        const summary = report.summaries.find((x) => x.arxivId === id)!
        assert.strictEqual(summary.source, "abstract")
        assert.isAbove(summary.text.length, 0)
        // in the note, under the paper's line in its section
        const section = note.slice(unrecorded, note.indexOf("## Dropped candidates"))
        const line = section.split("\n").findIndex((l) => l.includes(`(${absUrl(id)})`))
        assert.isTrue(section.split("\n")[line + 1]!.startsWith("  - Summary (sentences of the abstract): "), id)
      }
      assert.include(note, "_No reference list is recorded for any of the 3 papers that take places, so what they build on is not shown._")
      for (const f of report.foundations.filter((x) => report.survivors.includes(x.arxivId))) {
        // none of these references is among the recorded works: reported, never invented
        assert.strictEqual(f.status, "found")
        assert.deepStrictEqual(f.citations, [])
        assert.sameMembers([...f.unresolved], [...refsOf(f.arxivId)])
      }

      // calls per port, as the report counts them and as the ports saw them
      assert.deepStrictEqual(report.calls, {
        arxiv: calls.search.length + calls.getPapers.length,
        openalex: calls.impacts.length + calls.works.length + calls.cited.length,
        judge: calls.judge.length,
        vault: calls.vault.length
      })
      // openalex: the most-cited search, the impact batch, the works batch
      assert.deepStrictEqual(report.calls, { arxiv: 1, openalex: 3, judge: 1, vault: 4 })

      // written beside the source note; the source note untouched
      assert.deepStrictEqual(report.written, { path: OUTPUT_PATH, status: "created" })
      assert.deepStrictEqual(calls.writes.map(([path]) => path), [OUTPUT_PATH])
      assert.strictEqual(files.get(CONCEPT_PATH), CONCEPT)
      const written = files.get(OUTPUT_PATH)!
      assert.include(written, "[[Neural Machine Translation]]")
      assert.include(written, `(${absUrl("1609.08144")})`)
      // the irrelevant candidate is dropped for its relevance; its impact was never asked for
      const word2vecRow = written.split("\n").find((l) => l.includes(absUrl("1301.3781")))!
      assert.include(word2vecRow, "relevance 0.30 < 0.50")
      assert.include(word2vecRow, "not looked up")
      assert.include(written, `impact_source: "OpenAlex, recorded 2025-11-17 (2 papers)"`)
      assert.include(written, "unresolved references: W1968594024")
      assert.isFalse(findBlock(written)!.editedByUser)
      assert.strictEqual(report.generatedAt, "2026-11-29T12:00:00Z")
    }))

  it.effect("a rerun with the same data leaves the note byte-identical and writes nothing", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, files, run } = setup()
      const first = yield* run(PROMPT)
      assert.strictEqual(first.written.status, "created")
      const snapshot = new Map(files)
      const writes = calls.writes.length

      // a day later: ages come from the recording date, so nothing the note says changes
      yield* TestClock.adjust("1 day")
      const second = yield* run(PROMPT)
      assert.deepStrictEqual(second.written, { path: OUTPUT_PATH, status: "unchanged" })
      assert.deepStrictEqual(files, snapshot)
      assert.strictEqual(calls.writes.length, writes)
      assert.deepStrictEqual(second.calls, { arxiv: 1, openalex: 3, judge: 1, vault: 3 })
      assert.deepStrictEqual(second.survivors, first.survivors)
    }))

  it.effect("keeps the user's text when the result changes, and never writes the source note", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, files, run } = setup()
      yield* run(PROMPT)
      files.set(OUTPUT_PATH, `${files.get(OUTPUT_PATH)!}\n## My notes\nRead GNMT first.\n`)
      // the user's concept note grows: new keywords, a new query, an updated result
      const grown = `${CONCEPT}\n## Beam search\n- Beam search decoding keeps the best partial translations.\n- Beam search width trades speed for quality.\n`
      files.set(CONCEPT_PATH, grown)
      const report = yield* run(PROMPT)
      assert.strictEqual(report.written.status, "updated")
      assert.isTrue(files.get(OUTPUT_PATH)!.endsWith("\n## My notes\nRead GNMT first.\n"))
      assert.strictEqual(files.get(CONCEPT_PATH), grown)
      assert.isFalse(calls.writes.some(([path]) => path === CONCEPT_PATH))
    }))

  it.effect("writes a dated sibling instead of overwriting a block the user edited", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, files, run } = setup()
      yield* run(PROMPT)
      const edited = files.get(OUTPUT_PATH)!.replace("fixed relevance for 1609.08144", "my own summary of GNMT")
      files.set(OUTPUT_PATH, edited)
      const report = yield* run(PROMPT)
      assert.deepStrictEqual(report.written, {
        path: "Concepts/Neural Machine Translation — Related Papers (2026-11-29).md",
        status: "kept-user-edits",
        notice: `You edited the generated block of "${OUTPUT_PATH}", so your version was kept; the new results were written to ` +
          `"Concepts/Neural Machine Translation — Related Papers (2026-11-29).md".`
      })
      assert.strictEqual(files.get(OUTPUT_PATH), edited)
      assert.strictEqual(files.get(CONCEPT_PATH), CONCEPT)
      assert.isFalse(calls.writes.some(([path]) => path === CONCEPT_PATH))
    }))

  it.effect("with recorded Semantic Scholar counts: age as of the recording date, no works call without references", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, files, run } = setup(s2Impacts, s2Source)
      const report = yield* run(PROMPT)
      assert.deepStrictEqual(report.survivors, ["1409.0473", "1609.08144", "1409.3215", "1508.07909"])
      const bahdanau = report.candidates.find((c) => c.paper.arxivId === "1409.0473")!
      assert.strictEqual(bahdanau.impact.asOf, "2024-02-15")
      assert.strictEqual(bahdanau.impact.citationCount, 24423)
      assert.closeTo(bahdanau.impact.ageYears, ageInYears("2014-09-01", "2024-02-15"), 1e-12)
      // word2vec phrases has no S2 row: unknown and dropped despite its relevance
      const phrases = report.candidates.find((c) => c.paper.arxivId === "1310.4546")!
      assert.strictEqual(phrases.impact.status, "unknown")
      assert.isFalse(phrases.decision.kept)
      assert.strictEqual(calls.impacts.length, 1)
      assert.strictEqual(calls.works.length, 0)
      assert.isTrue(report.foundations.every((f) => f.status === "not-recorded"))
      assert.strictEqual(report.calls.openalex, 2) // the most-cited search and the impact batch
      const written = files.get(OUTPUT_PATH)!
      assert.include(written, "Semantic Scholar (zzappa/topAIpapers), recorded 2024-02-15")
      // said once for the kept papers, not under each, and once for the one that takes a place (word2vec phrases)
      assert.deepStrictEqual(report.unrecordedInPlaces, ["1310.4546"])
      assert.strictEqual(written.split("No reference list is recorded for").length - 1, 2)
      assert.include(written, "_No reference list is recorded for the paper that takes a place, so what it builds on is not shown._")
      assert.notInclude(written, "no reference list recorded for this paper")
    }))

  it.effect("recorded data without a count: a new paper is kept as exempt, an old relevant one gets its own section", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      // GNMT's count left out: it is 0.5 y old as of the day the recorded data was taken (2017-04-06)
      const { files, run } = setup(s2Impacts.filter((i) => i.arxivId !== "1609.08144"), s2Source, "2017-04-06")
      const report = yield* run(PROMPT)
      const gnmt = report.candidates.find((c) => c.paper.arxivId === "1609.08144")!
      assert.strictEqual(gnmt.impact.status, "unknown")
      assert.strictEqual(gnmt.impact.asOf, "2017-04-06")
      assert.closeTo(gnmt.impact.ageYears, ageInYears("2016-09-26", "2017-04-06"), 1e-12)
      assert.isTrue(gnmt.impact.exempt)
      assert.isTrue(gnmt.decision.kept)
      assert.include(report.survivors, "1609.08144")
      // papers with a count are still aged as of their count's recording date
      assert.strictEqual(report.candidates.find((c) => c.paper.arxivId === "1409.0473")!.impact.asOf, "2024-02-15")
      // word2vec phrases (2013, relevance 0.6) has no count and is not new: not kept, listed as relevant
      const phrases = report.candidates.find((c) => c.paper.arxivId === "1310.4546")!
      assert.isFalse(phrases.decision.kept)
      const written = files.get(OUTPUT_PATH)!
      const section = written.slice(written.indexOf("## Relevant, impact not recorded"), written.indexOf("## Dropped candidates"))
      assert.include(section, "(https://arxiv.org/abs/1310.4546)")
      assert.notInclude(section, "1301.3781") // word2vec: no count either, but judged irrelevant (0.3)
      assert.include(written.slice(written.indexOf("## Dropped candidates")), "1301.3781")
      assert.include(written, "- Impact: no citation count recorded; new paper (0.5 y old as of 2017-04-06): exempt")
      assert.include(written, "> Papers without a recorded count are aged as of 2017-04-06")
    }))

  it.effect("merges the most-cited channel with the arXiv search: each paper once, labelled with the channels that found it", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const s2 = (id: string) => s2Impacts.find((i) => i.arxivId === id)!
      // the most-cited channel finds Bahdanau (as version 2: the same paper) and GAN, which the search
      // (in cs.CL only; GAN is stat.ML and cs.LG) does not; as from live OpenAlex, GAN comes without
      // categories (a work whose categories say it is outside cs.CL would be left out)
      const cited: ReadonlyArray<CitedPaper> = [
        { paper: new Paper({ ...landmark("1409.0473"), arxivId: "1409.0473v2" }), impact: new Impact({ ...s2("1409.0473"), arxivId: "1409.0473v2" }) },
        { paper: new Paper({ ...landmark("1406.2661"), categories: [] }), impact: s2("1406.2661") }
      ]
      const { calls, files, run } = setup(openalexImpacts, openalexSource, undefined, cited)
      const report = yield* run(PROMPT, new CompanionOptions({ categories: ["cs.CL"] }))
      assert.strictEqual(calls.cited.length, 1)
      assert.deepStrictEqual(calls.cited[0], report.keywords.slice(0, 4)) // the note names no title
      assert.strictEqual(report.citedQuery, report.keywords.slice(0, 4).join(" OR "))
      const ids = report.candidates.map((c) => c.paper.arxivId)
      assert.strictEqual(ids.filter((id) => id === "1409.0473").length, 1)
      assert.notInclude(ids, "1409.0473v2")
      assert.include(ids, "1406.2661")
      const of = (id: string) => report.candidates.find((c) => c.paper.arxivId === id)!
      assert.deepStrictEqual(of("1409.0473").foundBy, ["arxiv-search", "most-cited"])
      assert.deepStrictEqual(of("1406.2661").foundBy, ["most-cited"])
      assert.deepStrictEqual(of("1609.08144").foundBy, ["arxiv-search"])
      // the counts the channel ranked by are used, not asked for again
      assert.notInclude(calls.impacts[0]!, "1409.0473")
      assert.notInclude(calls.impacts[0]!, "1406.2661")
      assert.strictEqual(of("1409.0473").impact.citationCount, 24423)
      assert.include(report.survivors, "1409.0473")
      // both channels' papers were judged, in one call
      assert.strictEqual(calls.judge.length, 1)
      assert.includeMembers([...calls.judge[0]!], ["1409.0473", "1406.2661"])
      const written = files.get(OUTPUT_PATH)!
      assert.include(written, `> Most-cited search: \`${report.citedQuery}\``)
      // its entry under "Kept papers" (the reading order above links it too)
      const bahdanau = written.slice(written.indexOf("](https://arxiv.org/abs/1409.0473)\n"))
      assert.include(bahdanau.slice(0, bahdanau.indexOf("\n###")), "- Found by: arXiv search · most cited on the note's phrases")
    }))

  it.effect("asks arXiv a second time, for titles naming the note's central concepts or the terms its best papers share, when the pool did not take every match", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, files, run } = setup()
      const report = yield* run(PROMPT, new CompanionOptions({ poolSize: 3, maxResults: 3, since: "2014-01-01" }))
      // the concept query's pool takes 3 of the 7 papers that match it: a second request is worth its cost
      assert.strictEqual(calls.search.length, 2)
      assert.strictEqual(report.calls.arxiv, 2)
      const [first, second] = calls.search
      // the words of the two best keywords ("neural machine translation", "encoder-decoder models") that are
      // informative in arXiv text: not "neural" nor "machine" (each in more than 10 % of abstracts), nor the
      // generic "models"
      assert.deepStrictEqual(report.keywords.slice(0, 2), ["neural machine translation", "encoder-decoder models"])
      // widened by pseudo-relevance feedback: the terms that at least two of the first request's papers (all
      // three titled by "translation") use and no keyword says, informative in arXiv text ("NMT", "WMT",
      // "phrase-based"; not "neural machine translation", a keyword, nor "translation", a word of one)
      assert.strictEqual(
        second!.query,
        `((ti:translation OR ti:"encoder-decoder") AND (${first!.query})) OR all:"phrase-based" OR all:nmt OR all:wmt`
      )
      // the same categories and dates, a pool of its own no larger than the first's
      assert.deepStrictEqual(second!.categories, first!.categories)
      assert.strictEqual(second!.since, "2014-01-01")
      assert.strictEqual(second!.maxResults, 3)
      assert.strictEqual(report.titleQuery, `(${second!.query}) AND (${first!.categories.map((c) => `cat:${c}`).join(" OR ")}) AND submittedDate:[201401010000 TO 999912312359]`)
      // merged with the first search, each paper once, labelled with every channel that found it: the
      // three titled by translation were found by both, in the first search's order
      assert.deepStrictEqual(
        report.candidates.map((c) => [c.paper.arxivId, c.foundBy]),
        [
          ["1409.0473", ["arxiv-search", "arxiv-title"]],
          ["1609.08144", ["arxiv-search", "arxiv-title"]],
          ["1508.07909", ["arxiv-search", "arxiv-title"]]
        ]
      )
      assert.include(files.get(OUTPUT_PATH)!, `> Title search: \`${second!.query}\``)
      // the report and the note name the related terms, so a reader sees why the title search asked for them
      assert.deepStrictEqual(report.relatedTerms, ["phrase-based", "nmt", "wmt"])
      assert.include(
        files.get(OUTPUT_PATH)!,
        "> Related terms from the first search's best papers, searched beside your keywords: phrase-based, nmt, wmt"
      )
    }))

  it.effect("asks the second request for the authors the note cites, in places of their own, the title words boosting the first", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      // arXiv matches 1,000 papers more than were recorded: the pool of 100 cannot take every match
      const { calls, files, run } = setup(openalexImpacts, openalexSource, undefined, [], undefined, 1000)
      files.set(CONCEPT_PATH, `${CONCEPT}- word vectors (Mikolov et al.), Google's production system\n`)
      const report = yield* run(PROMPT, new CompanionOptions({ poolSize: 100 }))
      // two arXiv requests, as without authors
      assert.strictEqual(calls.search.length, 2)
      assert.strictEqual(report.calls.arxiv, 2)
      const [first, second] = calls.search
      // "Mikolov et al." is an author; "Google's production system" is not a citation
      assert.deepStrictEqual(report.citedAuthors.map((a) => [a.surname, a.cue, a.text]), [["Mikolov", "et-al", "Mikolov et al"]])
      // the second request asks for the author alone (title matches would outrank an author's paper and take
      // its places), ANDed with the concept query; the words of the central concepts boost the first instead
      assert.isTrue(second!.query.startsWith("(au:Mikolov) AND ("))
      const concept = second!.query.slice("(au:Mikolov) AND (".length, -1)
      assert.notInclude(concept, "ti:")
      assert.strictEqual(first!.query, `${concept} OR ti:translation OR ti:"encoder-decoder"`)
      // 5 places for the one author, never more than the pool
      assert.strictEqual(second!.maxResults, 5)
      // what an author the note cites wrote is labelled so; a paper titled by the note's central words comes
      // from the concept search
      const of = (id: string) => report.candidates.find((c) => c.paper.arxivId === id)!
      assert.deepStrictEqual(of("1301.3781").foundBy, ["arxiv-search", "arxiv-author"])
      assert.deepStrictEqual(of("1310.4546").foundBy, ["arxiv-search", "arxiv-author"])
      assert.deepStrictEqual(of("1409.0473").foundBy, ["arxiv-search"])
      const written = files.get(OUTPUT_PATH)!
      assert.include(written, `> Author search: \`${second!.query}\``)
      assert.include(written, "> Authors your note cites, searched for: Mikolov\n")
      // the author search is not widened: no related terms
      assert.isUndefined(report.relatedTerms)
      assert.notInclude(written, "> Related terms")
      // run_companion's result says every search and the authors, as the note cites them
      const summary = summarizeReport(report)
      assert.strictEqual(summary.query, report.query)
      assert.strictEqual(summary.second_query, report.titleQuery)
      assert.include(summary.second_query, `(${second!.query})`)
      assert.strictEqual(summary.cited_query, report.citedQuery)
      assert.deepStrictEqual(summary.cited_authors, [{ surname: "Mikolov", cited_as: "Mikolov et al" }])

      // when the concept query's pool takes every match, the authors cannot add a paper: one request
      const alone = setup()
      alone.files.set(CONCEPT_PATH, `${CONCEPT}- word vectors (Mikolov et al.)\n`)
      const all = yield* alone.run(PROMPT, new CompanionOptions({ poolSize: 100 }))
      assert.strictEqual(alone.calls.search.length, 1)
      assert.isUndefined(all.titleQuery)
      assert.deepStrictEqual(all.citedAuthors.map((a) => a.surname), ["Mikolov"])
      assert.notInclude(alone.files.get(OUTPUT_PATH)!, "Authors your note cites")
      // a search that was not run is absent from run_companion's result, not empty
      const onlyFirst = summarizeReport(all)
      assert.notProperty(onlyFirst, "second_query")
      assert.deepStrictEqual(onlyFirst.cited_authors, [{ surname: "Mikolov", cited_as: "Mikolov et al" }])
      assert.strictEqual("cited_query" in onlyFirst, all.citedQuery !== undefined)
    }))

  it.effect("a --since date holds for the most-cited channel too", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const s2 = (id: string) => s2Impacts.find((i) => i.arxivId === id)!
      const cited = [{ paper: landmark("1406.2661"), impact: s2("1406.2661") }, { paper: landmark("1701.06538"), impact: s2("1701.06538") }]
      const { run } = setup(openalexImpacts, openalexSource, undefined, cited)
      const report = yield* run(PROMPT, new CompanionOptions({ since: "2015-01-01" }))
      const ids = report.candidates.map((c) => c.paper.arxivId)
      assert.notInclude(ids, "1406.2661") // first version 2014-06-10
      assert.include(ids, "1701.06538")
    }))

  it.effect("the categories hold for the most-cited channel too, unless a work's categories are unknown", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const s2 = (id: string) => s2Impacts.find((i) => i.arxivId === id)!
      const gan = landmark("1406.2661")
      const unknown = new Paper({ ...landmark("1701.06538"), categories: [] })
      const cited = [{ paper: gan, impact: s2("1406.2661") }, { paper: unknown, impact: s2("1701.06538") }]
      const { run } = setup(openalexImpacts, openalexSource, undefined, cited)
      const onlyVision = yield* run(PROMPT, new CompanionOptions({ categories: ["cs.CV"] }))
      const ids = onlyVision.candidates.map((c) => c.paper.arxivId)
      assert.notInclude(gan.categories, "cs.CV")
      assert.notInclude(ids, "1406.2661")
      assert.include(ids, "1701.06538") // OpenAlex gave no categories: nothing says it is outside cs.CV
      const withGan = yield* run(PROMPT, new CompanionOptions({ categories: [gan.categories[0]!] }))
      assert.include(withGan.candidates.map((c) => c.paper.arxivId), "1406.2661")
    }))

  it.effect("papers the note names are listed as already in it, never recommended, and seed \"builds on\"", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, files, run } = setup()
      files.set(
        CONCEPT_PATH,
        `${CONCEPT}\n## Read so far\n- https://arxiv.org/abs/1409.0473v1 (the alignment paper)\n` +
          `- GNMT, doi:10.48550/arXiv.1609.08144\n- "Sequence to Sequence Learning with Neural Networks"\n`
      )
      const report = yield* run(PROMPT)
      assert.deepStrictEqual(report.alreadyInNote.map((n) => [n.arxivId, n.mention]), [
        ["1409.0473", "arxiv-url"],
        ["1609.08144", "doi"],
        ["1409.3215", "title"]
      ])
      assert.strictEqual(report.alreadyInNote[2]!.title, "Sequence to Sequence Learning with Neural Networks")
      // the title the note names is searched for by the most-cited channel too (one more place in its limit)
      assert.include(calls.cited[0]!, "Sequence to Sequence Learning with Neural Networks")
      const ids = report.candidates.map((c) => c.paper.arxivId)
      for (const id of ["1409.0473", "1609.08144", "1409.3215"]) {
        assert.notInclude(ids, id)
        assert.notInclude(report.survivors, id)
      }
      // the named papers' impacts come in the same batch, and GNMT's recorded references seed "builds on"
      assert.strictEqual(calls.impacts.length, 1)
      assert.includeMembers([...calls.impacts[0]!], ["1409.0473", "1609.08144", "1409.3215"])
      const gnmt = report.foundations.find((f) => f.arxivId === "1609.08144")!
      assert.strictEqual(gnmt.status, "found")
      assert.sameMembers([...calls.works[0]!], [...new Set([
        ...openalexImpacts.find((i) => i.arxivId === "1609.08144")!.referencedWorks!,
        ...report.survivors.flatMap((id) => openalexImpacts.find((i) => i.arxivId === id)?.referencedWorks ?? [])
      ])])
      const written = files.get(OUTPUT_PATH)!
      const section = written.slice(written.indexOf("## Already in your note"))
      assert.include(section, "- [Neural Machine Translation by Jointly Learning to Align and Translate](https://arxiv.org/abs/1409.0473) — named as arXiv link")
      assert.include(section, "named as arXiv DOI: 10.48550/arXiv.1609.08144")
      assert.include(section, "named as title: Sequence to Sequence Learning with Neural Networks")
      assert.include(section, "  - unresolved references: W1968594024")
      assert.isBelow(written.indexOf("## Kept papers"), written.indexOf("## Already in your note"))
    }))

  it.effect("writes an honest empty result when the search finds nothing, without calling the judge or OpenAlex", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, files, run } = setup()
      files.set(
        "Lattice QCD.md",
        "# Lattice QCD\n\nLattice QCD discretises quantum chromodynamics on a spacetime lattice.\nLattice QCD predicts hadron spectra from quarks and gluons.\n"
      )
      const report = yield* run("Find papers for [[Lattice QCD]]")
      assert.strictEqual(calls.search.length, 1)
      assert.deepStrictEqual(report.candidates, [])
      assert.deepStrictEqual(report.survivors, [])
      assert.strictEqual(calls.impacts.length + calls.works.length + calls.judge.length, 0)
      assert.deepStrictEqual(report.written, { path: "Lattice QCD — Related Papers.md", status: "created" })
      assert.include(files.get("Lattice QCD — Related Papers.md")!, "_No candidate cleared both bars._")
    }))
})

describe("the candidate pool", () => {
  it.effect("an explicit category list wins over the default, and the pool size is what arXiv is asked for", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, run } = setup()
      yield* run(PROMPT, new CompanionOptions({ categories: ["cs.CL"], poolSize: 40 }))
      assert.deepStrictEqual(calls.search[0]!.categories, ["cs.CL"])
      assert.strictEqual(calls.search[0]!.maxResults, 40)
    }))

  it.effect("keeps at most maxResults papers, all judged from the whole pool", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const { calls, run } = setup()
      const report = yield* run(PROMPT, new CompanionOptions({ maxResults: 1 }))
      // two papers clear both bars (GNMT and word2vec phrases): the best one is kept
      assert.deepStrictEqual(report.survivors, ["1609.08144"])
      assert.strictEqual(calls.search[0]!.maxResults, 1000)
      assert.strictEqual(report.candidates.length, calls.judge[0]!.length)
      assert.isAbove(report.candidates.length, 1)
      // the other is cut by the cap: its own decision, not "kept", and the note lists it with its rank
      const phrases = report.candidates.find((c) => c.paper.arxivId === "1310.4546")!
      // the three relevant papers without a count compete for the place too, and come before it in keep order
      assert.deepStrictEqual([phrases.decision.kind, phrases.decision.kept, phrases.decision.rank], ["cut-by-cap", false, 5])
      assert.include(phrases.decision.reasons, "cut by the cap: 5th of 5 in keep order (2 that cleared both bars, 3 relevant without a recorded citation count); only the first is kept")
      assert.deepStrictEqual(report.cutByCap, ["1310.4546"])
      assert.deepStrictEqual([report.counts.kept, report.counts.cutByCap, report.counts.clearedBothBars], [1, 1, 2])
      assert.strictEqual(report.candidates.filter((c) => c.decision.kept).length, report.survivors.length)
      // the note says how many were judged and shows the most relevant ones
      const written = [...calls.writes].pop()![1]
      assert.include(written, `${report.candidates.length} candidates judged`)
      assert.include(written, "1 kept of the 2 that cleared both bars")
      assert.include(written, "; 1 cut by the cap of 1")
      const cut = written.slice(written.indexOf("## Cut by the cap"))
      assert.include(cut, "- 5th of 5 · [")
      assert.include(cut, "(https://arxiv.org/abs/1310.4546)")
    }))

  it.effect("a judge that names an orderNovelty orders the places by relevance − weight · (novelty − ½); what is relevant does not move", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const calls = newCalls()
      // word2vec phrases (0.6) is all about the note's subject (novelty 0); every other paper mostly about other things (1)
      const judge = Layer.effect(
        LlmJudgePort,
        Effect.map(LlmJudgePort, (j) => ({
          ...j,
          orderNovelty: 0.5,
          judge: (concept: Parameters<typeof j.judge>[0], papers: Parameters<typeof j.judge>[1]) =>
            Effect.map(j.judge(concept, papers), (js) => js.map((x) => new Judgement({ ...x, novelty: x.arxivId === "1310.4546" ? 0 : 1 })))
        }))
      ).pipe(Layer.provide(judgeLayer(calls, RELEVANCE)))
      const layer = Layer.mergeAll(arxivLayer(calls, 0), openalexLayer(calls, openalexImpacts, openalexSource, undefined, []), judge, vaultLayer(calls, newVault()), ArxivTermStats.layer)
      const report = yield* runCompanion(PROMPT, new CompanionOptions({ maxResults: 1 })).pipe(Effect.provide(layer))
      // keys: phrases 0.6 + 0.25 = 0.85, Bahdanau 0.95 − 0.25 = 0.70, GNMT 0.9 − 0.25 = 0.65: phrases takes the place
      assert.deepStrictEqual(report.survivors, ["1310.4546"])
      assert.deepStrictEqual(report.cutByCap, ["1609.08144"])
      // the same judge without the weight keeps GNMT, with the same counts
      const plain = yield* setup().run(PROMPT, new CompanionOptions({ maxResults: 1 }))
      assert.deepStrictEqual(plain.survivors, ["1609.08144"])
      assert.deepStrictEqual(report.counts, plain.counts)
    }))

  it.effect("a judge's concept gate: a relevant paper that does not name the note's concept is held back unless cited ≥ 20 a year", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const calls = newCalls()
      // the judge flags seq2seq, subword units and word2vec phrases as not naming the note's concept (the local
      // judge's gate does so by default); the keep rule reads their counts
      const flagged = new Set(["1409.3215", "1508.07909", "1310.4546"])
      const judge = Layer.effect(
        LlmJudgePort,
        Effect.map(LlmJudgePort, (j) => ({
          ...j,
          judge: (concept: Parameters<typeof j.judge>[0], papers: Parameters<typeof j.judge>[1]) =>
            Effect.map(j.judge(concept, papers), (js) =>
              js.map((x) => flagged.has(x.arxivId) ? new Judgement({ ...x, conceptGate: { match: 0.1, gate: 0.3, spareCitationsPerYear: 20 } }) : x))
        }))
      ).pipe(Layer.provide(judgeLayer(calls, RELEVANCE)))
      // recorded 2024-02-15: seq2seq ≈ 212 a year, subword units ≈ 9.5 a year (above the impact bar of 5, not the
      // spare), word2vec phrases without a count
      const counts: Record<string, number> = { "1409.0473": 5000, "1609.08144": 500, "1409.3215": 2000, "1508.07909": 80 }
      const impacts = Object.entries(counts).map(([arxivId, citationCount]) => new Impact({ arxivId, citationCount, source: s2Source }))
      const files = newVault()
      const layer = Layer.mergeAll(arxivLayer(calls, 0), openalexLayer(calls, impacts, s2Source, "2024-02-15", []), judge, vaultLayer(calls, files), ArxivTermStats.layer)
      const report = yield* runCompanion(PROMPT).pipe(Effect.provide(layer))
      const decision = (id: string) => report.candidates.find((c) => c.paper.arxivId === id)!.decision
      // spared by its citations: kept, and told why
      assert.isTrue(decision("1409.3215").kept)
      assert.include(decision("1409.3215").reasons.join("\n"), "does not name the note's concept (concept match 0.10 < 0.30), kept in the running by its")
      // cited too little to be spared: held back, as not relevant, with the reason the user reads
      assert.strictEqual(decision("1508.07909").kind, "dropped")
      assert.include(decision("1508.07909").reasons, "held back: it does not name the note's concept (concept match 0.10 < 0.30), and only 20 citations/year would spare it (9.5 citations/year < 20)")
      // no count: held back too, not listed among the relevant papers without a count
      assert.strictEqual(decision("1310.4546").kind, "dropped")
      assert.deepStrictEqual(report.survivors, ["1409.0473", "1609.08144", "1409.3215"])
      assert.strictEqual(report.counts.relevant, 3)
      const written = files.get(OUTPUT_PATH)!
      assert.include(written, "held back: it does not name the note's concept")
      const unrecorded = written.indexOf("## Relevant, impact not recorded")
      assert.isTrue(unrecorded === -1 || !written.slice(unrecorded, written.indexOf("## Dropped candidates")).includes("1310.4546"))
      // the same run without the flags keeps subword units and lists word2vec phrases as relevant without a count
      const plain = yield* runCompanion(PROMPT).pipe(
        Effect.provide(Layer.mergeAll(arxivLayer(calls, 0), openalexLayer(calls, impacts, s2Source, "2024-02-15", []), judgeLayer(calls, RELEVANCE), vaultLayer(calls, newVault()), ArxivTermStats.layer))
      )
      assert.deepStrictEqual(plain.survivors, ["1409.0473", "1609.08144", "1409.3215", "1508.07909"])
      assert.strictEqual(plain.counts.relevant, 5)
    }))

  it.effect("a judge with a shortlist sees only the best of the pool by its cheap ranking, never fewer than are kept", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(TODAY)
      const ranked = (size: number) => (calls: Calls): Shortlist => ({
        size,
        rank: (_concept, papers) =>
          Effect.sync(() => {
            calls.rank.push(papers.map((p) => p.arxivId))
            return papers.map((p) => RELEVANCE[p.arxivId as keyof typeof RELEVANCE] ?? 0)
          })
      })
      const three = setup(openalexImpacts, openalexSource, undefined, [], ranked(3))
      const report = yield* three.run(PROMPT, new CompanionOptions({ maxResults: 2 }))
      assert.sameMembers([...three.calls.judge[0]!], ["1409.0473", "1609.08144", "1409.3215"])
      assert.sameMembers(report.candidates.map((c) => c.paper.arxivId), ["1409.0473", "1609.08144", "1409.3215"])
      // ranked once, over the whole pool
      assert.strictEqual(three.calls.rank.length, 1)
      assert.isAbove(three.calls.rank[0]!.length, 3)

      const one = setup(openalexImpacts, openalexSource, undefined, [], ranked(1))
      yield* one.run(PROMPT, new CompanionOptions({ maxResults: 2 }))
      assert.sameMembers([...one.calls.judge[0]!], ["1409.0473", "1609.08144"])
    }))
})

describe("runCompanion never writes onto the concept note", () => {
  // a VaultPort may name a note differently from its file (an MCP server, a custom port): the
  // Related Papers path can then differ from the note's own path only in case or Unicode form,
  // which macOS and Windows take for the same file
  for (
    const [title, path] of [
      ["Neural Machine Translation", "neural machine translation — related papers.md"],
      ["Résumé", "Re\u0301sume\u0301 — Related Papers.md"]
    ] as const
  ) {
    it.effect(`refuses "${title}" kept in "${path}"`, () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(TODAY)
        const calls = newCalls()
        const files = new Map([[path, CONCEPT]])
        const vault = vaultLayer(calls, files).pipe(
          Layer.map((ctx) => {
            const service = Context.get(ctx, VaultPort)
            return Context.make(VaultPort, { ...service, listNotes: () => Effect.succeed([new NoteRef({ title, path })]) })
          })
        )
        const layer = Layer.mergeAll(
          arxivLayer(calls),
          openalexLayer(calls, openalexImpacts, openalexSource),
          judgeLayer(calls, RELEVANCE),
          vault,
          ArxivTermStats.layer
        )
        const error = yield* runCompanion(`Find papers related to [[${title}]]`).pipe(Effect.provide(layer), Effect.flip)
        assert.strictEqual(error._tag, "UnsafeWrite")
        assert.include(error.message, "it is the concept note itself")
        assert.deepStrictEqual(calls.writes, [])
        assert.strictEqual(files.get(path), CONCEPT)
      }))
  }
})

/** The recorded papers this file relies on are really in the fixture. */
describe("workflow fixtures", () => {
  it("holds the recorded papers and reference lists the scenarios use", () => {
    const ids = new Set(landmarks.map((p: Paper) => p.arxivId))
    for (const id of Object.keys(RELEVANCE)) assert.isTrue(ids.has(id), id)
    assert.sameMembers(openalexImpacts.map((i) => i.arxivId), ["1310.4546", "1609.08144", "1806.03537"])
    assert.strictEqual(openalexImpacts.find((i) => i.arxivId === "1609.08144")!.referencedWorks!.length, 4)
  })
})
