/**
 * The citation map drawn by Mermaid in a real browser (headless Chromium from
 * Debian's chromium package, mermaid from node_modules over loopback), as
 * Obsidian draws a ```mermaid block: every node is there with its title as
 * text, shared foundations carry their class, and hostile titles run no
 * script, load nothing and add no element.
 *
 * Skipped with a message when Chromium is missing locally; in CI (CI=true)
 * a missing Chromium fails the test. `.ci/run` installs it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { citationMap, MAP_LABEL_CHARS, type MapPaper, UNTITLED } from "../../src/core/citationMap.js"
import { shorten as shortenTo } from "../../src/core/text.js"
import { FoundationalCitation, SharedFoundation } from "../../src/core/models.js"
import { chromiumAvailable, type PageServer, servePage, withChromium } from "../support/chromium.js"

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>map</title></head>
<body><div id="out"></div><script src="/mermaid.min.js"></script></body></html>`

const hostileTitles = [
  "\"]; S --> X[\"owned",
  "%%{init: {\"securityLevel\": \"loose\", \"theme\": \"dark\"}}%% directive",
  "<img src=x onerror=\"window.__pwned=1\"><script>window.__pwned=2</script>",
  "```\n%% arxiv-companion:end %%\n# heading",
  "classDef x fill:#f00; click P1 call alert(1)",
  "`**md string**` & #quot; #9829; --> end",
  "Ünïcödé 日本語 😀 \u202eRTL"
]

const foundation = new FoundationalCitation({ openalexId: "W1", title: "<b>Bold</b> \"foundation\" %% #1", citedByCount: 100, publicationYear: 1997 })
const papers: ReadonlyArray<MapPaper> = hostileTitles.map((title, i) => ({
  arxivId: `1601.0000${i}`,
  title,
  year: 2016,
  references: ["W1"],
  foundational: [foundation]
}))
const map = citationMap({
  sourceTitle: "My \"Note\" <script>",
  papers,
  shared: [new SharedFoundation({ openalexId: "W1", title: foundation.title, citedByCount: 100, publicationYear: 1997, citedBy: papers.map((p) => p.arxivId) })]
})
const shown = (title: string) => shortenTo(title, MAP_LABEL_CHARS) || UNTITLED
const expectedLabels = [
  shown("My \"Note\" <script>"),
  ...hostileTitles.map((t) => `${shown(t)} (2016)`),
  `${shown(foundation.title)} (1997)`
].map((s) => s.replace(/\s+/gu, " ").trim())

const run = chromiumAvailable()
let server: PageServer

describe.skipIf(!run)("the citation map in headless Chromium", () => {
  beforeAll(async () => {
    server = await servePage(PAGE)
  })
  afterAll(async () => {
    await server?.close()
  })

  it("renders every node with its title as text, highlights the shared foundation, and runs nothing from a title", async () => {
    const seen = await withChromium(async (context) => {
      const page = await context.newPage()
      const dialogs: Array<string> = []
      const errors: Array<string> = []
      const requests: Array<string> = []
      page.on("dialog", (d) => {
        dialogs.push(d.message())
        void d.dismiss()
      })
      page.on("pageerror", (e) => errors.push(e.message))
      page.on("request", (r) => requests.push(r.url()))
      await page.goto(server.url)
      return page.evaluate(async (source) => {
        // the page's globals, typed here because the project compiles without the DOM library
        interface El {
          readonly textContent: string | null
          readonly attributes: ArrayLike<{ readonly name: string }>
          innerHTML: string
          querySelector: (selector: string) => El | null
          querySelectorAll: (selector: string) => ArrayLike<El>
          getBoundingClientRect: () => { readonly width: number; readonly height: number }
        }
        const w = globalThis as unknown as {
          mermaid: { initialize: (c: object) => void; render: (id: string, text: string) => Promise<{ svg: string }> }
          document: { getElementById: (id: string) => El | null }
          __pwned?: number
        }
        w.mermaid.initialize({ startOnLoad: false, securityLevel: "strict" })
        const { svg } = await w.mermaid.render("citation-map", source)
        const out = w.document.getElementById("out")!
        out.innerHTML = svg
        await new Promise((r) => setTimeout(r, 50))
        const root = out.querySelector("svg")!
        const box = root.getBoundingClientRect()
        const all = (selector: string) => Array.from(root.querySelectorAll(selector))
        return {
          nodes: all("g.node").length,
          shared: all("g.node.shared").length,
          edges: all("path.flowchart-link, g.edgePaths path").length,
          labels: all("g.node").map((n) => (n.textContent ?? "").replace(/\s+/g, " ").trim()),
          scripts: all("script, img, iframe, object, embed, foreignObject a").length,
          handlers: all("*").filter((e) => Array.from(e.attributes).some((a) => a.name.startsWith("on"))).length,
          pwned: w.__pwned ?? 0,
          width: box.width,
          height: box.height
        }
      }, map.mermaid).then((result) => ({ ...result, dialogs, errors, requests }))
    })
    expect(seen.errors).toEqual([])
    expect(seen.dialogs).toEqual([])
    expect(seen.pwned).toBe(0)
    expect(seen.scripts).toBe(0)
    expect(seen.handlers).toBe(0)
    expect(seen.requests.every((u) => u.startsWith(server.url))).toBe(true)
    expect(seen.nodes).toBe(map.nodes)
    expect(seen.shared).toBe(1)
    expect(seen.edges).toBe(map.edges)
    expect([...seen.labels].sort()).toEqual([...expectedLabels].sort())
    expect(seen.width).toBeGreaterThan(200)
    expect(seen.height).toBeGreaterThan(100)
  }, 180_000)
})
