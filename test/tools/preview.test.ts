/**
 * The companion in two steps (previewCompanion, then commitPreview), as the
 * local page runs it: over the offline corpus and citation data, the local
 * judge, and an in-memory vault holding the example vault's notes.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import * as CorpusArxiv from "../../src/adapters/arxiv/CorpusArxiv.js"
import * as RecordedOpenAlex from "../../src/adapters/openalex/RecordedOpenAlex.js"
import * as ArxivTermStats from "../../src/adapters/judge/ArxivTermStats.js"
import * as LocalJudge from "../../src/adapters/judge/LocalJudge.js"
import * as InMemoryVault from "../../src/adapters/vault/InMemoryVault.js"
import { runCompanion } from "../../src/core/workflow.js"
import { commitPreview, previewCompanion } from "../../src/tools/preview.js"

const Offline = Layer.mergeAll(CorpusArxiv.layer(), RecordedOpenAlex.layer(), LocalJudge.layer, ArxivTermStats.layer).pipe(
  Layer.provide(NodeContext.layer)
)

const examples = join(import.meta.dirname, "..", "..", "examples", "vault")
const SOURCE = "Transformers Concept Note.md"
const TARGET = "Transformers Concept Note — Related Papers.md"
const notes: Record<string, string> = Object.fromEntries(
  readdirSync(examples).filter((f) => f.endsWith(".md") && f !== TARGET).map((f) => [f, readFileSync(join(examples, f), "utf8")])
)
const PROMPT = "Find papers related to [[Transformers Concept Note]]"

/** A fresh in-memory vault with the example notes (and `extra`), and its read-back. */
const withVault = <A, E, R>(use: (vault: InMemoryVault.InMemoryVaultService) => Effect.Effect<A, E, R>, extra: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const vault = yield* InMemoryVault.InMemoryVault
    return yield* use(vault)
  }).pipe(Effect.provide(InMemoryVault.layer({ ...notes, ...extra })))

layer(Offline, { timeout: 120_000 })("previewCompanion and commitPreview", (it) => {
  it.effect("a preview writes nothing; the commit writes what a direct run writes, once", () =>
    Effect.gen(function*() {
      const direct = yield* withVault((vault) => runCompanion(PROMPT).pipe(Effect.zipRight(vault.snapshot)))
      yield* withVault((vault) =>
        Effect.gen(function*() {
          const preview = yield* previewCompanion(PROMPT)
          assert.deepStrictEqual(yield* vault.writes, [])
          assert.deepStrictEqual(preview.report.written, { path: TARGET, status: "created" })
          assert.deepStrictEqual(preview.writes.map((w) => w.path), [TARGET])
          const first = yield* commitPreview(preview)
          assert.deepStrictEqual(first, { path: TARGET, status: "created", wrote: true })
          assert.deepStrictEqual(yield* vault.snapshot, direct)
          assert.strictEqual((yield* vault.snapshot)[SOURCE], notes[SOURCE])
          // a second press of the button finds its own result there: nothing more is written
          const again = yield* commitPreview(preview)
          assert.isFalse(again.wrote)
          assert.deepStrictEqual(yield* vault.writes, [TARGET])
        })
      )
    }))

  it.effect("refuses to write when the target changed after the preview, and leaves it as the user made it", () =>
    withVault((vault) =>
      Effect.gen(function*() {
        const preview = yield* previewCompanion(PROMPT)
        yield* vault.writeNote(TARGET, "# my own page, created meanwhile\n")
        const result = yield* Effect.either(commitPreview(preview))
        assert.isTrue(Either.isLeft(result))
        if (Either.isLeft(result)) {
          assert.strictEqual(result.left._tag, "UnsafeWrite")
          assert.include(result.left.message, "changed in the vault after these results were found")
        }
        assert.strictEqual((yield* vault.snapshot)[TARGET], "# my own page, created meanwhile\n")
      })
    ))

  it.effect("a note with the user's edits in its generated block: the preview stages a dated sibling, the commit writes only that", () =>
    Effect.gen(function*() {
      const generated = yield* withVault((vault) => runCompanion(PROMPT).pipe(Effect.zipRight(vault.snapshot)))
      const edited = generated[TARGET]!.replace(/(## .*\n)/, "$1\nMy own remark inside the block.\n")
      assert.notStrictEqual(edited, generated[TARGET])
      yield* withVault((vault) =>
        Effect.gen(function*() {
          const preview = yield* previewCompanion(PROMPT)
          assert.strictEqual(preview.report.written.status, "kept-user-edits")
          assert.deepStrictEqual(yield* vault.writes, [])
          yield* commitPreview(preview)
          const after = yield* vault.snapshot
          assert.strictEqual(after[TARGET], edited)
          assert.deepStrictEqual(yield* vault.writes, [preview.report.written.path])
          assert.match(preview.report.written.path, /^Transformers Concept Note — Related Papers \(1970-01-01\)\.md$/)
        }), { [TARGET]: edited })
    }))
})
