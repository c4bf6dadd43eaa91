/**
 * Headless Chromium for the tests that draw what Obsidian would draw: Debian's
 * `chromium` package (`.ci/run` installs it), driven by playwright-core (which
 * downloads no browser), with a fresh profile and no background networking.
 * Pages are served from a loopback HTTP server; `mermaid` is served from
 * node_modules, so nothing is fetched from the internet.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BrowserContext, chromium } from "playwright-core"

/** Where Debian's chromium package puts the browser (override with CHROMIUM_PATH). */
export const CHROMIUM_PATH = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"

/** True when the tests run in CI, where a missing browser is a failure, not a skip. */
export const IN_CI = ["1", "true"].includes((process.env["CI"] ?? "").toLowerCase())

/** Whether the browser tests can run here; when not, say why once. */
export const chromiumAvailable = (): boolean => {
  const found = existsSync(CHROMIUM_PATH)
  if (!found && !IN_CI) {
    console.warn(
      `Skipping the browser rendering test: no Chromium at ${CHROMIUM_PATH}. ` +
        "Install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH; in CI (CI=true) this test fails instead."
    )
  }
  return found || IN_CI
}

const root = join(import.meta.dirname, "..", "..")

/** Files a page may load, by URL path. */
export const STATIC_FILES: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  "/mermaid.min.js": { file: join(root, "node_modules", "mermaid", "dist", "mermaid.min.js"), type: "text/javascript" }
}

/** A loopback server for one page and the static files; every request is recorded. */
export interface PageServer {
  readonly url: string
  readonly requests: Array<string>
  readonly close: () => Promise<void>
}

export const servePage = async (html: string): Promise<PageServer> => {
  const requests: Array<string> = []
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname
    requests.push(path)
    if (path === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      return res.end(html)
    }
    const asset = STATIC_FILES[path]
    if (asset === undefined) {
      res.writeHead(404)
      return res.end()
    }
    res.writeHead(200, { "content-type": asset.type })
    res.end(readFileSync(asset.file))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** A fresh headless Chromium profile, and how to close it (the profile is deleted). */
export const openChromium = async (
  viewport: { readonly width: number; readonly height: number } = { width: 1100, height: 900 },
  /** More Chromium switches (a fake microphone, ...). */
  extraArgs: ReadonlyArray<string> = []
): Promise<{ readonly context: BrowserContext; readonly close: () => Promise<void> }> => {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: .ci/run installs Debian's chromium package (apt-get install -y chromium).`)
  }
  const profile = mkdtempSync(join(tmpdir(), "arxiv-companion-chromium-"))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      ...extraArgs
    ],
    viewport
  })
  // a wait is for a state, bounded by the test's own timeout: on a busy machine (the whole suite on two
  // cores, a package build beside it) a run the page waits for can take far longer than Playwright's 30 s
  context.setDefaultTimeout(110_000)
  return {
    context,
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    }
  }
}

/** Run `use` with a fresh headless Chromium profile; the profile is deleted afterwards. */
export const withChromium = async <A>(use: (context: BrowserContext) => Promise<A>): Promise<A> => {
  const browser = await openChromium()
  try {
    return await use(browser.context)
  } finally {
    await browser.close()
  }
}
