/**
 * The MCP server through the real SDK Client over InMemoryTransport, on the
 * offline layers (recorded arXiv corpus and citation data, local judge, a temp
 * copy of the demo vault): every tool, resource and prompt, and the error policy.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { ArxivPort } from "../../src/core/ports/ArxivPort.js"
import { allPortsLayer as mcpLayer } from "../../src/layers.js"
import { makeMcpServer } from "../../src/mcp/server.js"
import * as Tools from "../../src/tools/index.js"
import { call, type Connected, connect, tempVault, text } from "./support.js"

let connected: Connected
let client: Client
let vault: string

beforeAll(async () => {
  vault = tempVault()
  connected = await connect(mcpLayer({ offline: true, offlineCitations: "semantic-scholar", vault, judge: "local" }))
  client = connected.client
})
afterAll(async () => {
  await connected.close()
})

const structured = <A, I>(schema: Schema.Schema<A, I>, result: { structuredContent?: unknown }): A =>
  Schema.decodeUnknownSync(schema)(result.structuredContent)

describe("tools/list", () => {
  // 12,000 until ask_arxiv (about 1,350 characters) joined the 13 tools that already used 11,740; 13,500 until
  // run_companion's result gained the counts every face reports and each paper not kept its decision and title;
  // 14,800 since digest_vault joined with 999 characters (the 14 others average 981); 15,000 since ask_arxiv's
  // result lists the relevant papers whose impact is not recorded (about 190 characters: id, title, relevance, place, why);
  // 15,100 since run_companion's papers that take a place without a recorded count carry summary and builds_on (81);
  // 15,150 since ask_arxiv's result names the field's words that ordered its places after the first three (38)
  it("lists every tool with input and output schemas, annotations, within 15,150 characters", async () => {
    const list = await client.listTools()
    const names = list.tools.map((t) => t.name).sort()
    assert.deepEqual(names, [
      "ask_arxiv", "category_trends", "digest_vault", "export_bibtex", "find_foundational_citations", "get_citations", "get_paper", "get_papers",
      "get_recent", "get_references", "list_categories", "read_paper", "run_companion", "score_paper_relevance",
      "search_arxiv_papers"
    ])
    for (const t of list.tools) {
      assert.strictEqual(t.inputSchema.type, "object", t.name)
      assert.strictEqual(t.outputSchema?.type, "object", t.name)
      assert.isString(t.description)
      assert.isObject(t.annotations, t.name)
    }
    const companion = list.tools.find((t) => t.name === "run_companion")!
    assert.strictEqual(companion.annotations?.readOnlyHint, false)
    assert.strictEqual(list.tools.find((t) => t.name === "get_paper")!.annotations?.readOnlyHint, true)
    assert.isAtMost(JSON.stringify(list).length, 15_150)
    // the digest's own share: about one tool's
    assert.isAtMost(JSON.stringify(list.tools.find((t) => t.name === "digest_vault")).length, 1_000)
    assert.include(list.tools.find((t) => t.name === "read_paper")!.description, "Untrusted")
    // every search the companion made, and the authors its note cites
    const result = companion.outputSchema?.properties ?? {}
    for (const field of ["query", "second_query", "cited_query", "cited_authors"]) assert.property(result, field)
    // ask_arxiv shows every query it sent too, and why each paper answers
    const ask = list.tools.find((t) => t.name === "ask_arxiv")!.outputSchema?.properties ?? {}
    for (const field of ["query", "second_query", "cited_query"]) assert.property(ask, field)
    assert.property((ask["papers"] as { items: { properties: object } }).items.properties, "rationale")
    assert.includeMembers(Object.keys((ask["unrecorded"] as { items: { properties: object } }).items.properties), ["place", "rationale"])
    assert.deepEqual(Object.keys((result["cited_authors"] as { items: { properties: object } }).items.properties), ["surname", "cited_as"])
    // a nullable integer is written as the two types it may be, not as a union
    const read = list.tools.find((t) => t.name === "read_paper")!.outputSchema?.properties ?? {}
    assert.deepEqual(read["next_offset"], { type: ["integer", "null"] })
  })
})

describe("arXiv tools", () => {
  it("search_arxiv_papers: a page of matching papers with total, abstracts capped on request", async () => {
    const r = await call(client, "search_arxiv_papers", {
      query: "generative adversarial networks",
      max_results: 5,
      abstract_max_chars: 120
    })
    assert.isNotTrue(r.isError)
    const s = structured(Tools.SearchResult, r)
    assert.strictEqual(s.papers.length, 5)
    assert.isAbove(s.total, 5)
    assert.include(s.query, "cat:cs.LG")
    for (const p of s.papers) assert.isAtMost(p.abstract.length, 121)
    assert.isTrue(s.papers.some((p) => /adversarial/i.test(p.title)))
    assert.include(text(r), s.papers[0]!.arxiv_id)
    // paging: the next page starts where this one ended
    const next = structured(Tools.SearchResult, await call(client, "search_arxiv_papers", {
      query: "generative adversarial networks",
      max_results: 5,
      start: 5
    }))
    assert.strictEqual(next.start, 5)
    assert.notInclude(next.papers.map((p) => p.arxiv_id), s.papers[0]!.arxiv_id)
  })

  it("search_arxiv_papers: an empty search is a success, not an error", async () => {
    const r = await call(client, "search_arxiv_papers", { query: "zzqxv unmatchable term", categories: [] })
    assert.isNotTrue(r.isError)
    const s = structured(Tools.SearchResult, r)
    assert.strictEqual(s.total, 0)
    assert.deepEqual(s.papers, [])
    assert.include(text(r), "No papers match")
  })

  it("get_paper: one paper's metadata, ids normalised from URLs and versions", async () => {
    const r = await call(client, "get_paper", { arxiv_id: "https://arxiv.org/abs/1406.2661v1" })
    const p = structured(Tools.PaperDetail, r)
    assert.strictEqual(p.arxiv_id, "1406.2661")
    assert.strictEqual(p.title, "Generative Adversarial Networks")
    assert.include(p.authors, "Yoshua Bengio")
    assert.strictEqual(p.pdf_url, "https://arxiv.org/pdf/1406.2661")
  })

  it("get_papers: papers in order, missing ids listed", async () => {
    const r = await call(client, "get_papers", { arxiv_ids: ["1409.0473", "arXiv:1406.2661", "0808.05394"] })
    const s = structured(Tools.PapersResult, r)
    assert.deepEqual(s.papers.map((p) => p.arxiv_id), ["1409.0473", "1406.2661"])
    assert.deepEqual(s.missing, ["0808.05394"])
    assert.include(text(r), "0808.05394")
  })

  it("get_recent: a category's newest papers, newest first", async () => {
    const s = structured(Tools.RecentResult, await call(client, "get_recent", { category: "cs.cl", max_results: 5 }))
    assert.strictEqual(s.category, "cs.CL")
    assert.strictEqual(s.papers.length, 5)
    const dates = s.papers.map((p) => p.published_date)
    assert.deepEqual(dates, [...dates].sort().reverse())
    for (const p of s.papers) assert.include(p.categories, "cs.CL")
  })

  it("category_trends: daily counts and title terms over a window; an empty window says where data ends", async () => {
    const s = structured(Tools.TrendsResult, await call(client, "category_trends", {
      category: "cs.CL",
      window_days: 14,
      sample_size: 60,
      until_date: "2017-03-31"
    }))
    assert.strictEqual(s.from, "2017-03-18")
    assert.strictEqual(s.daily_counts.length, 14)
    assert.strictEqual(s.daily_counts.reduce((n, d) => n + d.count, 0), s.sampled)
    assert.isAbove(s.sampled, 10)
    assert.isAbove(s.top_terms.length, 3)
    const empty = await call(client, "category_trends", { category: "cs.CL", window_days: 7 })
    assert.isNotTrue(empty.isError)
    const e = structured(Tools.TrendsResult, empty)
    assert.strictEqual(e.sampled, 0)
    assert.match(e.note ?? "", /newest is from 2017-/)
  })

  it("export_bibtex: one entry per found paper with stable keys; missing ids listed", async () => {
    const r = await call(client, "export_bibtex", { arxiv_ids: ["1406.2661", "1409.0473", "0000.00000"] })
    const s = structured(Tools.BibtexResult, r)
    assert.deepEqual(s.entries, [
      { arxiv_id: "1406.2661", key: "goodfellow2014generative" },
      { arxiv_id: "1409.0473", key: "bahdanau2014neural" }
    ])
    assert.deepEqual(s.missing, ["0000.00000"])
    assert.include(s.bibtex, "@misc{goodfellow2014generative,")
    assert.include(s.bibtex, "eprint        = {1409.0473}")
  })

  it("list_categories: all categories, or one archive", async () => {
    const all = structured(Tools.CategoriesResult, await call(client, "list_categories"))
    assert.isAbove(all.categories.length, 150)
    const stat = structured(Tools.CategoriesResult, await call(client, "list_categories", { group: "stat" }))
    assert.deepInclude(stat.categories, { code: "stat.ML", name: "Machine Learning", group: "Statistics" })
    assert.isTrue(stat.categories.every((c) => c.code.startsWith("stat.")))
  })

  it("read_paper: offline it serves the recorded metadata as an abstract-only document, fenced as untrusted", async () => {
    const r = await call(client, "read_paper", { arxiv_id: "1406.2661", max_chars: 500 })
    const s = structured(Tools.ReadPaperResult, r)
    assert.strictEqual(s.source, "abstract-only")
    assert.deepEqual(s.outline?.map((o) => o.heading), ["Note", "Abstract"])
    assert.isAtMost(s.text.length, 500)
    assert.isNumber(s.next_offset)
    assert.include(text(r), "<paper_text>")
    const rest = structured(Tools.ReadPaperResult, await call(client, "read_paper", {
      arxiv_id: "1406.2661",
      max_chars: 20_000,
      offset: s.next_offset!
    }))
    assert.isUndefined(rest.outline)
    assert.isNull(rest.next_offset)
    assert.strictEqual(s.text.length + rest.text.length, s.total_chars)
    const section = structured(Tools.ReadPaperResult, await call(client, "read_paper", { arxiv_id: "1406.2661", section: "abstract" }))
    assert.strictEqual(section.section, "Abstract")
    assert.include(section.text, "adversarial process")
  })
})

describe("citation tools", () => {
  // 1409.3215 (seq2seq) has a recorded Semantic Scholar count (the source this suite pins) but no reference list
  it("find_foundational_citations: [] with a status when no reference list is recorded", async () => {
    const s = structured(Tools.FoundationalResult, await call(client, "find_foundational_citations", { arxiv_id: "1409.3215" }))
    assert.deepEqual(s, { arxiv_id: "1409.3215", status: "not-recorded", citations: [] })
  })

  it("get_references: no recorded reference list is an error saying what to do, not an empty success", async () => {
    const r = await call(client, "get_references", { arxiv_id: "1409.3215" })
    assert.isTrue(r.isError)
    assert.include(text(r), "No reference list")
    assert.include(text(r), "read_paper")
  })

  it("get_citations: the recorded citing works (none for 2007.14454); unrecorded papers are errors", async () => {
    const s = structured(Tools.CitationsResult, await call(client, "get_citations", { arxiv_id: "2007.14454" }))
    assert.deepEqual(s, { arxiv_id: "2007.14454", openalex_id: "W3045921891", total: 0, citations: [] })
    const r = await call(client, "get_citations", { arxiv_id: "1406.2661" })
    assert.isTrue(r.isError)
    assert.include(text(r), "2007.14454")
  })

  it("score_paper_relevance: relevance from the judge and impact from recorded counts", async () => {
    const r = await call(client, "score_paper_relevance", {
      concept_summary: "Sequence to sequence learning maps an input sequence to an output sequence with neural networks.",
      paper: {
        arxiv_id: "1409.3215",
        title: "Sequence to Sequence Learning with Neural Networks",
        abstract: "We present a general end-to-end approach to sequence learning with multilayered LSTMs."
      }
    })
    const s = structured(Tools.RelevanceResult, r)
    assert.isAbove(s.relevance, 0.5)
    assert.isNumber(s.citation_count)
    assert.strictEqual(s.publication_year, 2014)
    assert.isTrue(s.impact_pass)
    assert.isNotEmpty(s.rationale)
  })
})

describe("run_companion", () => {
  it("writes the related-papers note into the vault and reports progress", async () => {
    const progress: Array<string> = []
    const r = (await client.callTool(
      { name: "run_companion", arguments: { prompt: "Find papers related to my 'Generative Adversarial Networks' note" } },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? "") }
    )) as CallToolResult
    assert.isNotTrue(r.isError)
    const s = structured(Tools.CompanionResult, r)
    assert.strictEqual(s.note, "Generative Adversarial Networks.md")
    assert.strictEqual(s.written.status, "created")
    assert.isAbove(s.candidates, 0)
    const written = readFileSync(join(vault, s.written.path), "utf8")
    assert.include(written, "[[Generative Adversarial Networks]]")
    // the note cites no author: the second search is the title search, and every search is the note's
    assert.deepEqual(s.cited_authors, [])
    assert.notInclude(text(r), "Authors your note cites")
    assert.include(s.second_query, "ti:adversarial")
    assert.notInclude(s.second_query, "au:")
    assert.isString(s.cited_query)
    // the same searches the written note names (it shows them without the category filter)
    assert.include(s.second_query, /> Title search: `(.+)`/.exec(written)?.[1] ?? "no title search in the note")
    assert.include(s.cited_query, /> Most-cited search: `(.+)`/.exec(written)?.[1] ?? "no most-cited search in the note")
    assert.isTrue(s.survivors.some((p) => p.found_by.includes("arxiv-title")))
    assert.isAbove(progress.length, 2)
    // each kept paper comes with its summary, as the note has it
    assert.isAbove(s.survivors.length, 0)
    for (const kept of s.survivors) {
      assert.isAbove(kept.summary.length, 0)
      assert.include(written, kept.summary.slice(0, 40).replace(/[*_[\]<>|#$=~^`\\]/g, (c) => `\\${c}`))
    }
    assert.include(written, "```mermaid")
    // the counts add up, and are the note's and the text's
    const { counts } = s
    assert.strictEqual(s.survivors.length + counts.cut_by_cap, counts.cleared_both_bars)
    assert.strictEqual(s.survivors.length + counts.cut_by_cap + counts.impact_not_recorded + counts.dropped, s.candidates)
    assert.isAbove(counts.cut_by_cap, 0) // a GAN note has more papers that clear both bars than it keeps
    assert.include(written, `> ${s.candidates} candidates judged `)
    const kept = `${s.survivors.length} kept of the ${counts.cleared_both_bars} that cleared both bars`
    const cut = `${counts.cut_by_cap} cut by the cap of 10`
    const unrecorded = `${counts.impact_not_recorded} relevant without a recorded citation count`
    for (const part of [kept, cut, unrecorded]) assert.include(written, part)
    assert.include(text(r), `${s.candidates} candidates, ${kept}; ${counts.cut_by_cap} cut by the cap; ${unrecorded}.`)
    // the note lists the best of those cut by the cap, ranked
    const cutList = written.slice(written.indexOf("## Cut by the cap"))
    // ranked in keep order among every paper that competes for the places (the relevant ones without a count too)
    const competing = counts.cleared_both_bars + counts.impact_not_recorded
    assert.match(cutList, new RegExp(`\\n- \\d+(st|nd|rd|th) of ${competing} · \\[`))
    // the places: the kept and the relevant papers without a count that take one, never more than the cap
    assert.isAtMost(s.survivors.length + counts.unrecorded_in_places, 10)
    // of a pool of about a thousand, the host reads the relevant papers without a count placed among the kept,
    // then the 20 most relevant others not kept, not all of them
    assert.isAbove(s.candidates, 500)
    const placed = s.dropped.filter((d) => d.decision === "impact-not-recorded" && d.reasons.some((x) => x.endsWith("listed right after them")))
    assert.deepEqual(s.dropped.slice(0, placed.length), placed)
    const rest = s.dropped.slice(placed.length)
    assert.strictEqual(rest.length, 20)
    for (const d of s.dropped) assert.include(["cut-by-cap", "impact-not-recorded", "dropped"], d.decision)
    const relevance = (reasons: ReadonlyArray<string>) => Number(/^relevance ([\d.]+)/.exec(reasons[0] ?? "")?.[1])
    const shown = rest.map((d) => relevance(d.reasons))
    assert.deepEqual(shown, [...shown].sort((a, b) => b - a))
    assert.isAtLeast(shown[shown.length - 1]!, 0.5) // a GAN note has more relevant papers than it keeps
    assert.isAtMost(JSON.stringify(r.structuredContent).length, 40_000)
  })

  it("a relevant paper without a recorded count that takes a place carries its summary, as the written note has it", async () => {
    const r = await call(client, "run_companion", {
      prompt: "Find papers related to my 'Generative Adversarial Networks' note",
      options: { max_results: 20 }
    })
    assert.isNotTrue(r.isError, text(r))
    const s = structured(Tools.CompanionResult, r)
    const placed = s.dropped.find((d) => d.arxiv_id === "1412.6515")!
    assert.strictEqual(placed.decision, "impact-not-recorded")
    assert.isAbove(placed.summary?.length ?? 0, 0)
    // offline no reference list is recorded for it: nothing it builds on, said as for a kept paper
    assert.deepEqual(placed.builds_on, [])
    const written = readFileSync(join(vault, s.written.path), "utf8")
    const section = written.slice(written.indexOf("## Relevant, impact not recorded"))
    assert.include(section, `  - Summary (sentences of the abstract): ${placed.summary!.slice(0, 40)}`)
    // one listed after the kept only by relevance takes no place, and carries nothing more
    for (const d of s.dropped.filter((x) => x.arxiv_id !== "1412.6515")) assert.isUndefined(d.summary)
  })

  it("a note that cites authors: the second search asks for them, and the result says who and how the note cites them", async () => {
    const r = await call(client, "run_companion", { prompt: "Find papers related to my 'Transformers Concept Note'" })
    assert.isNotTrue(r.isError, text(r))
    const s = structured(Tools.CompanionResult, r)
    assert.deepEqual(s.cited_authors, [{ surname: "Vaswani", cited_as: "Vaswani et al" }])
    assert.match(s.second_query ?? "", /^\(\(au:Vaswani\) AND \(/)
    assert.notStrictEqual(s.second_query, s.query)
    assert.include(s.cited_query, "most cited of")
    const written = readFileSync(join(vault, s.written.path), "utf8")
    assert.include(s.second_query, /> Author search: `(.+)`/.exec(written)?.[1] ?? "no author search in the note")
    // a host that reads only the text learns whom the author search asked for
    assert.include(text(r), `Authors your note cites, searched for: Vaswani ("Vaswani et al").`)
  })

  it("without a configured vault, run_companion says how to configure one and every other tool works", async () => {
    const c = await connect(mcpLayer({ offline: true, judge: "local" }))
    try {
      const r = await call(c.client, "run_companion", { prompt: "Find papers related to my 'Transformers Concept Note'" })
      assert.isTrue(r.isError)
      assert.match(text(r), /--vault/)
      const p = await call(c.client, "get_paper", { arxiv_id: "1406.2661" })
      assert.isNotTrue(p.isError)
    } finally {
      await c.close()
    }
  })

  it("a prompt without a note is an error with the exact message", async () => {
    const r = await call(client, "run_companion", { prompt: "find me some papers" })
    assert.isTrue(r.isError)
    assert.strictEqual(text(r), "Not enough information: no Obsidian note or page was named in the prompt.")
  })
})

describe("ask_arxiv", () => {
  it("answers a question with structured papers and the query sent, and saves a vault note on request", async () => {
    const r = await call(client, "ask_arxiv", { question: "papers by Hinton on knowledge distillation", top: 2, save_as: "Distillation: reading list" })
    assert.isUndefined(r.isError, text(r))
    const answer = structured(Tools.AskResult, r)
    assert.include(answer.query, "au:Hinton")
    assert.strictEqual(answer.builder, "rules")
    assert.strictEqual(answer.papers[0]!.arxiv_id, "1503.02531")
    assert.isAtMost(answer.papers.length, 2)
    // the ':' Obsidian forbids in file names is replaced; the note lands at the vault root
    assert.deepEqual(answer.note, { path: "Distillation reading list.md", status: "created" })
    const note = readFileSync(join(vault, "Distillation reading list.md"), "utf8")
    assert.include(note, "https://arxiv.org/abs/1503.02531")
    assert.include(note, "%% arxiv-companion:begin")
    assert.include(text(r), "Wrote Distillation reading list.md")
  })

  it("a short question through the client: every query sent, why each paper answers, no tie at 1.00", async () => {
    const r = await call(client, "ask_arxiv", { question: "how do neural networks caption images", top: 5 })
    assert.isUndefined(r.isError, text(r))
    const answer = structured(Tools.AskResult, r)
    assert.strictEqual(answer.query, "(all:caption)")
    assert.include(answer.cited_query, "caption")
    assert.include(text(r), "Most cited: ")
    assert.isAtMost(answer.papers.filter((p) => p.relevance.toFixed(2) === "1.00").length, 1)
    for (const p of answer.papers) assert.isAbove(p.rationale.length, 10)
    assert.include(text(r), `Why: ${answer.papers[0]!.rationale}`)
    assert.includeMembers(answer.papers.slice(0, 3).map((p) => p.arxiv_id), ["1411.4555", "1502.03044"])
  })

  it("a one-word question and an unconfigured Notion are errors that say what to do", async () => {
    const one = await call(client, "ask_arxiv", { question: "capsules" })
    assert.isTrue(one.isError)
    assert.include(text(one), "one word")
    const notion = await call(client, "ask_arxiv", { question: "dropout for recurrent networks", notion: true })
    assert.isTrue(notion.isError)
    assert.include(text(notion), "NOTION_TOKEN")
  })
})

describe("argument names", () => {
  // one convention across tools: arxiv_id for one paper, arxiv_ids for several, dates end in _date,
  // "how many" is max_results
  it("follow one convention in every tool", async () => {
    const { tools } = await client.listTools()
    const names = tools.flatMap((t) => Object.keys(t.inputSchema.properties ?? {}).map((p) => `${t.name}.${p}`))
    for (const name of names) {
      const arg = name.slice(name.indexOf(".") + 1)
      assert.notMatch(arg, /^(ids?|since|until|count|paper_ids?)$/, name)
    }
    const byTool = new Map(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {})]))
    assert.includeMembers(byTool.get("get_papers")!, ["arxiv_ids"])
    assert.includeMembers(byTool.get("export_bibtex")!, ["arxiv_ids"])
    assert.includeMembers(byTool.get("get_recent")!, ["since_date", "max_results"])
    assert.includeMembers(byTool.get("category_trends")!, ["until_date"])
    for (const tool of ["get_paper", "read_paper", "get_references", "get_citations", "find_foundational_citations"]) {
      assert.includeMembers(byTool.get(tool)!, ["arxiv_id"], tool)
    }
  })
})

describe("error policy", () => {
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>, RegExp]> = [
    ["get_paper", { arxiv_id: "not an id" }, /"not an id" is not an arXiv id; use the form 1706\.03762/],
    ["get_paper", { arxiv_id: "0808.05394" }, /arXiv has no record of paper "0808\.05394"/],
    ["get_papers", { arxiv_ids: ["0000.00000"] }, /no record of paper/],
    ["get_recent", { category: "cs.CL", since_date: "2017-02-30" }, /"2017-02-30" is not a date/],
    ["search_arxiv_papers", { query: "gan", categories: ["cs.ML"] }, /"cs\.ML" is not an arXiv category \(closest: .*stat\.ML/],
    ["search_arxiv_papers", { query: "   " }, /Invalid query: is empty/],
    ["search_arxiv_papers", { query: "gan", since_date: "2017-02-30" }, /"2017-02-30" is not a date/],
    ["search_arxiv_papers", { query: "gan", max_results: 500 }, /max_results must be at most 50/],
    ["get_recent", { category: "quantum" }, /"quantum" is not an arXiv category/],
    ["read_paper", { arxiv_id: "1406.2661", section: "Experiments" }, /no section "Experiments"; use a number or heading from: Note; Abstract/],
    ["read_paper", { arxiv_id: "1406.2661", offset: 999_999 }, /past the end/],
    ["find_foundational_citations", { arxiv_id: "1406.2661", max_results: 4 }, /max_results must be at most 3/],
    ["list_categories", { group: "astrology" }, /no group "astrology"/],
    ["run_companion", { prompt: "Find papers related to my 'Quantum Gravity' note" }, /No note titled "Quantum Gravity"/]
  ]
  for (const [name, args, message] of cases) {
    it(`${name} ${JSON.stringify(args)} → isError with a fix`, async () => {
      const r = await call(client, name, args)
      assert.isTrue(r.isError)
      assert.match(text(r), message)
      assert.isUndefined(r.structuredContent)
    })
  }

  it("argument type errors are rejected by schema validation", async () => {
    const r = await call(client, "search_arxiv_papers", { query: 42 })
    assert.isTrue(r.isError)
    assert.match(text(r), /Input validation error/)
    const missing = await call(client, "get_paper", {})
    assert.isTrue(missing.isError)
    assert.match(text(missing), /arxiv_id/)
  })

  it("defects never leak: the client sees 'Internal error', the details go to the log", async () => {
    const secret = "SECRET-STACK-DETAIL"
    const broken = Layer.merge(
      mcpLayer({ offline: true, vault, judge: "local" }),
      Layer.succeed(ArxivPort, { search: () => Effect.die(new Error(secret)), getPapers: () => Effect.die(new Error(secret)) })
    )
    const c = await connect(broken)
    try {
      const r = await call(c.client, "search_arxiv_papers", { query: "gan" })
      assert.isTrue(r.isError)
      assert.match(text(r), /^Internal error/)
      assert.notInclude(JSON.stringify(r), secret)
      assert.strictEqual(c.defects.length, 1)
    } finally {
      await c.close()
    }
  })
})

describe("resources and prompts", () => {
  it("arxiv://paper/{id} is a Markdown card; legacy ids with a slash work; unknown ids fail", async () => {
    const templates = await client.listResourceTemplates()
    assert.include(templates.resourceTemplates.map((t) => t.uriTemplate), "arxiv://paper/{+arxiv_id}")
    const card = await client.readResource({ uri: "arxiv://paper/1409.0473" })
    const first = card.contents[0] as { text: string; mimeType: string }
    assert.strictEqual(first.mimeType, "text/markdown")
    assert.match(first.text, /^# Neural Machine Translation by Jointly Learning to Align and Translate/)
    assert.include(first.text, "[1409.0473](https://arxiv.org/abs/1409.0473)")
    let error: unknown
    try {
      await client.readResource({ uri: "arxiv://paper/0808.05394" })
    } catch (e) {
      error = e
    }
    assert.match(String(error), /no record of paper "0808\.05394"/)
  })

  it("arxiv://categories lists every category by group", async () => {
    const resources = await client.listResources()
    assert.include(resources.resources.map((r) => r.uri), "arxiv://categories")
    const r = await client.readResource({ uri: "arxiv://categories" })
    const body = (r.contents[0] as { text: string }).text
    assert.include(body, "## Computer Science")
    assert.include(body, "`cs.LG` Machine Learning")
  })

  it("prompts literature_review and study_concept", async () => {
    const prompts = await client.listPrompts()
    assert.deepEqual(prompts.prompts.map((p) => p.name).sort(), ["literature_review", "study_concept"])
    const review = await client.getPrompt({ name: "literature_review", arguments: { topic: "diffusion models", max_papers: "5" } })
    const reviewText = (review.messages[0]!.content as { text: string }).text
    assert.include(reviewText, "\"diffusion models\"")
    assert.include(reviewText, "at most 5 arXiv papers")
    assert.include(reviewText, "search_arxiv_papers")
    assert.include(reviewText, "untrusted")
    const study = await client.getPrompt({ name: "study_concept", arguments: { note_title: "Transformers Concept Note" } })
    assert.include((study.messages[0]!.content as { text: string }).text, "Find papers related to my 'Transformers Concept Note' note")
  })
})

describe("one runtime", () => {
  it("every session of a server shares the runtime's services (layers are built once)", async () => {
    let builds = 0
    const counted = Layer.merge(
      mcpLayer({ offline: true, vault, judge: "local" }),
      Layer.effect(ArxivPort, Effect.flatMap(Effect.sync(() => builds++), () => ArxivPort)).pipe(
        Layer.provide(mcpLayer({ offline: true, vault, judge: "local" }))
      )
    )
    const runtime = ManagedRuntime.make(counted)
    const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js")
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js")
    const clients = await Promise.all([1, 2].map(async () => {
      const server = makeMcpServer(runtime, { logDefect: () => undefined })
      const [a, b] = InMemoryTransport.createLinkedPair()
      const c = new Client({ name: "t", version: "0" })
      await Promise.all([server.connect(b), c.connect(a)])
      return c
    }))
    await Promise.all(clients.map((c) => call(c, "get_paper", { arxiv_id: "1406.2661" })))
    await Promise.all(clients.map((c) => call(c, "get_paper", { arxiv_id: "1409.0473" })))
    assert.strictEqual(builds, 1)
    await Promise.all(clients.map((c) => c.close()))
    await runtime.dispose()
  })
})
