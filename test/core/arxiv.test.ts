import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import {
  absUrl,
  authorClause,
  buildSearchQuery,
  conceptQuery,
  isCategoryCode,
  MAX_QUERY_CHARS,
  parseArxivId,
  queryText,
  titleQuery,
  validateSearch
} from "../../src/core/arxiv.js"
import { landmarks } from "./fixtures.js"
import { term } from "../../src/core/arxivQuery.js"
import { typedOrNone } from "../support/query.js"

describe("parseArxivId", () => {
  const cases: ReadonlyArray<readonly [string, string, string | undefined]> = [
    ["1409.0473", "1409.0473", undefined],
    ["0704.0001", "0704.0001", undefined],
    ["2101.00001", "2101.00001", undefined],
    ["1409.0473v2", "1409.0473", "v2"],
    ["2101.00001v12", "2101.00001", "v12"],
    ["hep-th/9901001", "hep-th/9901001", undefined],
    ["hep-th/9901001v3", "hep-th/9901001", "v3"],
    ["cond-mat/0102536v1", "cond-mat/0102536", "v1"],
    ["math.AG/0211159", "math.AG/0211159", undefined],
    ["arXiv:1409.0473", "1409.0473", undefined],
    ["ARXIV:1409.0473v3", "1409.0473", "v3"],
    ["arXiv: 1409.0473", "1409.0473", undefined],
    ["arXiv:hep-th/9901001", "hep-th/9901001", undefined],
    ["  1409.0473  ", "1409.0473", undefined],
    ["https://arxiv.org/abs/1409.0473", "1409.0473", undefined],
    ["http://arxiv.org/abs/1409.0473v2", "1409.0473", "v2"],
    ["https://arxiv.org/abs/1409.0473/", "1409.0473", undefined],
    ["https://www.arxiv.org/abs/1501.00001", "1501.00001", undefined],
    ["https://export.arxiv.org/abs/hep-th/9901001v1", "hep-th/9901001", "v1"],
    ["https://arxiv.org/pdf/1409.0473", "1409.0473", undefined],
    ["https://arxiv.org/pdf/1409.0473v2.pdf", "1409.0473", "v2"],
    ["https://arxiv.org/pdf/hep-th/9901001.pdf", "hep-th/9901001", undefined],
    ["https://arxiv.org/html/2401.00001v1", "2401.00001", "v1"],
    ["arxiv.org/abs/1409.0473", "1409.0473", undefined],
    ["https://arxiv.org/abs/1409.0473?context=cs", "1409.0473", undefined],
    ["https://arxiv.org/abs/1409.0473v1#S2", "1409.0473", "v1"],
    ["1409.0473.pdf", "1409.0473", undefined]
  ]
  for (const [input, id, version] of cases) {
    it(`normalises ${JSON.stringify(input)}`, () => {
      assert.deepStrictEqual(parseArxivId(input), { id, version })
    })
  }

  it("gives undefined for anything that is not an id", () => {
    for (
      const garbage of [
        "",
        "garbage",
        "1409.047",
        "14090473",
        "1409.047312",
        "hep-th/99010011",
        "hep-th/990100",
        "https://example.com/abs/1409.0473",
        "1409.0473 and 1409.3215",
        "v2",
        "../../etc/passwd",
        "doi:10.48550/arXiv.1409.0473"
      ]
    ) {
      assert.strictEqual(parseArxivId(garbage), undefined, garbage)
    }
  })

  it("parses every recorded landmark id, in every written form", () => {
    for (const p of landmarks) {
      for (const form of [p.arxivId, `arXiv:${p.arxivId}`, `${p.arxivId}v1`, absUrl(p.arxivId), `https://arxiv.org/pdf/${p.arxivId}v1.pdf`]) {
        assert.strictEqual(parseArxivId(form)?.id, p.arxivId, form)
      }
    }
  })

  it.prop(
    "round-trips modern ids with any version through abs and pdf URLs",
    {
      yymm: fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, "0")),
      num: fc.integer({ min: 0, max: 99999 }).map((n) => String(n).padStart(5, "0")),
      version: fc.option(fc.integer({ min: 1, max: 99 }).map((v) => `v${v}`), { nil: undefined })
    },
    ({ num, version, yymm }) => {
      const id = `${yymm}.${num}`
      const written = `${id}${version ?? ""}`
      for (const form of [written, `arXiv:${written}`, `https://arxiv.org/abs/${written}`, `https://arxiv.org/pdf/${written}.pdf`]) {
        assert.deepStrictEqual(parseArxivId(form), { id, version }, form)
      }
    }
  )
})


/** The queries as arXiv receives them (the structured query rendered). */
const concept = (...args: Parameters<typeof conceptQuery>) => queryText(conceptQuery(...args))
const title = (...args: Parameters<typeof titleQuery>) => {
  const query = titleQuery(...args)
  return query === undefined ? undefined : queryText(query)
}
const author = (surname: string) => queryText(authorClause(surname))

describe("buildSearchQuery", () => {
  it("puts the user's text in parentheses so AND precedence cannot change its meaning", () => {
    assert.strictEqual(
      buildSearchQuery(typedOrNone("all:attention OR all:transformer"), ["cs.LG"]),
      "(all:attention OR all:transformer) AND (cat:cs.LG)"
    )
    assert.strictEqual(buildSearchQuery(typedOrNone("  ti:gan  "), []), "(ti:gan)")
  })

  it("ORs the categories", () => {
    assert.strictEqual(
      buildSearchQuery(typedOrNone("ti:gan"), ["cs.LG", "cs.AI", "cs.CL", "stat.ML"]),
      "(ti:gan) AND (cat:cs.LG OR cat:cs.AI OR cat:cs.CL OR cat:stat.ML)"
    )
  })

  it("adds a first-version date range from the since date", () => {
    assert.strictEqual(
      buildSearchQuery(typedOrNone("ti:gan"), ["cs.LG", "cs.CL"], "2015-01-01"),
      "(ti:gan) AND (cat:cs.LG OR cat:cs.CL) AND submittedDate:[201501010000 TO 999912312359]"
    )
    assert.strictEqual(
      buildSearchQuery(typedOrNone("ti:gan"), [], "2015-01-01", "2016-12-31"),
      "(ti:gan) AND submittedDate:[201501010000 TO 201612312359]"
    )
  })

  it("never sends an empty \"()\": categories alone are a valid query", () => {
    assert.strictEqual(buildSearchQuery(typedOrNone("  "), ["cs.LG", "stat.ML"]), "(cat:cs.LG OR cat:stat.ML)")
  })
})

describe("conceptQuery", () => {
  it("searches any keyword anywhere, quoting phrases and hyphenated words, at most `limit` of them", () => {
    const kws = ["neural machine translation", "attention", "encoder-decoder", "r-cnn", "a", "b", "c", "d"].map((term, i) => ({
      term,
      weight: 10 - i
    }))
    assert.strictEqual(
      concept(kws, 4),
      `all:"neural machine translation" OR all:attention OR all:"encoder-decoder" OR all:"r-cnn"`
    )
    const many = Array.from({ length: 30 }, (_, i) => ({ term: `term${i}`, weight: 30 - i }))
    assert.strictEqual(concept(many).split(" OR ").length, 20)
  })

  it("adds the central words as ti: clauses when asked, after the keywords, within arXiv's query length", () => {
    const kws = ["character level models", "char-level"].map((term, i) => ({ term, weight: 10 - i }))
    assert.strictEqual(
      concept(kws, 20, ["character", "char-level"]),
      `all:"character level models" OR all:"char-level" OR ti:character OR ti:"char-level"`
    )
    assert.strictEqual(concept(kws, 20, []), concept(kws))
    const many = Array.from({ length: 30 }, (_, i) => ({ term: `a fairly long phrase ${i}`, weight: 30 - i }))
    const query = buildSearchQuery(conceptQuery(many, 20, ["alpha", "beta", "gamma"]), ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"])
    assert.isBelow(query.length, MAX_QUERY_CHARS)
  })
})

describe("titleQuery", () => {
  it("asks for a central word in the title among the papers the concept query matches; nothing without a word", () => {
    const kws = ["character level models", "char-level", "subword"].map((term, i) => ({ term, weight: 10 - i }))
    assert.strictEqual(
      title(["character", "char-level"], kws),
      `(ti:character OR ti:"char-level") AND (all:"character level models" OR all:"char-level" OR all:subword)`
    )
    assert.isUndefined(title([], kws))
    assert.isUndefined(title(["character"], []))
    // within arXiv's query length with the concept query's 20 terms
    const many = Array.from({ length: 30 }, (_, i) => ({ term: `a longer key phrase ${i}`, weight: 30 - i }))
    assert.isBelow(buildSearchQuery(titleQuery(["alpha", "beta", "gamma"], many)!, ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"]).length, MAX_QUERY_CHARS)
  })
  it("asks for the authors the note cites too: au: clauses beside the title words, or alone, ANDed with the concept query", () => {
    const kws = ["meta-learning", "rnn policy"].map((term, i) => ({ term, weight: 10 - i }))
    assert.strictEqual(
      title(["meta-learning"], kws, 20, ["Duan", "Wang"]),
      `(ti:"meta-learning" OR au:Duan OR au:Wang) AND (all:"meta-learning" OR all:"rnn policy")`
    )
    assert.strictEqual(title([], kws, 20, ["Duan"]), `(au:Duan) AND (all:"meta-learning" OR all:"rnn policy")`)
    assert.isUndefined(title([], [], 20, ["Duan"]))
    // within arXiv's query length with 20 long terms, three title words and the most authors a note gives (8)
    const many = Array.from({ length: 30 }, (_, i) => ({ term: `a longer key phrase ${i}`, weight: 30 - i }))
    const authors = Array.from({ length: 8 }, () => "Lakshminarayanan")
    assert.isBelow(title(["alpha", "beta", "gamma"], many, 20, authors)!.length, MAX_QUERY_CHARS)
  })

  it("widens the title search with expansion terms, ORed beside it (not ANDed with the concept query), phrases quoted", () => {
    const kws = ["natural language inference", "snli"].map((term, i) => ({ term, weight: 10 - i }))
    assert.strictEqual(
      title(["inference"], kws, 20, [], ["entailment", "textual entailment"]),
      `((ti:inference) AND (all:"natural language inference" OR all:snli)) OR all:entailment OR all:"textual entailment"`
    )
    // without a title word the expansion terms are the search; without keywords there is no search
    assert.strictEqual(title([], kws, 20, [], ["entailment"]), "all:entailment")
    assert.isUndefined(title(["inference"], [], 20, [], ["entailment"]))
    // no expansion: the title search as before
    assert.strictEqual(title(["inference"], kws, 20, [], []), title(["inference"], kws))
    // within arXiv's query length with 20 long terms, three title words and three long expansion phrases
    const many = Array.from({ length: 30 }, (_, i) => ({ term: `a longer key phrase ${i}`, weight: 30 - i }))
    const widened = titleQuery(["alpha", "beta", "gamma"], many, 20, [], Array.from({ length: 3 }, () => "representational similarity analysis"))!
    assert.isBelow(buildSearchQuery(widened, ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"]).length, MAX_QUERY_CHARS)
  })

  it("asks for a stem as a prefix when an expansion term ends in \"*\" (a question's related stems), which arXiv's syntax reads back as one", () => {
    const kws = ["forget", "old tasks"].map((term, i) => ({ term, weight: 10 - i }))
    const q = titleQuery(["forget"], kws, 20, [], ["catastroph*"])!
    assert.strictEqual(queryText(q), `((ti:forget) AND (all:forget OR all:"old tasks")) OR all:catastroph*`)
    assert.deepEqual(typedOrNone(queryText(q)), q)
    // a lone "*" or an inner one is no prefix: the word is asked for as written
    assert.strictEqual(title([], kws, 20, [], ["a*b"]), "all:a*b")
    // within arXiv's query length with 20 long terms, three title words, three long expansion phrases and four stems
    const many = Array.from({ length: 30 }, (_, i) => ({ term: `a longer key phrase ${i}`, weight: 30 - i }))
    const widened = titleQuery(["alpha", "beta", "gamma"], many, 20, [], [
      ...Array.from({ length: 3 }, () => "representational similarity analysis"),
      ...Array.from({ length: 4 }, () => "convolutionalis*")
    ])!
    assert.isBelow(buildSearchQuery(widened, ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "stat.ML"]).length, MAX_QUERY_CHARS)
  })

  it("an author clause folds letters to ASCII and quotes a hyphenated surname (a bare hyphen is NOT to arXiv)", () => {
    assert.strictEqual(author("Bucilă"), "au:Bucila")
    assert.strictEqual(author("Schölkopf"), "au:Scholkopf")
    assert.strictEqual(author("Bar-Hillel"), `au:"Bar-Hillel"`)
    assert.strictEqual(author("LeCun"), "au:LeCun")
  })
})

describe("isCategoryCode", () => {
  it("accepts arXiv category codes and rejects free text", () => {
    for (const ok of ["cs.LG", "stat.ML", "hep-th", "math.AG", "cond-mat.stat-mech", "q-bio.NC"]) assert.isTrue(isCategoryCode(ok), ok)
    for (const bad of ["", "cs LG", "machine learning", "cs.LG OR cs.AI", "cat:cs.LG", "CS.LG"]) assert.isFalse(isCategoryCode(bad), bad)
  })
})

describe("validateSearch", () => {
  it("takes a query up to MAX_QUERY_CHARS and refuses a longer one, naming the limit", () => {
    // the length of the query as arXiv receives it: "all:" and the word
    const at = "a".repeat(MAX_QUERY_CHARS - 4)
    assert.isTrue(Either.isRight(validateSearch({ query: term("all", at), categories: [], maxResults: 10 })))
    const over = validateSearch({ query: term("all", `${at}b`), categories: [], maxResults: 10 })
    assert.isTrue(Either.isLeft(over))
    if (Either.isLeft(over)) {
      assert.strictEqual(over.left.argument, "query")
      assert.include(over.left.message, "at most 2,000 characters")
    }
  })
})
