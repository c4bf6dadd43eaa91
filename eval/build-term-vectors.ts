/**
 * Builds the local judge's term vectors from the CC0 arXiv abstracts in
 * ../shared/data/corpus (the same 36k records as the IDF table). CSFCube is
 * never read here.
 *
 * MODE=w2v (the shipped file): skip-gram word2vec (gensim, eval/word2vec.py:
 * one worker, fixed seed) over the judge's own stems, DIMS (100) dimensions,
 * WINDOW (5) tokens, EPOCHS (10); needs python3 with gensim
 * (Debian: apt-get install python3-gensim).
 * MODE=ppmi: counts of stem pairs within WINDOW content tokens; positive PMI
 * with context-distribution smoothing (0.75); a seeded randomized SVD (ml-matrix
 * QR + SVD of the small projected matrix, two power iterations); U·sqrt(S)
 * without the first component. MODE=lsi: the same SVD of the (1 + ln tf)·idf
 * term-document matrix.
 *
 * Then, for every mode: the VOCAB (8000) most frequent stems, unit length,
 * quantised to int8; each stem's SIF weight a / (a + p(stem)) with a = 1e-3 and
 * p its share of the corpus's tokens (Arora et al. 2017, "A simple but
 * tough-to-beat baseline for sentence embeddings"); and the corpus's common
 * direction (first singular vector of the abstracts' SIF sums), which the judge
 * removes from every text vector. Writes data/judge/term-vectors.json
 * (or OUT).
 *
 *   node --import tsx eval/build-term-vectors.ts [corpusDir]
 */
import { Matrix, QrDecomposition, SingularValueDecomposition } from "ml-matrix"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { stems } from "../src/adapters/judge/tokenize.js"
import { corpusDir, corpusRecords } from "./arxiv-corpus.js"

/** "w2v": skip-gram word2vec; "ppmi": SVD of word co-occurrence within WINDOW; "lsi": SVD of the tf-idf term-document matrix */
const MODE = process.env.MODE ?? "w2v"
const VOCAB = Number(process.env.VOCAB ?? 8000)
const COMPONENTS = Number(process.env.COMPONENTS ?? 64)
const DIMS = Number(process.env.DIMS ?? 100)
const EPOCHS = Number(process.env.EPOCHS ?? 10)
const WINDOW = Number(process.env.WINDOW ?? 5)
/** SIF smoothing: a stem as common as 0.1 % of all tokens gets weight 1/2 */
const SIF_A = 1e-3

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..")

const docs: Array<ReadonlyArray<string>> = []
const df = new Map<string, number>()
for await (const r of corpusRecords(corpusDir(process.argv[2]))) {
  const toks = stems(`${r.title ?? ""}. ${r.abstract ?? ""}`)
  docs.push(toks)
  for (const s of new Set(toks)) df.set(s, (df.get(s) ?? 0) + 1)
}
const vocab = [...df]
  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  .slice(0, VOCAB)
  .map(([s]) => s)
const V = vocab.length
const index = new Map(vocab.map((w, i) => [w, i]))

const indptr: Array<number> = [0]
const indices: Array<number> = []
const data: Array<number> = []
if (MODE === "ppmi") {
// co-occurrence counts within the window, then PPMI as a sparse (CSR) matrix
const rows: Array<Map<number, number>> = Array.from({ length: V }, () => new Map())
let total = 0
for (const d of docs) {
  const ids = d.map((s) => index.get(s) ?? -1)
  for (let i = 0; i < ids.length; i++) {
    const a = ids[i]!
    if (a < 0) continue
    for (let j = Math.max(0, i - WINDOW); j < Math.min(ids.length, i + WINDOW + 1); j++) {
      const b = ids[j]!
      if (j === i || b < 0 || b === a) continue
      rows[a]!.set(b, (rows[a]!.get(b) ?? 0) + 1)
      total++
    }
  }
}
const rowSum = rows.map((r) => [...r.values()].reduce((s, v) => s + v, 0))
const ctx = rowSum.map((n) => Math.pow(n, 0.75))
const ctxSum = ctx.reduce((s, v) => s + v, 0)
for (let a = 0; a < V; a++) {
  for (const [b, n] of [...rows[a]!].sort((x, y) => x[0] - y[0])) {
    const pmi = Math.log(n / total / ((rowSum[a]! / total) * (ctx[b]! / ctxSum)))
    if (pmi > 0) (indices.push(b), data.push(pmi))
  }
  indptr.push(indices.length)
}

}
// LSI: documents as rows of (1 + ln tf) · idf over the vocabulary, each row unit length
const docRows: Array<{ ids: Int32Array; w: Float64Array }> = []
if (MODE === "lsi") {
  for (const d of docs) {
    const tf = new Map<number, number>()
    for (const s of d) {
      const i = index.get(s)
      if (i !== undefined) tf.set(i, (tf.get(i) ?? 0) + 1)
    }
    const ids = Int32Array.from(tf.keys())
    const w = Float64Array.from([...tf].map(([i, f]) => (1 + Math.log(f)) * Math.log(docs.length / df.get(vocab[i]!)!)))
    const n = Math.hypot(...w) || 1
    for (let k = 0; k < w.length; k++) w[k]! /= n
    docRows.push({ ids, w })
  }
}
/** PPMI (V×V, sparse) times a dense V×k matrix. */
const times = (x: Matrix): Matrix => (MODE === "lsi" ? timesLsi(x) : timesPpmi(x))
/** A·Aᵀ·X for the term-document matrix A (V×D). */
const timesLsi = (x: Matrix): Matrix => {
  const k = x.columns
  const xs = x.to2DArray()
  const out = Array.from({ length: V }, () => new Float64Array(k))
  for (const { ids, w } of docRows) {
    const t = new Float64Array(k)
    for (let p = 0; p < ids.length; p++) {
      const row = xs[ids[p]!]!
      for (let c = 0; c < k; c++) t[c]! += w[p]! * row[c]!
    }
    for (let p = 0; p < ids.length; p++) {
      const o = out[ids[p]!]!
      for (let c = 0; c < k; c++) o[c]! += w[p]! * t[c]!
    }
  }
  return new Matrix(out.map((r) => Array.from(r)))
}
const timesPpmi = (x: Matrix): Matrix => {
  const k = x.columns
  const xs = x.to2DArray()
  const out = new Matrix(V, k)
  for (let a = 0; a < V; a++) {
    const acc = new Float64Array(k)
    for (let p = indptr[a]!; p < indptr[a + 1]!; p++) {
      const v = data[p]!
      const row = xs[indices[p]!]!
      for (let c = 0; c < k; c++) acc[c]! += v * row[c]!
    }
    for (let c = 0; c < k; c++) out.set(a, c, acc[c]!)
  }
  return out
}
/** The word vectors of the vocabulary, before normalisation: from the SVD, or from word2vec. */
const raw: Array<ArrayLike<number>> = MODE === "w2v" ? word2vec() : svdVectors()
const dims = raw[0]!.length

function svdVectors(): Array<Array<number>> {
  let seed = 42
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648 - 0.5
  }
  const L = COMPONENTS + 16
  let y = times(new Matrix(Array.from({ length: V }, () => Array.from({ length: L }, random))))
  for (let it = 0; it < 2; it++) y = times(new QrDecomposition(y).orthogonalMatrix)
  const q = new QrDecomposition(y).orthogonalMatrix
  const svd = new SingularValueDecomposition(times(q), { autoTranspose: true })
  const u = svd.leftSingularVectors
  const s = svd.diagonal
  // without the first component (word frequency)
  return vocab.map((_, a) => Array.from({ length: COMPONENTS - 1 }, (_, c) => u.get(a, c + 1) * Math.sqrt(s[c + 1]!)))
}

function word2vec(): Array<Float64Array> {
  // VECTORS names vectors already trained (word2vec text format), to compare models without retraining
  const given = process.env.VECTORS
  const trained = readWord2vec(given !== undefined ? readFileSync(given, "utf8") : trainWord2vec())
  return vocab.map((w) => {
    const v = trained.get(w)
    if (v !== undefined) return v
    // word2vec keeps stems seen 3 times or more, which every stem of the vocabulary is; another model's vocabulary may lack one
    if (given !== undefined) return new Float64Array(DIMS)
    throw new Error(`word2vec has no vector for "${w}"`)
  })
}

/** Runs eval/word2vec.py on the stem corpus; returns the vectors as text. */
function trainWord2vec(): string {
  const dir = mkdtempSync(join(tmpdir(), "arxiv-companion-w2v-"))
  try {
    writeFileSync(join(dir, "corpus.txt"), docs.map((d) => d.join(" ")).join("\n") + "\n")
    execFileSync(
      process.env.PYTHON ?? "python3",
      [join(repo, "eval", "word2vec.py"), join(dir, "corpus.txt"), join(dir, "vectors.txt"), String(DIMS), String(WINDOW), String(EPOCHS)],
      { stdio: "inherit", env: { ...process.env, PYTHONHASHSEED: "0" } }
    )
    return readFileSync(join(dir, "vectors.txt"), "utf8")
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** word2vec's text format: a header line, then a word and its numbers per line. */
function readWord2vec(text: string): Map<string, Float64Array> {
  const out = new Map<string, Float64Array>()
  for (const line of text.split("\n").slice(1)) {
    const parts = line.trim().split(" ")
    if (parts.length === DIMS + 1) out.set(parts[0]!, Float64Array.from(parts.slice(1), Number))
  }
  return out
}

const bytes = new Int8Array(V * dims)
raw.forEach((r, a) => {
  const v = Array.from(r)
  const n = Math.hypot(...v) || 1
  v.forEach((x, c) => (bytes[a * dims + c] = Math.max(-127, Math.min(127, Math.round((127 * x) / n)))))
})

// SIF weights from token shares, and the common direction of the corpus's SIF text vectors,
// computed from the quantised vectors exactly as the judge will see them
const tokens = new Map<string, number>()
let tokenCount = 0
for (const d of docs) for (const s of d) tokens.set(s, (tokens.get(s) ?? 0) + 1), tokenCount++
const sif = vocab.map((w) => Number((SIF_A / (SIF_A + tokens.get(w)! / tokenCount)).toPrecision(4)))
const textVector = (d: ReadonlyArray<string>): Float64Array => {
  const v = new Float64Array(dims)
  for (const s of d) {
    const a = index.get(s)
    if (a === undefined) continue
    for (let c = 0; c < dims; c++) v[c]! += (sif[a]! * bytes[a * dims + c]!) / 127
  }
  return v
}
const texts = docs.map(textVector)
let common = new Float64Array(dims).fill(1 / Math.sqrt(dims))
for (let it = 0; it < 100; it++) {
  const next = new Float64Array(dims)
  for (const t of texts) {
    let dot = 0
    for (let c = 0; c < dims; c++) dot += t[c]! * common[c]!
    for (let c = 0; c < dims; c++) next[c]! += dot * t[c]!
  }
  const n = Math.hypot(...next)
  common = next.map((x) => x / n)
}

const out = process.env.OUT ?? join(repo, "data", "judge", "term-vectors.json")
const method =
  MODE === "w2v"
    ? `skip-gram word2vec (gensim, ${DIMS} dims, window ${WINDOW}, ${EPOCHS} epochs, seed 42)`
    : `LSA (${MODE === "lsi" ? "tf-idf term-document matrix" : `PPMI, window ${WINDOW}`}, randomized SVD, components 2..${COMPONENTS})`
const source = `${method} of ${docs.length} arXiv abstracts (CC0 1.0), cs.LG/stat.ML/cs.CL/cs.CV/cs.NE/cs.AI 2007-05..2017-04, via HeinrichHartmann/arxiv_meta@1d3cff6; SIF weights a = ${SIF_A}`
writeFileSync(
  out,
  JSON.stringify({
    source,
    dims,
    stems: vocab.join("\n"),
    sif: sif.join(","),
    common: Array.from(common, (x) => Number(x.toFixed(6))),
    int8Base64: Buffer.from(bytes.buffer).toString("base64")
  }) + "\n"
)
console.log(`${V} stems × ${dims} dims (${MODE}) -> ${out}`)
