/**
 * Composing the "<title> — Related Papers" note and merging it into an
 * existing one without losing a word the user wrote.
 *
 * The generated part sits between two Obsidian comment markers (hidden in
 * reading view). The begin marker carries a hash of the block as written, so
 * a later run can tell whether the user edited inside it. Frontmatter keys the
 * companion owns are replaced line by line; every other line is kept as is.
 *
 * @since 0.1.0
 */
import { absUrl } from "./arxiv.js"
import { citationMapSection, keywordList, readingOrderSection, sharedFoundationsSection, summaryLines } from "./composeTeaching.js"
import { describeReading, type NoteReading } from "./language.js"
import { type Messages, messagesFor } from "./messages.js"
import { splitFrontmatter } from "./keywords.js"
import { CHANNEL_LABELS } from "./channels.js"
import { mdInline } from "./markdown.js"
import { clearedBothBars, describeConsulted, describeSource, IN_THE_PLACES, isRelevant, keepOrder, notRecordedReason, ordinal } from "./rules.js"
import { wellFormed } from "./text.js"
import type { CompanionOptions, DecisionCounts, Foundations, ImpactSource, NamedInNote, NoteRef, ScoredPaper } from "./models.js"
import type { NoteTeaching } from "./teaching.js"
import { keywordTag, noteLink, type VaultIndex, wikiLink } from "./vaultLinks.js"

/** The line that opens the generated block; it carries the block's hash. */
export const BEGIN = /^%% arxiv-companion:begin ([0-9a-f]{8}) %%$/m
/** The line that closes the generated block. */
export const END = "%% arxiv-companion:end %%"

/** How the note's first line names the concept note it was made for (`writeBack` reads it back when the frontmatter is gone). */
export const RELATED_TO = "Papers related to"

/** FNV-1a, 32 bit, as 8 hex digits: enough to notice an edit, no crypto needed. */
export const hash32 = (s: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, "0")
}

/** Characters Obsidian forbids in file names, plus those that break links, and control characters (C0, DEL, C1 with NEL). */
const FORBIDDEN = /[*"\\/<>:|?#^[\]\u0000-\u001f\u007f-\u009f]/g
const MAX_TITLE = 120
/** File names are capped at 255 bytes: leave room for " — Related Papers (YYYY-MM-DD NN).md". */
const MAX_TITLE_BYTES = 180

const utf8Bytes = (codePoint: number): number => (codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4)

/**
 * A title made safe as a file name: forbidden characters replaced, no leading
 * dots or spaces, bounded length (code points and UTF-8 bytes). Never empty.
 */
export const sanitizeTitle = (title: string): string => {
  const cleaned = title.replace(FORBIDDEN, " ").replace(/\s+/g, " ").trim().replace(/^[.\s]+/, "").replace(/[.\s]+$/, "")
  let bytes = 0
  const kept: Array<string> = []
  for (const ch of [...cleaned].slice(0, MAX_TITLE)) {
    bytes += utf8Bytes(ch.codePointAt(0)!)
    if (bytes > MAX_TITLE_BYTES) break
    kept.push(ch)
  }
  const bounded = kept.join("").trim().replace(/[.\s]+$/, "")
  return bounded.length === 0 ? "Untitled" : bounded
}

/** The title of the generated note. */
export const relatedTitle = (sourceTitle: string): string => `${sanitizeTitle(sourceTitle)} — Related Papers`

/**
 * Vault-relative path of the generated note: beside the source note. Undefined
 * when the source path itself is not a safe vault-relative path.
 */
export const relatedNotePath = (source: NoteRef): string | undefined => {
  if (!isSafeVaultPath(source.path)) return undefined
  const slash = source.path.lastIndexOf("/")
  const folder = slash < 0 ? "" : source.path.slice(0, slash + 1)
  return `${folder}${relatedTitle(source.title)}.md`
}

/** A vault-relative path that cannot leave the vault: no absolute, no `..`, no drive, no NUL. */
export const isSafeVaultPath = (path: string): boolean =>
  path.length > 0 &&
  !path.startsWith("/") &&
  !path.includes("\\") &&
  !/^[A-Za-z]:/.test(path) &&
  !path.includes("\u0000") &&
  path.split("/").every((seg) => seg !== ".." && seg !== "." && seg.length > 0)

/** Everything a related-papers note says. */
export interface RelatedNoteInput {
  readonly source: NoteRef
  readonly keywords: ReadonlyArray<string>
  /** The note's language and its English reading; the fixed text follows the language (messages.ts). */
  readonly reading?: NoteReading | undefined
  readonly query: string
  readonly options: CompanionOptions
  readonly judge: string
  readonly impactSource: ImpactSource | undefined
  /** The date papers without a count were aged at, when it is the recording date of the data (offline), not today. */
  readonly impactAsOf?: string | undefined
  /** The second arXiv search (the authors the note cites, or else titles naming its central concepts), when it ran. */
  readonly titleQuery?: string | undefined
  /** The surnames of the authors the note cites that the second search asked for (`au:`). */
  readonly searchedAuthors?: ReadonlyArray<string> | undefined
  /** The terms of the field, not in the note, that widen the title search (from the first search's best papers). */
  readonly relatedTerms?: ReadonlyArray<string> | undefined
  /** The most-cited search (second channel), when it ran. */
  readonly citedQuery?: string | undefined
  /** Papers the note already names. */
  readonly alreadyInNote?: ReadonlyArray<NamedInNote> | undefined
  /** The candidates the note shows (the most relevant and the kept). */
  readonly candidates: ReadonlyArray<ScoredPaper>
  /** How many candidates were judged in all, when more than are shown. */
  readonly judged?: number | undefined
  /** How many candidates each decision took over the whole pool (default: counted from `candidates`). */
  readonly counts?: DecisionCounts | undefined
  /** The best of the papers cut by the cap, in rank order (default: those among `candidates`). */
  readonly cutByCap?: ReadonlyArray<ScoredPaper> | undefined
  /** Relevant papers without a recorded count that would rank among the kept (default: those among `candidates`). */
  readonly unrecordedAmongKept?: ReadonlyArray<ScoredPaper> | undefined
  readonly survivors: ReadonlyArray<ScoredPaper>
  readonly foundations: ReadonlyArray<Foundations>
  /** Summaries, shared foundations, reading order and citation map; without it the note lists the papers only. */
  readonly teaching?: NoteTeaching | undefined
  /** The vault's titles, so papers, keywords and foundations with a note of their own are linked. */
  readonly vault?: VaultIndex | undefined
}

export const LINE_BREAKS = /[\r\n\v\f\u0085\u2028\u2029]+/g
const num = (n: number, digits = 2): string => n.toFixed(digits)
const int = (n: number): string => n.toLocaleString("en-US")
const cell = (s: string): string => s.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim()
/** A YAML string value (JSON-quoted; U+2028/U+2029 escaped so a value stays on its line for any reader). */
export const yamlString = (s: string): string => JSON.stringify(s).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")

export { describeSource }

/** "100 candidates judged (12 shown)" or "8 candidates judged". */
const judgedLine = (input: RelatedNoteInput): string => {
  const judged = input.judged ?? input.candidates.length
  return judged > input.candidates.length
    ? `${judged} candidates judged (${input.candidates.length} shown)`
    : `${judged} candidates judged`
}

const impactLine = (s: ScoredPaper): string => {
  const i = s.impact
  if (i.status === "not-assessed") return "not looked up"
  if (i.status === "unknown") {
    return i.exempt
      ? `no citation count recorded; new paper (${num(i.ageYears, 1)} y old as of ${i.asOf}): exempt`
      : notRecordedReason(i)
  }
  const source = i.source === undefined ? "" : ` (${describeSource(i.source)})`
  const exempt = i.exempt ? ", new paper: exempt" : ""
  return `${num(i.citationsPerYear ?? 0, 1)} citations/year — ${int(i.citationCount ?? 0)} citations over ${num(i.ageYears, 1)} y${exempt}${source}`
}

/** Unresolved reference ids listed per paper in the note (all of them are in the report). */
const UNRESOLVED_SHOWN = 5

const foundationLines = (f: Foundations | undefined): ReadonlyArray<string> => {
  // a paper without a recorded list says nothing here: one line under the kept papers names them all
  if (f === undefined || f.status === "not-recorded") return []
  if (f.status === "unavailable") {
    return [`- Builds on: unavailable this time — ${mdInline(f.reason ?? "the citation lookup failed")} Run the companion again to fill it in.`]
  }
  const lines: Array<string> = []
  if (f.citations.length === 0) {
    lines.push(f.status === "no-references" ? "- Builds on: no references listed" : "- Builds on: none resolved")
  } else {
    lines.push("- Builds on:")
    for (const c of f.citations) {
      const year = c.publicationYear === undefined ? "" : ` (${c.publicationYear})`
      lines.push(`  - ${mdInline(c.title)}${year} — ${int(c.citedByCount)} citations · OpenAlex ${c.openalexId}`)
    }
  }
  if (f.unresolved.length > 0) {
    // the report lists them all; in the note a long list of ids is noise
    const shown = f.unresolved.slice(0, UNRESOLVED_SHOWN).join(", ")
    const more = f.unresolved.length - UNRESOLVED_SHOWN
    lines.push(`  - unresolved references: ${shown}${more > 0 ? ` and ${more} more` : ""}`)
  }
  return lines
}

/** How a note names a paper, for the reader. */
const MENTION_LABELS: Record<NamedInNote["mention"], string> = {
  "arxiv-id": "arXiv id",
  "arxiv-url": "arXiv link",
  doi: "arXiv DOI",
  title: "title",
  link: "[[link]]"
}

/** Whether a relevant candidate without a recorded count takes one of the places (keepBest's reason says so). */
export const inThePlaces = (s: ScoredPaper): boolean => s.decision.reasons.some((r) => r.includes(IN_THE_PLACES))

/** A relevant candidate that is not kept only because no citation count was recorded for it. */
export const relevantImpactUnknown = (s: ScoredPaper): boolean => s.decision.kind === "impact-not-recorded"

/** The counts of the note: the run's, or (a note composed from its candidates alone) counted from them. */
const countsOf = (input: RelatedNoteInput): DecisionCounts => {
  if (input.counts !== undefined) return input.counts
  const c = input.candidates
  const of = (kind: ScoredPaper["decision"]["kind"]) => c.filter((s) => s.decision.kind === kind).length
  const cut = cutListed(input).length
  return {
    candidates: input.judged ?? c.length,
    relevant: c.filter((s) => isRelevant(s.judgement, s.impact, input.options.relevanceThreshold)).length,
    clearedBothBars: input.survivors.length + cut,
    kept: input.survivors.length,
    cutByCap: cut,
    impactNotRecorded: of("impact-not-recorded"),
    unrecordedInPlaces: c.filter((s) => s.decision.kind === "impact-not-recorded" && inThePlaces(s)).length,
    dropped: of("dropped")
  }
}

/** The papers cut by the cap the note lists: the run's best of them, or those among the candidates. */
const cutListed = (input: RelatedNoteInput): ReadonlyArray<ScoredPaper> => {
  if (input.cutByCap !== undefined) return input.cutByCap
  const keptIds = new Set(input.survivors.map((s) => s.paper.arxivId))
  return keepOrder(input.candidates.filter((s) => clearedBothBars(s) && !keptIds.has(s.paper.arxivId)))
}

/** The relevant papers without a count the note lists right after the kept ones. */
const unrecordedListed = (input: RelatedNoteInput): ReadonlyArray<ScoredPaper> =>
  input.unrecordedAmongKept ??
    input.candidates.filter(relevantImpactUnknown).sort((a, b) =>
      b.judgement.relevance - a.judgement.relevance || a.paper.arxivId.localeCompare(b.paper.arxivId)
    )

/**
 * "10 kept of the 26 that cleared both bars (relevance ≥ 0.50, ≥ 5 citations/year unless younger than 1 y);
 * 16 cut by the cap; 12 relevant without a recorded citation count": the same counts as the CLI and the MCP result.
 */
export const countsLine = (
  counts: DecisionCounts,
  options: Pick<CompanionOptions, "relevanceThreshold" | "citationsPerYearThreshold" | "exemptYears" | "maxResults">
): string => {
  const bars = `relevance ≥ ${num(options.relevanceThreshold)}, ≥ ${options.citationsPerYearThreshold} citations/year unless younger than ${options.exemptYears} y`
  const kept = counts.cutByCap > 0
    ? `${counts.kept} kept of the ${counts.clearedBothBars} that cleared both bars (${bars}); ${counts.cutByCap} cut by the cap of ${options.maxResults}`
    : `${counts.kept} kept (${bars})`
  const unrecorded = counts.impactNotRecorded === 0
    ? ""
    : `; ${counts.impactNotRecorded} relevant without a recorded citation count` +
      (counts.unrecordedInPlaces === 0 ? "" : `, ${counts.unrecordedInPlaces} of them in the ${options.maxResults} places`)
  return `${kept}${unrecorded}`
}

/**
 * The sources the candidates' counts come from (one per paper), each with its
 * recording date and how many candidates it counted, e.g.
 * "Semantic Scholar, recorded 2024-02-15 (3 papers); Google Scholar, recorded 2017-06-25 (1 paper)".
 * Undefined when no candidate has a count.
 */
export const candidateSources = (candidates: ReadonlyArray<ScoredPaper>): string | undefined => {
  const bySource = new Map<string, number>()
  for (const c of candidates) {
    if (c.impact.status !== "known" || c.impact.source === undefined) continue
    const key = describeSource(c.impact.source)
    bySource.set(key, (bySource.get(key) ?? 0) + 1)
  }
  if (bySource.size === 0) return undefined
  return [...bySource].map(([source, n]) => `${source} (${n} paper${n === 1 ? "" : "s"})`).join("; ")
}

/**
 * How the papers were found: the keywords taken from the note, every search, the judge and the bars, the
 * citation sources. Queries run to hundreds of characters: this is the note's last part, a folded callout.
 */
const howFoundCallout = (input: RelatedNoteInput): ReadonlyArray<string> => {
  const { source, options } = input
  const lines: Array<string> = []
  const sourceLink = noteLink(source.title, mdInline)
  const reading = input.reading
  lines.push(`> [!info]- ${messagesFor(reading?.detected.language).howFound}`)
  if (reading !== undefined && reading.detected.language !== "en") {
    lines.push(`> ${messagesFor(reading.detected.language).noteLanguage}: ${mdInline(describeReading(reading))}`)
    const read = reading.terms.slice(0, 24).map((t) => `${mdInline(t.source)} → ${mdInline(t.english)} (${t.via})`)
    if (read.length > 0) lines.push(`> English terms read from the note: ${read.join("; ")}`)
    if (reading.unread.length > 0) lines.push(`> Words with no English reading: ${reading.unread.slice(0, 12).map(mdInline).join(", ")}`)
    for (const n of reading.notes) lines.push(`> ${mdInline(n)}`)
  }
  lines.push(`> Keywords taken from ${sourceLink}: ${keywordList(input.keywords, input.vault)}`)
  lines.push(`> arXiv query: \`${input.query}\``)
  if (input.titleQuery !== undefined) {
    const authors = input.searchedAuthors ?? []
    lines.push(`> ${authors.length === 0 ? "Title search" : "Author search"}: \`${input.titleQuery}\``)
    if (authors.length > 0) lines.push(`> Authors your note cites, searched for: ${authors.map(mdInline).join(", ")}`)
    const related = input.relatedTerms ?? []
    if (related.length > 0) {
      lines.push(`> Related terms from the first search's best papers, searched beside your keywords: ${related.map(mdInline).join(", ")}`)
    }
  }
  if (input.citedQuery !== undefined) lines.push(`> Most-cited search: \`${input.citedQuery.replace(/`/g, "'")}\``)
  lines.push(`> ${judgedLine(input)} by ${mdInline(input.judge)}; ${countsLine(countsOf(input), options)}.`)
  const sources = candidateSources(input.candidates)
  if (sources !== undefined) lines.push(`> Citation counts, one source per paper: ${sources}.`)
  else if (input.impactSource !== undefined) lines.push(`> Citation counts: ${describeSource(input.impactSource)}.`)
  if (input.impactAsOf !== undefined && input.candidates.some((c) => c.impact.status === "unknown")) {
    lines.push(`> Papers without a recorded count are aged as of ${input.impactAsOf}; those younger than ${options.exemptYears} y pass as new.`)
  }
  lines.push("")
  return lines
}

/** The title of the folded callout that closes the note. */
export const HOW_FOUND = "How these papers were found"

/**
 * "No reference list is recorded for kept papers no. 2 and 5, so …": said once under the kept
 * papers, not under each of them. Empty when every kept paper has one, and when none has and the shared
 * foundations section (which follows) says so.
 */
const missingReferenceLists = (input: RelatedNoteInput): ReadonlyArray<string> => {
  const missing = input.survivors.flatMap((s, i) => {
    const f = input.foundations.find((x) => x.arxivId === s.paper.arxivId)
    return f === undefined || f.status === "not-recorded" ? [i + 1] : []
  })
  // with none recorded, the shared foundations section right below says so ("No reference list is recorded for any…")
  if (missing.length === 0 || (missing.length === input.survivors.length && input.teaching !== undefined)) return []
  const n = input.survivors.length
  const recorded = input.survivors.flatMap((_, i) => (missing.includes(i + 1) ? [] : [String(i + 1)]))
  // numbered as under "Kept papers"; the fewer named, the easier to read
  const which = missing.length === n
    ? n === 1 ? "the kept paper" : `any of the ${n} kept papers`
    : missing.length > recorded.length
    ? `${missing.length} of the ${n} kept papers (all but no. ${listed(recorded)})`
    : `kept ${missing.length === 1 ? "paper" : "papers"} no. ${listed(missing.map(String))}`
  return [`_No reference list is recorded for ${which}, so what ${missing.length === 1 ? "it builds" : "they build"} on is not shown._`, ""]
}

/** "1", "1 and 2", "1, 2 and 3". */
const listed = (items: ReadonlyArray<string>): string =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`

/**
 * The generated block's body (between the markers). Deterministic for the same input. It opens with what
 * the student came for — the reading order and the kept papers — and closes with how they were found.
 */
export const composeBlock = (input: RelatedNoteInput): string => {
  const { source, options } = input
  const lines: Array<string> = []
  const m = messagesFor(input.reading?.detected.language)
  lines.push(`# ${mdInline(relatedTitle(source.title))}`, "")
  lines.push(`${m.relatedTo} ${noteLink(source.title, mdInline)}${m.relatedToEnd}`, "")
  const teaching = input.teaching
  if (teaching !== undefined) lines.push(...retitled(readingOrderSection(teaching, input.survivors, input.vault), m.readingOrder))
  lines.push(`## ${m.keptPapers}`, "")
  if (input.survivors.length === 0) lines.push(`_${m.noneCleared}_`, "")
  input.survivors.forEach((s, index) => {
    const p = s.paper
    lines.push(`### ${index + 1}. [${mdInline(p.title)}](${absUrl(p.arxivId)})`)
    const inVault = input.vault === undefined ? undefined : wikiLink(input.vault, p.title)
    if (inVault !== undefined) lines.push(`- In your vault: ${inVault}`)
    lines.push(`- arXiv: [${p.arxivId}](${absUrl(p.arxivId)}) · first version ${p.published}`)
    lines.push(`- Authors: ${p.authors.map(mdInline).join(", ")}`)
    if (teaching !== undefined) lines.push(...summaryLines(teaching.summaries.find((x) => x.arxivId === p.arxivId), input.judge))
    lines.push(`- Relevance: ${num(s.judgement.relevance)} · Novelty: ${num(s.judgement.novelty)}`)
    lines.push(`- Impact: ${impactLine(s)}`)
    if (s.foundBy !== undefined) lines.push(`- Found by: ${s.foundBy.map((c) => CHANNEL_LABELS[c]).join(" · ")}`)
    lines.push(`- Why: ${mdInline(s.judgement.rationale)}`)
    const f = input.foundations.find((f) => f.arxivId === p.arxivId)
    if (f !== undefined && f.status !== "not-recorded") lines.push(...foundationLines(f))
    lines.push("")
  })
  lines.push(...missingReferenceLists(input))
  lines.push(...retitled(unrecordedSection(input), m.relevantUnrecorded))
  if (teaching !== undefined && input.survivors.length > 0) {
    lines.push(...retitled(sharedFoundationsSection(teaching, input.survivors, input.vault), m.sharedFoundations))
    lines.push(...retitled(citationMapSection(teaching, input.survivors.length), m.citationMap))
  }
  const named = input.alreadyInNote ?? []
  if (named.length > 0) {
    lines.push(`## ${m.alreadyInNote}`, "")
    lines.push(`_${m.alreadyInNoteLine}_`, "")
    for (const n of named) {
      const label = n.title === undefined ? `arXiv ${n.arxivId}` : mdInline(n.title)
      lines.push(`- [${label}](${absUrl(n.arxivId)}) — named as ${MENTION_LABELS[n.mention]}: ${n.text.replace(/`/g, "'")}`)
      const f = input.foundations.find((x) => x.arxivId === n.arxivId)
      if (f !== undefined && f.status !== "not-recorded") lines.push(...foundationLines(f).map((l) => `  ${l}`))
    }
    lines.push("")
  }
  lines.push(...retitled(moreClearedSection(input), m.cutByCap))
  // a paper listed above (cut by the cap, or relevant without a count) is not listed again
  const listed = new Set([...cutListed(input), ...unrecordedListed(input)].map((c) => c.paper.arxivId))
  const dropped = input.candidates.filter((c) => !c.decision.kept && !listed.has(c.paper.arxivId))
  if (dropped.length > 0) {
    lines.push(`## ${m.droppedCandidates}`, "")
    lines.push("| Paper | Relevance | Impact | Why dropped |", "|---|---|---|---|")
    for (const c of dropped) {
      const impact = c.impact.status === "known" ? `${num(c.impact.citationsPerYear ?? 0, 1)}/y` : c.impact.status === "unknown" ? "unknown" : "not looked up"
      // a new paper's exemption ("0.3 y < 1 y") helped it; it is never why it was dropped
      const why = c.decision.reasons.filter((r) =>
        (r.includes("<") && !r.includes("exempt")) || r.includes("not recorded") || r.includes("most relevant candidates") ||
        r.startsWith("cut by the cap")
      )
        .join("; ")
      lines.push(
        `| [${mdInline(c.paper.title)}](${absUrl(c.paper.arxivId)}) | ${num(c.judgement.relevance)} | ${impact} | ${cell(why)} |`
      )
    }
    lines.push("")
  }
  lines.push(...howFoundCallout(input))
  // paper, author, work and source strings are untrusted: a line break in one would break
  // the Markdown and could forge the end marker, so every line stays one line
  // and a half surrogate pair from a service's JSON is stored as U+FFFD, so the block reads back the same
  return wellFormed(lines.map((line) => line.replace(LINE_BREAKS, " ")).join("\n"))
}

/** A section with its heading (its first line) in the note's language. */
const retitled = (section: ReadonlyArray<string>, heading: Messages[keyof Messages]): ReadonlyArray<string> =>
  section.length > 0 && section[0]!.startsWith("## ") ? [`## ${heading}`, ...section.slice(1)] : section

/** How many of the papers cut by the cap are listed by name (the report has them all). */
export const CUT_LISTED = 20

/** How many compete for the places: the papers that cleared both bars and the relevant ones without a count. */
const competingCount = (counts: DecisionCounts): number => counts.clearedBothBars + counts.impactNotRecorded

/** "3 of them take places among the 10 (a missing count is not read as a low one). " or "". */
const placesLine = (counts: DecisionCounts, maxResults: number): string =>
  counts.unrecordedInPlaces === 0
    ? ""
    : `${counts.unrecordedInPlaces === 1 ? "One of them takes a place" : `${counts.unrecordedInPlaces} of them take places`} among the ${maxResults} (a missing count is not read as a low one). `

/**
 * The relevant papers whose citation count is not recorded but whose relevance would place them among the kept:
 * right after the kept papers, each with that place, so none loses it silently to a less relevant kept paper.
 */
const unrecordedSection = (input: RelatedNoteInput): ReadonlyArray<string> => {
  const unrecorded = unrecordedListed(input)
  if (unrecorded.length === 0) return []
  const one = unrecorded.length === 1
  const consulted = unrecorded.find((c) => c.impact.source !== undefined)?.impact.source
  const where = consulted === undefined ? "" : ` in ${mdInline(describeConsulted(consulted))}`
  const lines = [
    "## Relevant, impact not recorded",
    "",
    `_Judged relevant enough to rank among the kept papers, but no citation count is recorded for ${one ? "this paper" : "these papers"}${where} and ${
      one ? "it is" : "they are"
    } older than ${input.options.exemptYears} y, so ${one ? "its" : "their"} impact could not be checked. ${
      placesLine(countsOf(input), input.options.maxResults)
    }Worth a look._`,
    ""
  ]
  const competing = competingCount(countsOf(input))
  for (const c of unrecorded) {
    const place = c.decision.rank === undefined
      ? ""
      : inThePlaces(c)
      ? ` · takes a place: ${ordinal(c.decision.rank)} of ${competing} in keep order`
      : ` · by relevance ${ordinal(c.decision.rank)} of the kept`
    lines.push(
      `- [${mdInline(c.paper.title)}](${absUrl(c.paper.arxivId)}) · first version ${c.paper.published} · relevance ${
        num(c.judgement.relevance)
      }${place} · impact not recorded — ${mdInline(c.judgement.rationale)}`
    )
    // one that takes a place is read as a kept paper is: its summary and what it builds on
    if (inThePlaces(c)) lines.push(...placedLines(input, c).map((l) => `  ${l}`))
  }
  lines.push("")
  lines.push(...placedWithoutReferences(input, unrecorded))
  return lines
}

/** The summary and the foundational citations of a paper without a recorded count that takes a place, as a kept paper has them. */
const placedLines = (input: RelatedNoteInput, c: ScoredPaper): ReadonlyArray<string> => [
  ...(input.teaching === undefined ? [] : summaryLines(input.teaching.summaries.find((x) => x.arxivId === c.paper.arxivId), input.judge)),
  ...foundationLines(input.foundations.find((f) => f.arxivId === c.paper.arxivId))
]

/**
 * "No reference list is recorded for the paper that takes a place, so …": said once under them, as under the
 * kept papers. Empty when each that takes a place has one (or no foundations were looked up for them).
 */
const placedWithoutReferences = (input: RelatedNoteInput, unrecorded: ReadonlyArray<ScoredPaper>): ReadonlyArray<string> => {
  const placed = unrecorded.filter(inThePlaces)
  const missing = placed.filter((c) => input.foundations.find((f) => f.arxivId === c.paper.arxivId)?.status === "not-recorded")
  if (missing.length === 0) return []
  const which = missing.length === 1
    ? placed.length === 1 ? "the paper that takes a place" : `${mdInline(missing[0]!.paper.title)}`
    : missing.length === placed.length
    ? `any of the ${placed.length} papers that take places`
    : `${missing.length} of the ${placed.length} papers that take places`
  return [`_No reference list is recorded for ${which}, so what ${missing.length === 1 ? "it builds" : "they build"} on is not shown._`, ""]
}

/**
 * The papers that cleared both bars but fell past `--max-results`: the best of them listed in rank order ("11th
 * of 26"), so a student sees them, not lost between "kept" and "dropped".
 */
const moreClearedSection = (input: RelatedNoteInput): ReadonlyArray<string> => {
  const counts = countsOf(input)
  const listed = cutListed(input).slice(0, CUT_LISTED)
  if (listed.length === 0) return []
  const lines = [
    "## Cut by the cap",
    "",
    `_${counts.cutByCap === 1 ? "One more paper" : `${counts.cutByCap} more papers`} cleared both bars (${counts.clearedBothBars} in all); the first ${counts.kept === 1 ? "is" : `${counts.kept} are`} kept above${
      counts.unrecordedInPlaces === 0 ? "" : `, and ${counts.unrecordedInPlaces} relevant without a recorded count ${counts.unrecordedInPlaces === 1 ? "takes a place" : "take places"} before them`
    } (\`--max-results\` keeps up to 50)._`,
    ""
  ]
  for (const s of listed) {
    const rank = s.decision.rank === undefined ? "" : `${ordinal(s.decision.rank)} of ${counts.impactNotRecorded === 0 ? counts.clearedBothBars : competingCount(counts)} · `
    const impact = s.impact.status === "known"
      ? ` · ${num(s.impact.citationsPerYear ?? 0, 1)} citations/year`
      : s.impact.exempt
      ? ` · no count recorded, new as of ${s.impact.asOf}`
      : ""
    lines.push(
      `- ${rank}[${mdInline(s.paper.title)}](${absUrl(s.paper.arxivId)}) · first version ${s.paper.published} · relevance ${
        num(s.judgement.relevance)
      }${impact}`
    )
  }
  if (counts.cutByCap > listed.length) lines.push(`- … and ${counts.cutByCap - listed.length} more in the report (\`--json\`).`)
  lines.push("")
  return lines
}

/** Frontmatter keys the companion owns, in order. */
export const managedFrontmatter = (input: RelatedNoteInput, updated: string): ReadonlyArray<readonly [string, string]> => [
  ["source", yamlString(`[[${input.source.title}]]`)],
  ["query", yamlString(input.query)],
  ["keywords", `[${input.keywords.map(yamlString).join(", ")}]`],
  ["relevance_threshold", String(input.options.relevanceThreshold)],
  ["citations_per_year_threshold", String(input.options.citationsPerYearThreshold)],
  ["exempt_years", String(input.options.exemptYears)],
  ["judge", yamlString(input.judge)],
  [
    "impact_source",
    yamlString(candidateSources(input.candidates) ?? (input.impactSource === undefined ? "none" : describeSource(input.impactSource)))
  ],
  ["kept", String(input.survivors.length)],
  ["candidates", String(input.judged ?? input.candidates.length)],
  ["updated", updated],
  ["tags", tagList(companionTags(input.keywords))]
]

/** How many of the note's keywords (the most important first) become tags: the query may use twenty. */
export const TAGGED_KEYWORDS = 8

/** The tags the companion writes: its own two, then the note's first keywords as Obsidian tags. */
export const companionTags = (keywords: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...new Set(["arxiv-companion", "related-papers", ...keywords.slice(0, TAGGED_KEYWORDS).flatMap((k) => keywordTag(k) ?? [])])
]

/** A YAML flow list of tags; a tag YAML would read as something other than a plain word (true, 1e3, a: b) is quoted. */
const tagList = (tags: ReadonlyArray<string>): string =>
  `[${
    tags.map((t) => (/^[\p{L}_][\p{L}\p{N}_/-]*$/u.test(t) && !/^(?:true|false|null|yes|no|on|off|y|n)$/i.test(t) ? t : yamlString(t)))
      .join(", ")
  }]`

const wrapBlock = (block: string): string => `%% arxiv-companion:begin ${hash32(block)} %%\n${block}\n${END}`

/**
 * A note the companion generates: the block between its markers, and the
 * frontmatter keys it owns (given the `updated` time). Any generated note —
 * related papers, the answer to a question — is merged by the same rules.
 */
export interface GeneratedNote {
  /** The block's body, one line per line (no raw line breaks inside untrusted strings). */
  readonly block: string
  readonly frontmatter: (updated: string) => ReadonlyArray<readonly [string, string]>
}

/** The related-papers note of a companion run. */
export const relatedNote = (input: RelatedNoteInput): GeneratedNote => ({
  block: composeBlock(input),
  frontmatter: (updated) => managedFrontmatter(input, updated)
})

/** A whole new generated note: frontmatter, then the marked block. */
export const composeGenerated = (note: GeneratedNote, updated: string): string => {
  const fm = note.frontmatter(updated).map(([k, v]) => `${k}: ${v}`).join("\n")
  return `---\n${fm}\n---\n${wrapBlock(note.block)}\n`
}

/** A whole new related-papers note: frontmatter, then the marked block. */
export const composeNote = (input: RelatedNoteInput, updated: string): string => composeGenerated(relatedNote(input), updated)

/** The generated block found in a note, if any. */
export interface ExistingBlock {
  readonly block: string
  /** true when the text between the markers no longer matches the hash written with it */
  readonly editedByUser: boolean
  readonly start: number
  readonly end: number
}

/** Locate the generated block of an existing note. */
export const findBlock = (note: string): ExistingBlock | undefined => {
  const begin = BEGIN.exec(note)
  if (begin === null) return undefined
  const afterBegin = begin.index + begin[0].length
  const bodyStart = afterBegin + (note.startsWith("\r\n", afterBegin) ? 2 : 1)
  const endAt = note.indexOf(`\n${END}`, bodyStart - 1)
  if (endAt < 0) return undefined
  // CRLF line endings (Windows editors, git autocrlf) are not an edit: compare the block as written
  const block = note.slice(bodyStart, endAt).replace(/\r\n/g, "\n").replace(/\r$/, "")
  return {
    block,
    editedByUser: hash32(block) !== begin[1],
    start: begin.index,
    end: endAt + 1 + END.length
  }
}

/** A line continuing the previous key's value: indented, or a block-list item ("- a", which YAML allows unindented). */
const CONTINUATION = /^(?:[ \t]+\S|-(?:[ \t]|$))/

const unquote = (s: string): string => s.trim().replace(/^(["'])(.*)\1$/, "$2").trim()

/** The tags of a frontmatter: `tags: [a, b]`, `tags: a, b`, `tags: a` or a block list. */
const readTags = (frontmatter: string | undefined): ReadonlyArray<string> => {
  const lines = (frontmatter ?? "").split(/\r?\n/)
  const at = lines.findIndex((l) => /^tags:/.test(l))
  if (at < 0) return []
  const inline = lines[at]!.slice("tags:".length).trim()
  const items: Array<string> = []
  if (inline !== "") {
    items.push(...inline.replace(/^\[|\]$/g, "").split(","))
  }
  for (let i = at + 1; i < lines.length && CONTINUATION.test(lines[i]!); i++) {
    items.push(lines[i]!.trim().replace(/^-\s*/, ""))
  }
  return items.map(unquote).map((t) => t.replace(/^#/, "")).filter((t) => t !== "")
}

/**
 * Our tags first, then every tag the user added, once each. Tags made from
 * the keywords of the previous run (`previousKeywords`, read from our own
 * `keywords` property) are ours, not the user's: those no longer among the
 * keywords are dropped.
 */
const withUserTags = (
  managed: ReadonlyArray<readonly [string, string]>,
  existingTags: ReadonlyArray<string>,
  previousKeywords: ReadonlyArray<string> = []
): ReadonlyArray<readonly [string, string]> =>
  managed.map(([k, v]) => {
    if (k !== "tags") return [k, v] as const
    const ours = v.replace(/^\[|\]$/g, "").split(",").map(unquote)
    const stale = new Set(previousKeywords.flatMap((w) => keywordTag(w) ?? []))
    const all = [...new Set([...ours, ...existingTags.filter((t) => !stale.has(t))])]
    return [k, tagList(all)] as const
  })

/** The keywords a previous run recorded in its `keywords` property (a JSON-style list), or none. */
const previousKeywords = (value: string | undefined): ReadonlyArray<string> => {
  if (value === undefined) return []
  try {
    const list: unknown = JSON.parse(value)
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === "string") : []
  } catch {
    return []
  }
}

const readManaged = (frontmatter: string | undefined): Map<string, string> => {
  const out = new Map<string, string>()
  for (const line of (frontmatter ?? "").split(/\r?\n/)) {
    const m = /^([A-Za-z_][\w-]*):\s?(.*)$/.exec(line)
    if (m !== null) out.set(m[1]!, m[2]!)
  }
  return out
}

const mergeFrontmatter = (
  existing: string | undefined,
  managed: ReadonlyArray<readonly [string, string]>
): string => {
  const keys = new Map(managed)
  const kept: Array<string> = []
  const seen = new Set<string>()
  const lines = existing === undefined ? [] : existing.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const m = /^([A-Za-z_][\w-]*):/.exec(line)
    if (m !== null && keys.has(m[1]!)) {
      kept.push(`${m[1]}: ${keys.get(m[1]!)}`)
      seen.add(m[1]!)
      // drop a managed key's indented continuation lines (block lists)
      while (i + 1 < lines.length && CONTINUATION.test(lines[i + 1]!)) i++
      continue
    }
    kept.push(line)
  }
  for (const [k, v] of managed) if (!seen.has(k)) kept.push(`${k}: ${v}`)
  return kept.join("\n")
}

/** What to do with the generated note. */
export type MergeResult =
  | { readonly _tag: "Create"; readonly content: string }
  | { readonly _tag: "Update"; readonly content: string }
  | { readonly _tag: "Unchanged" }
  | { readonly _tag: "UserEdited"; readonly content: string }

/**
 * Merge a fresh result into the existing note (if any).
 *
 * - no note: Create.
 * - same block and same managed frontmatter (ignoring `updated`): Unchanged,
 *   nothing is written, so sync tools and git see no churn.
 * - user edited inside the block: UserEdited with a complete new note for a
 *   dated sibling; the existing note is left alone.
 * - otherwise: Update, replacing only the block and the managed keys; every
 *   other byte (user text before/after the block, other properties) is kept.
 */
export const mergeNote = (existing: string | undefined, input: RelatedNoteInput, now: string): MergeResult =>
  mergeGenerated(existing, relatedNote(input), now)

/** Merge any generated note into the existing one, by the rules of {@link mergeNote}. */
export const mergeGenerated = (existing: string | undefined, note: GeneratedNote, now: string): MergeResult => {
  if (existing === undefined) return { _tag: "Create", content: composeGenerated(note, now) }
  const found = findBlock(existing)
  const block = note.block
  if (found === undefined) {
    // a note with this name but no block: keep every byte of it, add our properties (so the
    // next identical run finds it unchanged) and append our block
    const userTags = readTags(splitFrontmatter(existing).frontmatter)
    const head = withFrontmatter(existing, withUserTags(note.frontmatter(now), userTags))
    const sep = head.endsWith("\n") ? "\n" : "\n\n"
    return { _tag: "Update", content: `${head}${sep}${wrapBlock(block)}\n` }
  }
  if (found.editedByUser) return { _tag: "UserEdited", content: composeGenerated(note, now) }
  const { frontmatter } = splitFrontmatter(existing)
  const current = readManaged(frontmatter)
  const userTags = readTags(frontmatter)
  const previous = previousKeywords(current.get("keywords"))
  const managedNow = withUserTags(note.frontmatter(current.get("updated") ?? now), userTags, previous)
  const sameFrontmatter = managedNow.every(([k, v]) => current.get(k) === v)
  if (found.block === block && sameFrontmatter) return { _tag: "Unchanged" }
  const managed = withUserTags(note.frontmatter(now), userTags, previous)
  const before = existing.slice(0, found.start)
  const after = existing.slice(found.end)
  return { _tag: "Update", content: `${withFrontmatter(before, managed)}${wrapBlock(block)}${after}` }
}

/** `text` with the managed keys merged into its frontmatter, or put in a new one. */
const withFrontmatter = (text: string, managed: ReadonlyArray<readonly [string, string]>): string => {
  const fm = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  return fm === null
    ? `---\n${mergeFrontmatter(undefined, managed)}\n---\n${text}`
    : `---\n${mergeFrontmatter(fm[1]!, managed)}\n---\n${text.slice(fm[0].length)}`
}
