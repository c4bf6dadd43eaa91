#!/usr/bin/env node
/**
 * Builds fixtures/offline/ (the data the offline mode ships) from the recorded
 * data in ../shared/data (see its SOURCES.md). Deterministic: the same input
 * gives byte-identical output.
 *
 *   node scripts/build-offline-data.mjs [--data ../shared/data] [--out fixtures/offline]
 *
 * Outputs
 *   arxiv-corpus.tsv.gz            the 36,421-record arXiv corpus, trimmed to what a Paper needs (TSV, header line first)
 *   citations-semantic-scholar.json Semantic Scholar counts (zzappa/topAIpapers, 2024-02-15) by corpus id
 *   citations-google-scholar.json   Google Scholar counts (frederick0329/Citations-Count, 2017-06-25) by corpus id
 *   citations-google-scholar-2025.json Google Scholar counts (papercopilot/paperlists, 2025-05-26..06-12) by corpus id
 *   openalex-works.json             every recorded OpenAlex work, reduced to what OpenAlexPort needs
 *   manifest.json                   sizes, sha1, record counts and recording dates of the files above
 */
import { createHash } from "node:crypto"
import { readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { gunzipSync, gzipSync, constants } from "node:zlib"

const args = process.argv.slice(2)
const arg = (name, fallback) => {
  const i = args.indexOf(name)
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback
}
const root = resolve(import.meta.dirname, "..")
const DATA = resolve(arg("--data", join(root, "..", "shared", "data")))
const OUT = resolve(arg("--out", join(root, "fixtures", "offline")))
mkdirSync(OUT, { recursive: true })

const log = (...xs) => process.stderr.write(xs.join(" ") + "\n")
const sha1 = (buf) => createHash("sha1").update(buf).digest("hex")
const collapse = (s) => s.replace(/\s+/g, " ").trim()

// ---------------------------------------------------------------------------
// arXiv subject names (oai_dc) -> category codes. The corpus's own `categories`
// covers 15 codes; this table (arXiv's category taxonomy names) covers every
// cs.* and stat.* subject plus the frequent math/physics/q-bio ones.
const SUBJECTS = {
  "Computer Science - Artificial Intelligence": "cs.AI",
  "Computer Science - Hardware Architecture": "cs.AR",
  "Computer Science - Computational Complexity": "cs.CC",
  "Computer Science - Computational Engineering, Finance, and Science": "cs.CE",
  "Computer Science - Computational Geometry": "cs.CG",
  "Computer Science - Computation and Language": "cs.CL",
  "Computer Science - Cryptography and Security": "cs.CR",
  "Computer Science - Computer Vision and Pattern Recognition": "cs.CV",
  "Computer Science - Computers and Society": "cs.CY",
  "Computer Science - Databases": "cs.DB",
  "Computer Science - Distributed, Parallel, and Cluster Computing": "cs.DC",
  "Computer Science - Digital Libraries": "cs.DL",
  "Computer Science - Discrete Mathematics": "cs.DM",
  "Computer Science - Data Structures and Algorithms": "cs.DS",
  "Computer Science - Emerging Technologies": "cs.ET",
  "Computer Science - Formal Languages and Automata Theory": "cs.FL",
  "Computer Science - General Literature": "cs.GL",
  "Computer Science - Graphics": "cs.GR",
  "Computer Science - Computer Science and Game Theory": "cs.GT",
  "Computer Science - Human-Computer Interaction": "cs.HC",
  "Computer Science - Information Retrieval": "cs.IR",
  "Computer Science - Information Theory": "cs.IT",
  "Computer Science - Learning": "cs.LG",
  "Computer Science - Logic in Computer Science": "cs.LO",
  "Computer Science - Multiagent Systems": "cs.MA",
  "Computer Science - Multimedia": "cs.MM",
  "Computer Science - Mathematical Software": "cs.MS",
  "Computer Science - Numerical Analysis": "cs.NA",
  "Computer Science - Neural and Evolutionary Computing": "cs.NE",
  "Computer Science - Networking and Internet Architecture": "cs.NI",
  "Computer Science - Other Computer Science": "cs.OH",
  "Computer Science - Operating Systems": "cs.OS",
  "Computer Science - Performance": "cs.PF",
  "Computer Science - Programming Languages": "cs.PL",
  "Computer Science - Robotics": "cs.RO",
  "Computer Science - Symbolic Computation": "cs.SC",
  "Computer Science - Sound": "cs.SD",
  "Computer Science - Software Engineering": "cs.SE",
  "Computer Science - Social and Information Networks": "cs.SI",
  "Computer Science - Systems and Control": "cs.SY",
  "Statistics - Applications": "stat.AP",
  "Statistics - Computation": "stat.CO",
  "Statistics - Methodology": "stat.ME",
  "Statistics - Machine Learning": "stat.ML",
  "Statistics - Other Statistics": "stat.OT",
  "Mathematics - Statistics Theory": "math.ST",
  "Mathematics - Optimization and Control": "math.OC",
  "Mathematics - Probability": "math.PR",
  "Mathematics - Numerical Analysis": "math.NA",
  "Mathematics - Logic": "math.LO",
  "Mathematics - Combinatorics": "math.CO",
  "Mathematics - Dynamical Systems": "math.DS",
  "Mathematics - Functional Analysis": "math.FA",
  "Quantitative Biology - Neurons and Cognition": "q-bio.NC",
  "Quantitative Biology - Quantitative Methods": "q-bio.QM",
  "Quantitative Biology - Populations and Evolution": "q-bio.PE",
  "Quantitative Biology - Genomics": "q-bio.GN",
  "Physics - Physics and Society": "physics.soc-ph",
  "Physics - Data Analysis, Statistics and Probability": "physics.data-an",
  "Physics - Medical Physics": "physics.med-ph",
  "Condensed Matter - Disordered Systems and Neural Networks": "cond-mat.dis-nn",
  "Condensed Matter - Statistical Mechanics": "cond-mat.stat-mech",
  "Nonlinear Sciences - Adaptation and Self-Organizing Systems": "nlin.AO"
}

/** "Last, First" -> "First Last"; "Webber, Jr., C. L." -> "C. L. Webber, Jr."; no comma: as is. */
const displayName = (raw) => {
  const parts = raw.split(",").map((p) => p.trim()).filter((p) => p.length > 0)
  if (parts.length === 2) return `${parts[1]} ${parts[0]}`
  if (parts.length === 3) return `${parts[2]} ${parts[0]}, ${parts[1]}`
  return collapse(raw)
}

// ---------------------------------------------------------------------------
// 1. corpus

/** Commit date of HeinrichHartmann/arxiv_meta 1d3cff6 (2017-04-06), the snapshot the corpus comes from. */
const CORPUS_RECORDED_ON = "2017-04-06"
const corpusPath = join(DATA, "corpus", "arxiv_oai_dc_ml_2007-2017.jsonl.gz")
const corpusLines = gunzipSync(readFileSync(corpusPath)).toString("utf8").split("\n").filter((l) => l.length > 0)
const corpusTitles = new Map()
const records = []
let withDoi = 0
let withJournal = 0
for (const line of corpusLines) {
  const r = JSON.parse(line)
  const cats = new Set(r.categories)
  for (const s of r.subjects) if (SUBJECTS[s] !== undefined) cats.add(SUBJECTS[s])
  let doi
  const journal = []
  for (const ident of r.identifiers) {
    if (/^https?:\/\/arxiv\.org\/abs\//.test(ident)) continue
    if (ident.startsWith("doi:")) doi ??= ident.slice(4).trim()
    else journal.push(collapse(ident))
  }
  const dates = [...r.dates].sort()
  const rec = {
    id: r.id,
    title: collapse(r.title),
    abstract: collapse(r.abstract),
    authors: r.authors.map(displayName).filter((a) => a.length > 0 && a !== ":"),
    published: dates[0],
    categories: [...cats].sort()
  }
  if (dates.length > 1) rec.updated = dates[dates.length - 1]
  if (doi !== undefined) {
    rec.doi = doi
    withDoi++
  }
  if (journal.length > 0) {
    rec.journalRef = journal.join("; ")
    withJournal++
  }
  if (r.comments.length > 0) rec.comment = collapse(r.comments.join("; "))
  records.push(rec)
  corpusTitles.set(r.id, r.title)
}
records.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
const corpusIds = new Set(records.map((r) => r.id))
if (corpusIds.size !== records.length) throw new Error("duplicate corpus ids")

// TSV, one record per line, so the offline search can scan the text without
// parsing 36k JSON objects first. Whitespace is collapsed above, so no field
// holds a tab or a newline; authors are joined with "; ".
const COLUMNS = ["id", "published", "updated", "categories", "doi", "journalRef", "comment", "authors", "title", "abstract"]
const cell = (v) => {
  const s = v === undefined ? "" : String(v)
  if (/[\t\n\r]/.test(s)) throw new Error(`tab or newline in a field: ${s.slice(0, 60)}`)
  return s
}
for (const r of records) {
  if (r.authors.some((a) => a.includes(";"))) throw new Error(`";" in an author of ${r.id}`)
}
const tsv = [COLUMNS.join("\t")]
  .concat(records.map((r) =>
    [r.id, r.published, r.updated, r.categories.join(" "), r.doi, r.journalRef, r.comment, r.authors.join("; "), r.title, r.abstract]
      .map(cell)
      .join("\t")
  ))
  .join("\n") + "\n"
const corpusBuf = gzipSync(Buffer.from(tsv, "utf8"), { level: constants.Z_BEST_COMPRESSION })
writeFileSync(join(OUT, "arxiv-corpus.tsv.gz"), corpusBuf)
log(`corpus: ${records.length} records, ${withDoi} with DOI, ${withJournal} with journal ref, ${Buffer.byteLength(tsv)} bytes raw, ${corpusBuf.length} bytes gz`)

// ---------------------------------------------------------------------------
// 2. citation counts. Matches are the exact normalised-title matches derived in
// shared/data (SOURCES.md); each is re-checked against the corpus title here.
const normTitle = (t) => t.toLowerCase().replace(/[^a-z0-9]+/g, " ").trim()
const readJsonl = (p) => readFileSync(p, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l))

const buildCounts = ({ file, countOf, extra }) => {
  const rows = readJsonl(join(DATA, "citations", file))
  const counts = {}
  const skipped = { ambiguous: 0, notFound: 0, duplicateKeptFirst: 0, titleMismatch: 0 }
  for (const row of rows) {
    if (row.ambiguous === true || row.arxiv_ids.length !== 1) {
      skipped.ambiguous++
      continue
    }
    const id = row.arxiv_ids[0]
    if (!corpusIds.has(id)) throw new Error(`match to unknown corpus id ${id}`)
    if (normTitle(corpusTitles.get(id)) !== normTitle(row.title)) {
      skipped.titleMismatch++
      continue
    }
    const n = countOf(row)
    if (!Number.isInteger(n) || n < 0) {
      skipped.notFound++
      continue
    }
    if (counts[id] !== undefined) {
      skipped.duplicateKeptFirst++
      continue
    }
    counts[id] = { citations: n, ...extra(row) }
  }
  const sorted = Object.fromEntries(Object.keys(counts).sort().map((k) => [k, counts[k]]))
  return { counts: sorted, rows: rows.length, skipped }
}

const s2 = buildCounts({
  file: "zzappa-topAIpapers/corpus_title_matches.jsonl",
  countOf: (r) => r.citations,
  extra: (r) => ({ s2PaperId: r.s2_paper_id })
})
const gs = buildCounts({
  file: "frederick0329-Citations-Count/corpus_title_matches.jsonl",
  countOf: (r) => r.gs_citations,
  extra: (r) => ({ venue: `${r.conference} ${r.year}` })
})

const writeJson = (name, value) => {
  const buf = Buffer.from(JSON.stringify(value, null, 0) + "\n", "utf8")
  writeFileSync(join(OUT, name), buf)
  return buf
}

writeJson("citations-semantic-scholar.json", {
  source: {
    name: "Semantic Scholar",
    recordedOn: "2024-02-15",
    detail:
      "Semantic Scholar citation counts as listed in zzappa/topAIpapers papers.md (commit 84f5734, 2024-02-15), " +
      "matched to arXiv ids by exact normalised title"
  },
  terms:
    "Derived counts only (no Semantic Scholar API responses). Semantic Scholar data is subject to the Semantic Scholar API " +
    "License Agreement; attribute Semantic Scholar when you show these numbers.",
  matchedRows: s2.rows,
  skipped: s2.skipped,
  counts: s2.counts
})
log(`semantic scholar: ${Object.keys(s2.counts).length} ids (${JSON.stringify(s2.skipped)})`)

writeJson("citations-google-scholar.json", {
  source: {
    name: "Google Scholar",
    recordedOn: "2017-06-25",
    detail:
      "Google Scholar citation counts scraped by frederick0329/Citations-Count (commit 12969a6, 2017-06-13..25), " +
      "matched to arXiv ids by exact normalised title"
  },
  terms: "Derived counts only. The upstream repository has no licence file; the counts are facts scraped from Google Scholar.",
  matchedRows: gs.rows,
  skipped: gs.skipped,
  counts: gs.counts
})
log(`google scholar: ${Object.keys(gs.counts).length} ids (${JSON.stringify(gs.skipped)})`)

// Google Scholar counts recorded by Paper Copilot (papercopilot/paperlists, mid-2025). Each row is one
// corpus id with the count and the dates between which it was recorded; ambiguous titles (one title, several
// corpus ids) and rows without a numeric count are skipped, and every matched title is checked again.
const buildPaperCopilot = () => {
  const rows = readJsonl(join(DATA, "citations", "papercopilot-paperlists", "corpus_citation_counts.jsonl"))
  const counts = {}
  const skipped = { ambiguous: 0, noCount: 0, titleMismatch: 0, duplicateKeptFirst: 0 }
  for (const row of rows) {
    const id = row.arxiv_id
    if (!corpusIds.has(id)) throw new Error(`papercopilot: match to unknown corpus id ${id}`)
    if (row.matches.some((m) => m.ambiguous_title === true)) {
      skipped.ambiguous++
      continue
    }
    const n = row.citation_count
    if (!Number.isInteger(n) || n < 0) {
      skipped.noCount++
      continue
    }
    const counted = row.matches.filter((m) => m.count === n)
    if (counted.length === 0 || counted.some((m) => normTitle(m.matched_title) !== normTitle(corpusTitles.get(id)))) {
      skipped.titleMismatch++
      continue
    }
    if (counts[id] !== undefined) {
      skipped.duplicateKeptFirst++
      continue
    }
    const [from, to] = row.citation_count_recorded
    if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to)) throw new Error(`papercopilot: bad dates for ${id}`)
    const m = counted[0]
    // the count was recorded at the latest on `to` (the last commit of its file): that is its recording date
    counts[id] = { citations: n, recordedOn: to, recordedFrom: from, venue: `${m.venue} ${m.venue_year}` }
  }
  const sorted = Object.fromEntries(Object.keys(counts).sort().map((k) => [k, counts[k]]))
  return { counts: sorted, rows: rows.length, skipped }
}
const pc = buildPaperCopilot()
const pcDates = [...new Set(Object.values(pc.counts).map((c) => c.recordedOn))].sort()
writeJson("citations-google-scholar-2025.json", {
  source: {
    name: "Google Scholar via Paper Copilot",
    recordedOn: pcDates[pcDates.length - 1],
    detail:
      "Google Scholar citation counts (gs_citation) as recorded by papercopilot/paperlists (commit 33f9884, fields added " +
      "2025-05-26..2025-06-12), matched to arXiv ids by exact normalised title; each count carries its own recording date"
  },
  terms:
    "Derived counts only. The upstream repository states no licence (no LICENSE file); the counts are facts scraped from " +
    "Google Scholar by Paper Copilot. Shipped with that caveat: see fixtures/PROVENANCE.md.",
  matchedRows: pc.rows,
  skipped: pc.skipped,
  counts: pc.counts
})
const pcNew = Object.keys(pc.counts).filter((id) => s2.counts[id] === undefined && gs.counts[id] === undefined).length
log(`google scholar 2025 (papercopilot): ${Object.keys(pc.counts).length} ids, ${pcNew} not in the other two (${JSON.stringify(pc.skipped)}), recorded ${pcDates.join(", ")}`)

// ---------------------------------------------------------------------------
// 3. OpenAlex works: every work record in shared/data/openalex, reduced.
const walk = (dir) =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name)
      return statSync(p).isDirectory() ? walk(p) : [p]
    })
const shortId = (url) => String(url).replace(/^https?:\/\/openalex\.org\//i, "")
const bareDoi = (doi) => (doi == null ? undefined : String(doi).replace(/^https?:\/\/(dx\.)?doi\.org\//i, ""))
const ARXIV_IN_URL = /arxiv\.org\/(?:abs|pdf)\/(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?\/\d{7})(?:v\d+)?(?:\.pdf)?$/i
const ARXIV_DOI = /^10\.48550\/arxiv\.(.+)$/i
const arxivIdOf = (w) => {
  const found = new Set()
  const d = bareDoi(w.doi)
  const m = d === undefined ? null : ARXIV_DOI.exec(d)
  if (m !== null) found.add(m[1])
  for (const loc of [w.primary_location, w.best_oa_location, ...(w.locations ?? [])]) {
    if (loc == null) continue
    for (const url of [loc.landing_page_url, loc.pdf_url]) {
      const u = url == null ? null : ARXIV_IN_URL.exec(url)
      if (u !== null) found.add(u[1])
    }
    const ld = bareDoi(loc.landing_page_url)
    const lm = ld === undefined ? null : ARXIV_DOI.exec(ld)
    if (lm !== null) found.add(lm[1])
  }
  return [...found].sort()
}

const byId = new Map()
let seen = 0
for (const file of walk(join(DATA, "openalex"))) {
  if (!file.endsWith(".json") || file.endsWith("_index.json")) continue
  const d = JSON.parse(readFileSync(file, "utf8"))
  const results = Array.isArray(d?.results)
    ? d.results
    : typeof d?.id === "string" && /openalex\.org\/W\d+$/.test(d.id)
    ? [d]
    : []
  for (const w of results) {
    if (typeof w?.id !== "string" || !/W\d+$/.test(w.id) || typeof w.cited_by_count !== "number") continue
    seen++
    const work = {
      id: shortId(w.id),
      title: typeof w.title === "string" ? collapse(w.title) : "",
      citedByCount: w.cited_by_count,
      publicationYear: typeof w.publication_year === "number" ? w.publication_year : undefined,
      publicationDate: typeof w.publication_date === "string" ? w.publication_date : undefined,
      doi: bareDoi(w.doi),
      arxivIds: arxivIdOf(w),
      // a record fetched with select= may lack referenced_works: that is "unknown", not "none"
      referencedWorks: Array.isArray(w.referenced_works) ? w.referenced_works.map(shortId) : undefined,
      updated: typeof w.updated_date === "string" ? w.updated_date.slice(0, 10) : undefined,
      file: relative(DATA, file)
    }
    const prev = byId.get(work.id)
    // the same work recorded more than once: keep the most recently updated record
    if (prev === undefined || (work.updated ?? "") > (prev.updated ?? "")) byId.set(work.id, work)
  }
}
const works = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
const worksBuf = writeJson("openalex-works.json", {
  source: {
    name: "OpenAlex",
    detail: "OpenAlex work records recorded by openalexPro, paper-qa, peneira and openalex-python test suites (2025-2026); CC0"
  },
  works
})
const inCorpus = works.filter((w) => w.arxivIds.some((a) => corpusIds.has(a)))
log(`openalex: ${seen} records seen, ${works.length} distinct works, ${inCorpus.length} of them corpus papers: ${inCorpus.map((w) => `${w.id}=${w.arxivIds.join(",")}`).join(" ")}`)

// ---------------------------------------------------------------------------
const manifest = {}
// only the files this script writes (others may share the directory)
for (
  const name of [
    "arxiv-corpus.tsv.gz",
    "citations-google-scholar-2025.json",
    "citations-google-scholar.json",
    "citations-semantic-scholar.json",
    "openalex-works.json"
  ]
) {
  const buf = readFileSync(join(OUT, name))
  manifest[name] = { bytes: buf.length, sha1: sha1(buf) }
}
manifest["arxiv-corpus.tsv.gz"].records = records.length
// the date of the mirror commit the corpus was taken from (fixtures/PROVENANCE.md): offline, a paper
// without a recorded count is aged as of this date, the "today" of the offline arXiv
manifest["arxiv-corpus.tsv.gz"].recordedOn = CORPUS_RECORDED_ON
manifest["citations-google-scholar-2025.json"].records = Object.keys(pc.counts).length
manifest["citations-google-scholar-2025.json"].recordedOn = pcDates[pcDates.length - 1]
manifest["citations-semantic-scholar.json"].records = Object.keys(s2.counts).length
manifest["citations-semantic-scholar.json"].recordedOn = "2024-02-15"
manifest["citations-google-scholar.json"].records = Object.keys(gs.counts).length
manifest["citations-google-scholar.json"].recordedOn = "2017-06-25"
manifest["openalex-works.json"].records = works.length
writeFileSync(join(OUT, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n")
const total = Object.values(manifest).reduce((s, m) => s + m.bytes, 0)
log(`total ${total} bytes written to ${OUT}`)
void worksBuf
