import { describe, expect, it } from "vitest"
import { forListening, spokenAnswer, werWords, wordErrors } from "../../src/core/speech.js"

describe("the answer written for listening", () => {
  it("reads each title with one sentence of its summary, and no URL, id or TeX", () => {
    const text = spokenAnswer("How does dropout prevent overfitting?", [
      {
        title: "Dropout: A Simple Way to Prevent Neural Networks from Overfitting",
        summary: "Deep neural nets with a large number of parameters overfit (see arXiv:1207.0580v1). We drop units at random. Code: https://github.com/x/y.",
        year: "2014"
      },
      { title: "Improving neural networks by preventing co-adaptation of feature detectors $\\mathcal{F}$", summary: "", year: "2012" }
    ])
    expect(text).toBe(
      "Here are 2 papers for: How does dropout prevent overfitting. " +
        "First: Dropout: A Simple Way to Prevent Neural Networks from Overfitting, from 2014. Deep neural nets with a large number of parameters overfit (see). " +
        "Second: Improving neural networks by preventing co-adaptation of feature detectors, from 2012."
    )
    expect(text).not.toMatch(/https?:|1207\.0580|\$|\\/)
  })

  it("says plainly when there is nothing to read", () => {
    expect(spokenAnswer("what is x", [])).toBe("I found no papers for: what is x.")
    expect(forListening("see https://arxiv.org/abs/1706.03762 and hep-th/9901001 now")).toBe("see and now")
  })
})

describe("word error rate", () => {
  it("counts substitutions, deletions and insertions between words", () => {
    const ref = werWords("How does dropout prevent over-fitting?")
    expect(ref).toEqual(["how", "does", "dropout", "prevent", "over", "fitting"])
    expect(wordErrors(ref, ref)).toBe(0)
    expect(wordErrors(ref, werWords("how does drop out prevent over fitting"))).toBe(2)
    expect(wordErrors(ref, [])).toBe(6)
    expect(wordErrors([], werWords("ah da"))).toBe(2)
  })
})
