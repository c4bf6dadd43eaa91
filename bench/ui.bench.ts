/**
 * The local page's responsiveness, read from the browser's own performance
 * timings: the built CLI's `ui --offline` on a copy of examples/vault, driven
 * in headless Chromium (Debian's chromium, as the tests).
 *
 * - page load: navigation start → load event (HTML, CSS, script; the server
 *   sends `no-store`, so every load fetches everything), and → the page ready
 *   (its info call answered) and → the note list shown;
 * - a run of the demo note: click → first progress event (the server's
 *   "started" line), → first workflow step (the note read), → result.
 *
 * Each figure: median, min and max over the repetitions, with the load average.
 * Set UI_BENCH_SCREENSHOT=docs/ui-results.png to save the results page.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { openChromium } from "../test/support/chromium.js"
import { startUi } from "../test/support/ui.js"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const REPS = 7

const stats = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s[s.length - 1]! }
}
const ms = (x: number) => `${Math.round(x)} ms`
const row = (name: string, xs: ReadonlyArray<number>, goal: string) => {
  const { max, median, min } = stats(xs)
  console.log(`| ${name} | ${ms(median)} | ${ms(min)}–${ms(max)} | ${goal} |`)
}


export default async () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "companion-ui-bench-"))
  const vault = path.join(work, "vault")
  fs.cpSync(path.join(ROOT, "examples", "vault"), vault, { recursive: true })
  const ui = await startUi(["--offline", "--vault", vault])
  const browser = await openChromium({ width: 1000, height: 1000 })
  try {
    const page = await browser.context.newPage()
    // the first load warms the server's and the browser's start-up; it is not counted
    await page.goto(ui.url)
    await page.locator("#note-list input").first().waitFor()
    const loads: Array<{ load: number; dom: number; ready: number; notes: number }> = []
    for (let i = 0; i < REPS; i++) {
      await page.goto(`${ui.origin}/?rep=${i}&token=${ui.token}`)
      await page.locator("#note-list input").first().waitFor()
      loads.push(await page.evaluate(() => {
        const p = (globalThis as unknown as {
          performance: { getEntriesByType: (t: string) => Array<{ loadEventEnd: number; domContentLoadedEventEnd: number }>; getEntriesByName: (n: string) => Array<{ startTime: number }> }
        }).performance
        const nav = p.getEntriesByType("navigation")[0]!
        return {
          load: nav.loadEventEnd,
          dom: nav.domContentLoadedEventEnd,
          ready: p.getEntriesByName("ready")[0]!.startTime,
          notes: p.getEntriesByName("notes-listed")[0]!.startTime
        }
      }))
    }
    // the corpus is loaded in the background at start; the first run is not counted either
    const runOnce = async () => {
      await page.getByRole("radio", { name: "Transformers Concept Note" }).check()
      await page.getByRole("button", { name: "Find papers" }).click()
      await page.getByRole("heading", { name: "Results" }).waitFor()
      return page.evaluate(() => {
        const p = (globalThis as unknown as { performance: { measure: (n: string, a: string, b: string) => { duration: number } } }).performance
        return {
          first: p.measure("m1", "run-click", "first-progress").duration,
          step: p.measure("m2", "run-click", "first-step").duration,
          result: p.measure("m3", "run-click", "result").duration
        }
      })
    }
    await runOnce()
    const runs: Array<{ first: number; step: number; result: number }> = []
    for (let i = 0; i < REPS; i++) runs.push(await runOnce())
    const shot = process.env["UI_BENCH_SCREENSHOT"]
    if (shot !== undefined) {
      await page.evaluate(() => (globalThis as unknown as { document: { getElementById: (id: string) => { scrollIntoView: () => void } } }).document.getElementById("results").scrollIntoView())
      await page.screenshot({ path: path.resolve(ROOT, shot), fullPage: false })
      console.log(`screenshot: ${shot}`)
    }

    console.log(`Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}; ${REPS} repetitions each`)
    console.log("| figure | median | range | goal |")
    console.log("|---|---|---|---|")
    row("page load (navigation → load event)", loads.map((l) => l.load), "≤ 200 ms")
    row("page ready (info answered)", loads.map((l) => l.ready), "")
    row("note list shown", loads.map((l) => l.notes), "")
    row("click → first progress event", runs.map((r) => r.first), "≤ 300 ms")
    row("click → first workflow step (note read)", runs.map((r) => r.step), "")
    row("click → result cards (offline run)", runs.map((r) => r.result), "")
  } finally {
    await browser.close()
    await ui.stop("SIGINT")
    fs.rmSync(work, { recursive: true, force: true })
  }
}
