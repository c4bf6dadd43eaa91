/**
 * The right note, and nobody's results overwritten: the built CLI over real
 * folders (offline corpus, local judge), as a careless or hostile user drives it.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
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
// what this file pins (which note is read, what is written or left alone) does not depend on the pool's size:
// a pool of 100 instead of the default 1000 makes each of its ~20 runs of the built CLI several times cheaper
const run = (prompt: string, ...flags: Array<string>) =>
  runCli(["run", prompt, "--vault", vault, "--offline", "--pool-size", "100", ...flags])

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

  it("an apostrophe inside a title quoted with single quotes is part of the title, in French and in English", async () => {
    const french = `# Réseaux d'attention

Le mécanisme d'attention pondère chaque mot de la phrase source pour produire la traduction. Le **transformer** utilise
l'auto-attention (self-attention) à plusieurs têtes, sans récurrence ; l'encodeur et le décodeur sont empilés.
`
    put({
      "Réseaux d'attention.md": french,
      "L’attention multi-tête.md": french,
      "Réseaux d.md": GANS,
      "Bayes' rule.md": GANS,
      "Bayes.md": TRANSFORMERS,
      "Hinton's dropout.md": GANS,
      "Hinton.md": TRANSFORMERS
    })
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["Trouve des articles pour ma note 'Réseaux d'attention'", "Réseaux d'attention.md"],
      ["Trouve des articles pour ma note ‘Réseaux d’attention’", "Réseaux d'attention.md"],
      ["Des articles pour 'L'attention multi-tête', s'il te plaît", "L’attention multi-tête.md"],
      ["Find papers related to my 'Bayes' rule' note", "Bayes' rule.md"],
      ["Find papers related to my 'Hinton's dropout' note", "Hinton's dropout.md"],
      ["Find papers related to ‘Hinton’s dropout’", "Hinton's dropout.md"],
      // a quoted title that is the word before an apostrophe is still that word
      ["Find papers related to my 'Bayes' note, it's short", "Bayes.md"]
    ]
    for (const [prompt, path] of cases) {
      const r = await run(prompt, "--json")
      expect(r.code, `${prompt}: ${r.stderr}`).toBe(0)
      expect(JSON.parse(r.stdout).note.path, prompt).toBe(path)
    }
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

const block = (text: string) => /%% arxiv-companion:begin [0-9a-f]{8} %%[\s\S]*%% arxiv-companion:end %%/.exec(text)?.[0]
const sourceOf = (text: string) => /^source: (.*)$/m.exec(text)?.[1]

describe("nobody's results overwritten", { timeout: 240_000 }, () => {
  it("titles that give the same file name each keep their own results", async () => {
    // three notes, three titles, one sanitised file name: "Attention — Related Papers.md"
    const titles = ["Attention", "Attention?", "\u0001Attention"]
    put({ "Attention.md": TRANSFORMERS, "Attention?.md": GANS, "\u0001Attention.md": TRANSFORMERS })
    const written = new Map<string, string>()
    for (const title of titles) {
      const r = await run(`Find papers related to [[${title}]]`, "--json")
      expect(r.code, r.stderr).toBe(0)
      const report = JSON.parse(r.stdout)
      expect(report.note.title).toBe(title)
      written.set(title, report.written.path)
    }
    expect(new Set(written.values()).size).toBe(3)
    for (const [title, path] of written) expect(sourceOf(read(path))).toBe(JSON.stringify(`[[${title}]]`))
    expect(written.get("Attention?")).toBe("Attention — Related Papers (2).md")
    // each run again finds its own note, unchanged
    const before = snapshot()
    for (const [title, path] of written) {
      const again = JSON.parse((await run(`Find papers related to [[${title}]]`, "--json")).stdout)
      expect(again.written).toMatchObject({ path, status: "unchanged" })
    }
    expect(snapshot()).toEqual(before)
  })

  it("a Related Papers note the user wrote is never touched: the results go beside it, saying why", async () => {
    const mine = "---\nsource: my own list\nkept: 3\nupdated: 2020-01-01\n---\n# Attention — what I read\n\n- Bahdanau 2014\n"
    put({ "Attention.md": TRANSFORMERS, "Attention — Related Papers.md": mine })
    const r = await run("Find papers related to [[Attention]]")
    expect(r.code, r.stderr).toBe(0)
    expect(read("Attention — Related Papers.md")).toBe(mine)
    expect(r.stdout).toContain(
      `"Attention — Related Papers.md" is a note of yours (it has no arxiv-companion block), so it was left untouched; ` +
        `the results were written to "Attention — Related Papers (2).md".`
    )
    expect(block(read("Attention — Related Papers (2).md"))).toBeDefined()
  })

  it("a deleted end marker: the note is left alone, and the run says what happened and how to repair it", async () => {
    put({ "Attention.md": TRANSFORMERS })
    expect((await run("Find papers related to [[Attention]]")).code).toBe(0)
    const broken = read("Attention — Related Papers.md").replace("%% arxiv-companion:end %%\n", "")
    writeFileSync(join(vault, "Attention — Related Papers.md"), broken)
    for (let i = 0; i < 2; i++) {
      const r = await run("Find papers related to [[Attention]]", "--json")
      expect(r.code, r.stderr).toBe(0)
      const report = JSON.parse(r.stdout)
      expect(read("Attention — Related Papers.md")).toBe(broken)
      expect(report.written.status).toBe("kept-user-edits")
      expect(report.written.path).toMatch(/^Attention — Related Papers \(\d{4}-\d{2}-\d{2}\)\.md$/)
      expect(report.written.notice).toContain("its end marker (%% arxiv-companion:end %%) was deleted")
      expect(report.written.notice).toContain("To repair it, put the line %% arxiv-companion:end %% back where the generated part ends")
    }
    expect(files().filter((f) => f.startsWith("Attention — Related Papers"))).toHaveLength(2)
  })

  it("a run that finds no candidates keeps the earlier results and says why", async () => {
    put({ "Attention.md": TRANSFORMERS })
    expect((await run("Find papers related to [[Attention]]")).code).toBe(0)
    const earlier = snapshot()
    expect(read("Attention — Related Papers.md")).toMatch(/^candidates: [1-9]/m)
    // --since holds for both channels (the arXiv search and the most cited works), so nothing is found;
    // --categories narrows only the arXiv search, so it cannot empty a run on its own
    for (const flags of [["--since", "2099-01-01"], ["--since", "2099-01-01", "--categories", "math.AG"]]) {
      const r = await run("Find papers related to [[Attention]]", "--json", ...flags)
      expect(r.code, r.stderr).toBe(0)
      const report = JSON.parse(r.stdout)
      expect(report.candidates).toEqual([])
      expect(report.written.status).toBe("kept-earlier")
      expect(report.written.notice).toMatch(/^This run found no candidates on arXiv \(.*\), so the earlier results in "Attention — Related Papers\.md" \(\d+ candidates, \d+ kept, updated .*\) were kept\./)
      expect(snapshot()).toEqual(earlier)
    }
  })

  it("run rejects an unknown category the way search does, before touching anything", async () => {
    put({ "Attention.md": TRANSFORMERS })
    const before = snapshot()
    const r = await run("Find papers related to [[Attention]]", "--categories", "cs.ML")
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("cs.ML")
    expect(r.stderr).toContain("cs.LG")
    expect(r.stdout).toBe("")
    expect(snapshot()).toEqual(before)
  })

  it("a note kept with CRLF line endings and a byte-order mark keeps both", async () => {
    put({ "Attention.md": TRANSFORMERS })
    expect((await run("Find papers related to [[Attention]]")).code).toBe(0)
    const windows = `\uFEFF${read("Attention — Related Papers.md").replace(/\n/g, "\r\n")}\r\nMy own line.\r\n`
    writeFileSync(join(vault, "Attention — Related Papers.md"), windows)
    const r = await run("Find papers related to [[Attention]]", "--json", "--relevance-threshold", "0.05")
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).written.status).toBe("updated")
    const after = readFileSync(join(vault, "Attention — Related Papers.md"), "utf8")
    expect(after).toContain("relevance_threshold: 0.05")
    expect(after.startsWith("\uFEFF---\r\n")).toBe(true)
    expect(after).not.toMatch(/[^\r]\n/)
    expect(after.endsWith("\r\nMy own line.\r\n")).toBe(true)
  })
})

describe("nothing left behind", { timeout: 240_000 }, () => {
  it("a killed write's hidden temp file is removed by the next run, even one that rewrites nothing", async () => {
    put({ "Transformers Concept Note.md": TRANSFORMERS })
    const prompt = "Find papers related to my 'Transformers Concept Note'"
    expect((await run(prompt)).code).toBe(0)
    const related = "Transformers Concept Note — Related Papers.md"
    const prefix = `.${Array.from(related).slice(0, 40).join("")}.`
    // what a write killed 20 minutes ago left (32 MB in the drill), and one a live writer elsewhere is making now
    const stale = `${prefix}0badf00d.4242-killed.tmp`
    const live = `${prefix}0badf00d.4343-writing.tmp`
    writeFileSync(join(vault, stale), "x".repeat(1 << 20))
    writeFileSync(join(vault, live), "partial")
    const old = new Date(Date.now() - 20 * 60_000)
    utimesSync(join(vault, stale), old, old)
    const again = await run(prompt, "--json")
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout).written.status).toBe("unchanged")
    expect(files()).not.toContain(stale)
    expect(files()).toContain(live)
  })
})

describe("sizes the companion accepts", { timeout: 240_000 }, () => {
  it("a note over 1,000,000 characters is refused in one line that says the limit, before any search", async () => {
    put({ "Huge.md": `# Huge\n\n${"Transformers use self-attention over token sequences. ".repeat(40_000)}` })
    const r = await run("Find papers related to [[Huge]]")
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    // after the progress line that says which note is read
    expect(r.stderr.trim().split("\n").at(-1)).toBe(
      `Invalid note: "Huge" (Huge.md) is 2,160,008 characters long; the companion reads notes of at most 1,000,000 characters. ` +
        "Name a shorter concept note, or move the long material out of this one."
    )
    expect(files()).toEqual(["Huge.md"])
  })
})
