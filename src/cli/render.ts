/**
 * Human-readable output of the CLI.
 */
import { CHANNEL_LABELS } from "../core/channels.js"
import type { CompanionReportData } from "../promise.js"

const num = (n: number, d = 2) => n.toFixed(d)

/** A readable summary of what was kept and why. */
export const renderReport = (r: CompanionReportData): string => {
  const lines: Array<string> = []
  const kept = r.candidates.filter((c) => c.decision.kept)
  const byId = new Map(r.candidates.map((c) => [c.paper.arxivId, c]))
  lines.push(`Concept note: ${r.note.title} (${r.note.path})`)
  lines.push(`Keywords: ${r.keywords.join(", ")}`)
  lines.push(`arXiv query: ${r.query}`)
  if (r.titleQuery !== undefined) {
    lines.push(`${r.citedAuthors.length === 0 ? "Title search" : "Author search"}: ${r.titleQuery}`)
  }
  if (r.citedAuthors.length > 0) lines.push(`Authors the note cites: ${r.citedAuthors.map((a) => a.surname).join(", ")}`)
  if (r.relatedTerms !== undefined) lines.push(`Related terms (from the first search's best papers): ${r.relatedTerms.join(", ")}`)
  if (r.citedQuery !== undefined) lines.push(`Most-cited search: ${r.citedQuery}`)
  // more papers may clear both bars than are kept: the best `maxResults` of them are
  const more = kept.length > r.survivors.length
    ? ` (${kept.length} cleared both bars; the best ${r.options.maxResults} are kept)`
    : ""
  lines.push(`${r.candidates.length} candidates, ${r.survivors.length} kept${more}.`)
  lines.push("")
  r.survivors.forEach((id, i) => {
    const c = byId.get(id)!
    const impact = c.impact.status === "unknown"
      ? c.impact.exempt ? `new paper (${num(c.impact.ageYears, 1)} y as of ${c.impact.asOf}), no count needed` : "impact unknown"
      : `${num(c.impact.citationsPerYear ?? 0, 1)} citations/year`
    lines.push(`${i + 1}. ${c.paper.title.replace(/\s+/g, " ")} (arXiv:${id}, ${c.paper.published})`)
    lines.push(`   relevance ${num(c.judgement.relevance)} · novelty ${num(c.judgement.novelty)} · ${impact}`)
    lines.push(`   found by: ${(c.foundBy ?? ["arxiv-search"]).map((ch) => CHANNEL_LABELS[ch]).join(" + ")}`)
    const summary = r.summaries.find((x) => x.arxivId === id)
    if (summary !== undefined && summary.text !== "") lines.push(`   summary: ${summary.text.replace(/\s+/g, " ")}`)
    const f = r.foundations.find((x) => x.arxivId === id)
    if (f !== undefined && f.status === "unavailable") lines.push(`   builds on: unavailable this time (${f.reason ?? "the citation lookup failed"})`)
    if (f !== undefined && f.citations.length > 0) {
      lines.push(`   builds on: ${f.citations.map((x) => `${x.title} (${x.citedByCount} citations)`).join("; ")}`)
    }
  })
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
  const dropped = r.candidates.filter((c) => !c.decision.kept)
  if (dropped.length > 0) {
    lines.push("", "Dropped:")
    for (const c of dropped) {
      lines.push(`  - ${c.paper.title.replace(/\s+/g, " ")} (arXiv:${c.paper.arxivId}): ${c.decision.reasons.join("; ")}`)
    }
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
