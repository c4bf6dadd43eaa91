/**
 * A loopback arXiv: a real HTTP server on 127.0.0.1 that answers the request
 * shapes of arXiv's query API from the recorded feeds in ../shared/data/arxiv
 * (see its SOURCES.md; arXiv metadata is CC0).
 *
 * - A request whose `search_query` / `id_list` / `start` / `max_results`
 *   match a recorded feed (read from the feed's own title) gets that feed
 *   byte for byte.
 * - Other `id_list` lookups get a feed assembled from the recorded `<entry>`
 *   elements of those ids (every recorded feed goes into one pool, first copy
 *   of an id wins). Well-formed unknown ids are simply absent (HTTP 200, as
 *   arXiv does); an id arXiv cannot parse gets the recorded HTTP 400 error
 *   feed naming it.
 * - Other searches are evaluated over the pool: `all:`/`ti:`/`abs:`/`au:`
 *   terms (any of them), `cat:` (any), `submittedDate:[A TO B]`; ranked by
 *   matched terms. With `padSearches` the page is filled with the other pool
 *   entries that pass the category/date filters, so a bench can ask for 50.
 *
 * Only the feed wrapper of assembled answers is written here (in today's
 * format); every `<entry>` is recorded XML. Faults are queued with
 * `failNext` (one per request) or set with `failAlways`; every request is
 * recorded with its arrival time.
 */
import { Effect, type Scope } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { parseQuery, showQuery } from "../../src/adapters/query/queryParser.js"
import { loadPool } from "./openalex-standin.js"
import { listenOnFreshPort } from "./loopback.js"

/** The recorded upstream data copied from shared/data (test/fixtures/recorded; override with ARXIV_COMPANION_SHARED_DATA). */
export const SHARED_DATA = process.env["ARXIV_COMPANION_SHARED_DATA"] ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/recorded")
const ARXIV_DATA = path.join(SHARED_DATA, "arxiv")

/** One fault, for one request. */
export type ArxivFault =
  | { readonly _tag: "Status"; readonly status: number; readonly retryAfter?: string; readonly body?: string }
  /** HTTP 200 with the plain-text body "Rate exceeded." */
  | { readonly _tag: "RateExceeded" }
  /** HTTP 406 carrying the normal, valid feed. */
  | { readonly _tag: "NotAcceptableWithFeed" }
  /** HTTP 400 with arXiv's error entry (the recorded body, naming `id`). */
  | { readonly _tag: "ErrorFeed"; readonly id: string }
  /** Never answer (until the client gives up or the server closes). */
  | { readonly _tag: "Hang" }
  /** Drop the connection before answering. */
  | { readonly _tag: "Reset" }
  /** Send the headers and half the body, then drop the connection. */
  | { readonly _tag: "Truncated" }
  /** HTTP 200 with a feed cut in the middle of an element (a complete HTTP message). */
  | { readonly _tag: "MalformedXml" }
  /** HTTP 200 with a valid feed that reports results but carries no entry (arxiv.py's "unexpected empty page"). */
  | { readonly _tag: "EmptyPage" }
  /** Answer normally, after this much extra latency. */
  | { readonly _tag: "Delay"; readonly millis: number }

/** Ready-made faults. */
export const Fault = {
  rateLimited: (retryAfter?: string): ArxivFault =>
    retryAfter === undefined
      ? { _tag: "Status", status: 429, body: "Rate exceeded." }
      : { _tag: "Status", status: 429, retryAfter, body: "Rate exceeded." },
  unavailable: (): ArxivFault => ({ _tag: "Status", status: 503, body: "<html><body>503 Service Unavailable</body></html>" }),
  rateExceeded200: (): ArxivFault => ({ _tag: "RateExceeded" }),
  notAcceptableWithFeed: (): ArxivFault => ({ _tag: "NotAcceptableWithFeed" }),
  errorFeed: (id: string): ArxivFault => ({ _tag: "ErrorFeed", id }),
  hang: (): ArxivFault => ({ _tag: "Hang" }),
  reset: (): ArxivFault => ({ _tag: "Reset" }),
  truncated: (): ArxivFault => ({ _tag: "Truncated" }),
  malformedXml: (): ArxivFault => ({ _tag: "MalformedXml" }),
  emptyPage: (): ArxivFault => ({ _tag: "EmptyPage" }),
  delay: (millis: number): ArxivFault => ({ _tag: "Delay", millis })
} as const

/** A request as the stand-in saw it. */
export interface RecordedRequest {
  /** Arrival, `performance.now()` milliseconds. */
  readonly at: number
  readonly method: string
  /** The raw request target, exactly as sent (`/api/query?search_query=...`). */
  readonly url: string
  readonly params: Readonly<Record<string, string>>
  readonly headers: http.IncomingHttpHeaders
  /** The fault applied, if any. */
  readonly fault?: ArxivFault["_tag"] | undefined
  /** What the stand-in answered (undefined while pending or for hangs/resets). */
  status?: number
  /** When the exchange ended (answer sent or connection closed), `performance.now()` ms. */
  endedAt?: number
}

/** Options of the stand-in. */
export interface ArxivStandInOptions {
  /** Latency added to every answer (ms). */
  readonly latencyMillis?: number
  /** Fill search pages from the rest of the pool (for benches asking for many candidates). */
  readonly padSearches?: boolean
  /**
   * Also serve records of the offline corpus (`../shared/data/corpus`, oai_dc
   * JSONL): `"landmarks"` (33 well-known ML papers), `"cs.CL"` (4,431) or a
   * file path. These entries are assembled from the records (the corpus has
   * no Atom), marked with `<arxiv:comment>` "assembled by the stand-in".
   */
  readonly corpus?: "landmarks" | "cs.CL" | (string & {}) | undefined
  /**
   * Also serve the arXiv papers among the recorded OpenAlex work records (those
   * with an arxiv.org location and an abstract: 1806.03537, 2007.14454, …),
   * assembled from the record: title, abstract (from its inverted index),
   * authors, date. OpenAlex records no arXiv categories, so these entries have
   * none and only match searches without a `cat:` filter.
   */
  readonly openalexPapers?: boolean | undefined
}

/** A running stand-in. */
export interface ArxivStandIn {
  /** The query endpoint, e.g. http://127.0.0.1:34567/api/query (use as ARXIV_API_URL). */
  readonly url: string
  readonly requests: Array<RecordedRequest>
  /** Recorded entries by bare id. */
  readonly pool: ReadonlyMap<string, PoolEntry>
  /** Queue faults, consumed one per request. */
  readonly failNext: (...faults: ReadonlyArray<ArxivFault>) => void
  /** A fault for every request after the queue is empty (undefined: none). */
  readonly failAlways: (fault: ArxivFault | undefined) => void
  readonly setLatency: (millis: number) => void
  /** The most requests that were ever in flight at once (arrived and not yet answered). */
  readonly maxInFlight: () => number
  readonly close: () => Promise<void>
}

/** One recorded `<entry>`, with what the search needs from it. */
export interface PoolEntry {
  readonly id: string
  readonly xml: string
  readonly text: string
  readonly title: string
  readonly authors: string
  readonly categories: ReadonlyArray<string>
  /** YYYYMMDD */
  readonly published: string
}

interface RecordedFeed {
  readonly file: string
  readonly body: string
  readonly status: number
  readonly searchQuery: string
  readonly idList: string
  readonly start: number
  readonly maxResults: number | undefined
}

const listXml = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name)
    if (d.isDirectory()) return listXml(full)
    return d.name.endsWith(".xml") ? [full] : []
  })

const decodeEntities = (s: string): string =>
  s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&apos;/g, "'").replace(/&amp;/g, "&")

const bareId = (s: string): string =>
  s.trim().replace(/^https?:\/\/(export\.)?arxiv\.org\/abs\//, "").replace(/v\d+$/, "")

const normaliseQuery = (q: string): string => {
  let s = q.replace(/\s+/g, " ").trim()
  // the companion wraps user text in parentheses: "(all:testing)" is the recorded "all:testing"
  while (/^\((?:[^()]|\([^()]*\))*\)$/.test(s)) s = s.slice(1, -1).trim()
  return s
}

/**
 * A query as a recorded feed is matched: the tree the parser of typed queries reads from it, so the
 * companion's rendering "(au:del_maestro) AND (ti:checkerboard)" is the recorded "au:del_maestro AND ti:checkerboard".
 */
const queryKey = (normalised: string): string => {
  const parsed = parseQuery(normalised)
  return parsed._tag === "Ok" ? showQuery(parsed.query) : normalised
}

const MODERN = /^\d{4}\.\d{4,5}(v\d+)?$/
const LEGACY = /^[a-z-]+(\.[A-Z]{2})?\/\d{7}(v\d+)?$/
const isWellFormedId = (id: string): boolean => MODERN.test(id) || LEGACY.test(id)

interface Recordings {
  readonly feeds: ReadonlyArray<RecordedFeed>
  readonly pool: ReadonlyMap<string, PoolEntry>
  readonly errorBody: string
}
let loaded: Recordings | undefined

/** Every recorded feed and every recorded entry (read once per process). */
export const loadRecordings = (): Recordings => (loaded ??= readRecordings())

const readRecordings = (): Recordings => {
  const indexStatus = new Map<string, number>()
  for (const index of [path.join(ARXIV_DATA, "arxiv.py/_index.json"), path.join(ARXIV_DATA, "pubs/_index.json")]) {
    if (!fs.existsSync(index)) continue
    for (const row of JSON.parse(fs.readFileSync(index, "utf8")) as Array<{ file: string; status: number }>) {
      indexStatus.set(path.basename(row.file), row.status)
    }
  }
  const feeds: Array<RecordedFeed> = []
  const pool = new Map<string, PoolEntry>()
  let errorBody = ""
  // newest recordings first, so an id's 2026 entry wins over an older copy
  const files = listXml(ARXIV_DATA).sort((a, b) => {
    const rank = (f: string) => (f.includes("arxiv.py/xml") ? 0 : f.includes("arxiv-vanity") ? 1 : 2)
    return rank(a) - rank(b) || a.localeCompare(b)
  })
  for (const file of files) {
    const body = fs.readFileSync(file, "utf8")
    const title = decodeEntities(/<title[^>]*>([\s\S]*?)<\/title>/.exec(body)?.[1] ?? "")
    const status = indexStatus.get(path.basename(file)) ?? (body.includes("/api/errors#") ? 400 : 200)
    if (status === 400 && file.includes("arxiv.py")) errorBody = body
    const q = /Query: (.*)$/.exec(title)?.[1]
    if (q !== undefined) {
      const params = new Map<string, string>()
      for (const part of q.split("&")) {
        const eq = part.indexOf("=")
        if (eq > 0) params.set(part.slice(0, eq), part.slice(eq + 1))
      }
      feeds.push({
        file,
        body,
        status,
        searchQuery: normaliseQuery(params.get("search_query") ?? ""),
        idList: params.get("id_list") ?? "",
        start: Number(params.get("start") ?? "0"),
        maxResults: params.has("max_results") ? Number(params.get("max_results")) : undefined
      })
    }
    for (const match of body.matchAll(/<entry>[\s\S]*?<\/entry>/g)) {
      const xml = match[0]
      const rawId = /<id>([^<]+)<\/id>/.exec(xml)?.[1] ?? ""
      if (rawId.includes("/api/errors")) continue
      const id = bareId(rawId)
      if (pool.has(id)) continue
      const entryTitle = decodeEntities(/<title[^>]*>([\s\S]*?)<\/title>/.exec(xml)?.[1] ?? "")
      const summary = decodeEntities(/<summary[^>]*>([\s\S]*?)<\/summary>/.exec(xml)?.[1] ?? "")
      const authors = [...xml.matchAll(/<name>([^<]*)<\/name>/g)].map((m) => decodeEntities(m[1]!)).join(" ; ")
      pool.set(id, {
        id,
        xml,
        title: entryTitle.toLowerCase(),
        text: `${entryTitle} ${summary}`.toLowerCase(),
        authors: authors.toLowerCase(),
        categories: [...xml.matchAll(/<category [^>]*term="([^"]+)"/g)].map((m) => m[1]!),
        published: (/<published>(\d{4})-(\d{2})-(\d{2})/.exec(xml) ?? []).slice(1, 4).join("")
      })
    }
  }
  return { feeds, pool, errorBody }
}

const feedXml = (title: string, entries: ReadonlyArray<string>, total: number, start: number, perPage: number) =>
  `<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">
  <id>https://arxiv.org/api/standin</id>
  <title>arXiv Query: ${title.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</title>
  <updated>2026-04-12T00:00:00Z</updated>
  <link href="https://arxiv.org/api/query" type="application/atom+xml"/>
  <opensearch:itemsPerPage>${perPage}</opensearch:itemsPerPage>
  <opensearch:totalResults>${total}</opensearch:totalResults>
  <opensearch:startIndex>${start}</opensearch:startIndex>
${entries.map((e) => `  ${e}`).join("\n")}
</feed>
`

interface Predicate {
  readonly field: string
  readonly value: string
}

/** A small reading of arXiv's query syntax: terms (ORed), categories (ORed), a date range. */
const parseSearch = (query: string) => {
  const terms: Array<Predicate> = []
  const cats: Array<string> = []
  let range: [string, string] | undefined
  const re = /(?:(all|ti|abs|au|cat|submittedDate|co|jr):)?("[^"]*"|\[[^\]]*\]|[^\s()"]+)/g
  for (const m of query.matchAll(re)) {
    const field = m[1] ?? "all"
    const raw = m[2]!
    if (m[1] === undefined && /^(AND|OR|ANDNOT|TO)$/.test(raw)) continue
    const value = raw.replace(/^"|"$/g, "").toLowerCase()
    if (field === "cat") cats.push(raw)
    else if (field === "submittedDate") {
      const r = /^\[(\d{8})\d*\s+TO\s+(\d{8})\d*\]$/.exec(raw)
      if (r !== null) range = [r[1]!, r[2]!]
    } else terms.push({ field, value })
  }
  return { terms, cats, range }
}

const searchPool = (pool: ReadonlyMap<string, PoolEntry>, query: string, pad: boolean): Array<PoolEntry> => {
  const { cats, range, terms } = parseSearch(query)
  const passes = (e: PoolEntry) =>
    (cats.length === 0 || e.categories.some((c) => cats.includes(c))) &&
    (range === undefined || (e.published >= range[0] && e.published <= range[1]))
  const score = (e: PoolEntry) =>
    terms.filter((t) =>
      t.field === "ti" ? e.title.includes(t.value) : t.field === "au" ? e.authors.includes(t.value.replace(/_/g, " ")) : e.text.includes(t.value)
    ).length
  const scored = [...pool.values()].filter(passes).map((e, i) => ({ e, i, s: score(e) }))
  const hits = scored.filter((x) => terms.length === 0 || x.s > 0).sort((a, b) => b.s - a.s || a.i - b.i)
  if (!pad) return hits.map((x) => x.e)
  return [...hits, ...scored.filter((x) => terms.length > 0 && x.s === 0)].map((x) => x.e)
}

const escapeXml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

interface CorpusRecord {
  readonly id: string
  readonly title: string
  readonly abstract: string
  readonly authors: ReadonlyArray<string>
  readonly categories: ReadonlyArray<string>
  readonly dates: ReadonlyArray<string>
}

/** Pool entries for offline-corpus records, as arXiv would list them today. */
export const corpusEntries = (which: NonNullable<ArxivStandInOptions["corpus"]>): Array<PoolEntry> => {
  const file = which === "landmarks"
    ? path.join(SHARED_DATA, "corpus/arxiv_oai_dc_ml_landmarks.jsonl")
    : which === "cs.CL"
    ? path.join(SHARED_DATA, "corpus/arxiv_oai_dc_cs.CL_2007-2017.jsonl")
    : which
  const records = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as CorpusRecord)
  return recordEntries(records, "the offline corpus (oai_dc)")
}

/** Pool entries for the arXiv papers among the recorded OpenAlex work records (see `openalexPapers`). */
export const openalexEntries = (): Array<PoolEntry> => {
  const records: Array<CorpusRecord> = []
  for (const work of loadPool().values()) {
    const locations = (work["locations"] ?? []) as Array<Record<string, unknown>>
    const id = locations.map((l) => /arxiv\.org\/abs\/([^v\s]+?)(?:v\d+)?$/i.exec(String(l["landing_page_url"] ?? ""))?.[1])
      .find((x) => x !== undefined)
    const index = work["abstract_inverted_index"] as Record<string, Array<number>> | null | undefined
    if (id === undefined || index === null || index === undefined || typeof work["publication_date"] !== "string") continue
    const words: Array<string> = []
    for (const [word, at] of Object.entries(index)) for (const i of at) words[i] = word
    records.push({
      id,
      title: String(work["display_name"] ?? ""),
      abstract: words.filter((w) => w !== undefined).join(" "),
      authors: ((work["authorships"] ?? []) as Array<{ author?: { display_name?: string } }>).flatMap((a) => a.author?.display_name ?? []),
      categories: [],
      dates: [work["publication_date"]]
    })
  }
  return recordEntries(records.sort((a, b) => a.id.localeCompare(b.id)), "the recorded OpenAlex record")
}

const recordEntries = (records: ReadonlyArray<CorpusRecord>, from: string): Array<PoolEntry> =>
  records.map((r) => {
    const authors = r.authors.map((a) => a.includes(", ") ? `${a.slice(a.indexOf(", ") + 2)} ${a.slice(0, a.indexOf(", "))}` : a)
    const first = r.dates[0] ?? "2000-01-01"
    const last = r.dates[r.dates.length - 1] ?? first
    const xml = [
      "<entry>",
      `    <id>http://arxiv.org/abs/${r.id}v${Math.max(1, r.dates.length)}</id>`,
      `    <title>${escapeXml(r.title)}</title>`,
      `    <updated>${last}T00:00:00Z</updated>`,
      `    <link href="https://arxiv.org/abs/${r.id}" rel="alternate" type="text/html"/>`,
      `    <summary>${escapeXml(r.abstract.trim())}</summary>`,
      ...r.categories.map((c) => `    <category term="${c}" scheme="http://arxiv.org/schemas/atom"/>`),
      `    <published>${first}T00:00:00Z</published>`,
      `    <arxiv:comment>assembled by the stand-in from ${from}</arxiv:comment>`,
      ...authors.map((a) => `    <author>\n      <name>${escapeXml(a)}</name>\n    </author>`),
      "  </entry>"
    ].join("\n")
    return {
      id: r.id,
      xml,
      title: r.title.toLowerCase(),
      text: `${r.title} ${r.abstract}`.toLowerCase(),
      authors: authors.join(" ; ").toLowerCase(),
      categories: r.categories,
      published: first.replace(/-/g, "")
    }
  })

/** Start a stand-in on 127.0.0.1 (a free port). */
export const startArxivStandIn = async (options: ArxivStandInOptions = {}): Promise<ArxivStandIn> => {
  const recordings = loadRecordings()
  const { errorBody, feeds } = recordings
  const pool = new Map(recordings.pool)
  if (options.corpus !== undefined) {
    for (const entry of corpusEntries(options.corpus)) if (!pool.has(entry.id)) pool.set(entry.id, entry)
  }
  if (options.openalexPapers === true) {
    for (const entry of openalexEntries()) if (!pool.has(entry.id)) pool.set(entry.id, entry)
  }
  const requests: Array<RecordedRequest> = []
  const queue: Array<ArxivFault> = []
  let always: ArxivFault | undefined
  let latency = options.latencyMillis ?? 0
  let inFlight = 0
  let maxInFlight = 0
  const sockets = new Set<import("node:net").Socket>()

  const errorFeed = (id: string): string =>
    errorBody.replaceAll("incorrect_id_format_for_abc", `incorrect_id_format_for_${id}`)
      .replaceAll("incorrect id format for abc", `incorrect id format for ${id}`)

  const answer = (params: URLSearchParams): { status: number; body: string } => {
    const idList = (params.get("id_list") ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
    const searchQuery = normaliseQuery(params.get("search_query") ?? "")
    const start = Number(params.get("start") ?? "0")
    const maxResults = Number(params.get("max_results") ?? "10")
    if (idList.length > 0) {
      const bad = idList.find((id) => !isWellFormedId(id))
      if (bad !== undefined) return { status: 400, body: errorFeed(bad) }
      const recorded = feeds.find((f) => f.searchQuery === "" && f.idList === idList.join(","))
      if (recorded !== undefined && searchQuery === "") return { status: recorded.status, body: recorded.body }
      const entries = idList.map((id) => pool.get(bareId(id))).filter((e): e is PoolEntry => e !== undefined)
      const page = entries.slice(start, start + maxResults)
      return {
        status: 200,
        body: feedXml(`search_query=&id_list=${idList.join(",")}&start=${start}&max_results=${maxResults}`, page.map((e) => e.xml), entries.length, start, maxResults)
      }
    }
    if (searchQuery === "") return { status: 400, body: errorFeed("") }
    const recorded = feeds.find((f) =>
      f.idList === "" && f.searchQuery !== "" && queryKey(f.searchQuery) === queryKey(searchQuery) && f.start === start && f.maxResults === maxResults
    )
    if (recorded !== undefined) return { status: recorded.status, body: recorded.body }
    const hits = searchPool(pool, searchQuery, options.padSearches === true)
    return {
      status: 200,
      body: feedXml(
        `search_query=${params.get("search_query") ?? ""}&id_list=&start=${start}&max_results=${maxResults}`,
        hits.slice(start, start + maxResults).map((e) => e.xml),
        hits.length,
        start,
        maxResults
      )
    }
  }

  const server = http.createServer((req, res) => {
    const target = req.url ?? "/"
    const url = new URL(target, "http://127.0.0.1")
    const fault = queue.shift() ?? always
    const record: RecordedRequest = {
      at: performance.now(),
      method: req.method ?? "GET",
      url: target,
      params: Object.fromEntries(url.searchParams),
      headers: req.headers,
      fault: fault?._tag
    }
    requests.push(record)
    maxInFlight = Math.max(maxInFlight, ++inFlight)
    res.on("close", () => {
      inFlight--
      record.endedAt = performance.now()
    })
    const respond = () => {
      if (url.pathname !== "/api/query") {
        record.status = 404
        res.writeHead(404, { "content-type": "text/plain" }).end("Not Found")
        return
      }
      if (fault?._tag === "Hang") return
      if (fault?._tag === "Reset") {
        req.socket.destroy()
        return
      }
      if (fault?._tag === "Status") {
        record.status = fault.status
        res.writeHead(fault.status, {
          "content-type": "text/plain; charset=utf-8",
          ...(fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter })
        }).end(fault.body ?? "")
        return
      }
      if (fault?._tag === "RateExceeded") {
        record.status = 200
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("Rate exceeded.")
        return
      }
      if (fault?._tag === "ErrorFeed") {
        record.status = 400
        res.writeHead(400, { "content-type": "application/atom+xml; charset=utf-8" }).end(errorFeed(fault.id))
        return
      }
      const answered = answer(url.searchParams)
      const status = answered.status
      const body = fault?._tag === "EmptyPage"
        ? answered.body.replace(/\s*<entry>[\s\S]*<\/entry>/, "")
        : answered.body
      const bytes = Buffer.from(body, "utf8")
      if (fault?._tag === "Truncated") {
        res.writeHead(status, { "content-type": "application/atom+xml; charset=utf-8", "content-length": bytes.length })
        res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => req.socket.destroy())
        return
      }
      if (fault?._tag === "MalformedXml") {
        const cut = Buffer.from(body.slice(0, Math.floor(body.length / 2)) + "<", "utf8")
        record.status = 200
        res.writeHead(200, { "content-type": "application/atom+xml; charset=utf-8", "content-length": cut.length }).end(cut)
        return
      }
      const finalStatus = fault?._tag === "NotAcceptableWithFeed" ? 406 : status
      record.status = finalStatus
      res.writeHead(finalStatus, { "content-type": "application/atom+xml; charset=utf-8", "content-length": bytes.length })
        .end(bytes)
    }
    const wait = latency + (fault?._tag === "Delay" ? fault.millis : 0)
    if (wait > 0) setTimeout(respond, wait)
    else respond()
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  const port = await listenOnFreshPort(server)
  return {
    url: `http://127.0.0.1:${port}/api/query`,
    requests,
    pool,
    failNext: (...faults) => void queue.push(...faults),
    failAlways: (fault) => void (always = fault),
    setLatency: (millis) => void (latency = millis),
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** The stand-in as a scoped resource: started on acquire, closed when the scope closes. */
export const arxivStandIn = (options: ArxivStandInOptions = {}): Effect.Effect<ArxivStandIn, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startArxivStandIn(options)),
    (standIn) => Effect.promise(() => standIn.close())
  )
