/**
 * Fills the derived fields of eval/retrieval/landmarks.json from the data, so
 * nothing derived is typed by hand:
 * - each landmark's `title`, from the offline corpus (fails if an id is missing);
 * - each landmark's `recordedCounts`: the offline sources that record a citation
 *   count for it — every fixtures/offline/citations-*.json (Semantic Scholar
 *   2024, Google Scholar via Paper Copilot 2025, Google Scholar 2017) and the
 *   OpenAlex works of fixtures/offline/openalex-works.json;
 * - each note's `split`, by the seeded rule of eval/retrieval-data.ts, except
 *   for a note recorded in an explicit split (`tune2`, `tune3`, `tune4`), which keeps it.
 * The hand-written fields (note, title, topic, group, why, alreadyInNote) are kept.
 *
 * Usage: node --import tsx eval/retrieval-landmarks.ts [--check]
 * (--check: fail instead of writing when the file is not up to date.)
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { corpusTitles, type LandmarkNote, landmarksFile, noteSplits, readLandmarks, repoRoot } from "./retrieval-data.js"

const offline = join(repoRoot, "fixtures", "offline")

/** Source label → the arXiv ids it records a count for. */
const recordedSources = (): Array<[string, Set<string>]> => {
  const sources: Array<[string, Set<string>]> = []
  for (const file of readdirSync(offline).filter((f) => /^citations-.*\.json$/.test(f)).sort()) {
    const data = JSON.parse(readFileSync(join(offline, file), "utf8")) as {
      source: { name: string; recordedOn?: string }
      counts: Record<string, unknown>
    }
    sources.push([`${data.source.name} ${data.source.recordedOn ?? ""}`.trim(), new Set(Object.keys(data.counts))])
  }
  const works = JSON.parse(readFileSync(join(offline, "openalex-works.json"), "utf8")) as {
    works: ReadonlyArray<{ arxivIds: ReadonlyArray<string> }>
  }
  sources.push(["OpenAlex works (recorded 2025-2026)", new Set(works.works.flatMap((w) => w.arxivIds))])
  return sources
}

const titles = corpusTitles()
const sources = recordedSources()
const notes = readLandmarks()
const splits = noteSplits(notes)

const missing = notes.flatMap((n) => n.landmarks.filter((l) => !titles.has(l.id)).map((l) => `${n.note}: ${l.id}`))
if (missing.length > 0) {
  console.error(`landmarks missing from the offline corpus: ${missing.join(", ")}`)
  process.exit(1)
}

const filled: ReadonlyArray<LandmarkNote> = notes.map((n) => ({
  note: n.note,
  title: n.title,
  split: splits.get(n.note)!,
  topic: n.topic,
  group: n.group,
  landmarks: n.landmarks.map((l) => ({
    id: l.id,
    title: titles.get(l.id)!,
    why: l.why,
    recordedCounts: sources.filter(([, ids]) => ids.has(l.id)).map(([name]) => name)
  })),
  alreadyInNote: n.alreadyInNote
}))

const text = JSON.stringify(filled, null, 2) + "\n"
if (process.argv.includes("--check")) {
  if (readFileSync(landmarksFile, "utf8") !== text) {
    console.error("eval/retrieval/landmarks.json is not up to date: run node --import tsx eval/retrieval-landmarks.ts")
    process.exit(1)
  }
  console.log("landmarks.json is up to date")
} else {
  writeFileSync(landmarksFile, text)
  const count = (s: string) => filled.filter((n) => n.split === s).length
  console.log(
    `${filled.length} notes (tune ${count("tune")}, heldout ${count("heldout")}, tune2 ${count("tune2")}, tune3 ${count("tune3")}, tune4 ${count("tune4")}, heldout2 ${count("heldout2")}, heldout3 ${count("heldout3")}, heldout4 ${count("heldout4")}, heldout5 ${count("heldout5")}), ` +
      `${filled.reduce((k, n) => k + n.landmarks.length, 0)} landmarks`
  )
}
