/**
 * Mermaid's own parser in Node, for the citation-map tests.
 *
 * `mermaid.parse` sanitises labels with DOMPurify, which needs a `window`:
 * a happy-dom Window is installed as the global before mermaid is imported
 * (vitest runs each test file in its own process, so no other file sees it).
 * Nothing is rendered here; the browser test (test/core/citation-map-browser.test.ts)
 * draws the diagram in headless Chromium.
 */
import type { Mermaid } from "mermaid"

let loaded: Promise<Mermaid> | undefined

/** Mermaid, loaded once per test file over a happy-dom window. */
export const loadMermaid = (): Promise<Mermaid> =>
  (loaded ??= (async () => {
    const { Window } = await import("happy-dom")
    const window = new Window()
    Object.assign(globalThis, { window, document: window.document })
    const mermaid = (await import("mermaid")).default
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict" })
    // the first parse registers the diagram types
    await mermaid.parse("flowchart LR\n  a --> b")
    return mermaid
  })())

/** A node of a parsed flowchart: its id, its label with Mermaid's entity codes decoded, and its classes. */
export interface ParsedNode {
  readonly id: string
  readonly label: string
  readonly classes: ReadonlyArray<string>
}

/** A parsed flowchart as Mermaid's own database holds it. */
export interface ParsedFlowchart {
  readonly type: string
  /** Configuration Mermaid read from directives in the text (must stay empty for our maps). */
  readonly config: Record<string, unknown>
  readonly nodes: ReadonlyArray<ParsedNode>
  readonly edges: ReadonlyArray<{ readonly from: string; readonly to: string }>
}

const NAMED: Record<string, string> = { quot: "\"", amp: "&", lt: "<", gt: ">", nbsp: "\u00a0", apos: "'" }

/**
 * Mermaid keeps entity codes (`#35;`, `#quot;`) in its database as
 * placeholders until it renders; decode them as the renderer would.
 */
const decodePlaceholders = (text: string): string =>
  text
    .replace(/ﬂ°°(\d+)¶ß/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/ﬂ°(\w+)¶ß/g, (m, name: string) => NAMED[name] ?? m)

/** Parse `source` with Mermaid (throws Mermaid's own parse error) and read back its nodes and edges. */
export const parseFlowchart = async (source: string): Promise<ParsedFlowchart> => {
  const mermaid = await loadMermaid()
  const result = await mermaid.parse(source)
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(source)
  const db = diagram.db as unknown as {
    getVertices: () => Map<string, { id: string; text?: string; classes: Array<string> }>
    getEdges: () => Array<{ start: string; end: string }>
  }
  return {
    type: result.diagramType,
    config: (result.config ?? {}) as Record<string, unknown>,
    nodes: [...db.getVertices().values()].map((v) => ({ id: v.id, label: decodePlaceholders(v.text ?? ""), classes: v.classes })),
    edges: db.getEdges().map((e) => ({ from: e.start, to: e.end }))
  }
}
