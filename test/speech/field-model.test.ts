import { describe, expect, it } from "vitest"
import { arpaBigrams, ipaToCmu, lmSentences } from "../../src/adapters/speech/fieldModel.js"

describe("the offline recogniser's model of the field", () => {
  it("splits text into the words a recogniser hears (a parenthesis breaks the context as a sentence end does)", () => {
    expect(lmSentences("We train a 3-layer encoder-decoder ($x^2$) on ImageNet. See https://x.org/a.")).toEqual([
      ["we", "train", "a", "layer", "encoder", "decoder"],
      ["on", "imagenet"],
      ["see"]
    ])
  })

  it("maps espeak-ng's IPA to CMU phones", () => {
    expect(ipaToCmu("ˌoʊ_v_ɚ_f_ˈɪ_ɾ_ɪ_ŋ")).toEqual(["OW", "V", "ER", "F", "IH", "T", "IH", "NG"])
    expect(ipaToCmu("k_ɑː_n_v_ə_l_ˈuː_ʃ_ə_n_əl")).toEqual(["K", "AA", "N", "V", "AH", "L", "UW", "SH", "AH", "N", "AH", "L"])
    expect(ipaToCmu("ʘ_a")).toBeUndefined()
  })

  it("writes a well-formed ARPA bigram model whose conditional probabilities sum to one, the same bytes every time", () => {
    const text = "dropout prevents overfitting. dropout regularises networks. neural networks overfit. how does dropout work"
    const vocabulary = new Set(["dropout", "prevents", "overfitting", "regularises", "networks", "neural", "overfit", "how", "does", "work"])
    const arpa = arpaBigrams(lmSentences(text), vocabulary, { minBigramCount: 1 })
    expect(arpaBigrams(lmSentences(text), vocabulary, { minBigramCount: 1 })).toBe(arpa)
    const [, uniBlock, biBlock] = arpa.split(/\\[12]-grams:\n/)
    const uni = new Map(uniBlock!.trim().split("\n").map((l) => l.split(" ")).map(([p, w, b]) => [w!, { p: 10 ** Number(p), b: 10 ** Number(b ?? 0) }]))
    const bi = biBlock!.replace(/\\end\\\s*$/, "").trim().split("\n").map((l) => l.split(" "))
    expect(arpa).toContain(`ngram 1=${uni.size}`)
    expect(arpa).toContain(`ngram 2=${bi.length}`)
    for (const h of ["dropout", "networks", "<s>"]) {
      const seen = bi.filter(([, a]) => a === h)
      const seenWords = new Set(seen.map(([, , b]) => b))
      const total = seen.reduce((t, [p]) => t + 10 ** Number(p), 0) +
        uni.get(h)!.b * [...uni].filter(([w]) => w !== "<s>" && !seenWords.has(w)).reduce((t, [, u]) => t + u.p, 0)
      expect(total).toBeCloseTo(1, 3)
    }
    // a word outside the vocabulary breaks the context: no bigram spans it
    expect(arpa).not.toMatch(/ how work$/m)
  })
})
