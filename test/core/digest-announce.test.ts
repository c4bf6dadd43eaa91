/**
 * The digest's concept gate (src/core/digestAnnounce.ts): a paper is announced only when its title or first
 * sentence names enough of the note's title words.
 */
import { describe, expect, it } from "@effect/vitest"
import { conceptWords, firstSentence, namedWords, passesGate } from "../../src/core/digestAnnounce.js"

describe("the digest's concept gate", () => {
  it("reads a note title's content words, plurals folded, boilerplate and function words left out", () => {
    expect(conceptWords("Object detection - R-CNN family")).toEqual(["object", "detection", "r-cnn", "family"])
    expect(conceptWords("Learning with noisy labels")).toEqual(["learning", "noisy", "label"])
    // the plural fold is the keywords' (`singular`): "processes" → "processe", which "process" still matches by prefix
    expect(conceptWords("Gaussian processes")).toEqual(["gaussian", "processe"])
    expect(namedWords(conceptWords("Gaussian processes"), { title: "A Gaussian process prior", abstract: "" })).toBe(2)
    expect(conceptWords("Deep learning on 3D data")).not.toContain("on")
    expect(conceptWords("Notes")).toEqual([])
  })

  it("takes the first sentence of an abstract, at most 300 characters", () => {
    expect(firstSentence("We study GANs. Then we train them.")).toBe("We study GANs.")
    expect(firstSentence("No full stop here")).toBe("No full stop here")
    expect(firstSentence(`${"x".repeat(400)}. Next.`)).toHaveLength(300)
    expect(firstSentence("Values like 0.5 stay. Next.")).toBe("Values like 0.5 stay.")
  })

  it("matches a word by a shared prefix of at least four letters, in the title or the first sentence only", () => {
    const words = conceptWords("Semantic segmentation")
    expect(namedWords(words, { title: "Segmentation of street scenes", abstract: "We label pixels semantically. More." })).toBe(2)
    // one word must be a prefix of the other: "segmenting" is not one of "segmentation"
    expect(namedWords(words, { title: "Segmenting street scenes", abstract: "" })).toBe(0)
    expect(namedWords(words, { title: "Street scenes", abstract: "We label pixels. Semantic segmentation is later." })).toBe(0)
    // "gan" is too short to match "gang" by prefix, but equal words match
    expect(namedWords(["gan"], { title: "Gang detection", abstract: "" })).toBe(0)
    expect(namedWords(["gan"], { title: "Training GANs", abstract: "" })).toBe(1)
  })

  it("passes a paper by the gate: none, any one word, or half of them rounded up", () => {
    const words = conceptWords("Catastrophic forgetting and continual learning") // 4 words: half is 2
    const one = { title: "Continual robots", abstract: "A study. Of things." }
    const two = { title: "Overcoming catastrophic forgetting", abstract: "Networks forget. We fix it." }
    const zero = { title: "Image denoising", abstract: "We denoise. Well." }
    expect(words).toHaveLength(4)
    expect([passesGate("none", words, zero), passesGate("any", words, zero), passesGate("half", words, zero)]).toEqual([true, false, false])
    expect([passesGate("any", words, one), passesGate("half", words, one)]).toEqual([true, false])
    expect([passesGate("any", words, two), passesGate("half", words, two)]).toEqual([true, true])
    // a title without content words requires nothing
    expect(passesGate("half", [], zero)).toBe(true)
  })
})
