/**
 * The arXiv backend of a setup (src/layers.ts): one setting for every face,
 * read from a flag or ARXIV_COMPANION_ARXIV, checked by one Schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Schema } from "effect"
import { ARXIV_BACKEND, ArxivBackend, describeConfigError, setupConfig } from "../../src/layers.js"

const read = (env: Record<string, string>, overrides: Parameters<typeof setupConfig>[0] = {}) =>
  Effect.withConfigProvider(Effect.either(setupConfig(overrides)), ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("the arXiv backend setting", () => {
  it("is live, corpus, mirror, mirror:DIR or a PostgreSQL URL, and nothing else", () => {
    for (const ok of ["live", "corpus", "mirror", "mirror:/data/arxiv", "mirror:relative/dir", "postgres://lab/arxiv", "postgresql://reader@db:5432/arxiv"]) {
      assert.isTrue(Schema.is(ArxivBackend)(ok), ok)
    }
    for (const bad of ["mirrors", "Live", "offline", "", "postgres:lab", "mysql://lab/arxiv"]) assert.isUndefined(ARXIV_BACKEND.parse(bad), bad)
    assert.strictEqual(ARXIV_BACKEND.parse(" mirror: "), "mirror")
    assert.strictEqual(ARXIV_BACKEND.parse("mirror:/x"), "mirror:/x")
  })

  it.effect("comes from ARXIV_COMPANION_ARXIV, a flag wins over it, and a bad value names the variable and what to use", () =>
    Effect.gen(function*() {
      const fromEnv = yield* read({ ARXIV_COMPANION_ARXIV: "mirror:/data/arxiv" })
      assert.strictEqual(Either.getOrThrow(fromEnv).arxiv, "mirror:/data/arxiv")
      const flag = yield* read({ ARXIV_COMPANION_ARXIV: "mirror:/data/arxiv" }, { arxiv: "live" })
      assert.strictEqual(Either.getOrThrow(flag).arxiv, "live")
      const unset = yield* read({ ARXIV_COMPANION_ARXIV: " " })
      assert.isUndefined(Either.getOrThrow(unset).arxiv)
      const bad = yield* read({ ARXIV_COMPANION_ARXIV: "mirrors" })
      assert.isTrue(Either.isLeft(bad))
      if (Either.isLeft(bad)) {
        assert.strictEqual(
          describeConfigError(bad.left),
          'ARXIV_COMPANION_ARXIV: Expected live, corpus, mirror, mirror:DIR or postgres://user@host/database, got "mirrors"'
        )
      }
    }))
})
