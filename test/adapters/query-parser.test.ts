import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { parseQuery, type QueryNode, showQuery, type TextField } from "../../src/adapters/query/queryParser.js"
import { render } from "../../src/core/arxivQuery.js"

const show = (q: string): string => {
  const r = parseQuery(q)
  if (r._tag === "Error") throw new Error(`unexpected parse error for ${q}: ${r.error.message}`)
  return showQuery(r.query)
}

const error = (q: string): string => {
  const r = parseQuery(q)
  if (r._tag === "Ok") throw new Error(`expected a parse error for ${q}, got ${showQuery(r.query)}`)
  return r.error.message
}

describe("queryParser", () => {
  it("reads field prefixes; bare terms search all:", () => {
    assert.strictEqual(show("ti:attention"), "ti:attention")
    assert.strictEqual(show("attention"), "all:attention")
    assert.strictEqual(show("abs:gan"), "abs:gan")
    assert.strictEqual(show("cat:cs.LG"), "cat:cs.LG")
    assert.strictEqual(show("TI:Attention"), "ti:Attention")
  })

  it("reads quoted phrases, also after a prefix", () => {
    assert.strictEqual(show('ti:"generative adversarial"'), 'ti:"generative adversarial"')
    assert.strictEqual(show('"sequence to sequence"'), 'all:"sequence to sequence"')
  })

  it("reads arXiv's underscore author names as phrases", () => {
    assert.strictEqual(show("au:del_maestro"), 'au:"del maestro"')
    assert.strictEqual(show("au:Bengio"), "au:Bengio")
  })

  it("gives AND/ANDNOT precedence over OR, and OR over the implicit conjunction", () => {
    assert.strictEqual(show("a OR b AND c"), "(all:a OR (all:b AND all:c))")
    assert.strictEqual(show("a AND b OR c"), "((all:a AND all:b) OR all:c)")
    assert.strictEqual(show("a OR b c"), "((all:a OR all:b) AND all:c)")
    assert.strictEqual(show("a ANDNOT b ANDNOT c"), "((all:a ANDNOT all:b) ANDNOT all:c)")
    assert.strictEqual(show("a b c"), "((all:a AND all:b) AND all:c)")
  })

  it("groups with parentheses and applies a prefix to a group", () => {
    assert.strictEqual(
      show("au:del_maestro ANDNOT (ti:checkerboard OR ti:Pyrochlore)"),
      '(au:"del maestro" ANDNOT (ti:checkerboard OR ti:Pyrochlore))'
    )
    assert.strictEqual(show('abs:(attention OR "memory network")'), '(abs:attention OR abs:"memory network")')
    assert.strictEqual(show("ti:(a OR au:b)"), "(ti:a OR au:b)")
  })

  it("reads date ranges, + as a space, open ends and short dates", () => {
    assert.strictEqual(
      show("ti:gan AND submittedDate:[201401010000 TO 201412312359]"),
      "(ti:gan AND submittedDate:[201401010000 TO 201412312359])"
    )
    assert.strictEqual(show("submittedDate:[20140101+TO+20141231]"), "submittedDate:[201401010000 TO 201412312359]")
    assert.strictEqual(show("lastUpdatedDate:[* TO 20150101]"), "lastUpdatedDate:[000000000000 TO 201501012359]")
  })

  it("reads a leading hyphen as NOT but keeps hyphens inside words", () => {
    assert.strictEqual(show("gan -medical"), "(all:gan AND -all:medical)")
    assert.strictEqual(show("sequence-to-sequence"), "all:sequence-to-sequence")
  })

  it("reads trailing wildcards", () => {
    assert.strictEqual(show("ti:transform*"), "ti:transform*")
  })

  it("keeps unknown prefixes as words", () => {
    assert.strictEqual(show("note:x"), "all:note:x")
  })

  it("parses the workflow's own queries", () => {
    assert.strictEqual(
      show('(all:attention OR all:"sequence to sequence") AND (cat:cs.LG OR cat:cs.CL)'),
      '((all:attention OR all:"sequence to sequence") AND (cat:cs.LG OR cat:cs.CL))'
    )
  })

  it("reports errors with a position", () => {
    assert.include(error(""), "empty")
    assert.include(error("   "), "empty")
    assert.include(error("(a OR b"), "missing ')'")
    assert.include(error("a OR b)"), "unbalanced ')'")
    assert.include(error('ti:"unclosed'), "unclosed quote")
    assert.include(error("a OR"), "ends where a term was expected")
    assert.include(error("AND a"), "needs a term before it")
    assert.include(error("ti:"), "must be followed by")
    assert.include(error("submittedDate:[2014 TO 2015]"), "date range")
    assert.include(error("submittedDate:gan"), "needs a range")
    assert.include(error("()"), "empty parentheses")
    assert.include(error('""'), "empty quoted phrase")
    assert.include(error("a OR b)"), "at character 7")
  })
})

describe("queryParser round trip", () => {
  const word = FastCheck.constantFrom("attention", "gan", "neural", "bengio", "cs.LG", "translat*", "x2vec")
  const term: FastCheck.Arbitrary<QueryNode> = FastCheck.record({
    field: FastCheck.constantFrom<Array<TextField>>("ti", "abs", "au", "co", "jr", "cat", "all"),
    words: FastCheck.array(word.filter((w) => !w.endsWith("*")), { minLength: 1, maxLength: 3 }),
    prefix: FastCheck.boolean()
  }).map(({ field, prefix, words }) =>
    words.length > 1
      ? { _tag: "Term", field, value: words.join(" "), phrase: true, prefix: false }
      : { _tag: "Term", field, value: words[0]!, phrase: false, prefix }
  )
  const range: FastCheck.Arbitrary<QueryNode> = FastCheck.record({
    field: FastCheck.constantFrom<Array<"submittedDate" | "lastUpdatedDate">>("submittedDate", "lastUpdatedDate"),
    from: FastCheck.integer({ min: 2007, max: 2017 }),
    to: FastCheck.integer({ min: 2007, max: 2017 })
  }).map(({ field, from, to }) => ({ _tag: "Range", field, from: `${from}01010000`, to: `${to}12312359` }))
  const { node } = FastCheck.letrec<{ node: QueryNode }>((tie) => ({
    node: FastCheck.oneof(
      { depthSize: "small", withCrossShrink: true },
      term,
      range,
      FastCheck.record({ _tag: FastCheck.constantFrom("And", "Or", "AndNot"), left: tie("node"), right: tie("node") }) as FastCheck.Arbitrary<QueryNode>,
      tie("node").map((operand): QueryNode => ({ _tag: "Not", operand }))
    )
  }))

  it.prop("parse(render(ast)) gives the same ast: what the live API receives reads back as the tree sent", [node], ([ast]) => {
    const rendered = render(ast)
    const parsed = parseQuery(rendered)
    assert.strictEqual(parsed._tag, "Ok", rendered)
    if (parsed._tag === "Ok") assert.deepStrictEqual(parsed.query, ast, rendered)
  })

  it.prop("parse(show(ast)) gives the same ast", [node], ([ast]) => {
    const shown = showQuery(ast)
    const parsed = parseQuery(shown)
    assert.strictEqual(parsed._tag, "Ok", shown)
    if (parsed._tag === "Ok") assert.deepStrictEqual(parsed.query, ast, shown)
  })
})
