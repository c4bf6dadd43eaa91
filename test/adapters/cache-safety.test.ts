/**
 * A cache nobody can turn against its user, on real files and real symbolic
 * links: a link planted in place of an entry is replaced, never written
 * through; a folder another user owns or can write is refused (one warning,
 * the run goes on uncached); an entry over the size cap is a miss, removed
 * unread and refetched, with a warning. The last case also runs the built CLI
 * on a 300 MB entry (a sparse file: its size is real, reading it would be).
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as ResponseCache from "../../src/adapters/http/ResponseCache.js"
import { startArxivStandIn } from "../support/arxiv-standin.js"
import { runCli } from "../support/cli.js"
import { captureLogs } from "../support/logs.js"

const tempDir = () => fs.mkdtempSync(nodePath.join(os.tmpdir(), "arxiv-companion-cache-safety-"))
const entries = (dir: string) => fs.readdirSync(dir).filter((f) => !f.startsWith("."))
const cacheLayer = (options: ResponseCache.ResponseCacheOptions) =>
  ResponseCache.layer(options).pipe(Layer.provide(NodeContext.layer))
const request = { endpoint: "arxiv.search", key: "GET https://export.arxiv.org/api/query?search_query=all%3Agan" }

/** The entry file a request goes to: stored once, then its name read back. */
const entryName = (dir: string) =>
  Effect.gen(function*() {
    const cache = yield* ResponseCache.ResponseCache
    yield* cache.cached(request, Effect.succeed("<feed>first</feed>"))
    return entries(dir)[0]!
  }).pipe(Effect.provide(cacheLayer({ dir })))

describe("ResponseCache cannot be turned against its user", () => {
  it.live("a symbolic link planted in place of an entry is replaced, and the file it points to is left alone", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const name = yield* entryName(dir)
      const victim = nodePath.join(tempDir(), "victim.txt")
      fs.writeFileSync(victim, "the user's own file\n")
      const entry = nodePath.join(dir, name)
      fs.rmSync(entry)
      fs.symlinkSync(victim, entry)
      // a fresh layer (the next run): the link is a miss, the answer stored beside it, not through it
      const body = yield* Effect.flatMap(ResponseCache.ResponseCache, (c) => c.cached(request, Effect.succeed("<feed>second</feed>"))).pipe(
        Effect.provide(cacheLayer({ dir }))
      )
      assert.strictEqual(body, "<feed>second</feed>")
      assert.strictEqual(fs.readFileSync(victim, "utf8"), "the user's own file\n")
      assert.isFalse(fs.lstatSync(entry).isSymbolicLink())
      assert.strictEqual(JSON.parse(fs.readFileSync(entry, "utf8")).body, "<feed>second</feed>")
      assert.strictEqual(fs.statSync(entry).mode & 0o077, 0)
    }))

  it.live("a link planted as the prune marker is not written through either", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const victim = nodePath.join(tempDir(), "victim.txt")
      fs.writeFileSync(victim, "keep me\n")
      // two days old: read through the link, the marker says a prune is due, so the marker is written
      const old = new Date(Date.now() - 2 * 86_400_000)
      fs.utimesSync(victim, old, old)
      fs.symlinkSync(victim, nodePath.join(dir, ".last-pruned"))
      yield* Effect.flatMap(ResponseCache.ResponseCache, (c) => Effect.zipRight(c.prune, c.cached(request, Effect.succeed("x")))).pipe(
        Effect.provide(cacheLayer({ dir }))
      )
      // the background prune had its chance
      yield* Effect.sleep("200 millis")
      assert.strictEqual(fs.readFileSync(victim, "utf8"), "keep me\n")
    }))

  const foreign: ReadonlyArray<readonly [string, (dir: string) => void, string]> = [
    ["a folder other users can write", (dir) => fs.chmodSync(dir, 0o777), "can be written by other users"],
    ["a folder another user owns", (dir) => fs.chownSync(dir, 4242, 4242), "belongs to another user"]
  ]
  for (const [name, spoil, said] of foreign) {
    it.live(`${name}: one warning, and the run goes on uncached`, () =>
      Effect.gen(function*() {
        const dir = tempDir()
        spoil(dir)
        let fetched = 0
        const fetch = Effect.sync(() => `answer ${++fetched}`)
        const { exit, lines } = yield* captureLogs(
          Effect.gen(function*() {
            const cache = yield* ResponseCache.ResponseCache
            assert.isFalse(cache.enabled)
            yield* cache.cached(request, fetch)
            return yield* cache.cached(request, fetch)
          }).pipe(Effect.provide(cacheLayer({ dir })))
        )
        assert.deepStrictEqual(exit, Exit.succeed("answer 2"))
        assert.deepStrictEqual(fs.readdirSync(dir), [])
        const warnings = lines.filter((l) => l.includes("cache"))
        assert.strictEqual(warnings.length, 1, lines.join("\n"))
        assert.include(warnings[0]!, said)
        assert.include(warnings[0]!, dir)
      }))
  }

  it.live("an entry over the size cap is a miss: removed unread, refetched and stored again, with a warning", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const name = yield* entryName(dir)
      const entry = nodePath.join(dir, name)
      fs.truncateSync(entry, 300_000_000)
      const { exit, lines } = yield* captureLogs(
        Effect.flatMap(ResponseCache.ResponseCache, (c) => c.cached(request, Effect.succeed("<feed>again</feed>"))).pipe(
          Effect.provide(cacheLayer({ dir }))
        )
      )
      assert.deepStrictEqual(exit, Exit.succeed("<feed>again</feed>"))
      const warnings = lines.filter((l) => l.includes("over the"))
      assert.strictEqual(warnings.length, 1, lines.join("\n"))
      assert.include(warnings[0]!, "300 MB")
      assert.isBelow(fs.statSync(entry).size, 1000)
    }))

  it("the built CLI with a 300 MB entry in its cache: the search is answered, the entry replaced, one warning", { timeout: 60_000 }, async () => {
    const standIn = await startArxivStandIn({ padSearches: true, corpus: "landmarks" })
    try {
      const cacheDir = tempDir()
      const env = {
        ARXIV_API_URL: standIn.url,
        ARXIV_COMPANION_CACHE_DIR: cacheDir,
        ARXIV_COMPANION_LEASE_DIR: tempDir(),
        ARXIV_MIN_INTERVAL: "100 millis"
      }
      const args = ["search", "all:attention", "--max-results", "3", "--json"]
      const first = await runCli(args, env)
      assert.strictEqual(first.code, 0, first.stderr)
      const entry = nodePath.join(cacheDir, entries(cacheDir)[0]!)
      fs.truncateSync(entry, 300_000_000)
      const second = await runCli(args, env)
      assert.strictEqual(second.code, 0, second.stderr)
      assert.deepStrictEqual(JSON.parse(second.stdout).papers, JSON.parse(first.stdout).papers)
      assert.strictEqual(standIn.requests.length, 2)
      assert.match(second.stderr, /an entry of 300 MB is over the 96 MB cap/)
      assert.isBelow(fs.statSync(entry).size, 1_000_000)
    } finally {
      await standIn.close()
    }
  })
})
