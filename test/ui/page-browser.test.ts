/**
 * The local page (`arxiv-companion ui`) driven in headless Chromium (Debian's
 * chromium package through playwright-core; no browser download), against
 * the built CLI in a child process and a copy of examples/vault — offline
 * here, against the loopback stand-ins in page-live-browser.test.ts.
 *
 * Skipped with a message when Chromium is missing locally; in CI (CI=true)
 * a missing Chromium fails the test. `.ci/run` installs it.
 */
import { execFile } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, openChromium } from "../support/chromium.js"
import { request, startUi, type UiProcess } from "../support/ui.js"

const root = join(import.meta.dirname, "..", "..")
const RELATED = "Transformers Concept Note — Related Papers.md"

let work: string
let vault: string
let ui: UiProcess
let browser: Awaited<ReturnType<typeof openChromium>>

/** A page on the printed address, with every script error and refused request collected. */
const openPage = async (context: BrowserContext, url = ui.url) => {
  const page = await context.newPage()
  const errors: Array<string> = []
  page.on("pageerror", (e) => errors.push(e.message))
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text())
  })
  await page.goto(url)
  return { page, errors }
}

/**
 * The run is over: its result (or its error) is drawn and the buttons it disabled are back, with the focus
 * where the run's end puts it. Waited for as a state, never a time: on a loaded machine the stream's end
 * (and the focus it moves) can come well after the result is drawn.
 */
const runEnded = (page: Page) => page.locator("#find:enabled").waitFor()

/** The results are drawn and the run that drew them is over. */
const resultsShown = async (page: Page) => {
  try {
    await page.getByRole("heading", { name: "Results", exact: true }).waitFor()
  } catch (e) {
    // say what the page showed instead: the run's status, its progress and any error line
    const shown = await page.evaluate(() => {
      const d = (globalThis as unknown as { document: { getElementById: (id: string) => { textContent: string | null; hidden: boolean } | null } }).document
      return ["run-status", "progress", "error"].map((id) => `${id}: ${d.getElementById(id)?.textContent ?? "?"}`).join(" | ")
    }).catch(() => "the page could not be read")
    throw new Error(`No results were drawn (${shown})`, { cause: e })
  }
  await runEnded(page)
}

const cardTitles = (page: Page) => page.locator("#cards article h3").allTextContents()
const focused = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id ?? "")

describe.skipIf(!chromiumAvailable())("the local page, offline, in headless Chromium", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "companion-ui-"))
    vault = join(work, "vault")
    cpSync(join(root, "examples", "vault"), vault, { recursive: true })
    rmSync(join(vault, RELATED), { force: true })
    ui = await startUi(["--offline", "--vault", vault])
    browser = await openChromium()
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: ui.origin })
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await ui?.stop("SIGKILL")
    rmSync(work, { recursive: true, force: true })
  })

  it("serves the note list in the first HTML of the printed address, and none without the token", async () => {
    const filled = await request(ui.url)
    expect(filled.status).toBe(200)
    expect(filled.body).toContain(`<input type="radio" name="note" value="Transformers Concept Note" id="note-`)
    expect(filled.body).toContain(`<p id="note-count" class="hint" aria-live="polite">5 notes.</p>`)
    expect(filled.body).toMatch(/<p id="mode" class="hint">Vault: .* · offline \(recorded data\)<\/p>/)
    for (const url of [`${ui.origin}/`, `${ui.origin}/?token=not-the-token`]) {
      const bare = await request(url)
      expect(bare.status).toBe(200)
      expect(bare.body).not.toContain("Transformers Concept Note")
      expect(bare.body).not.toContain(`id="boot"`)
    }
  })

  it("picks the demo note, shows progress as it happens and the cards, and writes the note only when asked", async () => {
    const { page, errors } = await openPage(browser.context)
    // the note list is painted with the page, not after it: it is there before any script could fetch it
    expect(await page.evaluate(() => (globalThis as unknown as { location: { search: string; hash: string } }).location.search)).toBe("")
    expect(await page.locator("#note-list input").count()).toBe(5)
    await page.setViewportSize({ width: 1280, height: 900 })
    await expect.poll(() => page.locator("#mode").textContent()).toContain("offline")
    await page.getByLabel("Search your notes by title").fill("transf")
    await page.getByRole("radio", { name: "Transformers Concept Note" }).check()
    await page.getByRole("button", { name: "Find papers" }).click()
    await resultsShown(page)

    const progress = await page.getByRole("log").locator("li").allTextContents()
    expect(progress[0]).toBe("Looking for “Transformers Concept Note” in the vault")
    expect(progress).toContain("Reading Transformers Concept Note.md")
    expect(progress.some((l) => l.startsWith("Keywords: ") && l.includes("attention"))).toBe(true)
    expect(progress.some((l) => /^Found \d+ candidates on arXiv; scoring$/.test(l))).toBe(true)
    expect(await page.locator("#run-status").textContent()).toBe("Done.")

    const titles = await cardTitles(page)
    expect(titles.length).toBeGreaterThan(0)
    const first = page.locator("#cards article").first()
    // at 1280×900 the first card starts above the fold, without scrolling
    const fold = await first.evaluate((card) => ({
      top: card.getBoundingClientRect().top + (globalThis as unknown as { scrollY: number }).scrollY,
      height: (globalThis as unknown as { innerHeight: number }).innerHeight
    }))
    expect(fold.top).toBeLessThan(fold.height - 100)
    const text = (await first.textContent()) ?? ""
    expect(text).toMatch(/Relevance\s*0\.\d\d/)
    expect(text).toMatch(/Impact(\d+\.\d citations\/year: [\d,]+ citations in \d+\.\d years to|No citation count recorded; a new paper \(\d\.\d years old on) \d{4}-\d{2}-\d{2}/)
    expect(text).toMatch(/· (19|20)\d\d ·/)
    expect(text).toMatch(/Found by(the arXiv search|the most cited works on the note's phrases)/)
    // the run's counts, as the note and the CLI give them
    expect(await page.locator("#summary").textContent()).toMatch(
      /candidates kept for “Transformers Concept Note”: \d+ kept (of the \d+ that cleared both bars )?\(relevance ≥ 0\.50, ≥ 5 citations\/year unless younger than 1 y\)/
    )
    // papers the note already names are recognised, and said so, not suggested again
    expect(await page.locator("#summary").textContent()).toContain(
      "Already in your note, so not suggested again: Neural Machine Translation by Jointly Learning to Align and Translate"
    )
    expect(titles).not.toContain("Neural Machine Translation by Jointly Learning to Align and Translate")
    expect(await first.getByRole("link", { name: /^PDF of / }).getAttribute("href")).toMatch(/^https:\/\/arxiv\.org\/pdf\//)
    // each card: a summary of its own (what the paper does, its key result)
    const summaries = await page.locator("#cards article .summary").allTextContents()
    expect(summaries.length).toBe(titles.length)
    for (const summary of summaries) expect(summary.length).toBeGreaterThan(40)
    expect(new Set(summaries).size).toBe(summaries.length)
    // the citation map, drawn by Mermaid: the note, then one node per kept paper (and the works they build on)
    const map = page.locator("#map svg")
    await map.waitFor()
    expect(await map.textContent()).toContain("Transformers Concept Note")
    expect(await page.locator("#map svg .node").count()).toBeGreaterThan(titles.length)
    // of a pool of about a thousand, the page lists the 20 most relevant papers it did not keep, and says so
    expect(await page.locator("#dropped-title").textContent()).toMatch(/^Dropped candidates \(the 20 most relevant of \d{3,4}\)$/)
    const dropped = await page.locator("#dropped li").allTextContents()
    expect(dropped.length).toBe(20)
    const relevanceOf = (line: string) => Number(/: relevance ([\d.]+)/.exec(line)?.[1])
    const shown = dropped.map(relevanceOf)
    expect(shown.every((r) => r >= 0 && r <= 1)).toBe(true)
    expect(shown).toEqual([...shown].sort((a, b) => b - a))
    // nothing in the vault yet: the page shows the result first
    expect(existsSync(join(vault, RELATED))).toBe(false)

    const write = page.getByRole("button", { name: `Write “${RELATED}” to the vault` })
    await write.click()
    await expect.poll(() => page.locator("#action-status").textContent()).toBe(`Wrote ${RELATED} into the vault.`)
    const note = readFileSync(join(vault, RELATED), "utf8")
    expect(note).toContain("[[Transformers Concept Note]]")
    const ids = await page.locator("#cards article .meta").allTextContents()
    for (const meta of ids) expect(note).toContain(/arXiv:(\S+)$/.exec(meta)![1])
    expect(readFileSync(join(vault, "Transformers Concept Note.md"), "utf8")).toBe(
      readFileSync(join(root, "examples", "vault", "Transformers Concept Note.md"), "utf8")
    )

    await page.getByRole("button", { name: "Copy BibTeX for all" }).click()
    await expect.poll(() => page.locator("#action-status").textContent()).toBe(`BibTeX for ${titles.length} papers copied to the clipboard.`)
    const bib = await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText: () => Promise<string> } } }).navigator.clipboard.readText())
    expect(bib.match(/^@\w+\{/gm)?.length).toBe(titles.length)
    expect(errors).toEqual([])
    await page.close()
  }, 120_000)

  it("asks a question and shows the papers the CLI's `ask` gives", async () => {
    const question = "what are the main ways to stabilise GAN training?"
    const cli = await new Promise<{ papers: Array<{ title: string; summary: string }> }>((resolve, reject) =>
      execFile(process.execPath, [join(root, "dist", "cli.js"), "ask", question, "--offline", "--json"], { cwd: root }, (e, out) =>
        e === null ? resolve(JSON.parse(out)) : reject(e))
    )
    expect(cli.papers.length).toBeGreaterThan(0)
    const { page, errors } = await openPage(browser.context)
    await page.getByLabel("Your question").fill(question)
    await page.getByRole("button", { name: "Ask arXiv" }).click()
    await resultsShown(page)
    expect(await cardTitles(page)).toEqual(cli.papers.map((p) => p.title))
    expect(await page.locator("#cards article .summary").allTextContents()).toEqual(cli.papers.map((p) => p.summary))
    const progress = await page.getByRole("log").locator("li").allTextContents()
    expect(progress[0]).toBe("Turning the question into an arXiv query")
    expect(progress[1]).toMatch(/^arXiv query \(rules\): .*generative adversarial/)
    expect(progress[2]).toMatch(/^Found \d+ matching papers on arXiv; re-ranking \d+ with local/)
    expect(await page.locator("#summary").textContent()).toContain("arXiv query: ")
    expect(await page.getByRole("button", { name: /^Write/ }).isVisible()).toBe(false)
    expect(errors).toEqual([])
    await page.close()
  }, 120_000)

  it("an answer shows each paper's why line and the relevant papers whose impact is not recorded, as the CLI's `ask` does", async () => {
    const question = "semantic segmentation with fully convolutional networks"
    const cli = await new Promise<{ papers: Array<{ title: string; rationale: string }>; unrecorded: Array<{ title: string; arxiv_id: string }> }>((resolve, reject) =>
      execFile(process.execPath, [join(root, "dist", "cli.js"), "ask", question, "--offline", "--json"], { cwd: root }, (e, out) =>
        e === null ? resolve(JSON.parse(out)) : reject(e))
    )
    expect(cli.unrecorded.length).toBeGreaterThan(0)
    const { page, errors } = await openPage(browser.context)
    await page.getByLabel("Your question").fill(question)
    await page.getByRole("button", { name: "Ask arXiv" }).click()
    await resultsShown(page)
    expect(await page.locator("#cards article .rationale").allTextContents()).toEqual(cli.papers.map((p) => p.rationale))
    const summary = await page.locator("#summary").textContent()
    expect(summary).toContain("Relevant, impact not recorded")
    for (const u of cli.unrecorded) expect(summary).toContain(`${u.title} (arXiv:${u.arxiv_id}, relevance `)
    expect(errors).toEqual([])
    await page.close()
  }, 120_000)

  it("says what went wrong in plain words: the CLI's typed error and its hint", async () => {
    const { page } = await openPage(browser.context)
    await page.getByLabel("Search your notes by title").fill("quick")
    await page.getByRole("radio", { name: "Quick Idea" }).check()
    await page.getByRole("button", { name: "Find papers" }).click()
    const alert = page.locator("#error")
    await alert.waitFor()
    expect(await alert.getAttribute("role")).toBe("alert")
    expect(await alert.textContent()).toBe(
      "Not enough information: the note \"Quick Idea\" yields 1 keyword (quick); at least 2 are needed to search arXiv. Add a few sentences about the concept to the note."
    )
    expect(await page.locator("#results").isHidden()).toBe(true)
    // the keyboard is back on the button that started the run, ready to try again
    await runEnded(page)
    expect(await focused(page)).toBe("find")
    await page.close()
  }, 120_000)

  it("refuses to write when the target changed after the results were found, and says so in one line", async () => {
    const target = join(vault, "Generative Adversarial Networks — Related Papers.md")
    rmSync(target, { force: true })
    const { page, errors } = await openPage(browser.context)
    await page.getByLabel("Search your notes by title").fill("adversarial")
    await page.getByRole("radio", { name: "Generative Adversarial Networks" }).check()
    await page.getByRole("button", { name: "Find papers" }).click()
    await resultsShown(page)
    // meanwhile, the user writes their own note at that path
    const mine = "# My own notes on GAN papers\n\nNot the companion's.\n"
    writeFileSync(target, mine)
    await page.getByRole("button", { name: /^Write “Generative Adversarial Networks — Related Papers\.md” to the vault$/ }).click()
    const alert = page.locator("#error")
    await alert.waitFor()
    expect(await alert.textContent()).toBe(
      'Refused to write "Generative Adversarial Networks — Related Papers.md": the note changed in the vault after these results were found. Run the companion again: it merges your edits instead of overwriting them'
    )
    expect(readFileSync(target, "utf8")).toBe(mine)
    // the write cannot succeed any more: the button says why and stays off; the keyboard lands on the message
    const write = page.locator("#write")
    expect(await write.textContent()).toBe("Not written: run again to merge your edits")
    expect(await write.isDisabled()).toBe(true)
    expect(await focused(page)).toBe("error")
    // run again: this run sees the user's note and merges with it (every byte of theirs kept)
    await page.getByRole("button", { name: "Find papers" }).click()
    await resultsShown(page)
    expect(await page.locator("#error").isHidden()).toBe(true)
    const again = page.getByRole("button", { name: /^Write “.+” to the vault$/ })
    const path = /^Write “(.+)” to the vault$/.exec((await again.textContent()) ?? "")![1]!
    await again.click()
    await expect.poll(() => page.locator("#action-status").textContent()).toBe(`Wrote ${path} into the vault.`)
    expect(readFileSync(target, "utf8")).toContain(mine)
    expect(readFileSync(join(vault, path), "utf8")).toContain("[[Generative Adversarial Networks]]")
    // the browser logs the refused write's 409 itself; no script error
    expect(errors.filter((e) => !/status of 409 \(Conflict\)/.test(e))).toEqual([])
    rmSync(join(vault, path), { force: true })
    rmSync(target, { force: true })
    await page.close()
  }, 120_000)

  it("is usable with the keyboard alone and readable at a phone's width", async () => {
    const phone = await openChromium({ width: 375, height: 740 })
    try {
      const { page, errors } = await openPage(phone.context)
      await expect.poll(() => page.locator("#mode").textContent()).toContain("Vault:")
      // the search box is the first field: Tab reaches it, typing filters, ArrowDown enters the list
      await page.keyboard.press("Tab")
      expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id)).toBe("note-search")
      await page.keyboard.type("Generative")
      await page.getByRole("radio", { name: "Generative Adversarial Networks" }).waitFor()
      await page.keyboard.press("ArrowDown")
      await page.keyboard.press("Space")
      expect(await page.getByRole("radio", { name: "Generative Adversarial Networks" }).isChecked()).toBe(true)
      await page.keyboard.press("Tab")
      expect(await focused(page)).toBe("find")
      await page.keyboard.press("Enter")
      await resultsShown(page)
      // results take the focus, so a screen reader lands on them
      expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id)).toBe("results-title")
      expect((await cardTitles(page)).length).toBeGreaterThan(0)
      const widths = await page.evaluate(() => {
        const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
        return { scroll: d.documentElement.scrollWidth, client: d.documentElement.clientWidth }
      })
      expect(widths.scroll).toBeLessThanOrEqual(widths.client)
      // every form control has a name a screen reader can say, once the results are drawn (cards may still be
      // being filled in just after the heading appears, on a loaded machine: polled, not read once)
      const unnamed = () =>
        page.locator("input, textarea, button").evaluateAll((els) =>
          els.filter((e) => {
            const h = e as unknown as { id: string; hidden: boolean; labels?: ArrayLike<unknown>; textContent: string | null; getAttribute: (n: string) => string | null }
            return !h.hidden && (h.labels?.length ?? 0) === 0 && (h.textContent ?? "").trim() === "" && h.getAttribute("aria-label") === null
          }).length
        )
      await expect.poll(unnamed, { timeout: 15_000 }).toBe(0)
      expect(await page.locator("#progress").getAttribute("aria-live")).toBe("polite")
      expect(errors).toEqual([])
    } finally {
      await phone.close()
    }
  }, 120_000)

  it("refuses API requests without the token, with a wrong one, from a foreign Origin or to another Host", async () => {
    const notes = `${ui.origin}/api/notes`
    const bearer = { authorization: `Bearer ${ui.token}` }
    expect((await request(notes, { headers: bearer })).status).toBe(200)
    const none = await request(notes)
    expect(none.status).toBe(401)
    expect(JSON.parse(none.body).error.message).toContain("token")
    expect((await request(notes, { headers: { authorization: "Bearer not-the-token" } })).status).toBe(401)
    const foreign = await request(`${ui.origin}/api/runs`, {
      method: "POST",
      headers: { ...bearer, origin: "http://evil.example", "content-type": "application/json" },
      body: JSON.stringify({ kind: "note", title: "Transformers Concept Note" })
    })
    expect(foreign.status).toBe(403)
    expect(JSON.parse(foreign.body).error.message).toContain("Origin http://evil.example is not allowed")
    // a malformed request is refused in one line that names the field
    const malformed = await request(`${ui.origin}/api/runs`, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ kind: "ask", question: 42 })
    })
    expect(malformed.status).toBe(400)
    const refusal = JSON.parse(malformed.body).error.message as string
    expect(refusal).toMatch(/^Invalid request: .*question: Expected string, actual 42/)
    expect(refusal).not.toContain("\n")
    const rebound = await request(notes, { headers: { ...bearer, host: `evil.example:${new URL(ui.origin).port}` } })
    expect(rebound.status).toBe(403)
    expect(JSON.parse(rebound.body).error.message).toContain("DNS-rebinding")
    // the page itself holds no data and loads without the token, and then says how to get in
    const { page } = await openPage(browser.context, `${ui.origin}/`)
    await page.getByRole("alert").filter({ hasText: "access token" }).waitFor()
    expect(await page.getByRole("button", { name: "Find papers" }).isDisabled()).toBe(true)
    await page.close()
  }, 120_000)

  it("stops cleanly on Ctrl-C (SIGINT)", async () => {
    const { code, stderr } = await ui.stop("SIGINT")
    expect(code).toBe(0)
    expect(stderr).toContain("Stopped")
    await expect(request(`${ui.origin}/`)).rejects.toThrow(/ECONNREFUSED/)
  }, 30_000)
})
