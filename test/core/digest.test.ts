import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { digestBlock, type NoteDigest, readState, stateBlock } from "../../src/core/digestNote.js"
import { globRegExp, hasTag, matchesGlob } from "../../src/core/digestSelect.js"
import { digestVerdicts, heldPapers, learnProfile, poolRarity, poolRarityOf, profileShift, profileShiftOf, profileTerms } from "../../src/core/digestVerdicts.js"
import { composeGenerated } from "../../src/core/compose.js"
import { stateNote } from "../../src/core/digestNote.js"
import { sinceArg } from "../../src/tools/digest.js"

const paper = (arxivId: string, title: string) => ({
  arxivId,
  title,
  authors: ["A. Author"],
  published: "2016-07-01",
  relevance: 0.8,
  judgeRelevance: 0.8,
  shift: 0,
  rationale: "about the concept",
  summary: `${title} in one sentence.`,
  impact: "new paper: impact exempt"
})

const noteDigest = (path: string, title: string, papers: ReadonlyArray<ReturnType<typeof paper>>): NoteDigest => ({
  path,
  title,
  since: "2016-06-01",
  query: "all:x",
  candidates: 10,
  alreadyHeld: 0,
  rejected: 0,
  papers,
  profile: { kept: 0, rejected: 0 }
})

describe("digest verdicts", () => {
  it("reads a ticked box or a struck line under a note's section as a rejection for that note only", () => {
    const block = digestBlock({
      date: "2026-12-01",
      since: "2016-06-01",
      judge: "local",
      notes: [
        noteDigest("A.md", "Alpha", [paper("1607.00001", "Sparse coding"), paper("1607.00002", "Dense retrieval")]),
        noteDigest("B.md", "Beta", [paper("1607.00001", "Sparse coding")])
      ],
      skipped: []
    })
    expect(digestVerdicts(block).size).toBe(0)
    const lines = block.split("\n")
    const firstBox = lines.findIndex((l) => l === "  - [ ] not for me")
    lines[firstBox] = "  - [x] not for me"
    const dense = lines.findIndex((l) => l.includes("1607.00002") && l.startsWith("- **"))
    lines[dense] = `- ~~${lines[dense]!.slice(2)}~~`
    const verdicts = digestVerdicts(lines.join("\n"))
    expect([...verdicts.keys()]).toEqual(["Alpha"])
    expect(verdicts.get("Alpha")!.map((v) => v.arxivId)).toEqual(["1607.00001", "1607.00002"])
    // what the profile learns of a rejected paper: its title and summary as the digest showed them
    expect(verdicts.get("Alpha")![0]!.text).toContain("Sparse coding in one sentence")
    expect(verdicts.get("Alpha")![0]!.text).not.toContain("about the concept")
  })

  it("holds every paper any note names, by id, link or DOI", () => {
    const held = heldPapers([
      { path: "a.md", text: "see https://arxiv.org/abs/1706.03762v2 and arXiv:1409.0473" },
      { path: "b.md", text: "doi 10.48550/arXiv.1512.03385" }
    ])
    expect([...held.keys()].sort()).toEqual(["1409.0473", "1512.03385", "1706.03762"])
  })

  it("moves papers like the rejected ones down and like the kept ones up, leaving the note's own words out", () => {
    const noteText = "graph neural networks message passing"
    const profile = learnProfile(
      [{ arxivId: "1", text: "Graph networks for molecules chemistry drug discovery" }],
      [{ arxivId: "2", text: "Graph networks for social recommendation advertising" }],
      noteText
    )
    expect(profile.weights.has("graph")).toBe(false)
    const pool = ["Molecule property prediction with chemistry graphs", "Advertising recommendation graphs", "Traffic forecasting graphs"]
    const rarity = poolRarity(pool)
    expect(profileShift(profile, "Molecule property prediction", "chemistry drug", rarity)).toBeGreaterThan(0)
    expect(profileShift(profile, "Advertising recommendation", "social", rarity)).toBeLessThan(0)
    expect(profileShift(profile, "Traffic forecasting", "roads", rarity)).toBe(0)
    expect(profileShift(learnProfile([], []), "anything", "at all")).toBe(0)
    // bounded: however many words agree
    const many = learnProfile([], [{ arxivId: "3", text: "alpha beta gamma delta epsilon zeta eta theta iota kappa" }])
    expect(profileShift(many, "alpha beta gamma delta", "epsilon zeta eta theta iota kappa")).toBe(-0.1)
  })

  it("gives the same shift from words read once per paper as from the texts (what a digest reads for the vault)", () => {
    const profile = learnProfile(
      [{ arxivId: "1", text: "Graph networks for molecules chemistry drug discovery" }],
      [{ arxivId: "2", text: "Graph networks for social recommendation advertising" }],
      "graph neural networks"
    )
    const papers = [
      { title: "Molecule property prediction", abstract: "chemistry drug graphs" },
      { title: "Advertising recommendation", abstract: "social graphs at scale" },
      { title: "Traffic forecasting", abstract: "roads graphs" }
    ]
    const texts = papers.map((p) => `${p.title} ${p.abstract}`)
    const rarity = poolRarity(texts)
    const read = papers.map((p) => profileTerms(`${p.title} ${p.abstract}`))
    expect([...poolRarityOf(read)]).toEqual([...rarity])
    const shifts = papers.map((p) => profileShift(profile, p.title, p.abstract, rarity))
    expect(read.map((terms) => profileShiftOf(profile, terms, poolRarityOf(read)))).toEqual(shifts)
    expect(shifts.filter((x) => x !== 0).length).toBe(2)
  })
})

describe("digest selection and record", () => {
  it("matches globs over vault paths, and tags with their nested tags", () => {
    expect(matchesGlob(globRegExp("Papers/**"), "Papers/Deep/Word Embeddings.md")).toBe(true)
    expect(matchesGlob(globRegExp("Papers/*"), "Papers/Deep/Word Embeddings.md")).toBe(false)
    expect(matchesGlob(globRegExp("*Concept*"), "Topics/Transformers Concept Note.md")).toBe(true)
    expect(matchesGlob(globRegExp("{GAN,VAE}.md"), "VAE.md")).toBe(true)
    expect(hasTag("---\ntags: [ml/vision, other]\n---\ntext", "ml")).toBe(true)
    expect(hasTag("body with #Regularisation inside", "regularisation")).toBe(true)
    expect(hasTag("no tags, an issue #12 is not one", "12")).toBe(false)
  })

  it("reads back the record it writes, and no record from a note that is not one", () => {
    const state = {
      last: { "A `x` %%.md": "2026-11-30" },
      rejected: { "A `x` %%.md": [{ arxivId: "1607.00001", text: "```\n%% arxiv-companion:end %%" }] }
    }
    const text = composeGenerated(stateNote(state), "2026-12-01T00:00:00Z")
    // untrusted text cannot close the fence nor the block
    expect(text.match(/^%% arxiv-companion:end %%$/gm)).toHaveLength(1)
    expect(stateBlock(state).match(/^```/gm)).toHaveLength(2)
    expect(readState(text)).toEqual(state)
    expect(readState("# my own note\n")).toBeUndefined()
  })
})

describe("--since", () => {
  const today = "2026-12-01"
  const run = (v: string) => Effect.runSyncExit(sinceArg("--since", v, today))
  it("takes a past date or a number of days, and refuses a future or unreadable one", () => {
    expect(run("2016-06-01")).toEqual(Exit.succeed("2016-06-01"))
    expect(run("7d")).toEqual(Exit.succeed("2026-11-24"))
    expect(run(today)).toEqual(Exit.succeed(today))
    for (const bad of ["2026-12-02", "0d", "yesterday", "2016-02-30", ""]) expect(Exit.isFailure(run(bad)), bad).toBe(true)
  })
})
