/**
 * MCP progress while a call waits for arXiv: the server on live arXiv (the
 * loopback stand-in, a 1.5 s slot) and the offline rest, the SDK client over
 * InMemoryTransport asking for progress. A queued search hears its place in
 * the queue; a retried one hears why; identical searches share one request
 * and each hears the wait.
 */
import type { Progress } from "@modelcontextprotocol/sdk/types.js"
import { NodeHttpClient } from "@effect/platform-node"
import { Layer } from "effect"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as LiveArxiv from "../../src/adapters/arxiv/LiveArxiv.js"
import * as ResponseCache from "../../src/adapters/http/ResponseCache.js"
import { allPortsLayer as mcpLayer } from "../../src/layers.js"
import { type ArxivStandIn, Fault, startArxivStandIn } from "../support/arxiv-standin.js"
import { type Connected, connect, tempVault } from "./support.js"

let standIn: ArxivStandIn
let connected: Connected

beforeAll(async () => {
  standIn = await startArxivStandIn({ padSearches: true, corpus: "landmarks" })
  const liveArxiv = LiveArxiv.layer({ apiUrl: standIn.url, minInterval: "1500 millis", retry: { baseDelay: "1200 millis" } }).pipe(
    Layer.provide(Layer.mergeAll(NodeHttpClient.layer, ResponseCache.layerDisabled))
  )
  // the right side of a merge wins: arXiv live, everything else offline
  connected = await connect(Layer.merge(mcpLayer({ offline: true, vault: tempVault(), judge: "local" }), liveArxiv))
})
afterAll(async () => {
  await connected.close()
  await standIn.close()
})

const search = (query: string, heard: Array<Progress>) =>
  connected.client.callTool(
    { name: "search_arxiv_papers", arguments: { query, max_results: 2, categories: [] } },
    undefined,
    { onprogress: (p) => void heard.push(p) }
  )

describe("progress while waiting for arXiv", () => {
  it("a queued search hears its place in the queue; progress only grows", async () => {
    const first: Array<Progress> = []
    const second: Array<Progress> = []
    await search("all:attention", first)
    const results = await Promise.all([search("all:translation", []), search("all:recurrent", second)])
    for (const r of results) assert.isNotTrue(r.isError)
    assert.isAbove(second.length, 0)
    assert.match(second[0]!.message ?? "", /^Waiting for arXiv: 1 request ahead, about \d+ s \(arXiv allows one request every 1500 ms\)$/)
    for (let i = 1; i < second.length; i++) assert.isAbove(second[i]!.progress, second[i - 1]!.progress)
  })

  it("a retried search hears why it waits", async () => {
    standIn.failNext(Fault.unavailable())
    const heard: Array<Progress> = []
    const r = await search("all:convolutional", heard)
    assert.isNotTrue(r.isError)
    assert.isTrue(heard.some((p) => /^arXiv: HTTP 503; trying again in \d+ s \(attempt 2 of 4\)$/.test(p.message ?? "")), JSON.stringify(heard))
  })

  it("identical searches queued together share one request to arXiv, and every one of them hears the wait", async () => {
    const before = standIn.requests.length
    const heard: Array<Array<Progress>> = [[], [], []]
    // a different search goes first, so the identical ones queue behind it
    const results = await Promise.all([
      search("all:sequence", []),
      ...heard.map((h) => search("all:transformer", h))
    ])
    for (const r of results) assert.isNotTrue(r.isError)
    const sent = standIn.requests.slice(before).map((r) => r.params["search_query"])
    assert.deepStrictEqual(sent.filter((q) => q === "(all:transformer)"), ["(all:transformer)"], JSON.stringify(sent))
    for (const h of heard) {
      assert.isTrue(h.some((p) => /^Waiting for arXiv: /.test(p.message ?? "")), JSON.stringify(heard))
    }
    const texts = results.slice(1).map((r) => JSON.stringify(r.structuredContent))
    assert.strictEqual(new Set(texts).size, 1)
  })
})
