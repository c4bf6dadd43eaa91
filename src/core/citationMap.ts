/**
 * The citation map: a Mermaid flowchart Obsidian draws natively. The source
 * note is the root, the kept papers hang from it, and each paper points at
 * the foundations it cites; shared foundations (cited by two or more kept
 * papers) are highlighted.
 *
 * Titles are untrusted text. Every label is written as a quoted Mermaid
 * string in which only letters, digits, spaces and `,.'()-?!/+` appear as
 * themselves; every other character is a Mermaid entity code (`#35;`), so no
 * title can close its label, start a comment or directive (`%%`), add an
 * edge (`-->`), inject HTML or a Markdown string, or end the code fence. A
 * colon is encoded too: Mermaid strips the last `;` of any line holding
 * `style…:…#…;` or `classDef…:…#…;` before it reads entity codes, which would
 * garble a title such as "classDef x fill:#f00".
 * Node ids are generated (S, P1…, F1…), never taken from the data.
 *
 * @since 0.2.0
 */
import type { FoundationalCitation, SharedFoundation } from "./models.js"
import { shorten } from "./text.js"

/** Nodes drawn at most (the source note, the kept papers, then foundations, most cited first). */
export const MAP_MAX_NODES = 30
/** Kept papers drawn at most, so foundations keep room. */
export const MAP_MAX_PAPERS = 15
/** Longest label, in characters, before it is shortened on a word boundary. */
export const MAP_LABEL_CHARS = 60

/** A kept paper as the map draws it. */
export interface MapPaper {
  readonly arxivId: string
  /** Its OpenAlex id, so another kept paper citing it points at its node. */
  readonly openalexId?: string | undefined
  readonly title: string
  readonly year?: number | undefined
  /** Every work it cites (OpenAlex ids), when known. */
  readonly references?: ReadonlyArray<string> | undefined
  /** Its most cited references, as listed in the note. */
  readonly foundational: ReadonlyArray<FoundationalCitation>
}

/** What the map is drawn from. */
export interface CitationMapInput {
  readonly sourceTitle: string
  readonly papers: ReadonlyArray<MapPaper>
  readonly shared: ReadonlyArray<SharedFoundation>
  readonly maxNodes?: number | undefined
}

/** The map and what it left out. */
export interface CitationMap {
  /** The flowchart source (the body of a ```mermaid block). */
  readonly mermaid: string
  readonly nodes: number
  readonly edges: number
  readonly omittedPapers: number
  readonly omittedFoundations: number
}

const SAFE = /^[\p{L}\p{N} ,.'()\-?!/+]$/u

/**
 * Text as the inside of a quoted Mermaid label: one line, and every
 * character outside a small safe set written as an entity code.
 */
export const mermaidText = (text: string): string => {
  let out = ""
  for (const ch of text.replace(/\s+/gu, " ").trim()) {
    out += SAFE.test(ch) ? ch : `#${ch.codePointAt(0)!};`
  }
  return out
}

/** What a label says for an empty title (Mermaid rejects an empty quoted label). */
export const UNTITLED = "(untitled)"

const label = (title: string, year: number | undefined): string =>
  `"${mermaidText(`${shorten(title, MAP_LABEL_CHARS) || UNTITLED}${year === undefined ? "" : ` (${year})`}`)}"`

interface FoundationNode {
  readonly id: string
  readonly title: string
  readonly year: number | undefined
  readonly citedByCount: number
  readonly shared: boolean
}

/** The citation map of the kept papers. Deterministic for the same input. */
export const citationMap = (input: CitationMapInput): CitationMap => {
  const maxNodes = Math.max(1, input.maxNodes ?? MAP_MAX_NODES)
  const papers = input.papers.slice(0, Math.min(MAP_MAX_PAPERS, maxNodes - 1))
  const paperNode = new Map<string, string>()
  papers.forEach((p, i) => {
    paperNode.set(`arxiv:${p.arxivId}`, `P${i + 1}`)
    if (p.openalexId !== undefined) paperNode.set(p.openalexId, `P${i + 1}`)
  })

  // foundations: shared ones first (already ranked), then each paper's top references, most cited first
  const candidates = new Map<string, FoundationNode>()
  for (const f of input.shared) {
    if (paperNode.has(f.openalexId)) continue
    // a shared work OpenAlex could not resolve is still drawn: two papers citing the same unknown work says something
    const title = f.title ?? `OpenAlex ${f.openalexId} (title not recorded)`
    candidates.set(f.openalexId, { id: f.openalexId, title, year: f.publicationYear, citedByCount: f.citedByCount ?? 0, shared: true })
  }
  const others = papers.flatMap((p) => p.foundational)
    .filter((c) => !candidates.has(c.openalexId) && !paperNode.has(c.openalexId))
    .sort((a, b) => b.citedByCount - a.citedByCount || a.openalexId.localeCompare(b.openalexId))
  for (const c of others) {
    if (!candidates.has(c.openalexId)) {
      candidates.set(c.openalexId, { id: c.openalexId, title: c.title, year: c.publicationYear, citedByCount: c.citedByCount, shared: false })
    }
  }
  const room = Math.max(0, maxNodes - 1 - papers.length)
  const drawn = [...candidates.values()].slice(0, room)
  const foundationNode = new Map(drawn.map((f, i) => [f.id, `F${i + 1}`]))

  const lines: Array<string> = ["flowchart LR", `  S[${label(input.sourceTitle, undefined)}]`]
  papers.forEach((p, i) => lines.push(`  P${i + 1}[${label(p.title, p.year)}]`))
  drawn.forEach((f, i) => lines.push(`  F${i + 1}[${label(f.title, f.year)}]`))
  const edges: Array<string> = []
  papers.forEach((_, i) => edges.push(`  S --> P${i + 1}`))
  papers.forEach((p, i) => {
    const cites = new Set([...(p.references ?? []), ...p.foundational.map((c) => c.openalexId)])
    const targets: Array<string> = []
    for (const id of cites) {
      const node = foundationNode.get(id) ?? paperNode.get(id)
      if (node !== undefined && node !== `P${i + 1}` && !targets.includes(node)) targets.push(node)
    }
    targets.sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    for (const t of targets) edges.push(`  P${i + 1} --> ${t}`)
  })
  lines.push(...edges)
  lines.push(
    "  classDef source fill:#e7f5ff,stroke:#1c7ed6,color:#000",
    "  classDef paper fill:#f8f9fa,stroke:#495057,color:#000",
    "  classDef foundation fill:#fff,stroke:#868e96,color:#000",
    "  classDef shared fill:#fff3bf,stroke:#f08c00,stroke-width:3px,color:#000",
    "  class S source"
  )
  if (papers.length > 0) lines.push(`  class ${papers.map((_, i) => `P${i + 1}`).join(",")} paper`)
  const plain = drawn.flatMap((f, i) => (f.shared ? [] : [`F${i + 1}`]))
  const shared = drawn.flatMap((f, i) => (f.shared ? [`F${i + 1}`] : []))
  if (plain.length > 0) lines.push(`  class ${plain.join(",")} foundation`)
  if (shared.length > 0) lines.push(`  class ${shared.join(",")} shared`)
  return {
    mermaid: lines.join("\n"),
    nodes: 1 + papers.length + drawn.length,
    edges: edges.length,
    omittedPapers: input.papers.length - papers.length,
    omittedFoundations: candidates.size - drawn.length
  }
}
