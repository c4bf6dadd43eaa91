/**
 * Write-back that never loses a word: the whole companion over a real folder
 * vault (FileSystemVault), re-run after the kinds of edits Obsidian users make.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Layer, TestClock } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as CorpusArxiv from "../../src/adapters/arxiv/CorpusArxiv.js"
import * as RecordedOpenAlex from "../../src/adapters/openalex/RecordedOpenAlex.js"
import * as ArxivTermStats from "../../src/adapters/judge/ArxivTermStats.js"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import * as FileSystemVault from "../../src/adapters/vault/FileSystemVault.js"
import { unsafeWriteReason } from "../../src/adapters/vault/vaultPath.js"
import { findBlock, relatedNotePath, sanitizeTitle } from "../../src/core/compose.js"
import { splitFrontmatter } from "../../src/core/keywords.js"
import { CompanionOptions, NoteRef } from "../../src/core/models.js"
import { runCompanion } from "../../src/core/workflow.js"

const CONCEPT = NodeFs.readFileSync(NodePath.resolve("examples/vault/Transformers Concept Note.md"), "utf8")
const SOURCE = "Topics/Transformers Concept Note.md"
const RELATED = "Topics/Transformers Concept Note — Related Papers.md"
/**
 * The offline corpus (real recorded arXiv and citation data) and the local judge,
 * built once per file: the offline services load the corpus on first use and keep it.
 */
const OfflinePorts = Layer.succeedContext(
  await Effect.runPromise(
    Effect.scoped(Layer.build(
      Layer.mergeAll(CorpusArxiv.layer(), RecordedOpenAlex.layer(), LocalJudge.layer, ArxivTermStats.layer).pipe(
        Layer.provide(NodeContext.layer)
      )
    ))
  )
)

const PROMPT = "Find papers related to my 'Transformers Concept Note'"
const NOW = Date.parse("2026-11-29T12:00:00Z")

const tempVault = (files: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "vault-wb-"))
      for (const [rel, content] of Object.entries(files)) {
        NodeFs.mkdirSync(NodePath.dirname(NodePath.join(root, rel)), { recursive: true })
        NodeFs.writeFileSync(NodePath.join(root, rel), content)
      }
      return root
    }),
    (root) => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true }))
  )

const run = (root: string, options = new CompanionOptions({}), prompt = PROMPT) =>
  runCompanion(prompt, options).pipe(
    Effect.provide(Layer.mergeAll(
      OfflinePorts,
      FileSystemVault.layer({ root }).pipe(Layer.provide(NodeContext.layer))
    ))
  )

const read = (root: string, rel: string) => NodeFs.readFileSync(NodePath.join(root, rel), "utf8")
const write = (root: string, rel: string, text: string) => NodeFs.writeFileSync(NodePath.join(root, rel), text)
const mtime = (root: string, rel: string) => NodeFs.statSync(NodePath.join(root, rel)).mtimeMs

/** Everything but the generated block and the companion's own properties. */
const userParts = (note: string) => {
  const found = findBlock(note)!
  const without = note.slice(0, found.start) + "<BLOCK>" + note.slice(found.end)
  const { body, frontmatter } = splitFrontmatter(without)
  const managed = /^(source|query|keywords|relevance_threshold|citations_per_year_threshold|exempt_years|judge|impact_source|kept|candidates|updated|tags):/
  const lines = (frontmatter ?? "").split("\n")
  const kept: Array<string> = []
  for (let i = 0; i < lines.length; i++) {
    if (managed.test(lines[i]!)) {
      while (i + 1 < lines.length && /^(?:\s+\S|-(?:\s|$))/.test(lines[i + 1]!)) i++
      continue
    }
    kept.push(lines[i]!)
  }
  return { properties: kept, body }
}

const frontmatterKeys = (note: string) =>
  (splitFrontmatter(note).frontmatter ?? "").split("\n").flatMap((l) => /^([A-Za-z_][\w-]*):/.exec(l)?.[1] ?? [])

describe("write-back", () => {
  it.scoped("an unchanged result is not rewritten: same bytes, same mtime; the source note is never touched", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const root = yield* tempVault({ [SOURCE]: CONCEPT })
      const first = yield* run(root)
      assert.strictEqual(first.written.status, "created")
      assert.strictEqual(first.written.path, RELATED)
      const bytes = read(root, RELATED)
      const before = mtime(root, RELATED)
      yield* TestClock.adjust("3 hours")
      const second = yield* run(root)
      assert.strictEqual(second.written.status, "unchanged")
      assert.strictEqual(read(root, RELATED), bytes)
      assert.strictEqual(mtime(root, RELATED), before)
      assert.strictEqual(read(root, SOURCE), CONCEPT)
      assert.deepStrictEqual(NodeFs.readdirSync(NodePath.join(root, "Topics")).sort(), [
        "Transformers Concept Note — Related Papers.md",
        "Transformers Concept Note.md"
      ])
    }))

  it.scoped("text before and after the block and the user's own properties survive an update byte for byte", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const root = yield* tempVault({ [SOURCE]: CONCEPT })
      yield* run(root)
      const original = read(root, RELATED)
      const found = findBlock(original)!
      const edited = original.slice(0, found.start).replace(/^---\n/, "---\nrating: 5\naliases:\n  - TRP\ncssclasses: [wide]\n") +
        "My intro, written by hand.  \n\n" + original.slice(found.start, found.end) +
        "\n\n## My notes\n- [ ] read [[Neural Machine Translation]] first\n\tindented ✓ \n"
      write(root, RELATED, edited)
      yield* TestClock.adjust("1 day")
      const updated = yield* run(root, new CompanionOptions({ relevanceThreshold: 0.05 }))
      assert.strictEqual(updated.written.status, "updated")
      const after = read(root, RELATED)
      assert.deepStrictEqual(userParts(after), userParts(edited))
      assert.notStrictEqual(findBlock(after)!.block, found.block)
      assert.isFalse(findBlock(after)!.editedByUser)
      // no key twice, so Obsidian still reads the properties
      const keys = frontmatterKeys(after)
      assert.deepStrictEqual(keys, [...new Set(keys)])
      assert.include(after, "relevance_threshold: 0.05")
      // and a re-run with the same options leaves it alone
      const again = yield* run(root, new CompanionOptions({ relevanceThreshold: 0.05 }))
      assert.strictEqual(again.written.status, "unchanged")
      assert.strictEqual(read(root, RELATED), after)
    }))

  it.scoped("tags the user adds (inline or as Obsidian's block list) are kept", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const root = yield* tempVault({ [SOURCE]: CONCEPT })
      yield* run(root)
      const original = read(root, RELATED)
      // the note's keywords are tags too (after the companion's own two); the user adds one at the end
      assert.match(original, /^tags: \[arxiv-companion, related-papers, attention, [^\]]*\]$/m)
      write(root, RELATED, original.replace(/^tags: \[(.*)\]$/m, "tags: [$1, to-read]"))
      yield* run(root, new CompanionOptions({ relevanceThreshold: 0.05 }))
      assert.include(read(root, RELATED), "to-read")
      // Obsidian's Properties editor writes lists as block lists, sometimes without indentation
      const blockStyle = read(root, RELATED).replace(
        /^tags: \[.*\]$/m,
        "tags:\n- arxiv-companion\n- related-papers\n- to-read\n- deep-learning"
      ).replace(/^keywords: \[.*\]$/m, "keywords:\n  - attention\n  - translation")
      write(root, RELATED, blockStyle)
      yield* run(root, new CompanionOptions({ relevanceThreshold: 0.1 }))
      const after = read(root, RELATED)
      const fm = splitFrontmatter(after).frontmatter!
      assert.match(fm, /^tags: \[arxiv-companion, related-papers, (?:[\w-]+, )+to-read, deep-learning\]$/m)
      assert.notMatch(fm, /^- /m)
      assert.notMatch(fm, /^ {2}- /m)
      const keys = frontmatterKeys(after)
      assert.deepStrictEqual(keys, [...new Set(keys)])
      const again = yield* run(root, new CompanionOptions({ relevanceThreshold: 0.1 }))
      assert.strictEqual(again.written.status, "unchanged")
    }))

  it.scoped("an edit inside the block is kept; the new result goes to a dated sibling, which is itself never clobbered", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const root = yield* tempVault({ [SOURCE]: CONCEPT })
      yield* run(root)
      const mine = read(root, RELATED).replace("## Kept papers", "## Kept papers (checked by me)")
      write(root, RELATED, mine)

      const second = yield* run(root)
      assert.strictEqual(second.written.status, "kept-user-edits")
      const sibling = "Topics/Transformers Concept Note — Related Papers (2026-11-29).md"
      assert.strictEqual(second.written.path, sibling)
      assert.strictEqual(read(root, RELATED), mine)
      const siblingText = read(root, sibling)
      assert.include(siblingText, "[[Transformers Concept Note]]")

      // the same run again: the sibling is current, nothing is written
      const siblingMtime = mtime(root, sibling)
      const third = yield* run(root)
      assert.strictEqual(third.written.status, "kept-user-edits")
      assert.strictEqual(third.written.path, sibling)
      assert.strictEqual(read(root, sibling), siblingText)
      assert.strictEqual(mtime(root, sibling), siblingMtime)

      // the user edits the sibling's block too: a later run that day must not overwrite it
      const mineToo = siblingText.replace("## Kept papers", "## Kept papers — my picks")
      write(root, sibling, mineToo)
      const fourth = yield* run(root, new CompanionOptions({ relevanceThreshold: 0.05 }))
      assert.strictEqual(fourth.written.status, "kept-user-edits")
      assert.notStrictEqual(fourth.written.path, sibling)
      assert.strictEqual(read(root, sibling), mineToo)
      assert.strictEqual(read(root, RELATED), mine)
      assert.include(read(root, fourth.written.path), "relevance_threshold: 0.05")
      assert.strictEqual(read(root, SOURCE), CONCEPT)
    }))

  it.scoped("a note of that name without a block is the user's: never touched; the results go to a numbered sibling", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const body = "# My own related papers\n\n- Bahdanau 2014\n"
      const handWritten = `---\nmine: true\nsource: my reading group\nkept: 3\nupdated: 2020-01-01\ntags: [reading]\n---\n${body}`
      const root = yield* tempVault({ [SOURCE]: CONCEPT, [RELATED]: handWritten })
      const before = mtime(root, RELATED)
      const report = yield* run(root)
      const sibling = "Topics/Transformers Concept Note — Related Papers (2).md"
      assert.deepStrictEqual(report.written, {
        path: sibling,
        status: "created",
        notice: `"${RELATED}" is a note of yours (it has no arxiv-companion block), so it was left untouched; ` +
          `the results were written to "${sibling}".`
      })
      assert.strictEqual(read(root, RELATED), handWritten)
      assert.strictEqual(mtime(root, RELATED), before)
      assert.isDefined(findBlock(read(root, sibling)))
      const again = yield* run(root)
      assert.strictEqual(again.written.status, "unchanged")
      assert.strictEqual(again.written.path, sibling)
      assert.strictEqual(read(root, RELATED), handWritten)
    }))
})

describe("hostile titles", () => {
  const HOSTILE = [
    "../../escape",
    "/etc/passwd",
    "C:\\Windows\\system32\\evil",
    "a/b/../../c",
    "..",
    " . ",
    ".hidden",
    "what? <a|b> \"q\" *x*: y",
    "nul\u0000byte\u0007bell",
    "#^[[link]]",
    "CON",
    "x".repeat(500),
    "名".repeat(200),
    "🚀".repeat(120),
    "%% arxiv-companion:end %%"
  ]

  it("relatedNotePath keeps every hostile title a single safe file name beside the source note", () => {
    for (const title of HOSTILE) {
      const path = relatedNotePath(new NoteRef({ title, path: "Topics/Source.md" }))
      assert.isDefined(path, title)
      assert.isTrue(path!.startsWith("Topics/"), path)
      const name = path!.slice("Topics/".length)
      assert.notInclude(name, "/")
      assert.isFalse(/[*"\\<>:|?\u0000-\u001f]/.test(name), name)
      assert.isFalse(name.startsWith("."), name)
      assert.isAtMost(new TextEncoder().encode(name.replace(/\.md$/, " (2026-11-29 99).md")).length, 255, name)
      assert.isTrue(name.endsWith(" — Related Papers.md"), name)
    }
    assert.strictEqual(sanitizeTitle("  ...  "), "Untitled")
    for (const path of ["../x/Source.md", "/abs/Source.md", "a/../../Source.md", "C:/x/Source.md"]) {
      assert.isUndefined(relatedNotePath(new NoteRef({ title: "Source", path })), path)
    }
  })

  it.prop(
    "whatever the title, the Related Papers path (and its dated siblings) passes every vault adapter's write rules",
    [fc.string({ unit: "binary", maxLength: 400 }), fc.constantFrom("", "Topics/", "A/B c/")],
    ([title, folder]) => {
      const target = relatedNotePath(new NoteRef({ title, path: `${folder}Source.md` }))
      assert.isDefined(target)
      assert.isUndefined(unsafeWriteReason(target!), target)
      assert.isUndefined(unsafeWriteReason(target!.replace(/\.md$/, " (2026-11-29 20).md")), target)
      assert.strictEqual(NodePath.posix.dirname(target!), folder === "" ? "." : folder.slice(0, -1))
    }
  )

  it.scoped("a concept note with a hostile file name gets a sanitised Related Papers note inside the vault", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const parent = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "vault-hostile-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(parent, { recursive: true, force: true })))
      const root = NodePath.join(parent, "vault")
      const title = `Attention: what? *is* <it> "really" ${"é".repeat(100)}`
      NodeFs.mkdirSync(NodePath.join(root, "Topics"), { recursive: true })
      NodeFs.writeFileSync(NodePath.join(root, "Topics", `${title}.md`), CONCEPT)
      const report = yield* run(root, new CompanionOptions({}), `Find papers related to [[${title}]]`)
      assert.strictEqual(report.written.status, "created")
      const name = report.written.path.slice("Topics/".length)
      assert.isTrue(name.startsWith("Attention what is it really"), name)
      assert.isTrue(NodeFs.existsSync(NodePath.join(root, report.written.path)))
      assert.deepStrictEqual(NodeFs.readdirSync(parent), ["vault"])
      assert.strictEqual(read(root, `Topics/${title}.md`), CONCEPT)
    }))
})
