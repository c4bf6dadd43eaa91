/**
 * The Notion adapter through the official client against a loopback
 * stand-in of the endpoints it uses (test/support/notion-standin.ts): pages
 * written whole in batches of at most 100 blocks, 429/5xx retried with
 * Retry-After, 400s reported as Notion says them, a failure after the page
 * was created leaves no half page, and the token never shows.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, FastCheck as fc, Layer, Redacted } from "effect"
import * as NotionPages from "../../src/adapters/pages/NotionPages.js"
import type { DocBlock } from "../../src/core/answerNote.js"
import { PagePort } from "../../src/core/ports/PagePort.js"
import { captureLogs } from "../support/logs.js"
import { NotionFault, type NotionStandIn, startNotionStandIn } from "../support/notion-standin.js"

const blocks = (n: number): Array<DocBlock> =>
  Array.from({ length: n }, (_, i) => ({
    kind: i % 10 === 0 ? "heading" : "bullet",
    spans: [{ text: `block ${i} ` }, { text: "abs", url: `https://arxiv.org/abs/1406.${String(2661 + i)}` }]
  }))

const withStandIn = <A, E>(f: (s: NotionStandIn) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(Effect.promise(() => startNotionStandIn()), f, (s) => Effect.promise(() => s.close()))

const adapter = (s: NotionStandIn, options: Partial<NotionPages.NotionPagesOptions> = {}) =>
  NotionPages.make({
    token: Redacted.make(s.token),
    parentPageId: s.parentPageId,
    baseUrl: s.url,
    retryBaseDelay: "10 millis",
    ...options
  })

const kinds = (s: NotionStandIn) =>
  s.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")} ${r.status}`)

describe("NotionPages", () => {
  it.live("creates the page with the first 100 blocks and appends the rest in batches of at most 100", () =>
    withStandIn((s) =>
      Effect.gen(function*() {
        const notion = yield* adapter(s)
        const page = yield* notion.createPage("GAN training", blocks(250))
        assert.deepEqual(kinds(s), ["POST /v1/pages 200", "PATCH /v1/blocks/:id/children 200", "PATCH /v1/blocks/:id/children 200"])
        assert.deepEqual(s.requests.map((r) => (r.body["children"] as Array<unknown>).length), [100, 100, 50])
        const stored = s.pages.get(page.id)!
        assert.strictEqual(stored.title, "GAN training")
        assert.deepEqual(stored.blocks.map((b) => b.text), blocks(250).map((b) => b.spans.map((x) => x.text).join("")))
        assert.deepEqual(stored.blocks[0]!.links, ["https://arxiv.org/abs/1406.2661"])
        assert.strictEqual(stored.blocks[0]!.type, "heading_2")
        assert.match(page.url, /^https:\/\/www\.notion\.so\/GAN-training-[0-9a-f]{32}$/)
        for (const r of s.requests) assert.isString(r.headers["notion-version"])
      })
    ))

  it.live("splits long text and cuts a long title between characters, never inside an emoji", () =>
    withStandIn((s) =>
      Effect.gen(function*() {
        // the 2,000-unit cut used to fall between the emoji's two UTF-16 units: each piece carried half of it
        const text = `${"x".repeat(1999)}😀${"y".repeat(10)}`
        const notion = yield* adapter(s)
        const page = yield* notion.createPage(`${"t".repeat(1999)}😀 title`, [{ kind: "paragraph", spans: [{ text }] }])
        const body = s.requests[0]!.body as {
          properties: { title: { title: Array<{ text: { content: string } }> } }
          children: Array<{ paragraph: { rich_text: Array<{ text: { content: string } }> } }>
        }
        const pieces = body.children[0]!.paragraph.rich_text.map((r) => r.text.content)
        assert.deepEqual(pieces, ["x".repeat(1999), `😀${"y".repeat(10)}`])
        assert.strictEqual(body.properties.title.title[0]!.text.content, "t".repeat(1999))
        assert.strictEqual(s.pages.get(page.id)!.blocks[0]!.text, text)
      })
    ))

  it.prop(
    "text pieces are whole characters of at most 2,000 units that join back to the text",
    [fc.oneof(fc.integer({ min: 1950, max: 2000 }), fc.integer({ min: 3950, max: 4000 }), fc.nat({ max: 100 })), fc.string({ unit: "binary", maxLength: 30 })],
    ([filler, tail]) => {
      const text = `${"x".repeat(filler)}${tail}${tail}`
      const pieces = NotionPages.textPieces(text)
      assert.strictEqual(pieces.join(""), text)
      for (const piece of pieces) {
        assert.isAtMost(piece.length, NotionPages.MAX_TEXT)
        assert.notMatch(piece, /\p{Cs}/u)
      }
    }
  )

  it.live("retries a 429 after its Retry-After, and 5xx answers, then finishes the page", () =>
    withStandIn((s) =>
      Effect.gen(function*() {
        s.failNext(NotionFault.internal("create"), NotionFault.rateLimited("1", "append"), NotionFault.unavailable("append"))
        const { exit, lines } = yield* captureLogs(Effect.flatMap(adapter(s), (n) => n.createPage("Retries", blocks(150))))
        assert.isTrue(Exit.isSuccess(exit))
        assert.deepEqual(kinds(s), [
          "POST /v1/pages 500",
          "POST /v1/pages 200",
          "PATCH /v1/blocks/:id/children 429",
          "PATCH /v1/blocks/:id/children 503",
          "PATCH /v1/blocks/:id/children 200"
        ])
        assert.strictEqual([...s.pages.values()].length, 1)
        assert.strictEqual([...s.pages.values()][0]!.blocks.length, 150)
        // the wait after the 429 is at least what Retry-After asked for
        const wait = lines.map((l) => /rate_limited.* in (\d+) ms/.exec(l)?.[1]).find((x) => x !== undefined)
        assert.isAtLeast(Number(wait), 1000)
      })
    ))

  it.live("a 400 validation error on create is final: Notion's message, no retry, no page", () =>
    withStandIn((s) =>
      Effect.gen(function*() {
        s.failNext(NotionFault.validation("body.children[3].paragraph.rich_text[0].text.content.length should be ≤ `2000`, instead was `2301`.", "create"))
        const error = yield* Effect.flip(Effect.flatMap(adapter(s), (n) => n.createPage("Too long", blocks(5))))
        assert.strictEqual(error._tag, "PageNotSaved")
        assert.include(error.message, "HTTP 400")
        assert.include(error.message, "should be ≤ `2000`")
        assert.strictEqual(s.requests.length, 1)
        assert.strictEqual(s.pages.size, 0)
      })
    ))

  it.live("a failure mid-append moves the partial page to the trash and says so", () =>
    withStandIn((s) =>
      Effect.gen(function*() {
        s.failNext(NotionFault.validation("body.children[7].type should be a known block type.", "append"))
        const error = yield* Effect.flip(Effect.flatMap(adapter(s), (n) => n.createPage("Half", blocks(330))))
        assert.strictEqual(error._tag, "PageNotSaved")
        assert.include(error.message, "batch 2 of 4")
        assert.include(error.message, "moved to the trash")
        const [page] = [...s.pages.values()]
        assert.isTrue(page!.inTrash)
        assert.strictEqual(s.requests.at(-1)!.body["in_trash"], true)
        // nothing was appended after the failure
        assert.strictEqual(page!.blocks.length, 100)
      })
    ))

  it.live("5xx that outlast the retries mid-append also leave no page behind", () =>
    withStandIn((s) =>
      Effect.gen(function*() {
        s.failNext(...Array.from({ length: 3 }, () => NotionFault.unavailable("append")))
        const error = yield* Effect.flip(Effect.flatMap(adapter(s, { retries: 2 }), (n) => n.createPage("Down", blocks(120))))
        assert.include(error.message, ", after 2 retries")
        assert.isTrue([...s.pages.values()][0]!.inTrash)
      })
    ))

  it.live("a Retry-After longer than the companion waits fails at once, and the message claims no retry", () =>
    withStandIn((s) =>
      Effect.gen(function*() {
        s.failNext(NotionFault.rateLimited("3600", "create"))
        const error = yield* Effect.flip(Effect.flatMap(adapter(s), (n) => n.createPage("Later", blocks(10))))
        assert.include(error.message, "HTTP 429")
        assert.notInclude(error.message, "retr")
        assert.notInclude(error.message, "attempts")
        assert.strictEqual(s.requests.length, 1)
      })
    ))

  it.live("a wrong token and an unshared parent say what to check, and the token never shows", () =>
    withStandIn((s) =>
      Effect.gen(function*() {
        const wrong = "secret_wrong_token_fedcba9876543210"
        const { exit, lines } = yield* captureLogs(
          Effect.flatMap(NotionPages.make({ token: Redacted.make(wrong), parentPageId: s.parentPageId, baseUrl: s.url }), (n) =>
            n.createPage("x", blocks(1)))
        )
        assert.isTrue(Exit.isFailure(exit))
        const message = Exit.isFailure(exit) ? String(exit.cause) : ""
        assert.include(message, "check NOTION_TOKEN")
        for (const text of [message, ...lines]) assert.notInclude(text, wrong)
        const unshared = yield* Effect.flip(
          Effect.flatMap(adapter(s, { parentPageId: "0123456789abcdef0123456789abcdef" }), (n) => n.createPage("x", blocks(1)))
        )
        assert.include(unshared.message, "share that page with the integration")
        const notAnId = yield* Effect.flip(Effect.flatMap(adapter(s, { parentPageId: "my page" }), (n) => n.createPage("x", blocks(1))))
        assert.strictEqual(notAnId._tag, "InvalidArgument")
      })
    ))

  it.live("accepts the parent page as a Notion URL", () =>
    withStandIn((s) =>
      Effect.gen(function*() {
        const url = `https://www.notion.so/team/Reading-list-${s.parentPageId.replace(/-/g, "")}`
        const page = yield* Effect.flatMap(adapter(s, { parentPageId: url }), (n) => n.createPage("From a URL", blocks(2)))
        assert.strictEqual(s.pages.get(page.id)!.parent, s.parentPageId)
      })
    ))

  it.effect("without NOTION_TOKEN the layer builds and publishing says what to set", () =>
    Effect.gen(function*() {
      const pages = yield* PagePort
      const error = yield* Effect.flip(pages.createPage("x", []))
      assert.strictEqual(error._tag, "InvalidArgument")
      assert.include(error.message, "NOTION_TOKEN is not set")
    }).pipe(Effect.provide(NotionPages.layerConfig().pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))))))
})
