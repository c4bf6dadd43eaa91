/**
 * Whether a question is plainly English (so `ask` need not load a language detector to read it), through the
 * library's question module.
 */
import { assert, describe, it } from "@effect/vitest"
import { plainlyEnglish } from "../../src/core/question.js"

describe("plainlyEnglish", () => {
  it("takes English questions, with acronyms, authors and hyphens, as they are", () => {
    for (const q of [
      "what are the main ways to stabilise GAN training?",
      "what is the best way to detect objects in images with convolutional networks",
      "papers by Hinton on capsules and the routing between them",
      "why do large batches hurt the generalization of deep networks",
      "which CNN architectures are best for ImageNet classification?"
    ]) assert.isTrue(plainlyEnglish(q), q)
  })

  it("leaves to the language reader a question in another language, even in unaccented Latin letters sharing English words", () => {
    for (const q of [
      "was ist die beste Methode zur Objekterkennung in Bildern", // German: "was", "die", "in" are German words too
      "wat is de beste manier om objecten te detecteren", // Dutch
      "wat is het verschil tussen lstm of gru", // Dutch: "is" and "of" are Dutch words too
      "jakie to sa najlepsze metody", // Polish without its accent: "to" is Polish too
      "quels sont les meilleurs articles sur les transformers", // French
      "como funciona la atencion en los transformers", // Spanish without its accents
      "come funziona la traduzione automatica con reti neurali", // Italian
      "какие есть способы стабилизировать обучение GAN?", // another script
      "réseaux de neurones pour la traduction" // an accent
    ]) assert.isFalse(plainlyEnglish(q), q)
  })

  it("leaves to the reader a question of terms alone, which says nothing of its language", () => {
    assert.isFalse(plainlyEnglish("GAN training"))
    assert.isFalse(plainlyEnglish("transformers attention"))
    assert.isFalse(plainlyEnglish(""))
    // one marker is not enough: "how" is English, "do" is Portuguese too; such a question is read as before
    assert.isFalse(plainlyEnglish("how do neural networks caption images"))
    assert.isFalse(plainlyEnglish("which CNN architectures did best on ImageNet classification?"))
  })
})
