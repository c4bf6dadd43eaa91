/**
 * The authors a note cites, as students cite them, checked against the shipped
 * arXiv statistics (the TermStatsPort adapter the companion uses).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ArxivTermStats from "../../src/adapters/judge/ArxivTermStats.js"
import { citedAuthors, findAuthorCues } from "../../src/core/citedAuthors.js"

const stats = Effect.runSync(ArxivTermStats.make)

/** The authors the note cites, as the companion recognises them: [surname, cue]. */
const cited = (note: string, limit?: number, keywords?: ReadonlyArray<string>): ReadonlyArray<readonly [string, string]> => {
  const cues = findAuthorCues(note)
  const lookup = Effect.runSync(stats.lookup(cues.map((c) => c.surname)))
  const params = limit === undefined ? undefined : { maxDocuments: 50, limit }
  return citedAuthors(note, cues, lookup, params, keywords).map((a) => [a.surname, a.cue] as const)
}

describe("citedAuthors: the ways students cite authors", () => {
  it("'X et al', with or without a dot, a comma or a year, in parentheses or not", () => {
    assert.deepStrictEqual(
      cited(
        "- **deep ensembles** (Lakshminarayanan et al): train ~5 nets\n" +
          "- RL² (Duan et al) and the DeepMind version (Wang et al) — same idea\n" +
          "- adaptive methods may generalize worse (Wilson et al. 2017?)\n" +
          "## Byte pair encoding (Sennrich et al.)\n" +
          "Bucilă et al. 2006 did ensembles→nets; Vinyals, et al showed it too\n"
      ),
      [["Lakshminarayanan", "et-al"], ["Duan", "et-al"], ["Wang", "et-al"], ["Wilson", "et-al"], ["Sennrich", "et-al"], [
        "Bucilă",
        "et-al"
      ], ["Vinyals", "et-al"]]
    )
  })

  it("pairs ('X & Y', 'X and Y (2014)') and years ('(X 2014)', '(X, 2000)', 'X (1997)')", () => {
    assert.deepStrictEqual(
      cited(
        "- **Neural GPU** (Kaiser & Sutskever): convolutional GRU\n" +
          "- Kingma and Ba (2014) is the optimizer everyone uses\n" +
          "## R-CNN (Girshick 2014)\n- peepholes (Gers, 2000); the LSTM itself: Hochreiter (1997)\n"
      ),
      [["Kaiser", "pair"], ["Sutskever", "pair"], ["Kingma", "pair"], ["Ba", "pair"], ["Girshick", "year"], ["Gers", "year"], [
        "Hochreiter",
        "year"
      ]]
    )
  })

  it("a second name after a particle written apart ('Reed & de Freitas', 'dos Santos'): the capitalised part is searched", () => {
    assert.deepStrictEqual(
      cited(
        "## NPI (Reed & de Freitas)\n- ranking CNN for relations: Xu and dos Santos (2015)\n" +
          "- the de facto standard & de novo design are not names\n"
      ),
      [["Reed", "pair"], ["Freitas", "pair"], ["Xu", "pair"], ["Santos", "pair"]]
    )
  })

  it("'the X paper' and 'X's model / blog post / work / paper', particles glued on ('LeCun', 'McMahan')", () => {
    assert.deepStrictEqual(
      cited(
        "- the Bahdanau paper: attention for translation\n" +
          "## Kim's model (the simple one)\nRuder's blog post / overview article was the best summary.\n" +
          "LeCun's work and McMahan's paper on federated learning\n"
      ),
      [["Bahdanau", "the-paper"], ["Kim", "possessive"], ["Ruder", "possessive"], ["LeCun", "possessive"], ["McMahan", "possessive"]]
    )
  })

  it("each surname once, first cited first, at most `limit` of them", () => {
    const note = "Gal & Ghahramani: dropout. (Gal & Ghahramani) again. Kendall & Gal: both. Blundell et al: Bayes by backprop."
    assert.deepStrictEqual(cited(note).map(([s]) => s), ["Gal", "Ghahramani", "Kendall", "Blundell"])
    assert.deepStrictEqual(cited(note, 2).map(([s]) => s), ["Gal", "Ghahramani"])
  })

  it("the text the note wrote comes along, on one line", () => {
    const cues = findAuthorCues("see the\nBahdanau   paper")
    assert.deepStrictEqual(cues.map((c) => c.text), ["the Bahdanau paper"])
  })
})

describe("citedAuthors: what is not an author", () => {
  it("a method named like a person, when it is one of the note's keywords: 'the Adam paper', 'the Hyperband paper', 'Adam's paper'", () => {
    const note = "Hyperband = successive halving over budgets. the Hyperband paper says BO is rarely worth it; " +
      "the Adam paper and Adam's paper too. the Bahdanau paper, Kim's model."
    // read without the note's keywords, they look like surnames
    assert.deepStrictEqual(cited(note).map(([s]) => s), ["Hyperband", "Adam", "Bahdanau", "Kim"])
    // "hyperband" and "adam" are among its keywords (a phrase's words count too); the authors stay
    assert.deepStrictEqual(cited(note, undefined, ["hyperband", "adam optimizer", "successive halving"]), [
      ["Bahdanau", "the-paper"],
      ["Kim", "possessive"]
    ])
    // "et al" still means a person, whatever the keywords: only a surname comes before it
    assert.deepStrictEqual(cited("Adam et al. 2019 studied it", undefined, ["adam"]), [["Adam", "et-al"]])
  })

  it("a possessive that names no work: Montezuma's Revenge, Adam's convergence proof, Google's production system, Net's first layer", () => {
    assert.deepStrictEqual(
      cited(
        "DQN fails on Montezuma's Revenge. Adam's convergence proof has a bug? Google's production NMT system " +
          "uses wordpieces. Le Net's first layer learns edges."
      ),
      []
    )
  })

  it("a capitalised word arXiv abstracts use often is an ordinary word (Dropout, Google, Figure, Attention, Net), unless 'et al' follows", () => {
    assert.deepStrictEqual(
      cited(
        "## Dropout and Attention (2014)\nthe Dropout paper; Google's paper; Figure (2017) shows it; Attention & Memory; " +
          "the Net paper; (Transformer, 2017)\n"
      ),
      []
    )
    // nothing but a surname comes before "et al": "He et al." (ResNet), "Real et al" (evolution), "Long et al" (FCN)
    assert.deepStrictEqual(cited("residual learning (He et al.), evolution (Real et al), FCN (Long et al)").map(([s]) => s), [
      "He",
      "Real",
      "Long"
    ])
    // "Zoph & Le": "Le" is in 95 of 36,421 abstracts, so without "et al" it is not taken for a name; "Zoph" is
    assert.deepStrictEqual(cited("## RL controller (Zoph & Le, Google Brain)"), [["Zoph", "pair"]])
  })

  it("a word the note also writes in lower case is the note's own word ('Batchnorm & Layernorm' beside 'layernorm')", () => {
    assert.deepStrictEqual(cited("## Batchnorm & Layernorm\nlayernorm normalises over features, batchnorm over the batch"), [])
  })

  it("method names written in capitals are not surnames: the ResNet paper, the DeepMind paper, PixelCNN & WaveNet, the GAN paper", () => {
    assert.deepStrictEqual(cited("the ResNet paper; the DeepMind paper; PixelCNN & WaveNet; the GAN paper; R-CNN (2014)"), [])
  })

  it("code, inline code, comments and URLs are not read", () => {
    assert.deepStrictEqual(
      cited(
        "```\n# Duan et al\n```\n`Kaiser & Sutskever` %%Vinyals et al%% <!-- Graves et al --> https://example.org/Mnih_et_al"
      ),
      []
    )
  })
})
