/**
 * The teaching sections of the Related Papers note, as Markdown lines: the
 * reading order, each kept paper's summary, the shared foundations and the
 * citation map. Untrusted text (titles, abstracts, model output) goes
 * through `mdInline`; titles that match a vault note become `[[links]]`.
 *
 * @since 0.2.0
 */
import { absUrl } from "./arxiv.js"
import { mdInline } from "./markdown.js"
import type { PaperSummary, ScoredPaper, SharedFoundation } from "./models.js"
import { sharedFoundationsGap } from "./sharedFoundations.js"
import type { NoteTeaching } from "./teaching.js"
import { shorten } from "./text.js"
import { type VaultIndex, wikiLink } from "./vaultLinks.js"

const int = (n: number): string => n.toLocaleString("en-US")

/** `[[Vault note|text]]` when the vault has a note of that title, else the text in bold. */
const namedWork = (title: string, vault: VaultIndex | undefined): string =>
  (vault === undefined ? undefined : wikiLink(vault, title, mdInline(title))) ?? `**${mdInline(title)}**`

/** "[Title](arXiv link)", followed by " · [[Vault note]]" when the vault has a note of that title. */
export const paperLink = (title: string, arxivId: string, vault: VaultIndex | undefined): string => {
  const link = `[${mdInline(title)}](${absUrl(arxivId)})`
  const inVault = vault === undefined ? undefined : wikiLink(vault, title)
  return inVault === undefined ? link : `${link} · ${inVault}`
}

/** The keywords, each linked to the vault note of that name when there is one. */
export const keywordList = (keywords: ReadonlyArray<string>, vault: VaultIndex | undefined): string =>
  keywords.map((k) => (vault === undefined ? undefined : wikiLink(vault, k, mdInline(k))) ?? mdInline(k)).join(", ")

/** The "## Reading order" section. */
export const readingOrderSection = (
  teaching: NoteTeaching,
  kept: ReadonlyArray<ScoredPaper>,
  vault: VaultIndex | undefined
): ReadonlyArray<string> => {
  if (teaching.readingOrder.length === 0) return []
  const lines = ["## Reading order", ""]
  teaching.readingOrder.forEach((step, i) => {
    const year = step.year === undefined ? "" : ` (${step.year})`
    const name = step.kind === "paper"
      ? paperLink(kept.find((k) => k.paper.arxivId === step.id)?.paper.title ?? step.title, step.id, vault)
      : namedWork(step.title, vault)
    lines.push(`${i + 1}. ${name}${year} — ${mdInline(step.why)}`)
  })
  lines.push("")
  return lines
}

/** The summary lines of one kept paper. */
export const summaryLines = (summary: PaperSummary | undefined, judge: string): ReadonlyArray<string> => {
  if (summary === undefined || summary.text === "") return []
  const from = summary.source === "model" ? `written by ${mdInline(judge)} from the abstract` : "sentences of the abstract"
  return [
    `- Summary (${from}): ${mdInline(summary.text)}`,
    ...(summary.keyFigure === undefined ? [] : [`- Key result: ${mdInline(summary.keyFigure)}`])
  ]
}

const citedBy = (f: SharedFoundation, kept: ReadonlyArray<ScoredPaper>): string =>
  f.citedBy
    .map((id) => {
      const title = kept.find((k) => k.paper.arxivId === id)?.paper.title
      return title === undefined ? id : `${mdInline(shorten(title, 60))} (${id})`
    })
    .join("; ")

/** The "## Shared foundations" section: the list, or one plain sentence saying why there is none. */
export const sharedFoundationsSection = (
  teaching: NoteTeaching,
  kept: ReadonlyArray<ScoredPaper>,
  vault: VaultIndex | undefined
): ReadonlyArray<string> => {
  const lines = ["## Shared foundations", ""]
  const gap = sharedFoundationsGap(teaching.shared, kept.length)
  if (gap !== undefined) return [...lines, `_${gap}_`, ""]
  lines.push(`_Works cited by two or more of the kept papers, the most shared first._`, "")
  for (const f of teaching.shared.foundations) {
    const head = f.title === undefined ? `OpenAlex ${f.openalexId} (not resolved)` : namedWork(f.title, vault)
    const year = f.publicationYear === undefined ? "" : ` (${f.publicationYear})`
    const count = f.citedByCount === undefined ? "" : ` — ${int(f.citedByCount)} citations`
    const id = f.title === undefined ? "" : ` · OpenAlex ${f.openalexId}`
    lines.push(`- ${head}${year}${count}${id}`)
    lines.push(`  - cited by ${f.citedBy.length} kept papers: ${citedBy(f, kept)}`)
  }
  lines.push("")
  return lines
}

/** The "## Citation map" section: a ```mermaid block Obsidian draws. */
export const citationMapSection = (teaching: NoteTeaching, kept: number): ReadonlyArray<string> => {
  if (kept === 0) return []
  const map = teaching.map
  const lines = ["## Citation map", "", "```mermaid", ...map.mermaid.split("\n"), "```", ""]
  const left = [
    map.omittedPapers > 0 ? `${map.omittedPapers} kept paper${map.omittedPapers === 1 ? "" : "s"}` : "",
    map.omittedFoundations > 0 ? `${map.omittedFoundations} less cited foundation${map.omittedFoundations === 1 ? "" : "s"}` : ""
  ].filter((s) => s !== "")
  lines.push(
    `_Your note → the kept papers → the works they build on; shared foundations are highlighted.${
      left.length === 0 ? "" : ` Left out to keep the map readable: ${left.join(" and ")}.`
    }_`,
    ""
  )
  return lines
}
