/**
 * LiveFullText against a loopback arxiv.org: HTML first, the PDF's text when
 * there is no HTML (a real PDF built here, read by unpdf), PaperNotFound when
 * there is neither, retries on 503, one request at a time.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { ConfigProvider, Effect, Exit } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as LiveFullText from "../../src/adapters/fulltext/LiveFullText.js"
import { findSection } from "../../src/core/fulltext.js"
import { FullTextPort } from "../../src/core/ports/FullTextPort.js"

/** A one-page PDF whose text is `lines`, with a correct xref table. */
const makePdf = (lines: ReadonlyArray<string>): Buffer => {
  const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`)
  const content = `BT /F1 11 Tf 14 TL 72 760 Td ${lines.map((l) => `(${esc(l)}) Tj T*`).join(" ")} ET`
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${Buffer.byteLength(content)} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
  ]
  let out = "%PDF-1.4\n"
  const offsets: Array<number> = []
  objects.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out))
    out += `${i + 1} 0 obj\n${o}\nendobj\n`
  })
  const xref = Buffer.byteLength(out)
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(out, "latin1")
}

const HTML = `<html><body><article><h1 class="ltx_title ltx_title_document">Deep Residual Learning</h1>
<div class="ltx_abstract"><h6 class="ltx_title ltx_title_abstract">Abstract</h6><p>${"Deeper neural networks are more difficult to train. ".repeat(6)}</p></div>
<section><h2 class="ltx_title ltx_title_section">1 Introduction</h2><p>Residual learning eases training.</p></section>
</article></body></html>`

const PDF = makePdf([
  "Adam: A Method for Stochastic Optimization",
  "Abstract",
  "We introduce Adam, an algorithm for first-order gradient-based optimization.",
  "1 Introduction",
  "Stochastic gradient-based optimization is of core practical importance.",
  "2 Algorithm",
  "See algorithm 1 for pseudo-code of our proposed algorithm Adam."
])

let server: http.Server
let base = ""
const hits: Array<{ path: string; at: number; userAgent: string }> = []
let failNext = 0

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push({ path: req.url ?? "", at: Date.now(), userAgent: req.headers["user-agent"] ?? "" })
    if (failNext > 0) {
      failNext--
      res.writeHead(503, { "retry-after": "0" }).end("busy")
      return
    }
    if (req.url === "/html/1512.03385") return void res.writeHead(200, { "content-type": "text/html" }).end(HTML)
    if (req.url === "/pdf/1412.6980") return void res.writeHead(200, { "content-type": "application/pdf" }).end(PDF)
    res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>")
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

const fullText = (id: string) =>
  Effect.flatMap(FullTextPort, (p) => p.fullText(id)).pipe(
    Effect.provide(LiveFullText.layer({ baseUrl: base, interval: "10 millis" })),
    Effect.provide(NodeHttpClient.layerUndici),
    Effect.runPromiseExit
  )

const success = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isFailure(exit)) throw new Error(`expected a success: ${String(exit)}`)
  return exit.value
}

describe("LiveFullText", () => {
  it("reads arXiv's HTML when there is one", async () => {
    const doc = success(await fullText("arXiv:1512.03385v1"))
    assert.strictEqual(doc.source, "arxiv-html")
    assert.strictEqual(doc.title, "Deep Residual Learning")
    assert.deepEqual(doc.sections.map((s) => s.heading), ["Abstract", "1 Introduction"])
  })

  it("falls back to the PDF's text (unpdf) when there is no HTML", async () => {
    const doc = success(await fullText("1412.6980"))
    assert.strictEqual(doc.source, "pdf")
    assert.strictEqual(doc.url, `${base}/pdf/1412.6980`)
    assert.include(doc.sections.map((s) => s.text).join("\n"), "algorithm for first-order gradient-based optimization")
    assert.isDefined(findSection(doc, "2"))
  })

  it("is PaperNotFound when arXiv has neither HTML nor PDF, after asking for both", async () => {
    hits.length = 0
    const exit = await fullText("0808.05394")
    assert.isTrue(Exit.isFailure(exit))
    assert.match(String(exit), /PaperNotFound/)
    assert.deepEqual(hits.map((h) => h.path), ["/html/0808.05394", "/pdf/0808.05394"])
  })

  it("retries a 503 and rejects malformed ids without a request", async () => {
    failNext = 1
    hits.length = 0
    const exit = await fullText("1512.03385")
    assert.isTrue(Exit.isSuccess(exit))
    assert.strictEqual(hits.length, 2)
    hits.length = 0
    const bad = await fullText("not-an-id")
    assert.match(String(bad), /InvalidArgument/)
    assert.strictEqual(hits.length, 0)
  })

  it("reads ARXIV_WEB_URL and the contact arXiv's API adapter sends (ARXIV_COMPANION_CONTACT; ARXIV_CONTACT, the older name, when it is unset)", async () => {
    const userAgentWith = async (env: ReadonlyArray<[string, string]>) => {
      hits.length = 0
      const exit = await Effect.flatMap(FullTextPort, (p) => p.fullText("1512.03385")).pipe(
        Effect.provide(LiveFullText.layerConfig()),
        Effect.provide(NodeHttpClient.layerUndici),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["ARXIV_WEB_URL", base], ...env]))),
        Effect.runPromiseExit
      )
      assert.strictEqual(success(exit).title, "Deep Residual Learning")
      return hits[0]!.userAgent
    }
    assert.match(await userAgentWith([["ARXIV_COMPANION_CONTACT", "me@lab.example"]]), /^arxiv-companion\/\S+ \(\+\S+; mailto:me@lab\.example\)$/)
    assert.include(await userAgentWith([["ARXIV_COMPANION_CONTACT", "me@lab.example"], ["ARXIV_CONTACT", "old@lab.example"]]), "mailto:me@lab.example")
    assert.include(await userAgentWith([["ARXIV_CONTACT", "old@lab.example"]]), "mailto:old@lab.example")
    assert.notInclude(await userAgentWith([]), "mailto:")
  })
})
