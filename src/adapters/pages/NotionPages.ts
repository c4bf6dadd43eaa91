/**
 * PagePort over Notion, through the official `@notionhq/client`: a page
 * under NOTION_PARENT_PAGE_ID with NOTION_TOKEN.
 *
 * - The page is created with its first blocks (`pages.create`); the rest are
 *   appended in batches of at most 100 (`blocks.children.append`), Notion's
 *   limit per request.
 * - 429 and 5xx answers (and timeouts, resets) are retried with the shared
 *   backoff policy, honouring Retry-After; the client's own retries are off,
 *   so one policy (and Effect's clock) governs every wait.
 * - A failure after the page was created moves that page to the trash
 *   (`pages.update` with `in_trash`, the current name of `archived`): no half
 *   pages are left behind, and the error says so.
 * - The token is only handed to the client; it is never logged or put in an
 *   error (upstream messages are scrubbed of it), and the client's own
 *   console logger is replaced by a silent one (stdout may carry MCP).
 *
 * The client is loaded on the first page, so commands that never publish do
 * not load it.
 *
 * @since 0.1.0
 */
import { Config, ConfigError, Duration, Effect, Either, Layer, Option, Redacted } from "effect"
import type { DocBlock, Span } from "../../core/answerNote.js"
import { InvalidArgument, PageNotSaved } from "../../core/errors.js"
import { PagePort, type PageService, type PublishedPage } from "../../core/ports/PagePort.js"
import { afterRetries, defaultRetryPolicy, parseRetryAfter, type RetryPolicy, retryTransientFailures, TransientFailure } from "../http/http.js"

/** Notion's limit on blocks per request (create or append). */
export const MAX_BLOCKS_PER_REQUEST = 100
/** Notion's limit on one rich-text item's content. */
export const MAX_TEXT = 2000

/** Options of the Notion adapter. */
export interface NotionPagesOptions {
  readonly token: Redacted.Redacted
  /** The parent page: its id, or its URL. */
  readonly parentPageId: string
  /** API base URL (default https://api.notion.com; tests point it at a stand-in). */
  readonly baseUrl?: string | undefined
  /** Blocks per request, 1..100 (default 100). */
  readonly batchSize?: number | undefined
  /** Retries of one request on 429/5xx/timeouts. Default 3. */
  readonly retries?: number | undefined
  /** First backoff delay. Default 1 s. */
  readonly retryBaseDelay?: Duration.DurationInput | undefined
  /** Per-request timeout. Default 30 s. */
  readonly timeout?: Duration.DurationInput | undefined
}

type RichText = {
  readonly type: "text"
  readonly text: { readonly content: string; readonly link: { readonly url: string } | null }
  readonly annotations?: { readonly code: boolean }
}

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff

/**
 * `text` in pieces of at most MAX_TEXT UTF-16 units (the strictest reading of
 * Notion's limit), never cut between the two units of an emoji or another
 * character outside the BMP: half of one is not valid text for Notion.
 */
export const textPieces = (text: string): Array<string> => {
  const parts: Array<string> = []
  for (let i = 0; i < text.length;) {
    let end = Math.min(text.length, i + MAX_TEXT)
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--
    parts.push(text.slice(i, end))
    i = end
  }
  return parts
}

/** Rich text of spans, long texts split at Notion's 2,000-character limit. */
export const richText = (spans: ReadonlyArray<Span>): Array<RichText> =>
  spans.flatMap((s) => {
    const parts = textPieces(s.text)
    return parts.map((content): RichText => ({
      type: "text",
      text: { content, link: s.url === undefined ? null : { url: s.url } },
      ...(s.code === true ? { annotations: { code: true } } : {})
    }))
  }).slice(0, 100)

const BLOCK_TYPE = { heading: "heading_2", paragraph: "paragraph", bullet: "bulleted_list_item", quote: "quote" } as const

/** One document block as a Notion block object. */
export const notionBlock = (b: DocBlock): Record<string, unknown> => {
  const type = BLOCK_TYPE[b.kind]
  return { object: "block", type, [type]: { rich_text: richText(b.spans) } }
}

const chunk = <A>(items: ReadonlyArray<A>, size: number): Array<Array<A>> => {
  const out: Array<Array<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

const SERVICE = "Notion"

interface NotionError {
  readonly status?: number
  readonly code?: string
  readonly message?: string
  readonly headers?: unknown
}

/** Build the adapter. The client is created on the first page. */
export const make = Effect.fn("NotionPages.make")(function*(options: NotionPagesOptions) {
  const secret = Redacted.value(options.token).trim()
  const batchSize = Math.max(1, Math.min(MAX_BLOCKS_PER_REQUEST, Math.floor(options.batchSize ?? MAX_BLOCKS_PER_REQUEST)))
  const policy: RetryPolicy = {
    ...defaultRetryPolicy,
    maxAttempts: 1 + Math.max(0, options.retries ?? 3),
    baseDelay: options.retryBaseDelay ?? "1 second"
  }
  const timeoutMs = Duration.toMillis(Duration.decode(options.timeout ?? "30 seconds"))
  const scrub = (text: string): string => (secret.length < 4 ? text : text.split(secret).join("<redacted>"))

  const notion = yield* Effect.cached(Effect.promise(async () => {
    const { Client, extractPageId } = await import("@notionhq/client")
    const client = new Client({
      auth: secret,
      timeoutMs,
      retry: false,
      logger: () => undefined,
      ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl.replace(/\/+$/, "") })
    })
    return { client, parent: extractPageId(options.parentPageId) }
  }))

  /** One API call, retried on 429/5xx/timeouts; other failures are final (with what Notion said). */
  const call = <A>(what: string, run: () => Promise<A>): Effect.Effect<A, PageNotSaved> =>
    Effect.tryPromise({ try: run, catch: (e) => e as NotionError & Error }).pipe(
      Effect.catchAll((e): Effect.Effect<never, PageNotSaved | TransientFailure> => {
        const status = typeof e.status === "number" ? e.status : undefined
        const said = scrub(e.message ?? String(e))
        const transient = status === undefined
          ? e.code === "notionhq_client_request_timeout" || e instanceof TypeError
          : status === 429 || status >= 500
        if (transient) {
          return Effect.flatMap(Effect.clockWith((c) => c.currentTimeMillis), (now) =>
            Effect.fail(
              new TransientFailure({
                reason: `${what}: ${status === undefined ? said : `HTTP ${status} (${e.code ?? said})`}`,
                status,
                retryAfterMillis: parseRetryAfter(headerOf(e.headers, "retry-after"), now)
              })
            ))
        }
        const hint = status === 401
          ? "; check NOTION_TOKEN"
          : status === 404 || e.code === "object_not_found" || e.code === "restricted_resource"
          ? "; check NOTION_PARENT_PAGE_ID and share that page with the integration"
          : ""
        return Effect.fail(new PageNotSaved({ service: SERVICE, reason: `${what}: ${said}${hint}`, ...(status === undefined ? {} : { status }) }))
      }),
      retryTransientFailures(policy, SERVICE),
      Effect.catchTag("TransientFailure", (f) =>
        Effect.fail(new PageNotSaved({ service: SERVICE, reason: `${f.reason}${afterRetries(Math.max(0, (f.attempts ?? 1) - 1))}`, ...(f.status === undefined ? {} : { status: f.status }) })))
    )

  const createPage = Effect.fn("PagePort.createPage")(function*(title: string, blocks: ReadonlyArray<DocBlock>) {
    const { client, parent } = yield* notion
    if (parent === null) {
      return yield* new InvalidArgument({
        argument: "NOTION_PARENT_PAGE_ID",
        reason: `"${options.parentPageId}" is not a Notion page id or URL (32 hex digits, with or without dashes)`
      })
    }
    const batches = chunk(blocks.map(notionBlock), batchSize)
    const created = yield* call("creating the page", () =>
      client.pages.create({
        parent: { page_id: parent },
        properties: { title: { title: [{ type: "text", text: { content: textPieces(title)[0] ?? "" } }] } },
        children: (batches[0] ?? []) as never
      }))
    const id = created.id
    const url = "url" in created && typeof created.url === "string" ? created.url : `https://www.notion.so/${id.replace(/-/g, "")}`
    const rest = batches.slice(1)
    yield* Effect.forEach(rest, (children, i) =>
      call(`appending blocks (batch ${i + 2} of ${batches.length})`, () =>
        client.blocks.children.append({ block_id: id, children: children as never })), { discard: true }).pipe(
        Effect.catchAll((failure) =>
          // no half pages: the page goes to the trash, and the error says whether that worked
          call("moving the partial page to the trash", () => client.pages.update({ page_id: id, in_trash: true })).pipe(
            Effect.matchEffect({
              onSuccess: () => Effect.fail(new PageNotSaved({ ...failure, archived: url })),
              onFailure: (e) =>
                Effect.fail(new PageNotSaved({ ...failure, reason: `${failure.reason}; the partial page ${url} could not be moved to the trash (${e.reason}): delete it by hand` }))
            })
          ))
      )
    return { id, url } satisfies PublishedPage
  })

  return { name: SERVICE, createPage } satisfies PageService
})

const headerOf = (headers: unknown, name: string): string | undefined => {
  if (headers === null || typeof headers !== "object") return undefined
  if (typeof (headers as { get?: unknown }).get === "function") return (headers as Headers).get(name) ?? undefined
  const entry = Object.entries(headers as Record<string, unknown>).find(([k]) => k.toLowerCase() === name)
  return typeof entry?.[1] === "string" ? entry[1] : undefined
}

/** The adapter as a layer, with explicit options. */
export const layer = (options: NotionPagesOptions): Layer.Layer<PagePort> => Layer.effect(PagePort, make(options))

/** NOTION_TOKEN, NOTION_PARENT_PAGE_ID and (optional) NOTION_API_URL. */
export const optionsConfig: Config.Config<Pick<NotionPagesOptions, "token" | "parentPageId" | "baseUrl">> = Config.all({
  token: Config.redacted(Config.nonEmptyString("NOTION_TOKEN")),
  parentPageId: Config.nonEmptyString("NOTION_PARENT_PAGE_ID"),
  baseUrl: Config.option(Config.nonEmptyString("NOTION_API_URL"))
}).pipe(Config.map((c) => ({ token: c.token, parentPageId: c.parentPageId, baseUrl: Option.getOrUndefined(c.baseUrl) })))

/** A page service whose every call says how to configure Notion. */
const notConfigured = (error: ConfigError.ConfigError): PageService => {
  const missing = /NOTION_TOKEN/.test(String(error)) ? "NOTION_TOKEN" : "NOTION_PARENT_PAGE_ID"
  return {
    name: SERVICE,
    createPage: () =>
      Effect.fail(
        new InvalidArgument({
          argument: "notion",
          reason: `${missing} is not set; set NOTION_TOKEN (an integration's secret) and NOTION_PARENT_PAGE_ID (a page shared with that integration)`
        })
      )
  }
}

/**
 * The adapter configured from the environment (`overrides` win). Without
 * NOTION_TOKEN or NOTION_PARENT_PAGE_ID the layer still builds; publishing
 * then fails with an InvalidArgument that says what to set.
 */
export const layerConfig = (overrides: Partial<NotionPagesOptions> = {}): Layer.Layer<PagePort> =>
  Layer.effect(
    PagePort,
    Effect.flatMap(Effect.either(optionsConfig), (c) =>
      Either.match(c, {
        onLeft: (error) => Effect.succeed(notConfigured(error)),
        onRight: (options) => make({ ...options, ...overrides })
      }))
  )
