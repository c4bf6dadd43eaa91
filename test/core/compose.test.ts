import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import * as InMemoryVault from "../../src/adapters/vault/InMemoryVault.js"
import {
  composeBlock,
  composeNote,
  findBlock,
  hash32,
  isSafeVaultPath,
  managedFrontmatter,
  mergeNote,
  relatedNotePath,
  relatedTitle,
  relatedNote,
  type RelatedNoteInput,
  sanitizeTitle
} from "../../src/core/compose.js"
import { writeGenerated } from "../../src/core/writeBack.js"
import { splitFrontmatter } from "../../src/core/keywords.js"
import {
  CompanionOptions,
  FoundationalCitation,
  type Foundations,
  Impact,
  type ImpactAssessment,
  ImpactSource,
  Judgement,
  NoteRef,
  Paper,
  ScoredPaper
} from "../../src/core/models.js"
import { assessImpact, decide, rankFoundational, survivors } from "../../src/core/rules.js"
import { landmark, landmarks, openalexWorks, s2Impacts, s2Source } from "./fixtures.js"

const BEGIN_MARK = "%% arxiv-companion:begin"
const END_MARK = "%% arxiv-companion:end %%"

// ---------------------------------------------------------------------------
// A realistic input built from recorded data
// ---------------------------------------------------------------------------

const options = new CompanionOptions({})
const today = "2026-11-29"
const scoredFromRecords = (arxivId: string, relevance: number): ScoredPaper => {
  const paper = landmark(arxivId)
  const judgement = new Judgement({ arxivId, relevance, novelty: 0.4, rationale: `matched: attention, translation (${arxivId})` })
  const impact = assessImpact(paper.published, s2Impacts.find((i) => i.arxivId === arxivId), today, options)
  return new ScoredPaper({ paper, judgement, impact, decision: decide(judgement, impact, options) })
}
const candidates = [
  scoredFromRecords("1409.0473", 0.9), // kept
  scoredFromRecords("1409.3215", 0.8), // kept
  scoredFromRecords("1310.4546", 0.85), // no S2 record: relevant, impact not recorded
  scoredFromRecords("1512.03385", 0.1) // irrelevant, dropped
]
const kept = survivors(candidates)
const source = new NoteRef({ title: "Transformers Concept Note", path: "Concepts/Transformers Concept Note.md" })
const realInput: RelatedNoteInput = {
  source,
  keywords: ["attention", "neural machine translation", "encoder-decoder"],
  query: `all:attention OR all:"neural machine translation" OR all:encoder-decoder`,
  options,
  judge: "test-judge",
  impactSource: s2Source,
  candidates,
  survivors: kept,
  foundations: [
    {
      arxivId: "1409.0473",
      status: "found",
      citations: rankFoundational(openalexWorks, 3),
      unresolved: ["W9999999999"]
    },
    { arxivId: "1409.3215", status: "not-recorded", citations: [], unresolved: [] }
  ]
}
const NOW = "2026-11-29T12:00:00Z"
/** The frontmatter keys the companion owns. */
const MANAGED_KEYS = new Set(managedFrontmatter(realInput, NOW).map(([k]) => k))

describe("composeNote", () => {
  const note = composeNote(realInput, NOW)
  const fm = splitFrontmatter(note).frontmatter ?? ""

  it("links back to the concept note and says what was taken from it", () => {
    assert.include(note, "[[Transformers Concept Note]]")
    assert.include(note, "Keywords taken from [[Transformers Concept Note]]: attention, neural machine translation, encoder-decoder")
    assert.include(fm, `source: "[[Transformers Concept Note]]"`)
    assert.include(note, "# Transformers Concept Note — Related Papers")
  })

  it("lists each survivor with its arXiv link, authors, date, scores, impact, rationale and foundations", () => {
    const bahdanau = landmark("1409.0473")
    assert.include(note, `### 1. [${bahdanau.title}](https://arxiv.org/abs/1409.0473)`)
    assert.include(note, "- arXiv: [1409.0473](https://arxiv.org/abs/1409.0473) · first version 2014-09-01")
    assert.include(note, `- Authors: ${bahdanau.authors.join(", ")}`)
    assert.include(note, "- Relevance: 0.90 · Novelty: 0.40")
    assert.include(note, "24,423 citations")
    assert.include(note, "(Semantic Scholar (zzappa/topAIpapers), recorded 2024-02-15)")
    assert.include(note, "- Why: matched: attention, translation (1409.0473)")
    assert.include(note, "  - Glove: Global Vectors for Word Representation (2014) — 32,760 citations · OpenAlex W2250539671")
    assert.include(note, "unresolved references: W9999999999")
    assert.include(note, "### 2. [Sequence to Sequence Learning with Neural Networks](https://arxiv.org/abs/1409.3215)")
    // a paper without a recorded reference list says nothing of it; one line under the kept papers names it
    assert.include(note, "_No reference list is recorded for kept paper no. 2, so what it builds on is not shown._")
  })

  it("opens with what the student came for: the kept papers come before any query, which is folded at the end", () => {
    const lines = note.split("\n")
    const body = lines.slice(lines.indexOf("# Transformers Concept Note — Related Papers"))
    const firstPaper = body.findIndex((l) => l.startsWith("### 1. "))
    const opening = body.slice(0, firstPaper)
    assert.isAtMost(opening.filter((l) => l.trim() !== "").length, 3, opening.join("\n"))
    assert.deepStrictEqual(opening.filter((l) => l.startsWith("## ")), ["## Kept papers"])
    assert.include(opening[2], "Papers related to [[Transformers Concept Note]]")
    for (const l of opening) assert.notMatch(l, /query|search:|candidates judged|Keywords taken/i)
    // the callout is the block's last part: its title folds it (`-`), every line of it is quoted
    const callout = lines.indexOf("> [!info]- How these papers were found")
    assert.isAbove(callout, lines.indexOf("## Dropped candidates"))
    const rest = lines.slice(callout, lines.indexOf(END_MARK)).filter((l) => l !== "")
    for (const l of rest) assert.match(l, /^> /)
    assert.include(rest, `> arXiv query: \`${realInput.query}\``)
    // the counts and bars are said in the callout (their wording belongs to the counts, not to the layout)
    assert.isDefined(rest.find((l) => l.startsWith("> 4 candidates judged by test-judge") && l.includes("relevance ≥ 0.50")))
  })

  it("says once which kept papers have no recorded reference list, not under each of them", () => {
    const unrecorded = (arxivId: string): Foundations => ({ arxivId, status: "not-recorded", citations: [], unresolved: [] })
    const none = composeBlock({ ...realInput, foundations: kept.map((k) => unrecorded(k.paper.arxivId)) })
    assert.strictEqual(none.split("reference list").length - 1, 1)
    assert.include(none, "_No reference list is recorded for any of the 2 kept papers, so what they build on is not shown._")
    assert.notInclude(none, "Builds on")
    const all = composeBlock({ ...realInput, foundations: [realInput.foundations[0]!, { ...realInput.foundations[0]!, arxivId: "1409.3215" }] })
    assert.notInclude(all, "reference list")
    assert.strictEqual(all.split("- Builds on:").length - 1, 2)
  })

  it("records the query, thresholds, judge, impact source and time in the frontmatter", () => {
    assert.include(fm, `query: ${JSON.stringify(realInput.query)}`)
    assert.include(fm, "relevance_threshold: 0.5")
    assert.include(fm, "citations_per_year_threshold: 5")
    assert.include(fm, "exempt_years: 1")
    assert.include(fm, `judge: "test-judge"`)
    // one source per paper, each named with its recording date and how many candidates it counted
    assert.include(fm, `impact_source: "Semantic Scholar (zzappa/topAIpapers), recorded 2024-02-15 (3 papers)"`)
    assert.include(fm, "kept: 2")
    assert.include(fm, "candidates: 4")
    assert.include(fm, `updated: ${NOW}`)
  })

  it("lists a relevant candidate without a citation record in its own section, not among the dropped", () => {
    const lines = note.split("\n")
    const heading = lines.indexOf("## Relevant, impact not recorded")
    assert.isAbove(heading, lines.indexOf("## Kept papers"))
    assert.isBelow(heading, lines.indexOf("## Dropped candidates"))
    const row = lines.find((l) => l.includes("1310.4546"))!
    assert.isAbove(lines.indexOf(row), heading)
    assert.isBelow(lines.indexOf(row), lines.indexOf("## Dropped candidates"))
    assert.include(row, `[${landmark("1310.4546").title}](https://arxiv.org/abs/1310.4546)`)
    assert.include(row, "relevance 0.85")
    assert.include(row, "matched: attention, translation (1310.4546)")
    assert.strictEqual(lines.filter((l) => l.includes("1310.4546")).length, 1)
    assert.include(note.split("\n").find((l) => l.includes("1512.03385"))!, "relevance 0.10 < 0.50")
  })

  it("keeps an irrelevant candidate without a citation record in the dropped table as \"impact not recorded\"", () => {
    const unknownIrrelevant = scoredFromRecords("1310.4546", 0.2)
    const text = composeBlock({ ...realInput, candidates: [unknownIrrelevant], survivors: [] })
    assert.notInclude(text, "## Relevant, impact not recorded")
    const row = text.split("\n").find((l) => l.includes("1310.4546"))!
    assert.include(row, "| unknown |")
    assert.include(row, "impact not recorded (no citation count)")
  })

  it("names each paper's own source and date, several sources in one note, and the date uncounted papers are aged at", () => {
    const gs2025 = new ImpactSource({ name: "Google Scholar via Paper Copilot", recordedOn: "2025-06-12" })
    const word2vec = landmark("1310.4546")
    const judgement = new Judgement({ arxivId: "1310.4546", relevance: 0.9, novelty: 0.3, rationale: "word vectors" })
    const impact = assessImpact(word2vec.published, new Impact({ arxivId: "1310.4546", citationCount: 47498, source: gs2025 }), today, options)
    const counted = new ScoredPaper({ paper: word2vec, judgement, impact, decision: decide(judgement, impact, options) })
    // a paper first submitted weeks before the offline corpus was recorded: no count, exempt as new
    const fresh = new Paper({ ...landmark("1409.0473"), arxivId: "1703.00001", published: "2017-03-01" })
    const freshJudgement = new Judgement({ arxivId: "1703.00001", relevance: 0.7, novelty: 0.6, rationale: "fresh" })
    const freshImpact = assessImpact(fresh.published, undefined, "2017-04-06", options)
    const young = new ScoredPaper({ paper: fresh, judgement: freshJudgement, impact: freshImpact, decision: decide(freshJudgement, freshImpact, options) })
    const all = [candidates[0]!, counted, young]
    const text = composeBlock({ ...realInput, impactAsOf: "2017-04-06", candidates: all, survivors: survivors(all) })
    assert.include(
      text,
      "> Citation counts, one source per paper: Semantic Scholar (zzappa/topAIpapers), recorded 2024-02-15 (1 paper); Google Scholar via Paper Copilot, recorded 2025-06-12 (1 paper)."
    )
    assert.include(text, "> Papers without a recorded count are aged as of 2017-04-06; those younger than 1 y pass as new.")
    assert.include(text, "47,498 citations over")
    assert.include(text, "(Google Scholar via Paper Copilot, recorded 2025-06-12)")
    assert.include(text, "- Impact: no citation count recorded; new paper (0.1 y old as of 2017-04-06): exempt")
    assert.strictEqual(survivors(all).length, 3)
  })

  it("gives only the real reasons in \"Why dropped\", never a new paper's exemption", () => {
    const paper = landmark("1701.06538")
    const judgement = new Judgement({ arxivId: paper.arxivId, relevance: 0.2, novelty: 0.5, rationale: "r" })
    // a live count (no recording date) asked four months after the first version
    const live = new Impact({ arxivId: paper.arxivId, citationCount: 3, source: new ImpactSource({ name: "OpenAlex" }) })
    const young = assessImpact(paper.published, live, "2017-06-01", options)
    assert.isTrue(young.exempt)
    const dropped = new ScoredPaper({ paper, judgement, impact: young, decision: decide(judgement, young, options) })
    const block = composeBlock({ ...realInput, candidates: [dropped], survivors: [], foundations: [] })
    const row = block.split("\n").find((l) => l.includes("1701.06538"))!
    assert.isTrue(row.endsWith("| relevance 0.20 < 0.50 |"), row)
  })

  it("says so when no candidate is kept", () => {
    const none = composeBlock({ ...realInput, survivors: [], foundations: [] })
    assert.include(none, "_No candidate cleared both bars._")
  })

  it("is deterministic and carries the hash of its block", () => {
    assert.strictEqual(composeNote(realInput, NOW), note)
    const found = findBlock(note)!
    assert.strictEqual(found.block, composeBlock(realInput))
    assert.include(note, `${BEGIN_MARK} ${hash32(found.block)} %%`)
  })
})

describe("a note whose properties were removed", () => {
  // two concept notes whose titles give one file name: the block's first line still says whose results it holds
  const other = new NoteRef({ title: "Transformers: Concept Note", path: "Concepts/Transformers: Concept Note.md" })
  const stripped = (note: string) => note.replace(/^---\n[\s\S]*?\n---\n/, "")
  const target = "Concepts/Transformers Concept Note — Related Papers.md"

  it.effect("is still known by its first line as another note's results, and left alone", () =>
    Effect.gen(function*() {
      const theirs = stripped(composeNote({ ...realInput, source: other }, NOW))
      assert.match(theirs, /^# Transformers Concept Note — Related Papers\n\nPapers related to \[\[Transformers: Concept Note\]\], /m)
      const vault = yield* InMemoryVault.make({ [target]: theirs })
      const written = yield* writeGenerated(vault, target, relatedNote(realInput), NOW, today, undefined, { source: source.title })
      assert.strictEqual(written.path, "Concepts/Transformers Concept Note — Related Papers (2).md")
      assert.include(written.notice ?? "", "holds the results for another note, [[Transformers: Concept Note]]")
      assert.strictEqual((yield* vault.readNote(target)), theirs)
    }))

  it.effect("written before the first line moved (\"> [!info] Papers related to [[…]]\"), is known the same way", () =>
    Effect.gen(function*() {
      const block = "# Transformers Concept Note — Related Papers\n\n> [!info] Papers related to [[Transformers: Concept Note]]\n> arXiv query: `all:attention`\n"
      const earlier = `%% arxiv-companion:begin ${hash32(block)} %%\n${block}\n${END_MARK}\n`
      const vault = yield* InMemoryVault.make({ [target]: earlier })
      const written = yield* writeGenerated(vault, target, relatedNote(realInput), NOW, today, undefined, { source: source.title })
      assert.strictEqual(written.path, "Concepts/Transformers Concept Note — Related Papers (2).md")
      assert.strictEqual((yield* vault.readNote(target)), earlier)
    }))
})

describe("sanitizeTitle and paths", () => {
  it("makes hostile titles safe file names", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["../../etc/passwd", "etc passwd"],
      ["a/b\\c", "a b c"],
      ["What? *Why*: <A|B> #tag ^block [x]", "What Why A B tag block x"],
      ["..", "Untitled"],
      ["", "Untitled"],
      ["   ", "Untitled"],
      ["///", "Untitled"],
      [".hidden", "hidden"],
      ["trailing dots...", "trailing dots"],
      ["new\nline\ttab\u0000nul", "new line tab nul"],
      // C1 controls: NEL (U+0085) is a line break to the note's heading, so the file name and the heading disagreed
      ["next\u0085line\u009bcsi", "next line csi"],
      ["\u0085", "Untitled"],
      ["Réseaux de neurones", "Réseaux de neurones"]
    ]
    for (const [input, expected] of cases) assert.strictEqual(sanitizeTitle(input), expected, JSON.stringify(input))
    assert.strictEqual([...sanitizeTitle("x".repeat(500))].length, 120)
  })

  it("puts the related note beside the source note", () => {
    assert.strictEqual(relatedNotePath(source), "Concepts/Transformers Concept Note — Related Papers.md")
    assert.strictEqual(
      relatedNotePath(new NoteRef({ title: "Word Embeddings", path: "Word Embeddings.md" })),
      "Word Embeddings — Related Papers.md"
    )
    assert.strictEqual(
      relatedNotePath(new NoteRef({ title: "a/../../b", path: "Deep/x/a.md" })),
      "Deep/x/a .. .. b — Related Papers.md"
    )
    assert.strictEqual(relatedTitle("Transformers"), "Transformers — Related Papers")
  })

  it("refuses a source path that could leave the vault", () => {
    for (const path of ["../outside.md", "/etc/passwd.md", "C:/x.md", "a/../../b.md", "a\\b.md", "a//b.md", "./a.md", ""]) {
      assert.isFalse(isSafeVaultPath(path), path)
      assert.strictEqual(relatedNotePath(new NoteRef({ title: "x", path })), undefined, path)
    }
    for (const path of ["a.md", "Folder/Sub/a b.md", "..a.md", "a..b/c.md"]) assert.isTrue(isSafeVaultPath(path), path)
  })

  it.prop(
    "sanitizeTitle is never empty, has no forbidden characters, no '/' and is never a dot segment",
    [fc.string({ unit: "binary", maxLength: 300 })],
    ([title]) => {
      const s = sanitizeTitle(title)
      assert.isAbove(s.length, 0)
      assert.notMatch(s, /[*"\\/<>:|?#^[\]\u0000-\u001f\u007f]/)
      assert.notStrictEqual(s, ".")
      assert.notStrictEqual(s, "..")
      assert.isFalse(s.startsWith("."))
      assert.strictEqual(s, s.trim())
      assert.isAtMost([...s].length, 120)
      const path = relatedNotePath(new NoteRef({ title, path: "Folder/note.md" }))
      assert.isDefined(path)
      assert.isTrue(isSafeVaultPath(path!))
      assert.isTrue(path!.startsWith("Folder/"))
      assert.strictEqual(path!.split("/").length, 2)
    }
  )
})

describe("papers that cleared both bars beyond the kept ones", () => {
  const section = (note: string) => {
    const lines = note.split("\n")
    const at = lines.indexOf("## Cut by the cap")
    if (at < 0) return undefined
    const end = lines.findIndex((l, i) => i > at && l.startsWith("## "))
    return lines.slice(at, end < 0 ? undefined : end)
  }

  it("are listed after the kept papers, in survivor order, with their impact, never lost", () => {
    // --max-results 1: the best one is kept, the other survivor is listed
    const note = composeNote({ ...realInput, survivors: kept.slice(0, 1) }, NOW)
    const lines = section(note)!
    assert.include(lines[2]!, "One more paper cleared both bars (2 in all); the first is kept above")
    const listed = lines.filter((l) => l.startsWith("- ["))
    assert.strictEqual(listed.length, 1)
    assert.match(listed[0]!, /^- \[Sequence to Sequence Learning with Neural Networks\]\(https:\/\/arxiv\.org\/abs\/1409\.3215\) · first version 2014-09-10 · relevance 0\.80 · [\d.]+ citations\/year$/)
    assert.isAbove(note.indexOf("## Cut by the cap"), note.indexOf("## Kept papers"))
  })

  it("is absent when every paper that cleared both bars is kept", () => {
    assert.isUndefined(section(composeNote(realInput, NOW)))
  })
})

describe("mergeNote", () => {
  const note = composeNote(realInput, NOW)

  it("creates a new note when there is none", () => {
    assert.deepStrictEqual(mergeNote(undefined, realInput, NOW), { _tag: "Create", content: note })
  })

  it("leaves an unchanged result alone, whatever the time", () => {
    assert.deepStrictEqual(mergeNote(note, realInput, "2027-01-01T00:00:00Z"), { _tag: "Unchanged" })
  })

  it("a title with half an emoji (valid JSON from OpenAlex) stays Unchanged after the note is stored as UTF-8", () => {
    const [first, ...rest] = realInput.foundations
    const broken: RelatedNoteInput = {
      ...realInput,
      foundations: [{ ...first!, citations: [new FoundationalCitation({ openalexId: "W1", title: "Attention \ud83d", citedByCount: 9 })] }, ...rest]
    }
    const stored = Buffer.from(composeNote(broken, NOW), "utf8").toString("utf8")
    assert.include(stored, "Attention \uFFFD")
    assert.deepStrictEqual(mergeNote(stored, broken, "2027-01-01T00:00:00Z"), { _tag: "Unchanged" })
  })

  it("keeps the user's own properties and text when it updates", () => {
    const userNote = note
      .replace("\n---\n", "\nmy_rating: 5\naliases: [related]\n---\nMy intro, kept.\n\n")
      .concat("\n## My own notes\nKeep me.\n")
    const changed = { ...realInput, keywords: ["attention"] }
    const merged = mergeNote(userNote, changed, "2027-01-01T00:00:00Z")
    assert.strictEqual(merged._tag, "Update")
    if (merged._tag !== "Update") return
    const fm = splitFrontmatter(merged.content).frontmatter!
    assert.include(fm, "my_rating: 5")
    assert.include(fm, "aliases: [related]")
    assert.include(fm, `keywords: ["attention"]`)
    assert.include(fm, "updated: 2027-01-01T00:00:00Z")
    assert.isTrue(splitFrontmatter(merged.content).body.startsWith("My intro, kept.\n\n%% arxiv-companion:begin"))
    assert.isTrue(merged.content.endsWith("\n## My own notes\nKeep me.\n"))
    assert.strictEqual(findBlock(merged.content)!.block, composeBlock(changed))
  })

  it("takes CRLF line endings (Windows editors, git autocrlf) for what they are, not for a user edit", () => {
    const crlf = note.replace(/\n/g, "\r\n")
    assert.isFalse(findBlock(crlf)!.editedByUser)
    assert.strictEqual(findBlock(crlf)!.block, composeBlock(realInput))
    assert.deepStrictEqual(mergeNote(crlf, realInput, "2027-01-01T00:00:00Z"), { _tag: "Unchanged" })
    const changed = { ...realInput, keywords: ["attention"] }
    const merged = mergeNote(`${crlf}\r\nMy notes.\r\n`, changed, NOW)
    assert.strictEqual(merged._tag, "Update")
    if (merged._tag === "Update") {
      assert.strictEqual(findBlock(merged.content)!.block, composeBlock(changed))
      assert.isTrue(merged.content.endsWith("%% arxiv-companion:end %%\r\n\r\nMy notes.\r\n"))
    }
  })

  it("does not overwrite a block the user edited: it offers a fresh note for a sibling", () => {
    const edited = note.replace("- Why: matched", "- Why (my words): matched")
    assert.isTrue(findBlock(edited)!.editedByUser)
    const merged = mergeNote(edited, realInput, NOW)
    assert.deepStrictEqual(merged, { _tag: "UserEdited", content: note })
  })

  it("appends its block to a same-named note without one, keeping every byte, and is unchanged on the next run", () => {
    for (
      const [existing, userText] of [
        ["# Transformers Concept Note — Related Papers\n\nI started this list by hand.", "# Transformers Concept Note — Related Papers\n\nI started this list by hand."],
        ["---\nmine: 1\ntags: [reading]\n---\nBy hand.\n", "By hand.\n"]
      ] as const
    ) {
      const merged = mergeNote(existing, realInput, NOW)
      assert.strictEqual(merged._tag, "Update")
      if (merged._tag !== "Update") continue
      assert.isTrue(splitFrontmatter(merged.content).body.startsWith(userText))
      assert.strictEqual(findBlock(merged.content)!.block, composeBlock(realInput))
      assert.deepStrictEqual(mergeNote(merged.content, realInput, "2027-01-01T00:00:00Z"), { _tag: "Unchanged" })
    }
    const withProps = mergeNote("---\nmine: 1\ntags: [reading]\n---\nBy hand.\n", realInput, NOW)
    const fm = withProps._tag === "Update" ? splitFrontmatter(withProps.content).frontmatter! : ""
    assert.include(fm, "mine: 1")
    assert.include(fm, "reading")
  })
})

// ---------------------------------------------------------------------------
// Property tests: round trips over arbitrary (hostile) inputs
// ---------------------------------------------------------------------------

/**
 * Text that tries to break the note: line breaks of every kind, markers, table pipes, links, combining
 * marks and joiners, and now and then a long run of characters outside the BMP that crosses every length
 * limit (tags, file names, shortened titles) so a cut by UTF-16 units would split one.
 */
const hostile = fc
  .array(
    fc.oneof(
      fc.string({ unit: "binary", maxLength: 6 }),
      fc.string({ unit: "binary", minLength: 30, maxLength: 140 }),
      fc.constantFrom("\n", "\r\n", "\r", "\u2028", "\u2029", "\u0085", "|", "]]", "[[", "%%", "---", "`", "\"", "\\", "# ", "e\u0301", "\u200d", "\ufeff"),
      // half a surrogate pair: JSON from OpenAlex or a model may carry one ("\ud83d" is valid JSON)
      fc.constantFrom("\ud83d", "\ude00"),
      fc.constantFrom(`\n${END_MARK}\n`, `\n${BEGIN_MARK} 00000000 %%\n`, "\n---\nkept: 0\n")
    ),
    { maxLength: 5 }
  )
  .map((parts) => parts.join(""))

const isoDate = fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2030-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10))

const impactArb: fc.Arbitrary<ImpactAssessment> = fc.oneof(
  fc.record({ ageYears: fc.double({ min: 0, max: 30, noNaN: true }), asOf: isoDate }).map(({ ageYears, asOf }) => ({
    status: "unknown" as const,
    ageYears,
    exempt: false,
    pass: false,
    asOf
  })),
  fc.record({
    citations: fc.nat({ max: 500_000 }),
    ageYears: fc.double({ min: 0, max: 30, noNaN: true }),
    asOf: isoDate,
    name: hostile,
    recordedOn: fc.option(isoDate, { nil: undefined })
  }).map(({ ageYears, asOf, citations, name, recordedOn }) => {
    const perYear = citations / Math.max(ageYears, 1)
    return {
      status: "known" as const,
      citationCount: citations,
      ageYears,
      citationsPerYear: perYear,
      exempt: ageYears < 1,
      pass: ageYears < 1 || perYear >= 5,
      source: new ImpactSource({ name, ...(recordedOn === undefined ? {} : { recordedOn }) }),
      asOf
    }
  })
)

const candidateArb = fc.record({
  base: fc.constantFrom(...landmarks),
  title: hostile,
  authors: fc.array(hostile, { maxLength: 3 }),
  relevance: fc.double({ min: 0, max: 1, noNaN: true }),
  novelty: fc.double({ min: 0, max: 1, noNaN: true }),
  rationale: hostile,
  impact: impactArb
}).map(({ authors, base, impact, novelty, rationale, relevance, title }) => {
  const paper = new Paper({ ...base, title, authors })
  const judgement = new Judgement({ arxivId: paper.arxivId, relevance, novelty, rationale })
  return new ScoredPaper({ paper, judgement, impact, decision: decide(judgement, impact, options) })
})

const citationArb = fc.record({
  openalexId: hostile,
  title: hostile,
  citedByCount: fc.nat({ max: 1_000_000 }),
  publicationYear: fc.option(fc.integer({ min: 1900, max: 2030 }), { nil: undefined })
}).map(({ citedByCount, openalexId, publicationYear, title }) =>
  new FoundationalCitation({ openalexId, title, citedByCount, ...(publicationYear === undefined ? {} : { publicationYear }) })
)

const inputArb: fc.Arbitrary<RelatedNoteInput> = fc.record({
  title: hostile,
  keywords: fc.array(hostile, { maxLength: 6 }),
  query: hostile,
  judge: hostile,
  relevanceThreshold: fc.double({ min: 0, max: 1, noNaN: true }),
  citationsPerYearThreshold: fc.double({ min: 0, max: 100, noNaN: true }),
  exemptYears: fc.double({ min: 0, max: 5, noNaN: true }),
  impactSource: fc.option(
    fc.record({ name: hostile, recordedOn: isoDate }).map((s) => new ImpactSource(s)),
    { nil: undefined }
  ),
  candidates: fc.uniqueArray(candidateArb, { maxLength: 6, selector: (c) => c.paper.arxivId }),
  foundationSeeds: fc.array(
    fc.record({
      status: fc.constantFrom("found" as const, "no-references" as const, "not-recorded" as const),
      citations: fc.array(citationArb, { maxLength: 3 }),
      unresolved: fc.array(hostile, { maxLength: 2 })
    }),
    { maxLength: 6 }
  )
}).map((r): RelatedNoteInput => {
  const opts = new CompanionOptions({
    relevanceThreshold: r.relevanceThreshold,
    citationsPerYearThreshold: r.citationsPerYearThreshold,
    exemptYears: r.exemptYears
  })
  const kept = survivors(r.candidates)
  const foundations: Array<Foundations> = kept.map((s, i) => {
    const seed = r.foundationSeeds[i]
    return seed === undefined
      ? { arxivId: s.paper.arxivId, status: "not-recorded", citations: [], unresolved: [] }
      : { arxivId: s.paper.arxivId, ...seed }
  })
  return {
    source: new NoteRef({ title: r.title, path: "Notes/source.md" }),
    keywords: r.keywords,
    query: r.query,
    options: opts,
    judge: r.judge,
    impactSource: r.impactSource,
    candidates: r.candidates,
    survivors: kept,
    foundations
  }
})

const nowArb = fc.date({ min: new Date("2020-01-01T00:00:00Z"), max: new Date("2035-01-01T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().replace(/\.\d{3}Z$/, "Z"))

/** User text that does not touch the companion's markers; ends a line so the block stays on its own lines. */
const userText = hostile
  .filter((s) => !s.includes("arxiv-companion:"))
  .map((s) => (s.length === 0 || s.endsWith("\n") ? s : `${s}\n`))

describe("note composition round trips", () => {
  it.prop("findBlock(composeNote(x)) is composeBlock(x), not edited by the user", [inputArb, nowArb], ([input, now]) => {
    const found = findBlock(composeNote(input, now))
    assert.isDefined(found)
    assert.strictEqual(found!.block, composeBlock(input))
    assert.isFalse(found!.editedByUser)
  })

  it.prop("mergeNote(composeNote(x), x) is Unchanged, at any later time, after a UTF-8 write and read", [inputArb, nowArb, nowArb], ([input, now, later]) => {
    // the vault stores UTF-8: half a surrogate pair (a cut inside an emoji) comes back as U+FFFD and the note as "changed"
    const stored = Buffer.from(composeNote(input, now), "utf8").toString("utf8")
    assert.deepStrictEqual(mergeNote(stored, input, later), { _tag: "Unchanged" })
  })

  it.prop(
    "an Update keeps the user's own properties, in order, byte for byte",
    [
      inputArb,
      nowArb,
      fc.array(
        fc.tuple(
          fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/).filter((k) => !MANAGED_KEYS.has(k)),
          hostile.map((v) => v.replace(/[\r\n\u2028\u2029\u0085]/g, " "))
        ),
        { maxLength: 4 }
      )
    ],
    ([input, now, props]) => {
      const note = composeNote(input, now)
      const userLines = props.map(([k, v]) => `${k}: ${v}`)
      // after the first managed key, so they sit between the companion's own lines
      const firstBreak = note.indexOf("\n", 4)
      const edited = `${note.slice(0, firstBreak + 1)}${userLines.map((l) => `${l}\n`).join("")}${note.slice(firstBreak + 1)}`
      const merged = mergeNote(edited, { ...input, query: `${input.query} changed` }, now)
      assert.strictEqual(merged._tag, "Update")
      if (merged._tag !== "Update") return
      const fmLines = splitFrontmatter(merged.content).frontmatter!.split("\n")
      const at = userLines.map((l) => fmLines.indexOf(l))
      for (const [i, pos] of at.entries()) assert.isAtLeast(pos, 0, userLines[i])
      assert.deepStrictEqual(at, [...at].sort((a, b) => a - b))
    }
  )

  it.prop("a note converted to CRLF line endings is still Unchanged", [inputArb, nowArb], ([input, now]) => {
    const crlf = composeNote(input, now).replace(/\n/g, "\r\n")
    assert.deepStrictEqual(mergeNote(crlf, input, now), { _tag: "Unchanged" })
  })

  it.prop(
    "an Update keeps the user's text before and after the block byte for byte",
    [inputArb, nowArb, userText, userText],
    ([input, now, before, after]) => {
      const note = composeNote(input, now)
      const { frontmatter } = splitFrontmatter(note)
      const fmEnd = note.length - splitFrontmatter(note).body.length
      const edited = `${note.slice(0, fmEnd)}${before}${note.slice(fmEnd)}${after}`
      assert.isDefined(frontmatter)
      const changed: RelatedNoteInput = { ...input, query: `${input.query} changed` }
      const merged = mergeNote(edited, changed, now)
      assert.strictEqual(merged._tag, "Update")
      if (merged._tag !== "Update") return
      const body = splitFrontmatter(merged.content).body
      assert.isTrue(body.startsWith(`${before}${BEGIN_MARK} `), "text before the block")
      assert.isTrue(merged.content.endsWith(`${END_MARK}\n${after}`), "text after the block")
      const found = findBlock(merged.content)!
      assert.strictEqual(found.block, composeBlock(changed))
      assert.isFalse(found.editedByUser)
    }
  )
})
