/**
 * `arxiv-companion ask` as a user runs it: the built binary, offline.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NotionFault, startNotionStandIn } from "../support/notion-standin.js"

const root = join(import.meta.dirname, "..", "..")
const cli = join(root, "dist", "cli.js") // built by test/support/build.ts

const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: root, timeout: 120_000, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    })
  })

describe("arxiv-companion ask (offline corpus)", () => {
  it("prints every query sent and the top papers with their links", async () => {
    const r = await run(["ask", "what are the main ways to stabilise GAN training?", "--offline"])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("arXiv query (rules): (all:stabilise OR all:stabilize OR all:gan OR all:\"generative adversarial\")")
    expect(r.stdout).toMatch(/^Most cited: .*generative adversarial/m)
    expect(r.stdout).toMatch(/^1\. .*(Generative Adversarial|GAN)/m)
    expect(r.stdout).toMatch(/^3\. /m)
    expect(r.stdout).not.toMatch(/^4\. /m)
    expect(r.stdout).toContain("https://arxiv.org/pdf/")
  })

  it("--json prints the machine-readable answer; --top and --max-results are honoured", async () => {
    const r = await run(["ask", "papers by Hinton on knowledge distillation", "--offline", "--json", "--top", "1", "--max-results", "10"])
    expect(r.code).toBe(0)
    const answer = JSON.parse(r.stdout)
    expect(answer.query).toContain("au:Hinton")
    expect(answer.papers.map((p: { arxiv_id: string }) => p.arxiv_id)).toEqual(["1503.02531"])
  })

  it("a question in generic words is answered with the field's papers, each with why it answers", async () => {
    const r = await run(["ask", "what is the best way to detect objects in images with convolutional networks", "--offline"])
    expect(r.code).toBe(0)
    expect(r.stdout).not.toMatch(/^arXiv query .*\b(?:best|way)\b/m)
    const top = [...r.stdout.matchAll(/^\d\. (.*) \(\d{4}-\d{2}-\d{2}\)$/gm)].map((m) => m[1]!)
    expect(top.filter((t) => /R-CNN|You Only Look Once|SSD|Rich feature hierarchies/.test(t)).length).toBeGreaterThanOrEqual(2)
    expect(r.stdout).toMatch(/^ {3}Why: introduced /m)
  })

  it("a relevant paper whose citation count is not recorded is listed right after the top, with its place and why", async () => {
    const r = await run(["ask", "semantic segmentation with fully convolutional networks", "--offline"])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^Relevant, impact not recorded \(by relevance among the top 3; /m)
    expect(r.stdout).toMatch(/^- Fully Convolutional Networks for Semantic Segmentation · by relevance (?:1st|2nd|3rd) · relevance \d\.\d\d · https:\/\/arxiv\.org\/abs\/1411\.4038$/m)
    expect(r.stdout).toMatch(/^ {2}Why: .*impact not recorded \(no citation count\)$/m)
    const json = JSON.parse((await run(["ask", "semantic segmentation with fully convolutional networks", "--offline", "--json"])).stdout)
    expect(json.unrecorded.map((p: { arxiv_id: string }) => p.arxiv_id)).toContain("1411.4038")
  }, 240_000)

  it("a one-word question exits 2 with what to add", async () => {
    const r = await run(["ask", "transformers", "--offline"])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("Not enough information")
    expect(r.stderr).toContain("one word")
  })

  it("--save writes the answer into the vault; --notion publishes it, retrying a 429, and never prints the token", async () => {
    const vault = mkdtempSync(join(tmpdir(), "ask-cli-vault-"))
    const notion = await startNotionStandIn()
    try {
      notion.failNext(NotionFault.rateLimited("0", "create"))
      const r = await run(
        ["ask", "how do LSTMs learn long-term dependencies", "--offline", "--save", "LSTM reading", "--vault", vault, "--notion"],
        { NOTION_TOKEN: notion.token, NOTION_PARENT_PAGE_ID: notion.parentPageId, NOTION_API_URL: notion.url }
      )
      expect(r.stderr).toBe("")
      expect(r.code).toBe(0)
      expect(r.stdout).toContain("Wrote LSTM reading.md")
      expect(readFileSync(join(vault, "LSTM reading.md"), "utf8")).toContain("arxiv-companion:begin")
      const [page] = [...notion.pages.values()]
      expect(page!.title).toBe("LSTM reading")
      expect(r.stdout).toContain(`Notion page: https://www.notion.so/LSTM-reading-${page!.id.replace(/-/g, "")}`)
      expect(notion.requests.map((q) => q.status)).toEqual([429, 200])
      expect(r.stdout + r.stderr).not.toContain(notion.token)
    } finally {
      await notion.close()
    }
  })

  it("--notion without NOTION_TOKEN exits 1 saying what to set", async () => {
    const r = await run(["ask", "how do LSTMs learn long-term dependencies", "--offline", "--notion"], { NOTION_TOKEN: "", NOTION_PARENT_PAGE_ID: "" })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("NOTION_TOKEN")
  })
})
