/**
 * A loopback stand-in for arXiv's OAI-PMH server (a real node:http server on
 * 127.0.0.1) for the mirror's tests. It serves `ListRecords` pages built from
 * real records: the recorded arXiv answers in fixtures/oaipmh (verbatim
 * `<record>` elements) and the real metadata rows of arXiv's own server tests
 * rendered in arXiv's `arXiv` format (the rendering is ours). Lists are
 * filtered by `set` and `from`, paged with resumption tokens as the new
 * server writes them (`expirationDate`, an empty token at the end), and
 * answer OAI-PMH errors as the server would (`noRecordsMatch`,
 * `badResumptionToken`, `badArgument`). Faults are scripted per request
 * number: arXiv's recorded 503 with its Retry-After, a page cut off, an error.
 */
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { join } from "node:path"
import { setOfCategory } from "../../src/adapters/arxiv/mirror/sets.js"
import { listenOnFreshPort } from "./loopback.js"

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "oaipmh")

/** A record the stand-in holds: its XML, or none when arXiv deleted it. */
export interface StandInRecord {
  readonly id: string
  readonly datestamp: string
  readonly sets: ReadonlyArray<string>
  readonly xml: string | undefined
  readonly categories: ReadonlyArray<string>
}

/** One request the stand-in received. */
export interface Received {
  readonly at: number
  readonly params: URLSearchParams
  readonly status: number
  /** Records the answer carried. */
  readonly records: number
}

/** What the stand-in answers instead of the page, for one request. */
export type Fault =
  | { readonly kind: "503"; readonly recording: "2018" | "2016" }
  | { readonly kind: "truncate" }
  | { readonly kind: "error"; readonly code: string; readonly message: string }

const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** The recorded 503s: bodies verbatim, Retry-After as recorded (fixtures/oaipmh/README.md). */
const RECORDED_503 = {
  "2018": { body: readFileSync(join(FIXTURES, "ListRecords_503_2018.html")), retryAfter: "10" },
  "2016": { body: readFileSync(join(FIXTURES, "ListRecords_503_2016.html")), retryAfter: "20" }
} as const

/** The `<record>` elements of a recorded page, verbatim. */
export const recordedRecords = (file: string): Array<StandInRecord> =>
  [...readFileSync(join(FIXTURES, file), "utf8").matchAll(/<record>[\s\S]*?<\/record>/g)].map((m) => {
    const xml = m[0]
    const id = /<identifier>oai:arXiv\.org:([^<]+)<\/identifier>/.exec(xml)![1]!
    const datestamp = /<datestamp>([^<]+)<\/datestamp>/.exec(xml)![1]!
    const sets = [...xml.matchAll(/<setSpec>([^<]+)<\/setSpec>/g)].map((s) => s[1]!)
    const categories = (/<categories>([^<]*)<\/categories>/.exec(xml)?.[1] ?? "").split(" ").filter((c) => c !== "")
    return { id, datestamp, sets, xml, categories }
  })

interface MetadataRow {
  readonly paper_id: string
  readonly created: string
  readonly updated: string
  readonly title: string
  readonly authors: string
  readonly abs_categories: string
  readonly comments: string | null
  readonly journal_ref: string | null
  readonly doi: string | null
  readonly abstract: string
  readonly license: string | null
  readonly version: number
  readonly is_current: number
}

const authorXml = (authors: string): string =>
  authors.split(/,\s*|\s+and\s+/).map((a) => a.trim()).filter((a) => a !== "").map((a) => {
    const parts = a.split(/\s+/)
    const keyname = parts.pop()!
    return `<author><keyname>${esc(keyname)}</keyname>${parts.length > 0 ? `<forenames>${esc(parts.join(" "))}</forenames>` : ""}</author>`
  }).join("")

/** The real metadata rows of arXiv's server tests, one record per paper (its current version), in the `arXiv` format. */
export const metadataRecords = (): Array<StandInRecord> => {
  const rows = readFileSync(join(FIXTURES, "arXiv_metadata.jsonl"), "utf8").split("\n").filter((l) => l !== "").map((l) =>
    JSON.parse(l) as MetadataRow
  )
  const first = new Map<string, string>()
  for (const r of rows) {
    const known = first.get(r.paper_id)
    if (known === undefined || r.created < known) first.set(r.paper_id, r.created)
  }
  return rows.filter((r) => r.is_current === 1).map((r) => {
    const categories = r.abs_categories.split(" ").filter((c) => c !== "")
    const sets = [...new Set(categories.map((c) => setOfCategory(c)).filter((s): s is string => s !== undefined))]
    const datestamp = r.updated.slice(0, 10)
    const created = first.get(r.paper_id)!.slice(0, 10)
    const xml = `<record>
<header>
 <identifier>oai:arXiv.org:${r.paper_id}</identifier>
 <datestamp>${datestamp}</datestamp>
${sets.map((s) => ` <setSpec>${s}</setSpec>`).join("\n")}
</header>
<metadata>
 <arXiv xmlns="http://arxiv.org/OAI/arXiv/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://arxiv.org/OAI/arXiv/ https://oaipmh.arxiv.org/OAI/arXiv.xsd">
 <id>${r.paper_id}</id><created>${created}</created>${
      r.version > 1 ? `<updated>${r.created.slice(0, 10)}</updated>` : ""
    }<authors>${authorXml(r.authors)}</authors><title>${esc(r.title)}</title><categories>${esc(r.abs_categories)}</categories>${
      r.comments === null ? "" : `<comments>${esc(r.comments)}</comments>`
    }${r.journal_ref === null ? "" : `<journal-ref>${esc(r.journal_ref)}</journal-ref>`}${
      r.doi === null ? "" : `<doi>${esc(r.doi)}</doi>`
    }${r.license === null ? "" : `<license>${esc(r.license)}</license>`}<abstract>${esc(r.abstract)}</abstract></arXiv>
</metadata>
</record>`
    return { id: r.paper_id, datestamp, sets, xml, categories }
  })
}

/** A record marked deleted on `datestamp`, as a persistent-deletion repository lists it. */
export const deletedRecord = (record: StandInRecord, datestamp: string): StandInRecord => ({ ...record, datestamp, xml: undefined })

/** A record with its datestamp and title changed (a new version). */
export const revisedRecord = (record: StandInRecord, datestamp: string, title: string): StandInRecord => ({
  ...record,
  datestamp,
  xml: record.xml!.replace(/<datestamp>[^<]+<\/datestamp>/, `<datestamp>${datestamp}</datestamp>`).replace(
    /<title>[\s\S]*?<\/title>/,
    `<title>${esc(title)}</title>`
  )
})

const headerXml = (r: StandInRecord) =>
  `<record>\n<header status="deleted">\n <identifier>oai:arXiv.org:${r.id}</identifier>\n <datestamp>${r.datestamp}</datestamp>\n${
    r.sets.map((s) => ` <setSpec>${s}</setSpec>`).join("\n")
  }\n</header>\n</record>`

const envelope = (params: URLSearchParams, inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">
<responseDate>${new Date().toISOString().replace(/\.\d+Z$/, "Z")}</responseDate>
<request ${[...params].map(([k, v]) => `${k}="${esc(v)}"`).join(" ")}>https://oaipmh.arxiv.org/oai</request>
${inner}
</OAI-PMH>
`

/** The stand-in, running. */
export interface StandIn {
  readonly url: string
  readonly received: Array<Received>
  /** The repository: change it between syncs. */
  records: Array<StandInRecord>
  /** Records per page. */
  pageSize: number
  /** Faults by request number (1-based), each answered once. */
  readonly faults: Map<number, Fault>
  /** Make every token issued so far unknown (as at midnight UTC). */
  readonly expireTokens: () => void
  readonly close: () => Promise<void>
}

/** Start a stand-in on 127.0.0.1 (a free port). */
export const startStandIn = async (records: Array<StandInRecord>, pageSize = 10): Promise<StandIn> => {
  const lists = new Map<string, ReadonlyArray<StandInRecord>>()
  const expired = new Set<string>()
  let serial = 0
  const received: Array<Received> = []
  const faults = new Map<number, Fault>()
  const state = { records, pageSize }

  const page = (params: URLSearchParams, list: ReadonlyArray<StandInRecord>, listId: string, offset: number) => {
    const slice = list.slice(offset, offset + state.pageSize)
    const next = offset + state.pageSize
    const midnight = new Date()
    midnight.setUTCHours(24, 0, 0, 0)
    const token = next < list.length
      ? `<resumptionToken expirationDate="${midnight.toISOString().replace(/\.\d+Z$/, "Z")}">${listId}:${next}</resumptionToken>`
      : `<resumptionToken/>`
    return {
      body: envelope(params, `<ListRecords>\n${slice.map((r) => r.xml ?? headerXml(r)).join("\n")}\n${token}\n</ListRecords>`),
      records: slice.length
    }
  }

  const error = (params: URLSearchParams, code: string, message: string) =>
    envelope(params, `<error code="${code}">${esc(message)}</error>`)

  const answer = (params: URLSearchParams): { status: number; body: string; records: number } => {
    if (params.get("verb") !== "ListRecords") return { status: 200, body: error(params, "badVerb", "only ListRecords here"), records: 0 }
    const token = params.get("resumptionToken")
    if (token !== null) {
      const [listId, at] = token.split(":")
      const list = listId === undefined ? undefined : lists.get(listId)
      if (list === undefined || expired.has(listId!)) {
        return { status: 200, body: error(params, "badResumptionToken", `Invalid or expired resumptionToken: ${token}`), records: 0 }
      }
      return { status: 200, ...page(params, list, listId!, Number(at)) }
    }
    if (params.get("metadataPrefix") !== "arXiv") {
      return { status: 200, body: error(params, "cannotDisseminateFormat", "metadataPrefix must be arXiv here"), records: 0 }
    }
    const from = params.get("from")
    if (from !== null && !/^\d{4}-\d{2}-\d{2}$/.test(from)) {
      return { status: 200, body: error(params, "badArgument", `Bad from date: ${from}`), records: 0 }
    }
    const set = params.get("set")
    const list = state.records
      .filter((r) => set === null || r.sets.some((s) => s === set || s.startsWith(`${set}:`)))
      .filter((r) => from === null || r.datestamp >= from)
      .sort((a, b) => a.datestamp.localeCompare(b.datestamp) || a.id.localeCompare(b.id))
    if (list.length === 0) return { status: 200, body: error(params, "noRecordsMatch", "No records match the request"), records: 0 }
    const listId = `L${++serial}`
    lists.set(listId, list)
    return { status: 200, ...page(params, list, listId, 0) }
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const at = Date.now()
    const params = new URL(req.url ?? "/", "http://127.0.0.1").searchParams
    const fault = faults.get(received.length + 1)
    if (fault !== undefined) faults.delete(received.length + 1)
    if (fault?.kind === "503") {
      const recorded = RECORDED_503[fault.recording]
      received.push({ at, params, status: 503, records: 0 })
      res.writeHead(503, { "content-type": "text/html", "retry-after": recorded.retryAfter, "content-length": recorded.body.length })
      res.end(recorded.body)
      return
    }
    if (fault?.kind === "error") {
      received.push({ at, params, status: 200, records: 0 })
      res.writeHead(200, { "content-type": "text/xml" })
      res.end(error(params, fault.code, fault.message))
      return
    }
    const a = answer(params)
    received.push({ at, params, status: a.status, records: a.records })
    res.writeHead(a.status, { "content-type": "text/xml; charset=utf-8" })
    // a page cut off in transfer: half of it, then the connection closes
    res.end(fault?.kind === "truncate" ? a.body.slice(0, Math.floor(a.body.length / 2)) : a.body)
  })
  const port = await listenOnFreshPort(server)
  return {
    url: `http://127.0.0.1:${port}/oai`,
    received,
    get records() {
      return state.records
    },
    set records(r) {
      state.records = r
    },
    get pageSize() {
      return state.pageSize
    },
    set pageSize(n) {
      state.pageSize = n
    },
    faults,
    expireTokens: () => {
      for (const id of lists.keys()) expired.add(id)
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
