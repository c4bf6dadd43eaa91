/**
 * The digest's two notes, composed and read back. Pure.
 *
 * - `arXiv Digest YYYY-MM-DD.md` (vault root): an overview (notes covered,
 *   new papers, the best few across the vault), a section per concept note
 *   (`## [[note]]`, its new papers with summary, relevance and why, each with
 *   a "not for me" box), the notes with nothing new on one line, the notes not
 *   searched with why.
 * - `arXiv Companion/Digest State.md`: the companion's record of each concept
 *   note's last digest date, the papers rejected per note (so a rejection
 *   survives deleting the digest it was made in), and the results of a digest
 *   still in progress (so an interrupted digest resumes). A table for people,
 *   and the same as JSON in a fenced block for the companion.
 *
 * Both are generated notes: a managed block between the companion's markers,
 * written by the safe-write rules of writeBack.ts.
 *
 * @since 0.4.0
 */
import { absUrl } from "./arxiv.js"
import { type GeneratedNote, findBlock, yamlString } from "./compose.js"
import { NOT_FOR_ME, type VerdictPaper } from "./digestVerdicts.js"
import { mdInline } from "./markdown.js"
import { isLinkable } from "./vaultLinks.js"

/** The digest note's title for a day. */
export const digestTitle = (date: string): string => `arXiv Digest ${date}`
/** Whether a title is a digest note's (or one of its dated or numbered siblings). */
export const isDigestTitle = (title: string): boolean => /^arXiv Digest \d{4}-\d{2}-\d{2}(?: \(.*\))?$/.test(title.trim())
/** The folder of the companion's own notes. */
export const COMPANION_FOLDER = "arXiv Companion"
/** Where the state note lives. */
export const STATE_PATH = `${COMPANION_FOLDER}/Digest State.md`
/** Whether a path is the state note's (or a dated sibling's). */
export const isStatePath = (path: string): boolean => path.startsWith(`${COMPANION_FOLDER}/Digest State`) && path.endsWith(".md")

/** How many papers the overview names as the best of the digest. */
export const BEST_FEW = 5

/** One new paper of a note's digest. */
export interface DigestPaper {
  readonly arxivId: string
  readonly title: string
  readonly authors: ReadonlyArray<string>
  readonly published: string
  /** The relevance the keep rule saw: the judge's, moved by the note's profile. */
  readonly relevance: number
  readonly judgeRelevance: number
  /** What the profile added (+) or took (−). */
  readonly shift: number
  readonly rationale: string
  readonly summary: string
  /** Why it passed the impact bar (the rule's own reason). */
  readonly impact: string
}

/** A concept note's part of a digest. */
export interface NoteDigest {
  readonly path: string
  readonly title: string
  /** The first-version date searched from. */
  readonly since: string
  readonly query: string
  /** Papers judged (the vault's and the rejected left out before). */
  readonly candidates: number
  /** Papers the search found that the vault already holds, or the student rejected for this note. */
  readonly alreadyHeld: number
  readonly rejected: number
  readonly papers: ReadonlyArray<DigestPaper>
  /** The profile learnt for this note: how many kept and rejected papers it learnt from. */
  readonly profile: { readonly kept: number; readonly rejected: number }
}

/** A concept note that was not searched, and why. */
export interface SkippedNote {
  readonly path: string
  readonly title: string
  readonly reason: string
}

/** What a digest note shows. */
export interface DigestContent {
  readonly date: string
  /** The --since the digest was asked for (else each note's last digest). */
  readonly since?: string | undefined
  readonly judge: string
  /** The least relevance a paper needed to be announced (absent: the run's bar, not said). */
  readonly relevance?: number | undefined
  /** The concept gate the digest used (digestAnnounce.ts; absent or "none": said nothing of). */
  readonly gate?: "none" | "any" | "half" | undefined
  /** The most papers announced per note (digestAnnounce.ts; absent: the run's cap, said nothing of). */
  readonly cap?: number | undefined
  readonly notes: ReadonlyArray<NoteDigest>
  readonly skipped: ReadonlyArray<SkippedNote>
}

const num = (n: number): string => n.toFixed(2)
const signed = (n: number): string => `${n >= 0 ? "+" : "−"}${Math.abs(n).toFixed(2)}`

/** How a section names its note: `[[Title]]`, or `[[folder/Title]]` when two selected notes share the title. */
export const sectionLinks = (notes: ReadonlyArray<{ readonly path: string; readonly title: string }>): ReadonlyMap<string, string> => {
  const count = new Map<string, number>()
  for (const n of notes) count.set(n.title, (count.get(n.title) ?? 0) + 1)
  return new Map(notes.map((n) => {
    const target = (count.get(n.title) ?? 0) > 1 ? n.path.replace(/\.md$/, "") : n.title
    return [n.path, isLinkable(target) ? `[[${target}]]` : mdInline(n.title)]
  }))
}

const authorsLine = (authors: ReadonlyArray<string>): string =>
  authors.length === 0 ? "" : ` · ${mdInline(authors.length > 3 ? `${authors.slice(0, 3).join(", ")} et al.` : authors.join(", "))}`

/** The best few papers across the vault: by the relevance the keep rule saw, then id. */
export const bestOf = (notes: ReadonlyArray<NoteDigest>, n = BEST_FEW) =>
  notes.flatMap((d) => d.papers.map((p) => ({ note: d, paper: p })))
    .sort((a, b) => b.paper.relevance - a.paper.relevance || a.paper.arxivId.localeCompare(b.paper.arxivId) || a.note.path.localeCompare(b.note.path))
    .slice(0, n)

/** The digest note's block. */
export const digestBlock = (c: DigestContent): string => {
  const links = sectionLinks([...c.notes, ...c.skipped])
  const withNew = c.notes.filter((d) => d.papers.length > 0)
  const nothing = c.notes.filter((d) => d.papers.length === 0)
  const total = withNew.reduce((s, d) => s + d.papers.length, 0)
  const lines: Array<string> = [`# ${digestTitle(c.date)}`, ""]
  const from = c.since === undefined ? "since each note's last digest" : `first submitted since ${c.since}`
  lines.push(
    `${c.notes.length} concept note${c.notes.length === 1 ? "" : "s"} searched for papers ${from}: ` +
      `${total} new paper${total === 1 ? "" : "s"} for ${withNew.length} of them, kept by the companion's rules ` +
      `(relevance${c.relevance === undefined ? "" : ` at least ${num(c.relevance)}`} and impact; judge: ${mdInline(c.judge)}). ` +
      (c.gate === "half"
        ? "A paper is announced only when its title or first sentence names at least half of its note's title words. "
        : c.gate === "any"
        ? "A paper is announced only when its title or first sentence names one of its note's title words. "
        : "") +
      (c.cap === undefined ? "" : `At most ${c.cap} papers a note are announced, the most relevant first. `) +
      "Papers your vault already holds are not announced again.",
    ""
  )
  lines.push(
    `> To reject a paper for a note, tick its "${NOT_FOR_ME}" box (\`- [x] ${NOT_FOR_ME}\`) or strike its line through ` +
      "(`~~…~~`). It is never suggested again for that note, and papers like it move down in that note's later digests; " +
      "papers like the ones the note links or keeps in its Related Papers note move up.",
    ""
  )
  const best = bestOf(withNew)
  if (best.length > 0) {
    lines.push("## Best of this digest", "")
    best.forEach(({ note, paper }, i) => {
      lines.push(`${i + 1}. [${mdInline(paper.title)}](${absUrl(paper.arxivId)}) — for ${links.get(note.path)}, relevance ${num(paper.relevance)}`)
    })
    lines.push("")
  }
  for (const d of withNew) {
    lines.push(`## ${links.get(d.path)}`, "")
    const verdicts = d.profile.kept + d.profile.rejected === 0
      ? ""
      : ` · profile from ${d.profile.kept} kept and ${d.profile.rejected} rejected paper${d.profile.kept + d.profile.rejected === 1 ? "" : "s"}`
    const held = d.alreadyHeld + d.rejected === 0 ? "" : ` · ${d.alreadyHeld + d.rejected} already in your vault or rejected, left out`
    lines.push(`Since ${d.since} · ${d.candidates} candidates judged · ${d.papers.length} new${held}${verdicts}`, "")
    for (const p of d.papers) {
      lines.push(`- **[${mdInline(p.title)}](${absUrl(p.arxivId)})** · arXiv:${p.arxivId} · ${p.published}${authorsLine(p.authors)}`)
      const moved = p.shift === 0 ? "" : ` (judge ${num(p.judgeRelevance)}, ${signed(p.shift)} from your verdicts)`
      lines.push(`  - Relevance ${num(p.relevance)}${moved} · ${mdInline(p.impact)}`)
      if (p.rationale.trim() !== "") lines.push(`  - Why: ${mdInline(p.rationale)}`)
      if (p.summary.trim() !== "") lines.push(`  - Summary: ${mdInline(p.summary)}`)
      lines.push(`  - [ ] ${NOT_FOR_ME}`)
    }
    lines.push("")
  }
  if (nothing.length > 0) {
    lines.push("## Nothing new", "", nothing.map((d) => links.get(d.path)).join(" · "), "")
  }
  if (c.skipped.length > 0) {
    lines.push("## Not searched", "")
    for (const s of c.skipped) lines.push(`- ${links.get(s.path)}: ${mdInline(s.reason)}`)
    lines.push("")
  }
  return lines.join("\n").replace(/\n+$/, "")
}

/** The digest note: its block and the frontmatter keys the companion owns. */
export const digestNote = (c: DigestContent): GeneratedNote => ({
  block: digestBlock(c),
  frontmatter: (updated) => [
    ["digest_date", c.date],
    ["since", yamlString(c.since ?? "last digest")],
    ["notes", String(c.notes.length)],
    ["new_papers", String(c.notes.reduce((s, d) => s + d.papers.length, 0))],
    ["judge", yamlString(c.judge)],
    ["updated", updated],
    ["tags", "[arxiv-companion, arxiv-digest]"]
  ]
})

// ---------------------------------------------------------------------------
// The state note

/** The companion's digest record. */
export interface DigestState {
  /** Note path → the date of its last digest (YYYY-MM-DD). */
  readonly last: Readonly<Record<string, string>>
  /** Note path → the papers rejected for it, with the words the digest showed of them. */
  readonly rejected: Readonly<Record<string, ReadonlyArray<VerdictPaper>>>
  /** A digest started and not finished: what it was asked (`key`) and the notes it finished. */
  readonly pending?: {
    readonly key: string
    readonly date: string
    readonly done: ReadonlyArray<NoteDigest>
    readonly skipped: ReadonlyArray<SkippedNote>
  } | undefined
}

export const emptyState: DigestState = { last: {}, rejected: {} }

/** JSON that cannot close the fence it sits in nor open an Obsidian comment. */
const safeJson = (value: unknown): string =>
  JSON.stringify(value, null, 1).replace(/`/g, "\\u0060").replace(/%/g, "\\u0025").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")

const FENCE = "```json"

/** The state note's block: a table of the notes' last digests, then the record as JSON. */
export const stateBlock = (s: DigestState): string => {
  const lines = [
    "# Digest state",
    "",
    "The arXiv Digest's record of each concept note's last digest: the next digest searches each note for papers first " +
      "submitted since its date here. Written by arxiv-companion; delete this note to start every note afresh.",
    ""
  ]
  const paths = Object.keys(s.last).sort()
  if (paths.length > 0) {
    lines.push("| Note | Last digest | Rejected papers |", "| --- | --- | --- |")
    for (const p of paths) lines.push(`| ${mdInline(p)} | ${s.last[p]} | ${(s.rejected[p] ?? []).length} |`)
    lines.push("")
  }
  if (s.pending !== undefined) {
    lines.push(`A digest started on ${s.pending.date} is in progress: ${s.pending.done.length} notes done. The next digest with the same selection resumes it.`, "")
  }
  lines.push(FENCE, safeJson({ version: 1, ...s }), "```")
  return lines.join("\n")
}

/** The state note. */
export const stateNote = (s: DigestState): GeneratedNote => ({
  block: stateBlock(s),
  frontmatter: (updated) => [["updated", updated], ["tags", "[arxiv-companion, arxiv-digest-state]"]]
})

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * The record a state note holds, or undefined when it holds none the
 * companion can read (no block, no JSON, another version).
 */
export const readState = (text: string): DigestState | undefined => {
  const block = findBlock(text.replace(/\r\n/g, "\n"))?.block
  if (block === undefined) return undefined
  const start = block.indexOf(`${FENCE}\n`)
  const end = block.indexOf("\n```", start + FENCE.length)
  if (start < 0 || end < 0) return undefined
  try {
    const parsed: unknown = JSON.parse(block.slice(start + FENCE.length + 1, end))
    if (!isRecord(parsed) || parsed["version"] !== 1 || !isRecord(parsed["last"]) || !isRecord(parsed["rejected"])) return undefined
    const last = Object.fromEntries(Object.entries(parsed["last"]).filter((e): e is [string, string] => typeof e[1] === "string" && /^\d{4}-\d{2}-\d{2}$/.test(e[1])))
    const rejected = Object.fromEntries(Object.entries(parsed["rejected"]).flatMap(([k, v]) =>
      Array.isArray(v)
        ? [[k, v.filter((p): p is VerdictPaper => isRecord(p) && typeof p["arxivId"] === "string" && typeof p["text"] === "string")]]
        : []
    ))
    const pending = parsed["pending"]
    return {
      last,
      rejected,
      ...(isRecord(pending) && typeof pending["key"] === "string" && typeof pending["date"] === "string" && Array.isArray(pending["done"])
        ? {
          pending: {
            key: pending["key"],
            date: pending["date"],
            done: pending["done"] as ReadonlyArray<NoteDigest>,
            skipped: Array.isArray(pending["skipped"]) ? pending["skipped"] as ReadonlyArray<SkippedNote> : []
          }
        }
        : {})
    }
  } catch {
    return undefined
  }
}

/** Several records (the state note and its dated siblings) as one: the latest date per note, every rejection. */
export const mergeStates = (states: ReadonlyArray<DigestState>): DigestState => {
  const last: Record<string, string> = {}
  const rejected: Record<string, Array<VerdictPaper>> = {}
  let pending: DigestState["pending"]
  for (const s of states) {
    for (const [p, d] of Object.entries(s.last)) if (last[p] === undefined || d > last[p]!) last[p] = d
    for (const [p, list] of Object.entries(s.rejected)) {
      const into = rejected[p] ?? (rejected[p] = [])
      for (const r of list) if (!into.some((x) => x.arxivId === r.arxivId)) into.push(r)
    }
    if (s.pending !== undefined && (pending === undefined || s.pending.done.length > pending.done.length)) pending = s.pending
  }
  return { last, rejected, ...(pending === undefined ? {} : { pending }) }
}
