import { describe, expect, it } from "@effect/vitest"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach } from "vitest"
import { ROOT, runCli } from "../support/cli.js"

const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out[p.slice(dir.length + 1)] = readFileSync(p, "utf8")
    }
  }
  walk(dir)
  return out
}

const today = () => new Date().toISOString().slice(0, 10)
const digestPath = (vault: string) => join(vault, `arXiv Digest ${today()}.md`)

/** The ids a digest note lists under a note's section `## [[title]]`. */
const sectionIds = (digest: string, title: string): ReadonlyArray<string> => {
  const start = digest.indexOf(`\n## [[${title}]]\n`)
  if (start < 0) return []
  const next = digest.indexOf("\n## ", start + 4)
  const section = digest.slice(start, next < 0 ? undefined : next)
  return [...section.matchAll(/^- \*\*\[.*?\]\(https:\/\/arxiv\.org\/abs\/([^)]+)\)\*\*/gm)].map((m) => m[1]!)
}

interface Result {
  readonly digest_note: string
  readonly notes_covered: number
  readonly new_papers: number
  readonly resumed: number
  readonly notes: ReadonlyArray<{ readonly note: string; readonly since: string; readonly papers: ReadonlyArray<{ readonly arxiv_id: string; readonly relevance: number; readonly profile_shift: number; readonly published: string }> }>
  readonly not_searched: ReadonlyArray<{ readonly note: string; readonly reason: string }>
  readonly calls: { readonly arxiv: number }
}

// several runs of the built CLI per test: each loads the offline corpus, slower on a busy machine
describe("arxiv-companion digest (offline, a copy of examples/vault)", { timeout: 180_000 }, () => {
  let vault: string
  beforeEach(() => {
    vault = mkdtempSync(join(tmpdir(), "companion-digest-"))
    cpSync(join(ROOT, "examples", "vault"), vault, { recursive: true })
    rmSync(join(vault, "Transformers Concept Note — Related Papers.md"), { force: true })
  })
  afterEach(() => rmSync(vault, { recursive: true, force: true }))

  it("writes one dated digest: a section per concept note, the too-short note listed with why, each note's last digest recorded", async () => {
    const sources = snapshot(vault)
    const r = await runCli(["digest", "--vault", vault, "--offline", "--since", "2016-06-01", "--json"])
    expect(r.code, r.stderr).toBe(0)
    const result = JSON.parse(r.stdout) as Result
    // the estimate before starting, and a progress line per note
    expect(r.stderr).toMatch(/^Digest: 4 of 5 concept notes to search; 1 not searched \(listed with why\); 0 arXiv requests \(a local backend\)$/m)
    expect(r.stderr).toMatch(/^\[#{20}\] 4\/4 /m)
    expect(result.digest_note).toBe(`arXiv Digest ${today()}.md`)
    expect(result.not_searched).toEqual([{ note: "Quick Idea.md", reason: expect.stringMatching(/^yields 1 keyword \(quick\); at least 2 are needed/) }])
    expect(result.notes.map((n) => n.note).sort()).toEqual(
      ["Generative Adversarial Networks.md", "Papers/Word Embeddings.md", "Reading List.md", "Transformers Concept Note.md"]
    )
    // one arXiv request per note searched; every paper first submitted since the date
    expect(result.calls.arxiv).toBe(4)
    for (const n of result.notes) {
      expect(n.since).toBe("2016-06-01")
      for (const p of n.papers) expect(p.published >= "2016-06-01").toBe(true)
    }
    const digest = readFileSync(digestPath(vault), "utf8")
    expect(digest).toMatch(/^%% arxiv-companion:begin [0-9a-f]{8} %%$/m)
    expect(digest).toContain("## Best of this digest")
    expect(digest).toContain("- [[Quick Idea]]: yields 1 keyword (quick)")
    const gan = sectionIds(digest, "Generative Adversarial Networks")
    expect(gan.length).toBeGreaterThan(0)
    expect(gan).toEqual(result.notes.find((n) => n.note === "Generative Adversarial Networks.md")!.papers.map((p) => p.arxiv_id))
    expect(digest).toContain("  - [ ] not for me")
    // the record: each note searched, with today's date
    const state = readFileSync(join(vault, "arXiv Companion", "Digest State.md"), "utf8")
    expect(state).toContain(`"Generative Adversarial Networks.md": "${today()}"`)
    expect(state).not.toContain("Quick Idea.md")
    // the student's notes are untouched
    const after = snapshot(vault)
    for (const [path, text] of Object.entries(sources)) expect(after[path], path).toBe(text)

    // the next digest without --since starts at each note's last digest: nothing of 2016–2017 again
    const next = await runCli(["digest", "--vault", vault, "--offline", "--json", "--dry-run"])
    expect(next.code, next.stderr).toBe(0)
    const nextResult = JSON.parse(next.stdout) as Result
    for (const n of nextResult.notes) expect(n.since).toBe(today())
    expect(nextResult.new_papers).toBe(0)
  })

  it("lists the notes with nothing new on one line, and --dry-run writes nothing", async () => {
    const before = snapshot(vault)
    const r = await runCli(["digest", "--vault", vault, "--offline", "--since", "2017-03-25", "--dry-run"])
    expect(r.code, r.stderr).toBe(0)
    // at the digest's bar (0.70 for the local judge's fixed relevance) and its title check (half the note's title
    // words in a paper's title or first sentence: no paper names a "reading list") two notes have nothing since then
    expect(r.stdout).toMatch(/^## Nothing new\n\n\[\[Reading List\]\] · \[\[Transformers Concept Note\]\]$/m)
    expect(r.stdout).toContain("Would write arXiv Digest")
    expect(snapshot(vault)).toEqual(before)
  })

  it("selects by --notes glob and --tag", async () => {
    writeFileSync(join(vault, "Papers", "Dropout.md"), "---\ntags: [regularisation]\n---\n# Dropout\n\nDropout randomly zeroes hidden units during training of deep neural networks, a regularisation against overfitting; at test time the weights are scaled. Related: ensembles, Bayesian approximation, Monte Carlo dropout uncertainty.\n")
    const byGlob = await runCli(["digest", "--vault", vault, "--offline", "--since", "2016-06-01", "--notes", "Papers/**", "--json", "--dry-run"])
    expect(byGlob.code, byGlob.stderr).toBe(0)
    expect((JSON.parse(byGlob.stdout) as Result).notes.map((n) => n.note).sort()).toEqual(["Papers/Dropout.md", "Papers/Word Embeddings.md"])
    const byTag = await runCli(["digest", "--vault", vault, "--offline", "--since", "2016-06-01", "--tag", "regularisation", "--json", "--dry-run"])
    expect(byTag.code, byTag.stderr).toBe(0)
    expect((JSON.parse(byTag.stdout) as Result).notes.map((n) => n.note)).toEqual(["Papers/Dropout.md"])
  })

  it("refuses bad input with one line and its exit code, writing nothing", async () => {
    const before = snapshot(vault)
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, number, RegExp]> = [
      [["--since", "2099-01-01"], 1, /^Invalid --since: 2099-01-01 is in the future \(today is \d{4}-\d{2}-\d{2}\); give a past date or a number of days, e\.g\. 7d$/],
      [["--since", "last week"], 1, /^Invalid --since: "last week" is not a date; give YYYY-MM-DD \(e\.g\. 2016-06-01\) or a number of days \(e\.g\. 7d\)$/],
      [["--since", "2017-02-30"], 1, /^Invalid --since: "2017-02-30" is not a date/],
      [["--notes", "Nowhere/**"], 1, /^Invalid notes: "Nowhere\/\*\*" matches no concept note of the vault \(5 concept notes\)/],
      [["--tag", "nosuchtag"], 1, /^Invalid tag: no concept note carries the tag #nosuchtag$/]
    ]
    for (const [args, code, message] of cases) {
      const r = await runCli(["digest", "--vault", vault, "--offline", ...args])
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(code)
      expect(r.stderr.trim().split("\n").at(-1), args.join(" ")).toMatch(message)
      expect(r.stdout).toBe("")
    }
    expect(snapshot(vault)).toEqual(before)

    const empty = mkdtempSync(join(tmpdir(), "companion-digest-empty-"))
    try {
      const r = await runCli(["digest", "--vault", empty, "--offline", "--since", "2016-06-01"])
      expect(r.code).toBe(2)
      expect(r.stderr.trim()).toMatch(/^Not enough information: the vault .* holds no notes\. Write a concept note/)
      // a vault of the companion's generated notes only
      writeFileSync(join(empty, "Attention — Related Papers.md"), "---\nsource: \"[[Attention]]\"\n---\n%% arxiv-companion:begin 00000000 %%\nx\n%% arxiv-companion:end %%\n")
      mkdirSync(join(empty, "arXiv Companion"))
      writeFileSync(join(empty, "arXiv Companion", "Digest State.md"), "state\n")
      const generatedOnly = await runCli(["digest", "--vault", empty, "--offline", "--since", "2016-06-01"])
      expect(generatedOnly.code).toBe(2)
      expect(generatedOnly.stderr.trim()).toMatch(/^Not enough information: the vault .* holds only the companion's generated notes \(2\), no concept note to digest\./)
      expect(readdirSync(empty).sort()).toEqual(["Attention — Related Papers.md", "arXiv Companion"])
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })

  it("never suggests a paper again for a note once its 'not for me' box is ticked, even after the digest is deleted", async () => {
    const first = await runCli(["digest", "--vault", vault, "--offline", "--since", "2016-06-01", "--notes", "Generative*"])
    expect(first.code, first.stderr).toBe(0)
    const path = digestPath(vault)
    const digest = readFileSync(path, "utf8")
    const [rejected, struck] = sectionIds(digest, "Generative Adversarial Networks")
    expect(rejected).toBeDefined()
    expect(struck).toBeDefined()
    // the student ticks the box under the first paper and strikes the second through
    const at = digest.indexOf(`arxiv.org/abs/${rejected})`)
    const box = digest.indexOf("- [ ] not for me", at)
    let edited = `${digest.slice(0, box)}- [x] not for me${digest.slice(box + "- [ ] not for me".length)}`
    edited = edited.replace(new RegExp(`^- (\\*\\*\\[.*?\\]\\(https://arxiv\\.org/abs/${struck!.replace(".", "\\.")}\\)\\*\\*.*)$`, "m"), "- ~~$1~~")
    writeFileSync(path, edited)

    // a rerun: the edited digest is kept as the student left it, and the new one holds neither paper
    const second = await runCli(["digest", "--vault", vault, "--offline", "--since", "2016-06-01", "--notes", "Generative*", "--json"])
    expect(second.code, second.stderr).toBe(0)
    expect(readFileSync(path, "utf8")).toBe(edited)
    const result = JSON.parse(second.stdout) as Result
    const ids = result.notes[0]!.papers.map((p) => p.arxiv_id)
    expect(ids.length).toBeGreaterThan(0)
    expect(ids).not.toContain(rejected)
    expect(ids).not.toContain(struck)
    const state = readFileSync(join(vault, "arXiv Companion", "Digest State.md"), "utf8")
    expect(state).toContain(`"arxivId": "${rejected}"`)
    expect(state).toContain(`"arxivId": "${struck}"`)

    // every digest deleted: the record still holds the verdict, and the papers like the rejected ones move down
    for (const name of readdirSync(vault)) if (name.startsWith("arXiv Digest ")) rmSync(join(vault, name))
    const third = await runCli(["digest", "--vault", vault, "--offline", "--since", "2016-06-01", "--notes", "Generative*", "--json"])
    expect(third.code, third.stderr).toBe(0)
    const papers = (JSON.parse(third.stdout) as Result).notes[0]!.papers
    expect(papers.map((p) => p.arxiv_id)).not.toContain(rejected)
    expect(papers.map((p) => p.arxiv_id)).not.toContain(struck)
    expect(papers.some((p) => p.profile_shift < 0)).toBe(true)
    expect(papers.every((p) => p.profile_shift <= 0)).toBe(true)
    expect(readFileSync(digestPath(vault), "utf8")).toMatch(/profile from 0 kept and 2 rejected papers/)
  })

  it("does not announce as new a paper the vault already keeps in a Related Papers note", async () => {
    const dry = await runCli(["digest", "--vault", vault, "--offline", "--since", "2016-06-01", "--notes", "Generative*", "--json", "--dry-run"])
    expect(dry.code, dry.stderr).toBe(0)
    const announced = (JSON.parse(dry.stdout) as Result).notes[0]!.papers.map((p) => p.arxiv_id)
    expect(announced.length).toBeGreaterThan(1)
    // the student runs the companion on the GAN note, which keeps papers the digest would have announced
    const run = await runCli(["run", "Find papers related to my 'Generative Adversarial Networks' note", "--vault", vault, "--offline", "--since", "2016-06-01"])
    expect(run.code, run.stderr).toBe(0)
    const related = readFileSync(join(vault, "Generative Adversarial Networks — Related Papers.md"), "utf8")
    const from = related.indexOf("## Kept papers")
    const keptPart = related.slice(from, related.indexOf("\n## ", from + 5))
    const kept = announced.filter((id) => keptPart.includes(`arxiv.org/abs/${id}`))
    expect(kept.length, "the run keeps some of the papers the digest announced").toBeGreaterThan(0)
    const digest = await runCli(["digest", "--vault", vault, "--offline", "--since", "2016-06-01", "--json"])
    expect(digest.code, digest.stderr).toBe(0)
    const result = JSON.parse(digest.stdout) as Result
    // the Related Papers note is the companion's own: not digested itself
    expect(result.notes.map((n) => n.note)).not.toContain("Generative Adversarial Networks — Related Papers.md")
    const all = result.notes.flatMap((n) => n.papers.map((p) => p.arxiv_id))
    for (const id of kept) expect(all).not.toContain(id)
    expect(existsSync(digestPath(vault))).toBe(true)
  })
})
