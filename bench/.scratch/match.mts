import { NodeContext } from "@effect/platform-node"
import { Effect, Either } from "effect"
import * as CorpusArxiv from "/work/wt-mirror2/src/adapters/arxiv/CorpusArxiv.js"
import * as MirrorArxiv from "/work/wt-mirror2/src/adapters/arxiv/mirror/MirrorArxiv.js"
import { readQuery } from "/work/wt-mirror2/src/adapters/query/queryParser.js"
const corpus = await Effect.runPromise(CorpusArxiv.make().pipe(Effect.provide(NodeContext.layer)))
const mirror = await Effect.runPromise(MirrorArxiv.make({ dir: "/tmp/mirror2/corpus-mirror" }))
const qs = ["all:attention", "ti:attention", "abs:attention", "all:attentional", 'all:"neural machine translation"', 'ti:"generative adversarial"', "all:transformer", "all:transformers",
 "ti:reinforcement AND abs:policy", "all:dropout OR all:regularization", "all:quantum ANDNOT cat:cs.LG", "all:lstm -all:attention", "abs:convolut*", "all:network*",
 "au:bengio", "au:Hinton", "co:ICML", "jr:IEEE", "all:gan AND submittedDate:[201601010000 TO 201612312359]", "cat:cs.CL", "ti:model", "all:model", "all:learning", "all:happiness", "all:hoping", "all:generalization", "all:normalisation", "all:word2vec", "all:q-learning", 'all:"self-attention"', "all:bayesian", "all:datasets"]
for (const q of qs) {
  const p = readQuery(q); if (Either.isLeft(p)) { console.log(q, "unparsed"); continue }
  const r = { query: p.right, categories: [], maxResults: 10 }
  const a = await Effect.runPromise(corpus.search(r)); const b = await Effect.runPromise(Effect.either(mirror.search(r)))
  const bt = Either.isRight(b) ? b.right.total : `ERR ${b.left.message}`
  const top = Either.isRight(b) ? b.right.papers.slice(0,10).filter((x) => a.papers.some((y) => y.arxivId === x.arxivId)).length : 0
  console.log(q.padEnd(60), a.total, bt, a.total === bt ? "" : "DIFF", "top10 shared", top)
}
