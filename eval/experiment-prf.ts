/**
 * Experiment, not shipped (issue 6): RM3-style pseudo-relevance feedback over
 * the CC0 arXiv corpus. For each CSFCube note, BM25-retrieve the top k corpus
 * abstracts with the note's unigram query, take the m stems most probable in
 * them (× IDF) that the query lacks, and add them with weight λ (the top one λ,
 * the rest in proportion). Prints nDCG@10 per fold; EXCL=1 leaves out corpus
 * records whose title is a CSFCube paper. Result: no gain on fold1_dev at any
 * setting (see README). About 15 s per setting.
 *
 *   CFG='[[10,30,1],[20,50,3]]' node --import tsx eval/experiment-prf.ts
 */
import { arxivDfTable } from "../src/adapters/judge/dfTable.js"
import { defaultParams, idf, prepareConcept, scorePaper, type ScoringParams, type PreparedConcept } from "../src/adapters/judge/score.js"
import { arxivTermVectors } from "../src/adapters/judge/termVectors.js"
import { setTokenCacheLimit, tokenize } from "../src/adapters/judge/tokenize.js"
import { benchmarkRoot, foldKeys, loadBenchmark, ndcgAt, rank, summarize } from "./csfcube-data.js"
import { CL_FILE, corpusDir, corpusRecords, ML_FILE } from "./arxiv-corpus.js"
import { conceptOf } from "./run-scorer.js"

setTokenCacheLimit(100)
const docs: Array<{ tf: Map<number, number>; len: number; title: string }> = []
const vocab = new Map<string, number>()
const vocabList: string[] = []
const idOf = (s: string) => { let i = vocab.get(s); if (i === undefined) { i = vocabList.length; vocab.set(s, i); vocabList.push(s) } return i }
for await (const r of corpusRecords(corpusDir(), [ML_FILE, CL_FILE])) {
  const tf = new Map<number, number>()
  let len = 0
  for (const t of tokenize(`${r.title ?? ""}. ${r.abstract ?? ""}`)) if (t) { const i = idOf(t.stem); tf.set(i, (tf.get(i) ?? 0) + 1); len++ }
  docs.push({ tf, len, title: (r.title ?? "").toLowerCase().replace(/[^a-z0-9]/g, "") })
}
const post: Array<Array<number>> = vocabList.map(() => [])
docs.forEach((d, j) => { for (const k of d.tf.keys()) post[k]!.push(j) })
const avg = docs.reduce((s, d) => s + d.len, 0) / docs.length
console.error(`corpus ${docs.length} docs, vocab ${vocabList.length}`)

setTokenCacheLimit(20000)
const bench = loadBenchmark(benchmarkRoot())
// overlap check
const titles = new Set(docs.map((d) => d.title))
let qo = 0, co = 0, ct = 0
const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "")
for (const u of bench.units) { if (titles.has(norm(u.query.title))) qo++; for (const c of u.candidates) { ct++; if (titles.has(norm(c.title))) co++ } }
console.error(`overlap: ${qo}/50 query papers, ${co}/${ct} candidates in corpus by title`)
const EXCL = process.env.EXCL === "1"
const csTitles = new Set<string>()
for (const u of bench.units) { csTitles.add(norm(u.query.title)); for (const c of u.candidates) csTitles.add(norm(c.title)) }

const table = arxivDfTable()
const vectors = arxivTermVectors()

const retrieve = (c: PreparedConcept, k: number): Array<{ j: number; s: number }> => {
  const acc = new Map<number, number>()
  for (const t of c.terms) {
    if (t.pair) continue
    const id = vocab.get(t.key); if (id === undefined) continue
    const w = t.idf * t.weight
    const idfv = idf(table, t.key, false)
    for (const j of post[id]!) {
      const d = docs[j]!
      const f = d.tf.get(id)!
      const nn = f / (1 - 0.75 + 0.75 * d.len / avg)
      acc.set(j, (acc.get(j) ?? 0) + w * idfv * (nn * 2.2) / (nn + 1.2))
    }
  }
  let xs = [...acc].map(([j, s]) => ({ j, s }))
  if (EXCL) xs = xs.filter((x) => !csTitles.has(docs[x.j]!.title))
  return xs.sort((a, b) => b.s - a.s || a.j - b.j).slice(0, k)
}

const expand = (c: PreparedConcept, k: number, m: number, lam: number, p: ScoringParams): PreparedConcept => {
  if (lam === 0 || m === 0) return c
  const top = retrieve(c, k)
  const z = top.reduce((s, x) => s + Math.exp(x.s / top[0]!.s * 5), 0)
  const rel = new Map<number, number>()
  for (const x of top) {
    const d = docs[x.j]!
    const wd = Math.exp(x.s / top[0]!.s * 5) / z
    for (const [t, f] of d.tf) rel.set(t, (rel.get(t) ?? 0) + wd * f / d.len)
  }
  const have = new Set(c.terms.filter((t) => !t.pair).map((t) => t.key))
  const cand = [...rel].map(([t, pr]) => ({ key: vocabList[t]!, pr: pr * Math.pow(idf(table, vocabList[t]!, false), 1) }))
    .filter((x) => table.unigrams.has(x.key)).sort((a, b) => b.pr - a.pr || (a.key < b.key ? -1 : 1))
  const maxPr = cand[0]?.pr ?? 1
  const terms = [...c.terms]
  let added = 0
  for (const x of cand) {
    if (added >= m) break
    if (have.has(x.key)) continue
    added++
    terms.push({ key: x.key, surface: x.key, idf: Math.pow(idf(table, x.key, false), p.idfPower), weight: (lam * x.pr) / maxPr, pair: false, seen: true })
  }
  const maxScore = terms.reduce((s, t) => s + t.idf * t.weight * (t.pair ? p.bigramWeight : 1) * (p.k1 + 1), 0)
  return { ...c, terms, maxScore }
}

const dev = foldKeys(bench, "fold1_dev"), test = foldKeys(bench, "fold1_test")
const run = (k: number, m: number, lam: number, p: ScoringParams = defaultParams) => {
  const rs = bench.units.map((u) => {
    const c = expand(prepareConcept(conceptOf(u), table, p, vectors), k, m, lam, p)
    const sc = u.candidates.map((x) => scorePaper(c, x, table, p, vectors).score)
    const r = rank(u.candidates.map((x) => x.id), sc)
    return { key: u.key, facet: u.facet, ndcg10: ndcgAt(r, u.grades), p5: 0 }
  })
  const f = (ks: ReadonlySet<string>) => summarize(rs.filter((r) => ks.has(r.key))).ndcg10.toFixed(4)
  console.log(`k=${k} m=${m} lam=${lam}  dev ${f(dev)} test ${f(test)} all ${summarize(rs).ndcg10.toFixed(4)}`)
}
for (const [k,m,lam] of (JSON.parse(process.env.CFG ?? "[]") as Array<[number,number,number]>)) run(k,m,lam)
