/**
 * Asking by voice on the page, in headless Chromium (Debian's chromium through playwright-core) with a fake
 * microphone that plays a question espeak-ng read to a WAV file, against the built CLI's `ui --offline` over a
 * copy of examples/vault: the page records, converts to 16 kHz mono WAV, sends it to its server, which hears it
 * with pocketsphinx; the page shows "Heard: …" and the answer, and "Read aloud" plays espeak-ng's spoken answer.
 * Needs Debian's espeak-ng, pocketsphinx, pocketsphinx-en-us and sox, and chromium (skipped locally with a
 * message when missing; CI fails instead).
 */
import { execFileSync } from "node:child_process"
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { decodeWav, encodeWav, seconds } from "../../src/adapters/speech/wav.js"
import { chromiumAvailable, openChromium } from "../support/chromium.js"
import { speechAvailable } from "../support/speech.js"
import { request, startUi, type UiProcess } from "../support/ui.js"

const root = join(import.meta.dirname, "..", "..")

let work: string
let ui: UiProcess
let browser: Awaited<ReturnType<typeof openChromium>>
let questionSeconds: number

const runs = chromiumAvailable() && speechAvailable("the page's voice tests")

describe.skipIf(!runs)("asking by voice on the page, offline, in headless Chromium with a fake microphone", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "companion-ui-voice-"))
    const vault = join(work, "vault")
    cpSync(join(root, "examples", "vault"), vault, { recursive: true })
    // the question, then 3 s of silence: the fake microphone plays the file once, and the recording is stopped in the silence
    const spoken = join(work, "spoken.wav")
    execFileSync("espeak-ng", ["-v", "en-us", "-w", spoken, "how does dropout prevent overfitting in neural networks"])
    const pcm = decodeWav(readFileSync(spoken))
    questionSeconds = seconds(pcm)
    const padded = new Float32Array(pcm.samples.length + pcm.rate * 3)
    padded.set(pcm.samples)
    const question = join(work, "question.wav")
    writeFileSync(question, encodeWav({ samples: padded, rate: pcm.rate }))
    ui = await startUi(["--offline", "--vault", vault])
    browser = await openChromium(undefined, [
      "--use-fake-device-for-media-stream",
      "--use-fake-ui-for-media-stream",
      `--use-file-for-fake-audio-capture=${question}%noloop`,
      "--autoplay-policy=no-user-gesture-required"
    ])
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await ui?.stop("SIGKILL")
    if (work !== undefined) rmSync(work, { recursive: true, force: true })
  })

  it("records from the keyboard, shows what it heard and the answer, and reads the answer aloud", async () => {
    const page = await browser.context.newPage()
    const errors: Array<string> = []
    page.on("pageerror", (e) => errors.push(e.message))
    const sent: Array<{ type: string; bytes: number }> = []
    page.on("request", (r) => {
      if (r.url().endsWith("/api/voice")) {
        const body = JSON.parse(r.postData() ?? "{}") as { audio?: string }
        sent.push({ type: /^data:([^;]+);base64,/.exec(body.audio ?? "")?.[1] ?? "none", bytes: (body.audio ?? "").length })
      }
    })
    await page.goto(ui.url)
    const mic = page.getByRole("button", { name: "Ask by voice" })
    await mic.focus()
    await page.keyboard.press("Enter")
    const stop = page.getByRole("button", { name: "Stop and ask" })
    await stop.waitFor({ timeout: 30_000 })
    expect(await stop.getAttribute("aria-pressed")).toBe("true")
    expect(await page.locator("#voice-status").textContent()).toMatch(/^Recording: ask your question/)
    expect(await page.getByRole("button", { name: "Cancel recording" }).isVisible()).toBe(true)
    // the whole question, and into the silence after it
    await page.waitForTimeout(Math.round((questionSeconds + 1.5) * 1000))
    await stop.focus()
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { name: "Results", exact: true }).waitFor({ timeout: 150_000 })
    expect(sent).toHaveLength(1)
    expect(sent[0]!.type).toBe("audio/wav")
    // the page's status region and the results both say what was heard, before the answer
    const heard = (await page.locator("#heard").textContent()) ?? ""
    // through the browser (Opus, then resampled) the concept words survive: "how does dropout prevents over the neural networks"
    expect(heard).toMatch(/^Heard: .*dropout.*networks/)
    expect(await page.locator("#voice-status").textContent()).toBe(heard)
    const transcript = heard.slice("Heard: ".length)
    expect(await page.locator("#summary").textContent()).toContain(`for “${transcript}”`)
    expect(await page.locator("#cards article").count()).toBeGreaterThan(0)
    expect((await page.locator("#progress li").allTextContents()).some((l) => l.startsWith("Heard (") && l.endsWith(`: ${transcript}`))).toBe(true)
    // the microphone button is back, not pressed
    expect(await page.getByRole("button", { name: "Ask by voice" }).getAttribute("aria-pressed")).toBe("false")

    // Read aloud: the server's spoken answer (espeak-ng), a WAV that decodes and plays
    const speech = page.waitForResponse((r) => r.url().endsWith("/speech"), { timeout: 60_000 })
    await page.getByRole("button", { name: "Read aloud" }).click()
    const response = await speech
    expect(response.status()).toBe(200)
    expect(response.headers()["content-type"]).toBe("audio/wav")
    // the same answer fetched again, as the page fetched it (with its token)
    const again = await fetch(`${ui.origin}/api/runs/${new URL(response.url()).pathname.split("/")[3]}/speech`, { headers: { authorization: `Bearer ${ui.token}` } })
    expect(again.status).toBe(200)
    const wav = Buffer.from(await again.arrayBuffer())
    expect(wav.subarray(0, 4).toString("latin1")).toBe("RIFF")
    expect(wav.subarray(8, 12).toString("latin1")).toBe("WAVE")
    expect(seconds(decodeWav(new Uint8Array(wav)))).toBeGreaterThan(3)
    await page.locator("#action-status", { hasText: /^(Reading the answer aloud|The spoken answer is ready) \(\d+ s\)/ }).waitFor({ timeout: 30_000 })
    const duration = await page.locator("#spoken").evaluate((a) => (a as unknown as { duration: number }).duration)
    expect(duration).toBeGreaterThan(3)
    expect(await page.getByLabel("The answer read aloud").isVisible()).toBe(true)
    expect(errors).toEqual([])
  }, 240_000)

  it("cancels a recording with Escape and sends nothing", async () => {
    const page = await browser.context.newPage()
    const posted: Array<string> = []
    page.on("request", (r) => {
      if (r.method() === "POST") posted.push(new URL(r.url()).pathname)
    })
    await page.goto(ui.url)
    await page.getByRole("button", { name: "Ask by voice" }).click()
    await page.getByRole("button", { name: "Stop and ask" }).waitFor({ timeout: 30_000 })
    await page.keyboard.press("Escape")
    await page.locator("#voice-status", { hasText: "Recording cancelled: nothing was sent." }).waitFor({ timeout: 30_000 })
    expect(await page.getByRole("button", { name: "Cancel recording" }).isVisible()).toBe(false)
    expect(await page.getByRole("button", { name: "Ask by voice" }).getAttribute("aria-pressed")).toBe("false")
    expect(posted).toEqual([])
  }, 120_000)

  it("refuses audio over the limits in plain words, and speaks no answer it does not hold", async () => {
    const headers = { host: new URL(ui.origin).host, authorization: `Bearer ${ui.token}`, "content-type": "application/json" }
    const over = `data:audio/wav;base64,${"A".repeat(3_500_000)}`
    const big = await request(`${ui.origin}/api/voice`, { method: "POST", headers, body: JSON.stringify({ audio: over }) })
    // a run's failure, as the page shows it
    expect(big.body).toContain(`"type":"failure","tag":"AudioUnusable"`)
    expect(big.body).toContain("over the 2,500,000-byte limit for a spoken question: record a shorter question")
    expect(big.body).toContain("Cannot use the recording: it is over")
    // silence: one line, and no question is answered
    const silence = Buffer.from(encodeWav({ samples: new Float32Array(Math.round(16000 * 3.2)), rate: 16000 })).toString("base64")
    const quiet = await request(`${ui.origin}/api/voice`, { method: "POST", headers, body: JSON.stringify({ audio: `data:audio/wav;base64,${silence}` }) })
    expect(quiet.body).toContain(`"tag":"NothingHeard","message":"Heard nothing in the recording (3.2 s of audio, only silence): speak closer to the microphone or type the question"`)
    expect(quiet.body).not.toContain(`"type":"result"`)
    const huge = await request(`${ui.origin}/api/voice`, { method: "POST", headers, body: JSON.stringify({ audio: `data:audio/wav;base64,${"A".repeat(4_100_000)}` }) })
    expect(huge.status).toBe(413)
    expect(JSON.parse(huge.body)).toEqual({ error: { tag: "RequestTooLarge", message: "Request body too large: at most 4,000,000 bytes" } })
    const none = await request(`${ui.origin}/api/runs/no-such-run/speech`, { headers })
    expect(none.status).toBe(404)
    expect(JSON.parse(none.body).error.message).toBe("This answer is no longer held by the server: ask again, then read it aloud.")
    const unauthorised = await request(`${ui.origin}/api/voice`, { method: "POST", headers: { ...headers, authorization: "Bearer wrong" }, body: "{}" })
    expect(unauthorised.status).toBe(401)
  }, 60_000)
})
