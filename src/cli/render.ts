/**
 * Human-readable output of the CLI.
 */
import { CHANNEL_LABELS } from "../core/channels.js"
import { Schema } from "effect"
import { countsLine } from "../core/compose.js"
import { describeReading } from "../core/language.js"
import { CompanionOptions } from "../core/models.js"
import { ordinal } from "../core/rules.js"
import type { CompanionReportData } from "../promise.js"
import { DROPPED_LISTED, notKept } from "../tools/companion.js"

const num = (n: number, d = 2) => n.toFixed(d)

/** What a paper in the places says beyond its line: its summary and what it builds on. */
const readLines = (r: CompanionReportData, id: string, indent: string): ReadonlyArray<string> => {
  const lines: Array<string> = []
  const summary = r.summaries.find((x) => x.arxivId === id)
  if (summary !== undefined && summary.text !== "") lines.push(`${indent}summary: ${summary.text.replace(/\s+/g, " ")}`)
  const f = r.foundations.find((x) => x.arxivId === id)
  if (f !== undefined && f.status === "unavailable") lines.push(`${indent}builds on: unavailable this time (${f.reason ?? "the citation lookup failed"})`)
  if (f !== undefined && f.citations.length > 0) {
    lines.push(`${indent}builds on: ${f.citations.map((x) => `${x.title} (${x.citedByCount} citations)`).join("; ")}`)
  }
  return lines
}

/** A readable summary of what was kept and why. */
export const renderReport = (r: CompanionReportData): string => {
  const lines: Array<string> = []
  const byId = new Map(r.candidates.map((c) => [c.paper.arxivId, c]))
  lines.push(`Concept note: ${r.note.title} (${r.note.path})`)
  if (r.language !== undefined && r.language.detected.language !== "en") {
    lines.push(`Note language: ${describeReading(r.language)}`)
    for (const note of r.language.notes) lines.push(`  ${note}`)
  }
  lines.push(`Keywords: ${r.keywords.join(", ")}`)
  lines.push(`arXiv query: ${r.query}`)
  if (r.titleQuery !== undefined) {
    lines.push(`${r.citedAuthors.length === 0 ? "Title search" : "Author search"}: ${r.titleQuery}`)
  }
  if (r.citedAuthors.length > 0) lines.push(`Authors the note cites: ${r.citedAuthors.map((a) => a.surname).join(", ")}`)
  if (r.relatedTerms !== undefined) lines.push(`Related terms (from the first search's best papers): ${r.relatedTerms.join(", ")}`)
  if (r.citedQuery !== undefined) lines.push(`Most-cited search: ${r.citedQuery}`)
  // the note's own counts line, over the whole pool
  lines.push(`${r.counts.candidates} candidates, ${countsLine(r.counts, Schema.decodeSync(CompanionOptions)(r.options))}.`)
  lines.push("")
  r.survivors.forEach((id, i) => {
    const c = byId.get(id)!
    const impact = c.impact.status === "unknown"
      ? c.impact.exempt ? `new paper (${num(c.impact.ageYears, 1)} y as of ${c.impact.asOf}), no count needed` : "impact unknown"
      : `${num(c.impact.citationsPerYear ?? 0, 1)} citations/year`
    lines.push(`${i + 1}. ${c.paper.title.replace(/\s+/g, " ")} (arXiv:${id}, ${c.paper.published})`)
    lines.push(`   relevance ${num(c.judgement.relevance)} · novelty ${num(c.judgement.novelty)} · ${impact}`)
    lines.push(`   found by: ${(c.foundBy ?? ["arxiv-search"]).map((ch) => CHANNEL_LABELS[ch]).join(" + ")}`)
    lines.push(...readLines(r, id, "   "))
  })
  if (r.unrecordedAmongKept.length > 0) {
    const inPlaces = new Set(r.unrecordedInPlaces)
    const competing = r.counts.clearedBothBars + r.counts.impactNotRecorded
    lines.push(
      "",
      r.counts.unrecordedInPlaces > 0
        ? `Relevant, impact not recorded (no citation count to check; ${r.counts.unrecordedInPlaces} of them ${r.counts.unrecordedInPlaces === 1 ? "takes a place" : "take places"} among the ${r.options.maxResults}):`
        : "Relevant, impact not recorded (their relevance places them among the kept; no citation count to check):"
    )
    for (const id of r.unrecordedAmongKept) {
      const c = byId.get(id)!
      const place = c.decision.rank === undefined
        ? ""
        : inPlaces.has(id)
        ? `, takes a place: ${ordinal(c.decision.rank)} of ${competing} in keep order`
        : `, ${ordinal(c.decision.rank)} of the kept by relevance`
      lines.push(`  - ${c.paper.title.replace(/\s+/g, " ")} (arXiv:${id}, ${c.paper.published}): relevance ${num(c.judgement.relevance)}${place}`)
      // one that takes a place is read as a kept paper is
      if (inPlaces.has(id)) lines.push(...readLines(r, id, "    "))
    }
  }
  if (r.alreadyInNote.length > 0) {
    lines.push("", "Already in your note (not recommended again):")
    for (const n of r.alreadyInNote) {
      lines.push(`  - ${n.title === undefined ? "" : `${n.title.replace(/\s+/g, " ")} `}(arXiv:${n.arxivId}), named as ${n.mention}`)
    }
  }
  const shared = r.sharedFoundations.foundations
  if (shared.length > 0) {
    lines.push("", "Shared foundations:")
    for (const w of shared) lines.push(`  - ${(w.title ?? `OpenAlex ${w.openalexId}`).replace(/\s+/g, " ")} (cited by ${w.citedBy.length} kept papers)`)
  }
  // the most relevant of the rest, as the note, the MCP result and the page list them: a pool of 1000 is not a list to read
  const rest = notKept(r.candidates, r.unrecordedAmongKept)
  if (rest.length > 0) {
    const shown = rest.slice(0, DROPPED_LISTED)
    const others = r.unrecordedAmongKept.length > 0 ? "other " : ""
    lines.push(
      "",
      rest.length > shown.length
        ? `Not kept, the ${shown.length} most relevant of ${rest.length} ${others}candidates:`
        : `Not kept (${rest.length} ${others}candidate${rest.length === 1 ? "" : "s"}), most relevant first:`
    )
    for (const c of shown) {
      lines.push(`  - ${c.paper.title.replace(/\s+/g, " ")} (arXiv:${c.paper.arxivId}): ${c.decision.reasons.join("; ")}`)
    }
    if (rest.length > shown.length) lines.push(`  … and ${rest.length - shown.length} more (--json has all)`)
  }
  lines.push("")
  const verb = {
    created: "Wrote",
    updated: "Updated",
    unchanged: "Unchanged (no rewrite):",
    "kept-user-edits": "Results in",
    "kept-earlier": "Kept the earlier results in"
  }[r.written.status]
  if (r.written.notice !== undefined) lines.push(r.written.notice)
  lines.push(`${verb} ${r.written.path}`)
  lines.push(
    `Calls: arXiv ${r.calls.arxiv}, citations ${r.calls.openalex}, judge ${r.calls.judge}, vault ${r.calls.vault}`
  )
  return lines.join("\n")
}
