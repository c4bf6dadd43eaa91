import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { readFileSync } from "node:fs"
import * as ArxivTermStats from "../../src/adapters/judge/ArxivTermStats.js"
import {
  centralWords,
  expansionTerms,
  extractKeywords,
  feedbackPapers,
  feedbackTerms,
  noteTerms,
  plainText,
  rankKeywords,
  splitFrontmatter
} from "../../src/core/keywords.js"
import { words } from "../../src/core/text.js"

/** A concept note as a student would write it (frontmatter, headings, bold, links, a code block). */
const RICH = `---
tags: [concept, nlp]
aliases: [Seq2seq]
---
# Sequence to Sequence Learning

A **sequence-to-sequence** model maps an input sequence to an output sequence with an
**encoder-decoder** pair of recurrent neural networks. It was introduced for
**neural machine translation**.

## Encoder and decoder
- The encoder (an LSTM) reads the source sentence into a fixed-length vector.
- The decoder (another LSTM) generates the target sentence word by word.
- Reversing the source sentence made optimisation easier.

## Attention
- Attention lets the decoder look at every encoder hidden state, so long sentences are no longer squeezed
  into one vector. See [[Transformers Concept Note]].
- Beam search decoding keeps the best partial translations.

\`\`\`python
model = Seq2Seq(encoder, decoder)  # code is not evidence
\`\`\`

See also: [[Word Embeddings]], [[Reading List]].
`

const terms = (text: string, title = "") => extractKeywords(text, title).map((k) => k.term)

describe("extractKeywords", () => {
  it("finds many keywords and key phrases in a rich note, most important first", () => {
    const kws = extractKeywords(RICH, "Sequence to Sequence Learning")
    assert.isAtLeast(kws.length, 6)
    const ts = kws.map((k) => k.term)
    assert.include(ts, "neural machine translation")
    assert.include(ts, "encoder-decoder")
    assert.isTrue(ts.some((t) => t.includes("sequence")))
    assert.isTrue(ts.includes("decoder") || ts.includes("encoder"))
    for (let i = 1; i < kws.length; i++) assert.isAtLeast(kws[i - 1]!.weight, kws[i]!.weight)
  })

  it("ignores frontmatter, code blocks, stop words and see-also links", () => {
    const ts = terms(RICH)
    for (const absent of ["concept", "nlp", "seq2seq", "model", "python", "reading", "list", "embeddings", "the"]) {
      assert.notInclude(ts, absent, absent)
    }
  })

  it("gives fewer than 2 keywords for a near-empty note", () => {
    assert.isBelow(extractKeywords("# Quick idea\n\nTODO\n", "Quick Idea").length, 2)
    assert.isBelow(extractKeywords("---\ntags: [idea]\n---\n# Transformers\n", "Transformers").length, 2)
    assert.deepStrictEqual(extractKeywords("", "Generative Adversarial Networks"), [])
    assert.deepStrictEqual(extractKeywords("---\ntitle: Attention in neural machine translation\n---\n", ""), [])
  })

  it("takes nothing from the title alone: the body is the evidence", () => {
    assert.deepStrictEqual(extractKeywords("TODO", "Generative Adversarial Networks"), [])
  })

  it("counts plurals with their singular", () => {
    const ts = terms("GANs train well. A GAN has two networks. The networks compete.")
    assert.include(ts, "networks")
    assert.notInclude(ts, "network")
    assert.strictEqual(ts.filter((t) => t === "gan" || t === "gans").length, 1)
  })

  it("honours the limit", () => {
    assert.strictEqual(extractKeywords(RICH, "", 3).length, 3)
  })

  it.prop(
    "returns at most `limit` distinct terms, each made of words of the note",
    {
      lines: fc.array(
        fc.array(fc.constantFrom("attention", "neural", "networks", "the", "of", "translation", "GANs", "## ", "**", "-", "[[", "]]", ".", "séquence"), {
          maxLength: 12
        }).map((ws) => ws.join(" ")),
        { maxLength: 12 }
      ),
      limit: fc.integer({ min: 1, max: 10 })
    },
    ({ limit, lines }) => {
      const note = lines.join("\n")
      const kws = extractKeywords(note, "", limit)
      assert.isAtMost(kws.length, limit)
      assert.strictEqual(new Set(kws.map((k) => k.term)).size, kws.length)
      const noteWords = new Set(words(note))
      for (const k of kws) {
        assert.isAbove(k.weight, 0)
        for (const w of k.term.split(" ")) assert.isTrue(noteWords.has(w), `${w} of "${k.term}" not in the note`)
      }
    }
  )
})

describe("splitFrontmatter and plainText", () => {
  it("splits YAML frontmatter from the body", () => {
    assert.deepStrictEqual(splitFrontmatter("---\na: 1\nb: 2\n---\nbody\n"), { frontmatter: "a: 1\nb: 2", body: "body\n" })
    assert.deepStrictEqual(splitFrontmatter("---\r\na: 1\r\n---\r\nbody"), { frontmatter: "a: 1", body: "body" })
    assert.deepStrictEqual(splitFrontmatter("no frontmatter\n---\n"), { frontmatter: undefined, body: "no frontmatter\n---\n" })
  })

  it("keeps the prose and drops Markdown syntax, links' targets, comments and code", () => {
    const text = plainText(
      "---\nx: 1\n---\n# Title\nSee [[Target|the alias]] and [[Other]] and [a link](https://example.org).\n%% hidden %% `code` <!-- c --> https://arxiv.org/abs/1409.0473 **bold**"
    )
    assert.notInclude(text, "x: 1")
    assert.include(text, "the alias")
    assert.notInclude(text, "Target")
    assert.include(text, "Other")
    assert.include(text, "a link")
    for (const gone of ["hidden", "code", "example.org", "arxiv.org", "#", "**", "[["]) assert.notInclude(text, gone)
    assert.include(text, "bold")
  })
})

// ---------------------------------------------------------------------------
// rankKeywords: the note's terms against the shipped arXiv statistics
// ---------------------------------------------------------------------------

const arxivStats = ArxivTermStats.makeWith()

const ranked = (text: string, title: string, limit?: number) => {
  const terms = noteTerms(text, title)
  const stats = Effect.runSync(arxivStats.lookup(terms.map((t) => t.term)))
  return rankKeywords(terms, stats, limit)
}

const demoNote = (file: string) => readFileSync(new URL(`../../examples/vault/${file}`, import.meta.url), "utf8")
const DEMO_NOTES = ["Transformers Concept Note.md", "Generative Adversarial Networks.md", "Papers/Word Embeddings.md"]

/** Words seen as whole queries before keywords were ranked by informativeness (issue 10), and their kin. */
const GENERIC_WORDS = [
  "end", "look", "data", "approach", "approaches", "new", "network", "networks", "better", "compare", "compute",
  "model", "models", "method", "methods", "results", "result", "keys", "key", "deep", "learning", "training", "way"
]

describe("rankKeywords", () => {
  it("never picks a generic academic word, on the demo notes and a student's note", () => {
    for (const [text, title] of [...DEMO_NOTES.map((f) => [demoNote(f), f.replace(/^.*\//, "").replace(/\.md$/, "")]), [RICH, "Sequence to Sequence Learning"]]) {
      const kws = ranked(text!, title!, 20)
      assert.isAtLeast(kws.length, 6, title)
      for (const k of kws) assert.notInclude(GENERIC_WORDS, k.term, `${title}: ${k.term}`)
    }
  })

  it("prefers the informative word to the frequent generic ones", () => {
    const note = "# Dropout\n\nThe data, the approach, the new results: the model is better, the method is better.\n" +
      "Look at the data at the end, compare and compute. Data data data, model model model.\n" +
      "**Dropout** randomly drops units of a neural network during training; dropout prevents co-adaptation.\n"
    const kws = ranked(note, "Dropout")
    assert.strictEqual(kws[0]!.term, "dropout")
    for (const k of kws) assert.notInclude(GENERIC_WORDS, k.term, k.term)
  })

  it("finds the concepts of the demo notes, a phrase before its own words", () => {
    const transformers = ranked(demoNote("Transformers Concept Note.md"), "Transformers Concept Note").map((k) => k.term)
    for (const t of ["attention", "neural machine translation", "encoder-decoder"]) assert.include(transformers, t)
    for (const part of ["neural", "machine", "translation", "neural machine"]) assert.notInclude(transformers, part)
    const gan = ranked(demoNote("Generative Adversarial Networks.md"), "Generative Adversarial Networks").map((k) => k.term)
    assert.strictEqual(gan[0], "generative adversarial network")
    assert.include(gan, "discriminator")
    const embeddings = ranked(demoNote("Papers/Word Embeddings.md"), "Word Embeddings").map((k) => k.term)
    assert.strictEqual(embeddings[0], "word embeddings")
    assert.include(embeddings, "skip-gram")
  })

  it("says why each keyword was chosen: its weight in the note and how rare it is in arXiv text", () => {
    for (const k of ranked(demoNote("Transformers Concept Note.md"), "Transformers Concept Note")) {
      assert.include(k.reason, `weight ${k.noteWeight} in the note`)
      assert.match(k.reason, /arXiv/)
      assert.include(k.reason, k.phrase ? "phrase" : "word")
      assert.isAbove(k.informativeness, 2)
    }
    const attention = ranked(demoNote("Transformers Concept Note.md"), "Transformers Concept Note").find((k) => k.term === "attention")!
    assert.strictEqual(attention.count, "exact")
    assert.match(attention.reason, /\d[\d,]* of 36,421/)
  })

  it("puts the phrase that names the note first, and leaves out the people it cites", () => {
    const note = "# Knowledge distillation\n\nA small student mimics a big teacher (Hinton, Vinyals, Dean). The student matches the " +
      "teacher's softened outputs; the teacher is an ensemble. Knowledge distillation compresses models.\n" +
      "- FitNets (Romero et al.): hints from the teacher's hidden layers.\n- Ba & Caruana: shallow student nets.\n" +
      "- Programs as teachers (Reed & de Freitas): the student imitates execution traces.\n"
    const kws = ranked(note, "Knowledge distillation", 20).map((k) => k.term)
    assert.strictEqual(kws[0], "knowledge distillation")
    for (const name of ["hinton", "vinyals", "dean", "romero", "caruana", "reed", "freitas"]) assert.notInclude(kws, name)
    assert.include(kws, "teacher")
  })

  it("keeps a field's phrase that holds a word notes use about themselves, never that word alone", () => {
    const note = "# Knowledge graph embeddings\n\nKGs are incomplete, so **link prediction**: score unseen triples. " +
      "Link prediction is ranked by MRR. TODO read the link in the overview.\n\n" +
      "## Related\n- visual **question answering** and question answering over knowledge bases\n" +
      "- **adversarial examples** fool the scorer; adversarial examples transfer\n" +
      "- **reading comprehension** datasets; reading comprehension of entity descriptions\n"
    const kws = ranked(note, "Knowledge graph embeddings", 20).map((k) => k.term)
    for (const phrase of ["link prediction", "question answering", "adversarial examples", "reading comprehension"]) {
      assert.include(kws, phrase)
    }
    for (const word of ["link", "question", "examples", "example", "reading", "read", "overview", "todo"]) {
      assert.notInclude(kws, word)
    }
  })

  it("never takes a pronoun-like word or where the note was taken for a keyword", () => {
    const note = "# Dropout\n\nFrom the lecture (prof's slides, chapter 7): **dropout** drops units at random; nothing " +
      "else changes and everything still trains. Dropout is somehow like an ensemble. Lecture 5 homework: dropout rates.\n"
    const kws = ranked(note, "Dropout", 20).map((k) => k.term)
    assert.include(kws, "dropout")
    for (const w of ["lecture", "prof", "slides", "chapter", "nothing", "everything", "somehow", "homework"]) assert.notInclude(kws, w)
  })

  it("takes no keyword from LaTeX commands or from what an apostrophe leaves of a contraction", () => {
    const note = "# Knowledge graph embeddings\n\nTransE scores a triple by $h + r \\approx t$; DistMult by " +
      "$\\langle h, r, t \\rangle$, a **bilinear** score that doesn't tell (a, parent, b) from (b, parent, a), and " +
      "$$\\sum_i \\lambda_i \\mathbf{e}_i$$ won't help. The bilinear model isn't antisymmetric; RESCAL doesn’t scale.\n"
    const kws = ranked(note, "Knowledge graph embeddings", 40).map((k) => k.term)
    assert.include(kws, "bilinear")
    for (const notation of ["approx", "langle", "rangle", "sum", "lambda", "mathbf"]) assert.notInclude(kws, notation)
    for (const stub of ["doesn", "won", "isn"]) assert.notInclude(kws, stub)
  })

  it("takes no keyword from the note's own section headings or the tags that file it, on the demo notes and the tuning notes", () => {
    // what a student's notes are laid out and filed with, never their concept (issue 22: "matters", "open questions")
    const layout = [
      "matters", "matter", "open questions", "open question", "open-questions", "questions", "why it matters", "thoughts",
      "my thoughts", "reading-group", "todo", "follow-up", "misc", "metrics", "variants", "key papers", "setup"
    ]
    const landmarks = JSON.parse(readFileSync(new URL("../../eval/retrieval/landmarks.json", import.meta.url), "utf8")) as ReadonlyArray<
      { readonly note: string; readonly title: string; readonly split: string }
    >
    const notes = [
      ...DEMO_NOTES.map((f) => [demoNote(f), f.replace(/^.*\//, "").replace(/\.md$/, "")] as const),
      ...landmarks.filter((n) => n.split !== "heldout").map((n) =>
        [readFileSync(new URL(`../../eval/retrieval/notes/${n.note}.md`, import.meta.url), "utf8"), n.title] as const
      )
    ]
    assert.isAtLeast(notes.length, 70)
    for (const [text, title] of notes) {
      const kws = ranked(text, title, 20).map((k) => k.term.toLowerCase())
      for (const word of layout) assert.notInclude(kws, word, title)
    }
    const transformers = ranked(demoNote("Transformers Concept Note.md"), "Transformers Concept Note", 20).map((k) => k.term)
    for (const t of ["attention", "self-attention", "neural machine translation", "multi-head"]) assert.include(transformers, t)
  })

  it("reads a heading that says something of the concept, and a topic tag, as the note's words", () => {
    const note = "# Gated recurrent units\n\n#nlp #tokenization #reading-group #todo #open-questions\n\n" +
      "A **GRU** has an update gate and a reset gate; the gates decide what the hidden state keeps.\n\n" +
      "## Why it matters\n- Fewer parameters than an LSTM, trains faster on small corpora.\n\n" +
      "## Why gates matter\n- Without gates, gradients vanish over long sequences; the gates let them flow.\n\n" +
      "## Open questions\n- Are gates needed at all?\n\n## My thoughts\n- Subword tokenization interacts with the gates.\n\n" +
      "## Key papers to read\n- Cho et al., on the properties of neural machine translation.\n"
    const kws = ranked(note, "Gated recurrent units", 20).map((k) => k.term.toLowerCase())
    for (const t of ["gru", "gates", "tokenization"]) assert.include(kws, t)
    for (const t of ["matters", "matter", "open questions", "questions", "thoughts", "reading-group", "todo", "open-questions", "key papers"]) {
      assert.notInclude(kws, t)
    }
  })

  it("has nothing to rank in a note without content words", () => {
    assert.deepStrictEqual(ranked("# Quick idea\n\nTODO\n", "Quick Idea").length < 2, true)
    assert.deepStrictEqual(ranked("", "Generative Adversarial Networks"), [])
  })
})

describe("centralWords", () => {
  const central = (text: string, title: string, n?: number) => {
    const terms = noteTerms(text, title)
    const stats = Effect.runSync(arxivStats.lookup(terms.map((t) => t.term)))
    return centralWords(rankKeywords(terms, stats, 20), terms, stats, n)
  }

  it("takes the informative words of the note's best keywords, phrases split, never a word most abstracts use", () => {
    const note = "# Character level models\n\nCharacter level models read text one character at a time instead of words. " +
      "Character level models need no tokenizer; character level models handle misspellings and rare words.\n" +
      "- **Char-level CNN** for text classification.\n"
    const words = central(note, "Character level models")
    // "character level models": "level" is in too many abstracts, "models" is generic
    assert.strictEqual(words[0], "character")
    assert.notInclude(words, "level")
    assert.notInclude(words, "models")
    const stats = Effect.runSync(arxivStats.lookup(words))
    for (const s of stats.stats) assert.isAtLeast(Math.log(stats.documents / s.documentFrequency), 2.3, s.term)
  })

  it("on the demo notes: words of the two best keywords only, each once, no generic academic word", () => {
    for (const file of DEMO_NOTES) {
      const title = file.replace(/^.*\//, "").replace(/\.md$/, "")
      const text = demoNote(file)
      const terms = noteTerms(text, title)
      const stats = Effect.runSync(arxivStats.lookup(terms.map((t) => t.term)))
      const kws = rankKeywords(terms, stats, 20)
      const words = centralWords(kws, terms, stats)
      assert.isAbove(words.length, 0, title)
      assert.strictEqual(new Set(words).size, words.length, title)
      const allowed = new Set(kws.slice(0, 2).flatMap((k) => k.term.toLowerCase().split(/\s+/)))
      for (const w of words) {
        assert.isTrue(allowed.has(w), `${title}: ${w}`)
        assert.notInclude(GENERIC_WORDS, w, title)
      }
    }
  })

  it("has no word for a title search when the best keywords are all common words", () => {
    assert.deepStrictEqual(central("# Deep learning\n\nDeep learning models learn from data. Deep learning works.\n", "Deep learning"), [])
  })
})

/** The best matches of a first search for a terse note on natural language inference (abridged abstracts). */
const NLI_PAPERS = [
  {
    title: "A large annotated corpus for learning natural language inference",
    abstract: "Understanding entailment and contradiction is fundamental to understanding natural language. " +
      "We introduce the Stanford Natural Language Inference corpus, a collection of 570k labeled sentence pairs, " +
      "and show that state-of-the-art neural models learn to recognize textual entailment."
  },
  {
    title: "Reasoning about Entailment with Neural Attention",
    abstract: "Recognizing textual entailment is the task of deciding whether a premise entails a hypothesis. " +
      "We propose a neural model that reads both sentences with long short-term memory networks and word-by-word " +
      "attention, a state-of-the-art result on the Stanford Natural Language Inference corpus."
  },
  {
    title: "A Decomposable Attention Model for Natural Language Inference",
    abstract: "We propose a simple neural architecture for natural language inference that uses attention to " +
      "decompose the problem into subproblems solved separately; state-of-the-art results on the Stanford Natural " +
      "Language Inference dataset, with textual entailment as the key $\\mathcal{O}(n)$ step."
  },
  {
    title: "Learning to compose sentences for NLI",
    abstract: "Textual entailment benefits from tree-structured composition of sentences."
  }
]

describe("feedbackTerms", () => {
  it("counts the papers that use each word and phrase of two or three adjacent content words, most used first", () => {
    const terms = feedbackTerms(NLI_PAPERS)
    const of = (key: string) => terms.find((t) => t.key === key)
    // papers, not occurrences: "entailment" is in every paper, twice in some
    assert.strictEqual(of("entailment")?.papers, 4)
    assert.strictEqual(of("textual entailment")?.papers, 4)
    assert.strictEqual(of("stanford natural language")?.words, 3)
    // plurals fold onto one key, shown in the form the papers use most
    assert.strictEqual(of("sentence")?.papers, 3)
    assert.strictEqual(of("sentence")?.term, "sentences")
    // a term fewer than two papers use is no evidence; inline TeX is no text; stop words end a phrase
    assert.isUndefined(of("premise"))
    assert.isUndefined(of("mathcal"))
    assert.isUndefined(terms.find((t) => t.key.split(" ").some((w) => ["the", "of", "and"].includes(w))))
    // ordered by papers, then key: deterministic
    for (let i = 1; i < terms.length; i++) assert.isAtLeast(terms[i - 1]!.papers, terms[i]!.papers)
    assert.deepStrictEqual(feedbackTerms([...NLI_PAPERS]), terms)
    assert.strictEqual(feedbackTerms(NLI_PAPERS, 1).length > terms.length, true)
    assert.deepStrictEqual(feedbackTerms([]), [])
  })
})

describe("feedbackPapers", () => {
  it("keeps the first k papers whose title holds a central word, plural or singular, in the search's order", () => {
    const papers = [
      { title: "Tree-structured LSTMs for sentiment" },
      { title: "Bilinear pooling" },
      { title: "A parse tree kernel" },
      { title: "Trees of LSTM cells" },
      { title: "Long short-term memory over tree structures" }
    ]
    assert.deepStrictEqual(feedbackPapers(papers, ["tree"], 2).map((p) => p.title), ["A parse tree kernel", "Trees of LSTM cells"])
    // whole words: "Tree-structured" is not "tree", "LSTMs" is "lstm"
    assert.deepStrictEqual(feedbackPapers(papers, ["trees", "lstm"]).map((p) => p.title), [
      "Tree-structured LSTMs for sentiment",
      "A parse tree kernel",
      "Trees of LSTM cells",
      "Long short-term memory over tree structures"
    ])
    assert.deepStrictEqual(feedbackPapers(papers, []), [])
  })
})

describe("expansionTerms", () => {
  const expand = (papers: ReadonlyArray<{ title: string; abstract: string }>, asked: ReadonlyArray<string>, limit?: number) => {
    const candidates = feedbackTerms(papers)
    return expansionTerms(candidates, Effect.runSync(arxivStats.lookup(candidates.map((c) => c.term))), asked, limit)
  }

  it("widens a search with the informative terms the best matches share and the note does not say (NLI → entailment)", () => {
    const chosen = expand(NLI_PAPERS, ["natural language inference", "snli", "contradiction", "sentence"], 5)
    const terms = chosen.map((e) => e.term)
    assert.include(terms, "textual entailment")
    // a chosen phrase covers its words; a keyword, a word of one, a phrase holding one never widen
    assert.notInclude(terms, "entailment")
    for (const said of ["natural language inference", "inference", "language", "sentences", "contradiction"]) {
      assert.notInclude(terms, said)
    }
    // compounds of function words the statistics cannot count ("state-of-the-art"), generic words
    // ("models") and phrases the papers use only inside a longer one ("stanford natural") never widen
    assert.notInclude(terms, "state-of-the-art")
    assert.notInclude(terms, "models")
    assert.notInclude(terms, "stanford natural")
    // best first; each used by two papers or more, informative in arXiv text
    for (let i = 1; i < chosen.length; i++) assert.isAtLeast(chosen[i - 1]!.weight, chosen[i]!.weight)
    for (const e of chosen) {
      assert.isAtLeast(e.papers, 2)
      assert.isAtLeast(e.informativeness, 2.3)
    }
    assert.isAtMost(expand(NLI_PAPERS, ["natural language inference"], 2).length, 2)
  })

  it("keeps a shorter phrase of a keyword: it widens the search (a review that says \"knowledge graphs\")", () => {
    const papers = [
      { title: "Knowledge graph embedding by translation", abstract: "We embed entities of a knowledge graph." },
      { title: "Knowledge graph completion", abstract: "Link prediction in a knowledge graph with embeddings." },
      { title: "Complex embeddings", abstract: "Link prediction for knowledge graphs." }
    ]
    const terms = expand(papers, ["knowledge graph embeddings", "triples"]).map((e) => e.term)
    assert.include(terms, "knowledge graph")
    assert.include(terms, "link prediction")
    assert.notInclude(terms, "knowledge graph embedding")
    assert.notInclude(terms, "knowledge")
  })

  it("never returns a term the query already asks for, nor more than asked, whatever the papers and keywords", () => {
    const pool = [...NLI_PAPERS, ...DEMO_NOTES.map((f) => ({ title: f, abstract: plainText(demoNote(f)) }))]
    fc.assert(
      fc.property(
        fc.subarray(pool, { minLength: 0 }),
        fc.subarray(["natural language inference", "entailment", "attention", "generative adversarial", "word vectors"]),
        fc.integer({ min: 0, max: 8 }),
        (papers, asked, limit) => {
          const chosen = expand(papers, asked, limit)
          assert.isAtMost(chosen.length, limit)
          const askedKeys = asked.map((a) => a.split(" ").map((w) => w.replace(/s$/, "")).join(" "))
          for (const e of chosen) {
            const key = e.term.toLowerCase().split(" ").map((w) => w.replace(/s$/, "")).join(" ")
            for (const a of askedKeys) {
              assert.notStrictEqual(key, a)
              assert.notInclude(` ${key} `, ` ${a} `)
            }
          }
          assert.deepStrictEqual(expand(papers, asked, limit), chosen)
        }
      ),
      { numRuns: 40 }
    )
  })
})
