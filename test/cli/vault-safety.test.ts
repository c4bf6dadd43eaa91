/**
 * The right note, and nobody's results overwritten: the built CLI over real
 * folders (offline corpus, local judge), as a careless or hostile user drives it.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach } from "vitest"
import { ROOT, runCli } from "../support/cli.js"

const TRANSFORMERS = readFileSync(join(ROOT, "examples", "vault", "Transformers Concept Note.md"), "utf8")
const GANS = readFileSync(join(ROOT, "examples", "vault", "Generative Adversarial Networks.md"), "utf8")

let vault: string
beforeEach(() => {
  vault = mkdtempSync(join(tmpdir(), "companion-safety-"))
})
afterEach(() => rmSync(vault, { recursive: true, force: true }))

const put = (files: Record<string, string>) => {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(vault, name), text)
}
const read = (name: string) => readFileSync(join(vault, name), "utf8")
const files = () => readdirSync(vault).sort()
const snapshot = () => Object.fromEntries(files().map((f) => [f, `${statSync(join(vault, f)).mtimeMs}:${read(f)}`]))
const run = (prompt: string, ...flags: Array<string>) => runCli(["run", prompt, "--vault", vault, "--offline", ...flags])

// each run of the built CLI loads the offline corpus (seconds, more on a busy machine)
describe("the right note", { timeout: 240_000 }, () => {
  it("[[CON]] reads CON.md, not a note that only looks like it", async () => {
    put({ "CON.md": TRANSFORMERS, "Con .md": GANS, "con.md": GANS })
    const r = await run("Find papers related to [[CON]]", "--json")
    expect(r.stderr).toContain("Reading CON.md")
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).note.path).toBe("CON.md")
    expect(read("CON — Related Papers.md")).toContain("[[CON]]")
  })

  it("two notes that match equally well: stops, lists both, writes nothing", async () => {
    put({ "ATTENTION.md": TRANSFORMERS, "Attention.md": GANS })
    const before = snapshot()
    const r = await run("Find papers related to my 'attention' note")
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toBe(
      `Several notes match "attention": "ATTENTION.md", "Attention.md". Name the one you mean by its exact title or its path, e.g. [[ATTENTION]].`
    )
    expect(r.stdout).toBe("")
    expect(snapshot()).toEqual(before)
  })

  it("a title holding quotes is matched whole", async () => {
    const title = `Attention: is it "all" you need?`
    put({ [`${title}.md`]: TRANSFORMERS, "all.md": GANS })
    const r = await run(`Find papers related to my '${title}' note`, "--json")
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).note.path).toBe(`${title}.md`)
  })

  it("naming a generated Related Papers note says so, and it is never a closest title", async () => {
    put({ "Attention.md": TRANSFORMERS })
    const first = await run("Find papers related to [[Attention]]")
    expect(first.code).toBe(0)
    const before = snapshot()
    const named = await run("Find papers related to [[Attention — Related Papers]]")
    expect(named.code).toBe(1)
    expect(named.stderr.trim()).toBe(
      `"Attention — Related Papers" is a note the companion writes (its results for a concept note), not a concept note; name the concept note instead, e.g. "Attention".`
    )
    const missing = await run("Find papers related to [[Atention Related]]")
    expect(missing.stderr).toContain(`Closest titles: "Attention".`)
    expect(snapshot()).toEqual(before)
  })
})
