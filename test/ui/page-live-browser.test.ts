/**
 * The local page without --offline: the built CLI's `ui` pointed at loopback
 * stand-ins that replay recorded arXiv and OpenAlex answers and run a scripted
 * OpenAI-compatible judge, driven in headless Chromium. Also where a long run
 * is cancelled from the page: a hanging arXiv keeps the run busy.
 *
 * Skipped with a message when Chromium is missing locally; in CI (CI=true)
 * a missing Chromium fails the test.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ArxivFault, type ArxivStandIn, Fault, startArxivStandIn } from "../support/arxiv-standin.js"
import { chromiumAvailable, openChromium } from "../support/chromium.js"
import { type LlmStandIn, startLlmStandIn } from "../support/llm-standin.js"
import { type OpenAlexStandIn, startOpenAlexStandIn } from "../support/openalex-standin.js"
import { request, startUi, type UiProcess } from "../support/ui.js"

const root = join(import.meta.dirname, "..", "..")
const RELATED = "Transformers Concept Note — Related Papers.md"

let arxiv: ArxivStandIn
let openalex: OpenAlexStandIn
let llm: LlmStandIn
let work: string
let vault: string
let ui: UiProcess
let browser: Awaited<ReturnType<typeof openChromium>>

/** A fresh page that asks `question` while arXiv answers its next request with `fault`; the requests made before. */
const askWithFault = async (question: string, fault: ArxivFault) => {
  const page = await browser.context.newPage()
  await page.goto(ui.url)
  await expect.poll(() => page.locator("#mode").textContent()).toContain("Vault:")
  const before = arxiv.requests.length
  arxiv.failNext(fault)
  await page.getByLabel("Your question").fill(question)
  await page.getByRole("button", { name: "Ask arXiv" }).click()
  return { page, before }
}

const running = async () =>
  JSON.parse((await request(`${ui.origin}/api/info`, { headers: { authorization: `Bearer ${ui.token}` } })).body).running as number

describe.skipIf(!chromiumAvailable())("the local page, live against loopback stand-ins, in headless Chromium", () => {
  beforeAll(async () => {
    arxiv = await startArxivStandIn({ padSearches: true, corpus: "landmarks" })
    openalex = await startOpenAlexStandIn({ requiredKey: "test-key" })
    llm = await startLlmStandIn({})
    work = mkdtempSync(join(tmpdir(), "companion-ui-live-"))
    vault = join(work, "vault")
    cpSync(join(root, "examples", "vault"), vault, { recursive: true })
    rmSync(join(vault, RELATED), { force: true })
    ui = await startUi(["--vault", vault], {
      ARXIV_API_URL: arxiv.url,
      ARXIV_COMPANION_CONTACT: "tests@example.org",
      OPENALEX_API_URL: openalex.url,
      OPENALEX_API_KEY: "test-key",
      LLM_BASE_URL: llm.url,
      LLM_MODEL: "scripted-judge",
      ARXIV_COMPANION_CACHE_DIR: join(work, "cache"),
      ARXIV_TIMEOUT: "5 seconds"
    })
    browser = await openChromium()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await ui?.stop("SIGKILL")
    await Promise.all([arxiv?.close(), openalex?.close(), llm?.close()])
    rmSync(work, { recursive: true, force: true })
  })

  it("finds papers for the demo note with the live adapters and writes the note on request", async () => {
    const page = await browser.context.newPage()
    await page.goto(ui.url)
    await expect.poll(() => page.locator("#mode").textContent()).toContain("live arXiv and OpenAlex")
    await page.getByLabel("Search your notes by title").fill("Transformers")
    await page.getByRole("radio", { name: "Transformers Concept Note" }).check()
    await page.getByRole("button", { name: "Find papers" }).click()
    await page.getByRole("heading", { name: "Results", exact: true }).waitFor({ timeout: 60_000 })
    expect(arxiv.requests.length).toBe(1)
    expect(arxiv.requests[0]!.headers["user-agent"]).toContain("tests@example.org")
    expect(llm.completions().length).toBeGreaterThan(0)
    // the kept papers' cards, then a card for each paper without a recorded count that takes a place (its "Place" row)
    const placed = await page.locator("#cards article", { has: page.locator("dt", { hasText: /^Place$/ }) }).count()
    const cards = (await page.locator("#cards article").count()) - placed
    const summary = (await page.locator("#summary").textContent()) ?? ""
    expect(summary).toMatch(new RegExp(`^${cards} of \\d+ candidates kept for “Transformers Concept Note”`))
    expect(cards).toBeGreaterThan(0)
    expect(await page.locator("#cards article").first().textContent()).toMatch(/Impact.*OpenAlex/)

    await page.getByRole("button", { name: `Write “${RELATED}” to the vault` }).click()
    await expect.poll(() => page.locator("#action-status").textContent()).toBe(`Wrote ${RELATED} into the vault.`)
    const note = readFileSync(join(vault, RELATED), "utf8")
    expect(note).toContain("[[Transformers Concept Note]]")
    expect(note).toContain("judge: \"scripted-judge")
    expect(note).not.toContain("test-key")
    await page.close()
  }, 120_000)

  it("cancels a long run from the page: the run on the server stops, and the next one works", async () => {
    const { before, page } = await askWithFault("how do attention mechanisms help neural machine translation?", Fault.hang())
    const focused = () =>
      page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id ?? "")
    // the run is waiting on arXiv (after the adapter's 3 s politeness gap)
    await expect.poll(() => arxiv.requests.length, { timeout: 15_000 }).toBe(before + 1)
    expect(await running()).toBe(1)
    // the pressed button is disabled during the run: the keyboard is on Cancel, and Enter cancels
    expect(await focused()).toBe("cancel")
    await page.keyboard.press("Enter")
    await expect.poll(() => page.locator("#run-status").textContent()).toBe("Cancelled.")
    expect(await running()).toBe(0)
    // Cancel is gone: the keyboard is back on the button that started the run
    expect(await focused()).toBe("ask")
    expect(await page.locator("#results").isHidden()).toBe(true)
    expect(await page.getByRole("button", { name: "Ask arXiv" }).isEnabled()).toBe(true)

    await page.getByRole("button", { name: "Ask arXiv" }).click()
    // the hung request itself is the response cache's: it goes on (for any other caller waiting on the
    // same answer) until ARXIV_TIMEOUT, holding arXiv's one connection; then the retry answers this run
    await page.getByRole("heading", { name: "Results", exact: true }).waitFor({ timeout: 60_000 })
    expect(await page.locator("#cards article").count()).toBeGreaterThan(0)
    // the hung request and the retry's pool, then the retry's title search: a question's pool (300 papers) does not
    // hold every match of the stand-in's corpus, so the second request of the search runs
    expect(arxiv.requests.length).toBe(before + 3)
    await page.close()
  }, 120_000)

  it("shows on the page, as it happens, that a run waits for arXiv (a 429 with Retry-After), then the results", async () => {
    const { before, page } = await askWithFault("how does layer normalisation stabilise transformer training?", Fault.rateLimited("2"))
    // the same line the CLI prints on stderr, while the run still waits (no result yet)
    const waiting = page.getByRole("log").locator("li").filter({ hasText: /^arXiv: its rate limit was reached.*; trying again in/ }).first()
    await waiting.waitFor({ timeout: 30_000 })
    expect(await page.locator("#results").isHidden()).toBe(true)
    expect(await waiting.textContent()).toMatch(/^arXiv: its rate limit was reached \(it answered "Rate exceeded\."\); trying again in [23] s \(attempt 2 of \d+\)$/)
    await page.getByRole("heading", { name: "Results", exact: true }).waitFor({ timeout: 60_000 })
    expect(await page.locator("#cards article").count()).toBeGreaterThan(0)
    // the 429, the pool asked again, and the title search (the pool of 300 does not hold every match)
    expect(arxiv.requests.length).toBe(before + 3)
    expect(arxiv.requests[before]!.status).toBe(429)
    expect(arxiv.requests[before + 1]!.status).toBe(200)
    await page.close()
  }, 120_000)

  it("stops on SIGTERM with a run in flight: the run is interrupted, the server closed, exit 0", async () => {
    const { before, page } = await askWithFault("which papers compare convolutional and recurrent sequence models?", Fault.hang())
    await expect.poll(() => arxiv.requests.length, { timeout: 15_000 }).toBe(before + 1)
    const { code, stderr } = await ui.stop("SIGTERM")
    expect(code).toBe(0)
    expect(stderr).toContain("Stopped: runs in flight were cancelled and the server is closed.")
    await expect.poll(() => page.locator("#run-status").textContent()).toMatch(/^(Cancelled|Stopped)\.$/)
    await expect(request(`${ui.origin}/`)).rejects.toThrow(/ECONNREFUSED/)
    await page.close()
  }, 60_000)
})
