/**
 * The demo note, written and shown: runs the built CLI (dist/cli.js) on a copy
 * of examples/vault — offline, or live against the loopback stand-ins
 * (recorded arXiv and OpenAlex answers, the scripted OpenAI-compatible judge)
 * — prints the Related Papers note it wrote, and with `--screenshot` draws it
 * as Obsidian would (Markdown to HTML, the ```mermaid block drawn by Mermaid)
 * in headless Chromium and saves a PNG.
 *
 *   npm run build
 *   node --import tsx scripts/demo-note.ts                                   # offline, Transformers note
 *   node --import tsx scripts/demo-note.ts --live --note "Word Embeddings" -- --categories ""
 *   node --import tsx scripts/demo-note.ts --live --note "Word Embeddings" --screenshot docs/related-papers-note.png \
 *     --from "Shared foundations" --to "Citation map" -- --categories "" --judge local --max-results 30
 *
 * Arguments after `--` go to `arxiv-companion run`. In live mode the arXiv
 * stand-in also serves the arXiv papers among the recorded OpenAlex records
 * (`openalexPapers`), which carry no arXiv categories: hence `--categories ""`.
 * `--from "<section>" --to "<section>"` clips the screenshot to those sections.
 * Needs Debian's chromium for `--screenshot` (see test/support/chromium.ts);
 * pngquant, when installed, makes the PNG smaller.
 */
import { execFile } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { marked } from "marked"
import { startArxivStandIn } from "../test/support/arxiv-standin.js"
import { servePage, withChromium } from "../test/support/chromium.js"
import { startLlmStandIn } from "../test/support/llm-standin.js"
import { startOpenAlexStandIn } from "../test/support/openalex-standin.js"

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const argv = process.argv.slice(2)
const dashDash = argv.indexOf("--")
const own = dashDash < 0 ? argv : argv.slice(0, dashDash)
const extra = dashDash < 0 ? [] : argv.slice(dashDash + 1)
const flag = (name: string) => own.includes(name)
const value = (name: string) => (own.includes(name) ? own[own.indexOf(name) + 1] : undefined)
const live = flag("--live")
const noteTitle = value("--note") ?? "Transformers Concept Note"
const screenshot = value("--screenshot")

// the --json report of a pool of 1000 candidates is 2–3 MB; execFile's default 1 MiB cut it off
const REPORT_BUFFER = 256 * 1024 * 1024

const run = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(process.execPath, [join(ROOT, "dist", "cli.js"), ...args], { env: { PATH: process.env["PATH"] ?? "", ...env }, timeout: 120_000, maxBuffer: REPORT_BUFFER }, (e, stdout, stderr) =>
      done({ code: e === null ? 0 : typeof e.code === "number" ? e.code : 1, stdout, stderr }))
  )

const work = mkdtempSync(join(tmpdir(), "arxiv-companion-demo-"))
const vault = join(work, "vault")
cpSync(join(ROOT, "examples", "vault"), vault, { recursive: true })
const stopping: Array<() => Promise<void>> = []
try {
  const env: Record<string, string> = { HOME: work }
  const args = ["run", `Find papers related to my '${noteTitle}'`, "--vault", vault, "--json", ...extra]
  if (live) {
    const arxiv = await startArxivStandIn({ corpus: "landmarks", padSearches: true, openalexPapers: true })
    const openalex = await startOpenAlexStandIn()
    const llm = await startLlmStandIn()
    stopping.push(() => arxiv.close(), () => openalex.close(), () => llm.close())
    Object.assign(env, {
      ARXIV_API_URL: arxiv.url,
      ARXIV_COMPANION_CONTACT: "demo@example.org",
      OPENALEX_API_URL: openalex.url,
      OPENALEX_API_KEY: "standin",
      LLM_BASE_URL: llm.url,
      LLM_MODEL: "scripted-judge",
      ARXIV_COMPANION_CACHE: "off"
    })
  } else {
    args.push("--offline")
  }
  const result = await run(args, env)
  if (result.code !== 0) throw new Error(`arxiv-companion exited ${result.code}: ${result.stderr}`)
  const report = JSON.parse(result.stdout) as { written: { path: string } }
  const note = readFileSync(join(vault, report.written.path), "utf8")
  process.stdout.write(note)
  if (screenshot !== undefined) {
    const out = resolve(screenshot)
    mkdirSync(dirname(out), { recursive: true })
    const page = await servePage(await obsidianLike(note))
    stopping.push(() => page.close())
    await withChromium(async (context) => {
      const tab = await context.newPage()
      await tab.setViewportSize({ width: 860, height: 800 })
      await tab.goto(page.url)
      await tab.waitForFunction(() => (globalThis as unknown as { rendered?: boolean }).rendered === true, undefined, { timeout: 60_000 })
      // from the top of one section to the top of the section after another (default: the whole note)
      const from = value("--from")
      const to = value("--to")
      const clip = from === undefined ? undefined : await tab.evaluate(([a, b]) => {
        const doc = (globalThis as unknown as { document: { querySelectorAll: (s: string) => ArrayLike<{ textContent: string | null; getBoundingClientRect: () => { top: number } }>; body: { scrollHeight: number } } }).document
        const headings = Array.from(doc.querySelectorAll("h2"))
        const start = headings.findIndex((h) => h.textContent === a)
        const end = headings.findIndex((h) => h.textContent === b)
        const top = headings[start]!.getBoundingClientRect().top - 10
        const bottom = end + 1 < headings.length ? headings[end + 1]!.getBoundingClientRect().top - 10 : doc.body.scrollHeight
        return { x: 0, y: top, width: 860, height: bottom - top }
      }, [from, to ?? from] as const)
      writeFileSync(out, await tab.screenshot(clip === undefined ? { fullPage: true, type: "png" } : { clip, type: "png", fullPage: true }))
    })
    // a palette PNG is a third of the size; pngquant is optional (apt-get install pngquant)
    const quantised = await new Promise<boolean>((done) =>
      execFile("pngquant", ["--quality", "70-90", "--speed", "1", "--force", "--output", out, out], (e) => done(e === null))
    )
    console.error(`screenshot: ${out}${quantised ? " (pngquant)" : ""}`)
  }
} finally {
  for (const stop of stopping.reverse()) await stop()
  rmSync(work, { recursive: true, force: true })
}

/** The note as Obsidian's reading view shows it: properties, comments hidden, links, callouts, Mermaid drawn. */
async function obsidianLike(note: string): Promise<string> {
  const fm = /^---\n([\s\S]*?)\n---\n/.exec(note)
  const properties = (fm?.[1] ?? "").split("\n").map((line) => {
    const at = line.indexOf(":")
    return `<tr><td>${escape(line.slice(0, at))}</td><td>${escape(line.slice(at + 1).trim())}</td></tr>`
  }).join("")
  const body = note.slice(fm?.[0].length ?? 0)
    .replace(/%%[\s\S]*?%%/g, "")
    .replace(/\[\[([^\]|]+)\|([^\]]+)\]\]/g, "<a class=\"internal\">$2</a>")
    .replace(/\[\[([^\]]+)\]\]/g, "<a class=\"internal\">$1</a>")
    .replace(/^> \[!(\w+)\] (.*)$/m, "> **$2**")
  const renderer = new marked.Renderer()
  const code = renderer.code.bind(renderer)
  renderer.code = (token) => (token.lang === "mermaid" ? `<pre class="mermaid">${escape(token.text)}</pre>` : code(token))
  const html = await marked.parse(body, { renderer })
  return `<!doctype html><html><head><meta charset="utf-8"><style>
    body { font: 15px/1.55 -apple-system, "Segoe UI", "Noto Sans", "DejaVu Sans", sans-serif; color: #222; max-width: 800px; margin: 20px auto; padding: 0 20px; }
    h1 { font-size: 1.6em; } h2 { font-size: 1.25em; border-bottom: 1px solid #eee; padding-bottom: 2px; margin-top: 1.4em; } h3 { font-size: 1.05em; }
    a, a.internal { color: #705dcf; text-decoration: none; } blockquote { border-left: 3px solid #086ddd; background: #f3f8fe; margin: 0; padding: 6px 12px; }
    table { border-collapse: collapse; font-size: 13px; } td, th { border: 1px solid #ddd; padding: 2px 6px; vertical-align: top; }
    table.props td:first-child { color: #888; white-space: nowrap; } code { background: #f4f4f4; padding: 0 3px; }
    pre.mermaid { background: #fff; text-align: center; }
  </style></head><body><table class="props">${properties}</table>${html}
  <script src="/mermaid.min.js"></script>
  <script>mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
    mermaid.run({ querySelector: "pre.mermaid" }).then(() => { window.rendered = true });</script></body></html>`
}

function escape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
}
