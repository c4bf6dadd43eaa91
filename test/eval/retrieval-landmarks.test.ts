/**
 * The landmark-recall evaluation's data (eval/retrieval/) cannot rot silently:
 * the file is well-formed, every landmark exists in the offline corpus under the
 * recorded title, the notes do not paste what they are scored against, and the
 * tune / held-out split is the seeded rule's and shares no landmark.
 */
import { readdirSync } from "node:fs"
import { beforeAll, describe, expect, it } from "vitest"
import {
  assignSplits,
  corpusTitles,
  type LandmarkNote,
  notesDir,
  readLandmarks,
  readNote
} from "../../eval/retrieval-data.js"

const notes = readLandmarks()
const normalise = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, " ").trim()
const words = (s: string) => s.replace(/^---\n[\s\S]*?\n---\n/, "").split(/\s+/).filter((w) => w.length > 0).length
const ids = (n: LandmarkNote) => n.landmarks.map((l) => l.id)

describe("eval/retrieval/landmarks.json", () => {
  it("has one entry per note file, each with 1–5 distinct landmarks and the fields the eval reads", () => {
    const files = readdirSync(notesDir).filter((f) => f.endsWith(".md")).map((f) => f.slice(0, -3)).sort()
    expect(notes.map((n) => n.note).sort()).toEqual(files)
    expect(notes.length).toBeGreaterThanOrEqual(30)
    expect(new Set(notes.map((n) => n.title)).size).toBe(notes.length)
    for (const n of notes) {
      expect(n.title, n.note).toMatch(/^[^/\\:*?"<>|[\]#^]+$/) // a valid vault file name and wikilink target
      expect(["tune", "heldout"], n.note).toContain(n.split)
      expect(["ML", "NLP", "vision", "speech"], n.note).toContain(n.topic)
      expect(n.group.length, n.note).toBeGreaterThan(0)
      expect(n.landmarks.length, n.note).toBeGreaterThanOrEqual(1)
      expect(n.landmarks.length, n.note).toBeLessThanOrEqual(5)
      expect(new Set(ids(n)).size, n.note).toBe(n.landmarks.length)
      for (const l of n.landmarks) {
        expect(l.id, n.note).toMatch(/^\d{4}\.\d{4,5}$/)
        expect(l.why.length, `${n.note} ${l.id}`).toBeGreaterThan(0)
        expect(Array.isArray(l.recordedCounts), `${n.note} ${l.id}`).toBe(true)
      }
      for (const id of n.alreadyInNote) expect(ids(n), n.note).toContain(id)
    }
    expect(notes.filter((n) => n.alreadyInNote.length > 0).length).toBeGreaterThanOrEqual(3)
  })

  describe("against the offline corpus", () => {
    let titles: Map<string, string>
    beforeAll(() => {
      titles = corpusTitles()
    })

    it("every landmark is in fixtures/offline/arxiv-corpus.tsv.gz under the title recorded here", () => {
      const wrong = notes.flatMap((n) =>
        n.landmarks.filter((l) => titles.get(l.id) !== l.title).map((l) => `${n.note} ${l.id}: ${titles.get(l.id) ?? "missing"}`)
      )
      expect(wrong).toEqual([])
    })
  })

  it("notes are 80–400 words and never paste a landmark's id (unless it is marked already in the note) or full title", () => {
    for (const n of notes) {
      const text = readNote(n)
      const count = words(text)
      expect(count, n.note).toBeGreaterThanOrEqual(80)
      expect(count, n.note).toBeLessThanOrEqual(400)
      const named = new Set(text.match(/\b\d{4}\.\d{4,5}\b/g) ?? [])
      expect([...named].filter((id) => !n.alreadyInNote.includes(id)), n.note).toEqual([])
      for (const id of n.alreadyInNote) expect(named.has(id), `${n.note} names ${id}`).toBe(true)
      const body = ` ${normalise(text)} `
      for (const l of n.landmarks) {
        // method names ("Fast R-CNN", "Memory Networks") are what students write; a full title of 4+ words is not
        if (normalise(l.title).split(" ").length >= 4) {
          expect(body.includes(` ${normalise(l.title)} `), `${n.note} pastes "${l.title}"`).toBe(false)
        }
      }
    }
  })

  it("the split is the seeded rule's, keeps each group whole, is about half each, and shares no landmark", () => {
    const rule = assignSplits(notes)
    for (const n of notes) expect(n.split, n.note).toBe(rule.get(n.note))
    const groups = new Map<string, Set<string>>()
    for (const n of notes) groups.set(n.group, (groups.get(n.group) ?? new Set()).add(n.split))
    for (const [group, splits] of groups) expect(splits.size, group).toBe(1)
    const tune = notes.filter((n) => n.split === "tune")
    const heldout = notes.filter((n) => n.split === "heldout")
    expect(Math.abs(tune.length - heldout.length)).toBeLessThanOrEqual(Math.ceil(notes.length / 5))
    const tuneIds = new Set(tune.flatMap(ids))
    expect(heldout.flatMap(ids).filter((id) => tuneIds.has(id))).toEqual([])
  })
})
