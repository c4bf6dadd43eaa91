/**
 * The local page on notes in other languages, in headless Chromium (Debian's
 * chromium through playwright-core, as page-browser.test.ts): the results say
 * what the report's `language` field says (the detected language, who read
 * the note: the offline glossary or the model, the English terms and the
 * words with no English reading), the same line the generated note writes;
 * nothing for an English note. Offline (recorded corpus, local judge), then
 * with the scripted LLM stand-in as the reader and the judge.
 *
 * Skipped with a message when Chromium is missing locally; in CI (CI=true)
 * a missing Chromium fails the test.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, openChromium } from "../support/chromium.js"
import { LlmFault, type LlmStandIn, startLlmStandIn } from "../support/llm-standin.js"
import { startUi, type UiProcess } from "../support/ui.js"

const root = join(import.meta.dirname, "..", "..")

const RUSSIAN = {
  title: "Генеративно-состязательные сети",
  text: `# Генеративно-состязательные сети

Две нейронные сети учатся вместе: **генератор** превращает случайный шум в изображения, а **дискриминатор**
отличает настоящие изображения от сгенерированных. Это минимаксная игра.

## Трудности
- коллапс мод: генератор выдаёт почти одинаковые образцы
- нестабильное обучение, затухающие градиенты

## Варианты
- DCGAN: свёрточные сети
- расстояние Вассерштейна (WGAN) делает обучение устойчивее
`
}

const ITALIAN = {
  title: "Reti generative avversarie",
  text: `# Reti generative avversarie

Le reti GAN hanno un generatore e un discriminatore che giocano una partita. Il problema principale è il mode collapse:
il generatore produce pochi esempi diversi. DCGAN usa convoluzioni, WGAN usa la distanza di Wasserstein per un
addestramento più stabile.
`
}

let work: string
let vault: string
let browser: Awaited<ReturnType<typeof openChromium>>

/** Pick a note on the page, run it, and wait until the run is over (a state, never a time). */
const runNote = async (page: Page, title: string) => {
  await page.getByLabel("Search your notes by title").fill(title.slice(0, 8))
  await page.getByRole("radio", { name: title }).check()
  await page.getByRole("button", { name: "Find papers" }).click()
  await page.getByRole("heading", { name: "Results", exact: true }).waitFor()
  await page.locator("#find:enabled").waitFor()
  await expect.poll(() => page.locator("#summary").textContent()).toContain(`kept for “${title}”`)
}

/** The language section's facts, label → text. */
const facts = async (page: Page): Promise<Record<string, string>> => {
  const dts = await page.locator("#language-facts dt").allTextContents()
  const dds = await page.locator("#language-facts dd").allTextContents()
  return Object.fromEntries(dts.map((k, i) => [k, dds[i] ?? ""]))
}

const openPage = async (ui: UiProcess) => {
  const page = await browser.context.newPage()
  const errors: Array<string> = []
  page.on("pageerror", (e) => errors.push(e.message))
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text())
  })
  await page.goto(ui.url)
  await expect.poll(() => page.locator("#mode").textContent()).toContain("Vault:")
  return { page, errors }
}

describe.skipIf(!chromiumAvailable())("the page says how a note in another language was read", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "companion-ui-lang-"))
    vault = join(work, "vault")
    cpSync(join(root, "examples", "vault"), vault, { recursive: true })
    rmSync(join(vault, "Transformers Concept Note — Related Papers.md"), { force: true })
    writeFileSync(join(vault, `${RUSSIAN.title}.md`), RUSSIAN.text)
    writeFileSync(join(vault, `${ITALIAN.title}.md`), ITALIAN.text)
    browser = await openChromium()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    rmSync(work, { recursive: true, force: true })
  })

  describe("offline", () => {
    let ui: UiProcess
    beforeAll(async () => {
      ui = await startUi(["--offline", "--vault", vault])
    }, 120_000)
    afterAll(async () => {
      await ui?.stop("SIGKILL")
    })

    it("a Russian note: detected, read with the offline glossary, its terms and unread words, as the written note says", async () => {
      const { page, errors } = await openPage(ui)
      await runNote(page, RUSSIAN.title)
      const box = page.getByRole("region", { name: "Note language" })
      expect(await box.isVisible()).toBe(true)
      const line = (await page.locator("#language-line").textContent()) ?? ""
      expect(line).toMatch(/^Russian.*; read offline with the Russian glossary, cognates and transliteration \(\d+ English terms\)$/)
      const shown = await facts(page)
      expect(shown["Detected"]).toMatch(/^Russian, by eld /)
      expect(shown["Read"]).toBe("offline: the Russian glossary, cognates and transliteration")
      expect(shown["English terms"]).toContain("дискриминатор → discriminator (glossary)")
      // the note's own words are marked as Russian, for a screen reader
      expect(await page.locator("#language-facts dd span[lang=ru]", { hasText: "дискриминатор" }).count()).toBeGreaterThan(0)
      const count = Number(/\((\d+) English terms\)$/.exec(line)![1])
      expect((shown["English terms"]!.match(/ → /g) ?? []).length).toBe(count)
      // a verb of the note's prose has no English reading: the page lists it for the student
      const unread = shown["No English reading"]!
      expect(unread.split(", ")).toContain("превращает")
      // the keywords the run searched are the reading's English, not Russian words
      expect(await page.locator("#summary").textContent()).toMatch(/Keywords: .*generative adversarial network/)

      // what the page shows is what the generated note says, line for line
      const related = `${RUSSIAN.title} — Related Papers.md`
      await page.getByRole("button", { name: `Write “${related}” to the vault` }).click()
      await expect.poll(() => page.locator("#action-status").textContent()).toBe(`Wrote ${related} into the vault.`)
      const note = readFileSync(join(vault, related), "utf8")
      expect(note).toContain(`> Язык заметки: ${line}\n`)
      expect(note).toContain(`> Words with no English reading: ${unread.split(", ").slice(0, 12).join(", ")}\n`)
      expect(note).toContain("дискриминатор → discriminator (glossary)")
      // the source note is never modified
      expect(readFileSync(join(vault, `${RUSSIAN.title}.md`), "utf8")).toBe(RUSSIAN.text)
      expect(errors).toEqual([])
      await page.close()
    }, 180_000)

    it("an Italian note (no glossary) says it was searched on its English words only; an English note shows no language", async () => {
      const { page, errors } = await openPage(ui)
      await runNote(page, ITALIAN.title)
      expect(await page.locator("#language").isVisible()).toBe(true)
      expect(await page.locator("#language-line").textContent()).toMatch(
        /^Italian.*; no Italian glossary offline: searched on the note's English words only$/
      )
      expect((await facts(page))["Read"]).toBe("offline: the note's English words only (no Italian glossary offline)")
      expect(await page.locator("#language-notes li").allTextContents()).toContainEqual(
        expect.stringMatching(/^No Italian glossary offline: its lines were searched on their English terms only/)
      )
      // the next run, on an English note, takes the section away
      await runNote(page, "Transformers Concept Note")
      expect(await page.locator("#language").isHidden()).toBe(true)
      expect(errors).toEqual([])
      await page.close()
    }, 240_000)
  })

  describe("with the scripted LLM stand-in as the reader", () => {
    let ui: UiProcess
    let llm: LlmStandIn
    beforeAll(async () => {
      llm = await startLlmStandIn({})
      ui = await startUi(["--offline", "--judge", "llm", "--vault", vault], { LLM_BASE_URL: llm.url, LLM_MODEL: "scripted-reader" })
    }, 120_000)
    afterAll(async () => {
      await ui?.stop("SIGKILL")
      await llm?.close()
    })

    it("says the model read the note, its terms, and that a malformed first answer was sent back", async () => {
      const { page, errors } = await openPage(ui)
      // the run's first request is the note's reading: its first answer is not JSON
      llm.failNext(LlmFault.terms("Generator and discriminator, I would say."))
      await runNote(page, RUSSIAN.title)
      const reading = llm.completions().filter((r) => r.body.messages?.some((m) => /English technical terms a search of arXiv/.test(m.content)))
      expect(reading.length).toBe(2)
      expect(await page.locator("#language-line").textContent()).toMatch(/^Russian.*; read by scripted-reader \(\d+ English terms\)$/)
      const shown = await facts(page)
      expect(shown["Read"]).toBe("the language model scripted-reader")
      expect(shown["English terms"]).toContain("discriminator")
      expect(shown["English terms"]).not.toContain("(the note)")
      expect(shown["No English reading"]).toBe("— (the model read the whole note)")
      expect(await page.locator("#language-notes li").allTextContents()).toEqual([
        "The model's answer 1 was unusable: it is not valid JSON; it was sent back with the error, and the second answer was used."
      ])
      expect(errors).toEqual([])
      await page.close()
    }, 300_000)
  })
})
