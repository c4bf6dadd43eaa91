/**
 * A loopback OpenAlex: a real HTTP server on 127.0.0.1 that answers the
 * request shapes the live adapters send from the recorded OpenAlex responses
 * in ../shared/data/openalex (see its SOURCES.md; OpenAlex data is CC0).
 *
 * A request whose path and parameters (leaving out `mailto` and `api_key`)
 * equal a recorded request in an `_index.json` gets the recorded body byte
 * for byte, with the recorded status and content type (the 400 for an
 * invalid filter, the 404 HTML page for an unknown DOI, the last cursor page).
 *
 * Every work record found in those recordings (list pages and singletons:
 * the two openalexPro seeds, their 38 resolved references and 5 citing works,
 * peneira's 49-result page, paper-qa's and openalex-python's singletons) goes
 * into one pool, keyed by its W id. Queries are answered from that pool:
 *
 * - `/works?filter=doi:a|b`, `openalex:W1|W2`, `cites:W`, `cited_by:W`
 *   (several filters ANDed with commas), `select=`, `per_page`/`per-page`,
 *   `page`, `cursor=*`; invalid select fields, unknown filter fields, more
 *   than 100 OR-ed values or `per_page` > 200 answer 400 as OpenAlex does.
 *   A `doi:10.48550/arxiv.<id>` value also matches a record that lists the
 *   arXiv version among its locations (arxiv.org/abs/<id>): that is how a
 *   merged record (recorded: word2vec, W2153579005, with doi 10.57702/… and
 *   publication_year 2025) reaches a client asking for the arXiv DOI.
 * - `search=` (the works search): OpenAlex's boolean syntax reduced to what the
 *   companion sends and simple variants: quoted phrases and words, `OR`
 *   between alternatives, juxtaposition as AND; matched case-insensitively on
 *   whole words of the title and the abstract (rebuilt from
 *   `abstract_inverted_index`); OpenAlex's stemming and full-text matching are
 *   not imitated. `filter=indexed_in:arxiv` keeps records whose `indexed_in`
 *   lists arXiv. `sort=cited_by_count:desc|asc` orders by citations (the
 *   default order of every list here is already by citations, descending);
 *   another sort field answers 400.
 * - `/works/W…` and `/works/doi:…` singletons; anything unknown gets the
 *   recorded 404 HTML page.
 *
 * Faults are queued with `failNext` and consumed one per request: 429 with
 * Retry-After, 503, a truncated JSON body, the recorded 401 bad-key body, the
 * recorded 404 HTML body, a connection reset, no answer at all, extra latency. Every request is
 * recorded for counting.
 */
import { Effect, type Scope } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { listenOnFreshPort } from "./loopback.js"

/** The recorded upstream data copied from shared/data (test/fixtures/recorded; override with ARXIV_COMPANION_SHARED_DATA). */
export const SHARED_DATA = process.env["ARXIV_COMPANION_SHARED_DATA"] ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/recorded")
const OPENALEX_DATA = path.join(SHARED_DATA, "openalex")

type Json = Record<string, unknown>

/** One fault, consumed by the next request. */
export type OpenAlexFault =
  | { readonly _tag: "Status"; readonly status: number; readonly retryAfter?: string; readonly body?: string }
  | { readonly _tag: "Truncated" }
  | { readonly _tag: "BadKey401" }
  | { readonly _tag: "NotFoundHtml" }
  | { readonly _tag: "Reset" }
  | { readonly _tag: "Hang" }
  | { readonly _tag: "Delay"; readonly millis: number }

/** Ready-made faults. */
export const Fault = {
  rateLimited: (retryAfter = "1"): OpenAlexFault => ({ _tag: "Status", status: 429, retryAfter }),
  unavailable: (): OpenAlexFault => ({ _tag: "Status", status: 503, body: "Service Unavailable" }),
  truncated: (): OpenAlexFault => ({ _tag: "Truncated" }),
  badKey: (): OpenAlexFault => ({ _tag: "BadKey401" }),
  /** The recorded 400 for an unknown filter field. */
  invalidFilter: (): OpenAlexFault => ({ _tag: "Status", status: 400, body: recorded("openalexPro/error_400_invalid_filter_field.json") }),
  notFoundHtml: (): OpenAlexFault => ({ _tag: "NotFoundHtml" }),
  reset: (): OpenAlexFault => ({ _tag: "Reset" }),
  /** Never answer (until the client gives up or the server closes). */
  hang: (): OpenAlexFault => ({ _tag: "Hang" }),
  delay: (millis: number): OpenAlexFault => ({ _tag: "Delay", millis })
} as const

/** A request as the stand-in saw it. */
export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly params: Readonly<Record<string, string>>
  readonly headers: http.IncomingHttpHeaders
  /** What the stand-in answered. */
  status?: number
}

/** Options of the stand-in. */
export interface OpenAlexStandInOptions {
  /** Latency added to every answer (ms). */
  readonly latencyMillis?: number
  /** When set, only this `api_key` is accepted; others (and none) get the recorded 401 body. */
  readonly requiredKey?: string
  /** Keyless requests allowed before OpenAlex's no-key budget is spent and it answers 429. */
  readonly keylessBudget?: number
  /** A fault for every request this picks (e.g. every references lookup), before the queued ones. */
  readonly failWhen?: (request: { readonly path: string; readonly params: Readonly<Record<string, string>> }) => OpenAlexFault | undefined
  /** More work records for this stand-in's pool (e.g. records of the papers a test mirror holds, see `arxivWorkLike`). */
  readonly works?: ReadonlyArray<Json>
}

/** A running stand-in. */
export interface OpenAlexStandIn {
  /** Base URL, e.g. http://127.0.0.1:34567 (use as OPENALEX_API_URL). */
  readonly url: string
  readonly requests: Array<RecordedRequest>
  /** The pool of recorded work records, by short W id. */
  readonly pool: ReadonlyMap<string, Json>
  readonly failNext: (...faults: ReadonlyArray<OpenAlexFault>) => void
  /** Requests to `/works` (lists and singletons). */
  readonly worksRequests: () => ReadonlyArray<RecordedRequest>
  readonly close: () => Promise<void>
}

const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, "utf8"))

const shortId = (id: string): string => id.replace(/^https:\/\/openalex\.org\//, "")
const bareDoi = (doi: string): string => doi.replace(/^https?:\/\/doi\.org\//i, "").replace(/^doi:/i, "").toLowerCase()

const isWork = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && typeof (value as Json)["id"] === "string" &&
  /^https:\/\/openalex\.org\/W\d+$/.test((value as Json)["id"] as string) && "cited_by_count" in (value as Json)

let loaded: Map<string, Json> | undefined

/** Every work record in the recordings, the fullest copy of each id (read once per process; read-only). */
export const loadPool = (): Map<string, Json> => (loaded ??= readPool())

const readPool = (): Map<string, Json> => {
  const pool = new Map<string, Json>()
  const add = (record: Json) => {
    const id = shortId(record["id"] as string)
    const current = pool.get(id)
    if (current === undefined || Object.keys(record).length > Object.keys(current).length) pool.set(id, record)
  }
  for (const dir of fs.readdirSync(OPENALEX_DATA)) {
    const full = path.join(OPENALEX_DATA, dir)
    if (!fs.statSync(full).isDirectory()) continue
    for (const name of fs.readdirSync(full)) {
      if (!name.endsWith(".json") || name.startsWith("_") || name.startsWith("error_")) continue
      const data = readJson(path.join(full, name))
      if (isWork(data)) add(data)
      const results = (data as Json)["results"]
      if (Array.isArray(results)) for (const r of results) if (isWork(r)) add(r)
    }
  }
  return pool
}

const recorded = (file: string): string => fs.readFileSync(path.join(OPENALEX_DATA, file), "utf8")

/** The select fields OpenAlex accepts, from its own recorded 400 answer. */
const validSelectFields = (): ReadonlySet<string> => {
  const body = readJson(path.join(OPENALEX_DATA, "openalexPro/error_400_invalid_select_field.json")) as Json
  const list = /Valid fields for select are: (.*)\.$/.exec(body["message"] as string)?.[1] ?? ""
  return new Set(list.split(",").map((s) => s.trim()))
}

const arxivAbsId = (url: unknown): string | undefined => {
  if (typeof url !== "string") return undefined
  const m = /arxiv\.org\/abs\/(.+?)(v\d+)?$/i.exec(url)
  return m === null ? undefined : m[1]!.toLowerCase()
}

const matchesDoi = (record: Json, doi: string): boolean => {
  if (typeof record["doi"] === "string" && bareDoi(record["doi"]) === doi) return true
  const locations = (record["locations"] as Array<Json> | undefined) ?? []
  const arxiv = /^10\.48550\/arxiv\.(.+)$/.exec(doi)?.[1]
  return locations.some((l) =>
    (typeof l["id"] === "string" && bareDoi(l["id"]) === doi) ||
    (typeof l["landing_page_url"] === "string" && /doi\.org\//i.test(l["landing_page_url"]) && bareDoi(l["landing_page_url"]) === doi) ||
    (arxiv !== undefined && arxivAbsId(l["landing_page_url"]) === arxiv)
  )
}

interface IndexEntry {
  readonly file: string
  readonly uri: string
  readonly status: number
  readonly content_type?: string
}

/** A request's identity for exact replay: decoded path and sorted parameters, without mailto/api_key. */
const requestKey = (url: URL): string => {
  const params = [...url.searchParams.entries()]
    .filter(([k]) => k !== "mailto" && k !== "api_key")
    .map(([k, v]) => `${k}=${v}`)
    .sort()
  return `${decodeURIComponent(url.pathname)}?${params.join("&")}`
}

/** The recorded requests of every `_index.json`, by request key. */
const loadReplays = (): Map<string, { readonly path: string; readonly status: number; readonly type: string }> => {
  const replays = new Map<string, { readonly path: string; readonly status: number; readonly type: string }>()
  for (const dir of fs.readdirSync(OPENALEX_DATA)) {
    const index = path.join(OPENALEX_DATA, dir, "_index.json")
    if (!fs.existsSync(index)) continue
    for (const entry of readJson(index) as ReadonlyArray<IndexEntry>) {
      const key = requestKey(new URL(entry.uri))
      if (!replays.has(key)) {
        replays.set(key, {
          path: path.join(OPENALEX_DATA, dir, entry.file),
          status: entry.status,
          type: entry.content_type ?? "application/json"
        })
      }
    }
  }
  return replays
}

const FILTERS = new Set(["doi", "openalex", "ids.openalex", "cites", "cited_by", "indexed_in"])

/** The words of a text, lower-case, for whole-word matching. */
const wordsOf = (text: string): Array<string> => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** A record's title and abstract (from its inverted index) as words. */
const recordWords = (record: Json): Array<string> => {
  const index = (record["abstract_inverted_index"] ?? {}) as Record<string, Array<number>>
  const slots: Array<string> = []
  for (const [word, positions] of Object.entries(index)) for (const at of positions) slots[at] = word
  return wordsOf(`${String(record["title"] ?? record["display_name"] ?? "")} . ${slots.join(" ")}`)
}

/** Does `hay` hold `needle` as consecutive words? */
const holds = (hay: ReadonlyArray<string>, needle: ReadonlyArray<string>): boolean => {
  if (needle.length === 0) return false
  for (let i = 0; i + needle.length <= hay.length; i++) {
    if (needle.every((w, j) => hay[i + j] === w)) return true
  }
  return false
}

/**
 * A works search: alternatives separated by OR, each a conjunction of quoted
 * phrases and words. Parentheses are ignored (the companion sends none).
 */
const matchesSearch = (record: Json, search: string): boolean => {
  const hay = recordWords(record)
  return search.split(/\s+OR\s+/).some((alternative) => {
    const parts = [...alternative.matchAll(/"([^"]*)"|([^\s"()]+)/g)].map((m) => wordsOf(m[1] ?? m[2]!)).filter((w) => w.length > 0)
    return parts.length > 0 && parts.every((p) => holds(hay, p))
  })
}

/**
 * The work record OpenAlex would have for another arXiv preprint, shaped from
 * a recorded one: the recorded record of arXiv 1609.08144 (W2525778437: its
 * arXiv DOI, ids, arXiv locations, counts_by_year, referenced works), with
 * its arXiv id, W id, date and counts replaced. For tests that need records
 * of papers the recordings do not hold (a test mirror's).
 */
export const arxivWorkLike = (arxivId: string, work: { readonly w: number; readonly citedByCount: number; readonly published: string }): Json => {
  const template = loadPool().get("W2525778437")
  if (template === undefined) throw new Error("the recorded record W2525778437 is missing from the OpenAlex recordings")
  const text = JSON.stringify(template).split("1609.08144").join(arxivId).split("W2525778437").join(`W${work.w}`)
    .split("2525778437").join(String(work.w))
  const record = JSON.parse(text) as Json
  const years = (template["counts_by_year"] as Array<{ year: number; cited_by_count: number }>)
  const total = years.reduce((a, y) => a + y.cited_by_count, 0)
  return {
    ...record,
    publication_date: work.published,
    publication_year: Number(work.published.slice(0, 4)),
    cited_by_count: work.citedByCount,
    counts_by_year: years.map((y) => ({ year: y.year, cited_by_count: Math.round((y.cited_by_count * work.citedByCount) / total) }))
  }
}

/** Start the stand-in on 127.0.0.1 with an OS-chosen port. */
export const startOpenAlexStandIn = async (options: OpenAlexStandInOptions = {}): Promise<OpenAlexStandIn> => {
  const pool = options.works === undefined
    ? loadPool()
    : new Map([...loadPool(), ...options.works.map((w): [string, Json] => [shortId(w["id"] as string), w])])
  const replays = loadReplays()
  const select = validSelectFields()
  const faults: Array<OpenAlexFault> = []
  const requests: Array<RecordedRequest> = []
  const html404 = fs.readFileSync(
    path.join(OPENALEX_DATA, "paper-qa/openalex_works_https_doi.org_10.1046_j.1365-2699.2003.00795_select_open_access_doi.html"),
    "utf8"
  )
  let keyless = 0

  const answer = (url: URL): { status: number; body: string; type?: string } => {
    const replay = replays.get(requestKey(url))
    if (replay !== undefined) return { status: replay.status, body: fs.readFileSync(replay.path, "utf8"), type: replay.type }

    const error = (message: string) => ({
      status: 400,
      body: JSON.stringify({ error: "Invalid query parameters error.", message })
    })
    const trim = (record: Json, fields: ReadonlyArray<string> | undefined): Json =>
      fields === undefined ? record : Object.fromEntries(fields.filter((f) => f in record).map((f) => [f, record[f]]))

    const selectParam = url.searchParams.get("select")
    const fields = selectParam === null ? undefined : selectParam.split(",").map((s) => s.trim())
    for (const f of fields ?? []) if (!select.has(f)) return error(`${f} is not a valid select field. Valid fields for select are: ${[...select].join(", ")}.`)

    const single = /^\/works\/(.+)$/.exec(url.pathname)
    if (single !== null) {
      const key = decodeURIComponent(single[1]!)
      const record = /^W\d+$/i.test(key)
        ? pool.get(key.toUpperCase())
        : [...pool.values()].find((r) => matchesDoi(r, bareDoi(key)))
      return record === undefined
        ? { status: 404, body: html404, type: "text/html; charset=utf-8" }
        : { status: 200, body: JSON.stringify(trim(record, fields)) }
    }
    if (url.pathname !== "/works") return { status: 404, body: html404, type: "text/html; charset=utf-8" }

    const perPageRaw = url.searchParams.get("per_page") ?? url.searchParams.get("per-page") ?? "25"
    const perPage = Number(perPageRaw)
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 200) return error(`per-page must be a number between 1 and 200`)
    let records = [...pool.values()]
    for (const clause of (url.searchParams.get("filter") ?? "").split(",").filter((c) => c !== "")) {
      const colon = clause.indexOf(":")
      const key = clause.slice(0, colon)
      if (colon < 0 || !FILTERS.has(key)) return error(`${key} is not a valid field.`)
      const values = clause.slice(colon + 1).split("|").map((v) => v.trim()).filter((v) => v !== "")
      if (values.length > 100) return error(`Maximum number of values exceeded for ${key}. Decrease values to 100 or below.`)
      if (key === "doi") {
        const dois = values.map(bareDoi)
        records = records.filter((r) => dois.some((d) => matchesDoi(r, d)))
      } else if (key === "openalex" || key === "ids.openalex") {
        const ids = new Set(values.map((v) => shortId(v).toUpperCase()))
        records = records.filter((r) => ids.has(shortId(r["id"] as string)))
      } else if (key === "indexed_in") {
        records = records.filter((r) => ((r["indexed_in"] as Array<string> | undefined) ?? []).some((i) => values.includes(i)))
      } else if (key === "cites") {
        const ids = new Set(values.map((v) => `https://openalex.org/${shortId(v).toUpperCase()}`))
        records = records.filter((r) => ((r["referenced_works"] as Array<string> | undefined) ?? []).some((w) => ids.has(w)))
      } else {
        const refs = new Set(values.flatMap((v) => (pool.get(shortId(v).toUpperCase())?.["referenced_works"] as Array<string> | undefined) ?? []))
        records = records.filter((r) => refs.has(r["id"] as string))
      }
    }
    const search = url.searchParams.get("search")
    if (search !== null) records = records.filter((r) => matchesSearch(r, search))
    const sort = url.searchParams.get("sort")
    if (sort !== null && !/^cited_by_count(?::(?:desc|asc))?$/.test(sort)) {
      return error(`${sort.replace(/:.*$/, "")} is not a valid sort field here.`)
    }
    const direction = sort === "cited_by_count:asc" ? -1 : 1
    records.sort((a, b) =>
      direction * ((b["cited_by_count"] as number) - (a["cited_by_count"] as number)) || String(a["id"]).localeCompare(String(b["id"]))
    )
    const cursor = url.searchParams.get("cursor")
    const offset = cursor !== null && cursor !== "*" ? Number(Buffer.from(cursor, "base64url").toString()) : (Number(url.searchParams.get("page") ?? "1") - 1) * perPage
    const page = records.slice(offset, offset + perPage)
    const more = offset + perPage < records.length
    return {
      status: 200,
      body: JSON.stringify({
        meta: {
          count: records.length,
          db_response_time_ms: 1,
          page: cursor === null ? Math.floor(offset / perPage) + 1 : null,
          per_page: perPage,
          next_cursor: cursor === null ? null : more ? Buffer.from(String(offset + perPage)).toString("base64url") : null,
          groups_count: null
        },
        results: page.map((r) => trim(r, fields)),
        group_by: []
      })
    }
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    const entry: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      params: Object.fromEntries(url.searchParams),
      headers: req.headers
    }
    requests.push(entry)
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      entry.status = status
      const go = () => {
        res.writeHead(status, { "content-type": "application/json", ...headers })
        res.end(body)
      }
      if (options.latencyMillis) setTimeout(go, options.latencyMillis)
      else go()
    }
    let fault = options.failWhen?.(entry) ?? faults.shift()
    const run = () => {
      if (fault?._tag === "Hang") return
      if (fault?._tag === "Reset") {
        entry.status = 0
        req.socket.destroy()
        return
      }
      if (fault?._tag === "Status") {
        return send(fault.status, fault.body ?? JSON.stringify({ error: `HTTP ${fault.status}` }), fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter })
      }
      if (fault?._tag === "BadKey401") return send(401, recorded("openalexPro/error_401_rate_limit_endpoint_bad_key.json"))
      if (fault?._tag === "NotFoundHtml") return send(404, html404, { "content-type": "text/html; charset=utf-8" })
      const key = url.searchParams.get("api_key")
      if (options.requiredKey !== undefined && key !== options.requiredKey) {
        return send(401, recorded("openalexPro/error_401_rate_limit_endpoint_bad_key.json"))
      }
      if (key === null && options.keylessBudget !== undefined && ++keyless > options.keylessBudget) {
        return send(429, JSON.stringify({ error: "Rate limit exceeded", message: "Daily budget without an API key exhausted." }))
      }
      const result = answer(url)
      const body = fault?._tag === "Truncated" ? result.body.slice(0, Math.floor(result.body.length / 2)) : result.body
      return send(result.status, body, result.type === undefined ? {} : { "content-type": result.type })
    }
    if (fault?._tag === "Delay") {
      const millis = fault.millis
      fault = undefined
      setTimeout(run, millis)
    } else run()
  })
  const port = await listenOnFreshPort(server)
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    pool,
    failNext: (...more) => void faults.push(...more),
    worksRequests: () => requests.filter((r) => r.path.startsWith("/works")),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** The stand-in as a scoped resource: started on acquire, closed when the scope closes. */
export const openAlexStandIn = (options: OpenAlexStandInOptions = {}): Effect.Effect<OpenAlexStandIn, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startOpenAlexStandIn(options)),
    (standIn) => Effect.promise(() => standIn.close())
  )
