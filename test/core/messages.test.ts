/**
 * The generated note's message table: the same keys in every language, none
 * empty, English for a language the table does not have.
 */
import { assert, describe, it } from "@effect/vitest"
import { MESSAGES, messagesFor } from "../../src/core/messages.js"

describe("messages", () => {
  it("every language has every English key, each a non-empty sentence of its own", () => {
    const keys = Object.keys(MESSAGES.en).sort()
    assert.deepEqual(Object.keys(MESSAGES).sort(), ["de", "en", "es", "fr", "ru", "uk"])
    for (const [language, table] of Object.entries(MESSAGES)) {
      assert.deepEqual(Object.keys(table).sort(), keys, language)
      for (const [key, text] of Object.entries(table)) {
        assert.isAbove(text.trim().length, 0, `${language}.${key}`)
        // translated, not left in English (the link's trailing sentence aside, every key differs)
        if (language !== "en") assert.notStrictEqual(text, MESSAGES.en[key as keyof typeof MESSAGES.en], `${language}.${key}`)
      }
    }
  })

  it("a language without a table, or none, gets English", () => {
    assert.strictEqual(messagesFor("it").keptPapers, "Kept papers")
    assert.strictEqual(messagesFor(undefined).howFound, "How these papers were found")
    assert.strictEqual(messagesFor("toString").keptPapers, "Kept papers")
    assert.strictEqual(messagesFor("uk").keptPapers, "Відібрані статті")
  })
})
