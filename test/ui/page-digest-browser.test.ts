/**
 * The page's Digest button in headless Chromium (Debian's chromium through playwright-core), against the
 * built CLI's `ui` offline over a copy of examples/vault: the digest is written into the vault and the page
 * lists the new papers per note.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, openChromium } from "../support/chromium.js"
import { request, startUi, type UiProcess } from "../support/ui.js"

const root = join(import.meta.dirname, "..", "..")

let work: string
let vault: string
let ui: UiProcess
let browser: Awaited<ReturnType<typeof openChromium>>

describe.skipIf(!chromiumAvailable())("the page's Digest button, offline, in headless Chromium", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "companion-ui-digest-"))
    vault = join(work, "vault")
    cpSync(join(root, "examples", "vault"), vault, { recursive: true })
    rmSync(join(vault, "Transformers Concept Note — Related Papers.md"), { force: true })
    ui = await startUi(["--offline", "--vault", vault])
    browser = await openChromium()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await ui?.stop("SIGKILL")
    rmSync(work, { recursive: true, force: true })
  })

  it("writes the digest and lists the new papers per note, the notes not searched with why", async () => {
    const page = await browser.context.newPage()
    const errors: Array<string> = []
    page.on("pageerror", (e) => errors.push(e.message))
    await page.goto(ui.url)
    await page.getByLabel("New since").fill("2016-06-01")
    await page.getByRole("button", { name: "Digest", exact: true }).click()
    await page.getByRole("heading", { name: "Results", exact: true }).waitFor({ timeout: 110_000 })
    await page.locator("#digest:enabled").waitFor({ timeout: 30_000 })
    const today = new Date().toISOString().slice(0, 10)
    expect(await page.locator("#summary").textContent()).toMatch(new RegExp(`^Wrote arXiv Digest ${today}\\.md: 4 concept notes searched, \\d+ new papers\\.`))
    const notes = await page.locator("#cards section.digest-note h3").allTextContents()
    // the notes with new papers, as the digest note written has them (the digest's title check leaves some of the
    // four concept notes with nothing new)
    const written = readFileSync(join(vault, `arXiv Digest ${today}.md`), "utf8")
    const sections = [...written.matchAll(/^## \[\[([^\]]+)\]\]$/gm)].map((m) => m[1]!)
    expect(notes.length).toBeGreaterThanOrEqual(2)
    expect(notes.sort()).toEqual(sections.sort())
    for (const n of notes) expect(["Generative Adversarial Networks", "Reading List", "Transformers Concept Note", "Word Embeddings"]).toContain(n)
    // every listed paper is a link to arXiv, and each is in the note the digest wrote
    const links = await page.locator("#cards section.digest-note li a").evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href))
    expect(links.length).toBeGreaterThan(4)
    const digest = readFileSync(join(vault, `arXiv Digest ${today}.md`), "utf8")
    for (const href of links) {
      expect(href).toMatch(/^https:\/\/arxiv\.org\/abs\/\d{4}\.\d{4,5}$/)
      expect(digest).toContain(`(${href})`)
    }
    expect(await page.locator(".digest-skipped li").allTextContents()).toEqual([expect.stringMatching(/^Quick Idea\.md: yields 1 keyword/)])
    // the progress log said the plan and each note
    const log = await page.locator("#progress li").allTextContents()
    expect(log).toContain("Digest: 4 of 5 concept notes to search; 1 not searched (listed with why); 0 arXiv requests (a local backend)")
    expect(log.some((l) => /^\[#{20}\] 4\/4 /.test(l))).toBe(true)
    // the companion's own notes do not join the notes to pick from
    const filled = await request(ui.url)
    expect(filled.body).toContain(`<p id="note-count" class="hint" aria-live="polite">5 notes.</p>`)
    expect(filled.body).not.toContain(`value="arXiv Digest`)
    expect(existsSync(join(vault, "arXiv Companion", "Digest State.md"))).toBe(true)
    expect(errors).toEqual([])
  }, 180_000)
})
