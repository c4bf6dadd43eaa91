/**
 * A prototype measured, not shipped (README, "A local mirror of arXiv"): the companion's concept query over
 * per-alternative impact-ordered lists. FTS5's bm25() of an OR of phrases is the sum, over the phrases, of each
 * phrase's own bm25() (one IDF per phrase, the same length normalisation), so the whole ranking of a wide OR is the
 * sum of its alternatives' single-phrase rankings. Each alternative's list here is its top K papers by its own
 * bm25() (what a sync would keep per term, page by page), with each paper's category mask; the query reads the lists,
 * adds the scores of the papers in the request's categories term-at-a-time, and keeps the best 1000.
 *
 *   node --import tsx bench/impact-lists-child.ts DIR K QUERY
 *
 * Prints one JSON line: the time to build the lists (what a sync would spend, for these alternatives only), the
 * query's time and CPU (lists read as blobs from a side table, accumulated, the 1000 papers read), the whole
 * ranking's (FTS5 over every match), and how many of the whole ranking's first 10, 100 and 1000 the lists' pool holds
 * (and of its first 20 and 100 distinct titles: the bench's copies of a paper tie).
 */
import { toFtsQuery } from "../src/adapters/arxiv/mirror/ftsQuery.js"
import { MirrorIndex } from "../src/adapters/arxiv/mirror/MirrorIndex.js"
import { parseQuery } from "../src/adapters/query/queryParser.js"

const [dir, kArg, query] = process.argv.slice(2) as [string, string, string]
const K = Number(kArg)
const ML = ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"]
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const parsed = parseQuery(query)
if (parsed._tag === "Error") throw new Error(parsed.error.message)
const fts = toFtsQuery(parsed.query, ML)
if ("reason" in fts || fts.alternatives === undefined) throw new Error("not a wide OR")
const index = MirrorIndex.open(dir, { create: false })
const db = (index as unknown as { db: { all: (sql: string, p?: Array<unknown>) => Array<Record<string, unknown>>; exec: (sql: string) => void; get: (sql: string, p?: Array<unknown>) => Record<string, unknown> | null } }).db
const W = "bm25(papers_fts, 3, 1, 1, 0.5, 0.5, 0, 0, 0)"

// each paper's categories as a bit mask over the ML categories (a sync would store it beside each list entry)
let t = performance.now()
const maskOf = new Map<number, number>()
ML.forEach((c, bit) => {
  for (const r of db.all("SELECT n FROM paper_categories WHERE category = ?", [c])) {
    const n = Number(r["n"])
    maskOf.set(n, (maskOf.get(n) ?? 0) | (1 << bit))
  }
})
// the lists: each alternative's top K by its own bm25 (lower is better in FTS5), as blobs in a side table
db.exec("CREATE TEMP TABLE impacts(alt TEXT PRIMARY KEY, ns BLOB NOT NULL, scores BLOB NOT NULL, masks BLOB NOT NULL)")
for (const a of fts.alternatives) {
  const rows = db.all(`SELECT rowid AS n, ${W} AS s FROM papers_fts WHERE papers_fts MATCH ? ORDER BY s LIMIT ?`, [a, K])
  const ns = Int32Array.from(rows, (r) => Number(r["n"]))
  const scores = Float32Array.from(rows, (r) => Number(r["s"]))
  const masks = Uint8Array.from(ns, (n) => maskOf.get(n) ?? 0)
  db.all("INSERT INTO impacts(alt, ns, scores, masks) VALUES (?, ?, ?, ?)", [
    a,
    new Uint8Array(ns.buffer),
    new Uint8Array(scores.buffer),
    masks
  ])
}
const buildMillis = performance.now() - t

// the query: the lists read, the scores of the papers in the request's categories added, the best 1000 read
const want = (1 << ML.length) - 1
t = performance.now()
let c = cpu()
const sum = new Map<number, number>()
for (const a of fts.alternatives) {
  const row = db.get("SELECT ns, scores, masks FROM impacts WHERE alt = ?", [a])!
  const nsBytes = row["ns"] as Uint8Array
  const scBytes = row["scores"] as Uint8Array
  const ns = new Int32Array(nsBytes.buffer.slice(nsBytes.byteOffset, nsBytes.byteOffset + nsBytes.byteLength))
  const scores = new Float32Array(scBytes.buffer.slice(scBytes.byteOffset, scBytes.byteOffset + scBytes.byteLength))
  const masks = row["masks"] as Uint8Array
  for (let i = 0; i < ns.length; i++) if ((masks[i]! & want) !== 0) sum.set(ns[i]!, (sum.get(ns[i]!) ?? 0) + scores[i]!)
}
const pool = [...sum].sort((x, y) => x[1] - y[1] || y[0] - x[0]).slice(0, 1000).map(([n]) => n)
const listsMillis = performance.now() - t
const poolRows = db.all(`SELECT * FROM papers WHERE n IN (${pool.map(() => "?").join(",")})`, pool)
const queryMillis = performance.now() - t
const queryCpuMillis = cpu() - c

// the whole ranking, by FTS5 over every match
t = performance.now()
c = cpu()
const whole = db.all(`SELECT rowid AS n, ${W} AS s FROM papers_fts WHERE papers_fts MATCH ? ORDER BY s, n DESC LIMIT 1000`, [fts.match]).map((r) => Number(r["n"]))
const wholeMillis = performance.now() - t
const wholeCpuMillis = cpu() - c
// the scores add up: the lists' sum for the whole ranking's first paper is its whole score (when each list holds it)
const first = db.get(`SELECT ${W} AS s FROM papers_fts WHERE papers_fts MATCH ? AND rowid = ?`, [fts.match, whole[0]])!
const held = (k: number) => {
  const inPool = new Set(pool)
  return whole.slice(0, k).filter((n) => inPool.has(n)).length
}
const sameOrder10 = whole.slice(0, 10).filter((n, i) => pool[i] === n).length
// by distinct titles too: the bench's copies of a paper share its title (and tie), so which copy a ranking keeps is arbitrary
const titleOf = new Map(db.all(`SELECT n, title FROM papers WHERE n IN (${whole.map(() => "?").join(",")})`, whole).map((r) => [Number(r["n"]), String(r["title"])]))
const wholeTitles = [...new Set(whole.map((n) => titleOf.get(n)!))]
const poolTitles = new Set(poolRows.map((r) => String(r["title"])))
const titlesHeld = (k: number) => wholeTitles.slice(0, k).filter((x) => poolTitles.has(x)).length
index.close()
process.stdout.write(JSON.stringify({
  K,
  alternatives: fts.alternatives.length,
  buildMillis,
  listsMillis,
  queryMillis,
  queryCpuMillis,
  wholeMillis,
  wholeCpuMillis,
  held10: held(10),
  held100: held(100),
  held1000: held(1000),
  sameOrder10,
  titles20: titlesHeld(20),
  titles100: titlesHeld(100),
  wholeTitles: Math.min(100, wholeTitles.length),
  firstWhole: Number(first["s"]),
  firstLists: sum.get(whole[0]!),
  maxRssMiB: process.resourceUsage().maxRSS / 1024
}) + "\n")
