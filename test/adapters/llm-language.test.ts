/**
 * The LLM note reader against the loopback OpenAI-compatible stand-in (a
 * scripted reader that knows a few words): the model's English terms under
 * the JSON Schema, a malformed answer sent back once with what was wrong,
 * the offline reading when both answers are unusable or the endpoint is down,
 * and no request for an English note. End to end, a Russian note run with the
 * LLM configured is searched on the model's terms.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as LlmLanguage from "../../src/adapters/language/LlmLanguage.js"
import { runCli } from "../support/cli.js"
import { LlmFault, llmStandIn } from "../support/llm-standin.js"

const KEY = "sk-test-note-reader-0123456789"
const reader = (url: string) =>
  LlmLanguage.make({ apiUrl: url, model: "scripted-reader", apiKey: Redacted.make(KEY), retryBaseDelay: "5 millis" }).pipe(
    Effect.provide(NodeHttpClient.layer)
  )

const NOTE = {
  title: "Генеративно-состязательные сети",
  text: "# Генеративно-состязательные сети\n\nДве сети: генератор и дискриминатор играют в минимаксную игру. " +
    "Проблема: коллапс мод. Варианты: DCGAN, WGAN (расстояние Вассерштейна).\n"
}

describe("LlmLanguage", () => {
  it.live("reads a Russian note into the model's English terms, asked under the JSON Schema", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn({ requiredKey: KEY })
      const english = yield* Effect.flatMap(reader(llm.url), (r) => r.read(NOTE))
      assert.deepEqual(english.reading.terms.map((t) => t.english), [
        "generative adversarial networks",
        "generator",
        "discriminator",
        "mode collapse",
        "DCGAN",
        "WGAN",
        "Wasserstein distance"
      ])
      assert.isTrue(english.reading.terms.every((t) => t.via === "model"))
      assert.strictEqual(english.reading.reader, "scripted-reader")
      assert.strictEqual(english.reading.detected.language, "ru")
      assert.strictEqual(english.title, "generative adversarial networks")
      assert.include(english.text, "- **mode collapse**")
      assert.deepEqual(english.reading.notes, [])
      const request = llm.completions()[0]!.body
      assert.strictEqual((request.response_format as { json_schema: { name: string } }).json_schema.name, "concept_terms")
      assert.include(request.messages![1]!.content, "<<<BEGIN NOTE>>>")
      assert.include(request.messages![1]!.content, "дискриминатор")
    })))

  it.live("a malformed answer is sent back once with what was wrong; the second answer is used", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn()
      llm.failNext(LlmFault.terms(JSON.stringify({ language: "ru", terms: "generator, discriminator" })))
      const english = yield* Effect.flatMap(reader(llm.url), (r) => r.read(NOTE))
      assert.strictEqual(english.reading.reader, "scripted-reader")
      assert.include(english.reading.terms.map((t) => t.english), "discriminator")
      assert.match(english.reading.notes[0]!, /answer 1 was unusable: it is not an object with a string "language" and an array of strings "terms"; it was sent back/)
      const second = llm.completions()[1]!.body.messages!
      assert.strictEqual(second.at(-2)!.role, "assistant")
      assert.include(second.at(-1)!.content, "could not be used: it is not an object")
    })))

  it.live("terms not in English, then prose: the offline reading is used and the notes say why", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn()
      llm.failNext(LlmFault.terms(JSON.stringify({ language: "ru", terms: ["генератор", "дискриминатор"] })), LlmFault.invalidJson())
      const english = yield* Effect.flatMap(reader(llm.url), (r) => r.read(NOTE))
      assert.strictEqual(english.reading.reader, "offline")
      assert.match(english.reading.notes[0]!, /answer 1 was unusable: terms must be English, in Latin letters: "генератор"/)
      assert.match(english.reading.notes[0]!, /answer 2 was unusable: it is not valid JSON; the note was read offline/)
      // the offline reading's own terms
      assert.include(english.reading.terms.map((t) => t.english), "discriminator")
      assert.isTrue(english.reading.terms.every((t) => t.via !== "model"))
      assert.strictEqual(llm.completions().length, 2)
    })))

  it.live("an endpoint that is down: the offline reading, saying so", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn()
      llm.failNext(LlmFault.serverError(), LlmFault.serverError(), LlmFault.serverError())
      const english = yield* Effect.flatMap(reader(llm.url), (r) => r.read(NOTE))
      assert.strictEqual(english.reading.reader, "offline")
      assert.match(english.reading.notes[0]!, /The model could not be reached .*; the note was read offline\./)
    })))

  it.live("an English note is read as it is, with no request", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn()
      const text = "# GANs\n\nA generator and a discriminator play a minimax game; mode collapse is the usual failure.\n"
      const english = yield* Effect.flatMap(reader(llm.url), (r) => r.read({ title: "GANs", text }))
      assert.strictEqual(english.text, text)
      assert.strictEqual(llm.completions().length, 0)
    })))
})

describe("the CLI with an LLM configured", { timeout: 240_000 }, () => {
  it.live("a Russian note is searched on the model's terms, and --json says who read it", () =>
    Effect.scoped(Effect.gen(function*() {
      const llm = yield* llmStandIn()
      const vault = mkdtempSync(join(tmpdir(), "companion-llm-lang-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(vault, { recursive: true, force: true })))
      writeFileSync(join(vault, `${NOTE.title}.md`), NOTE.text)
      // the recorded corpus and counts (--offline), the LLM judge and reader on the stand-in (--judge llm)
      const result = yield* Effect.promise(() =>
        runCli(
          ["run", `Find papers related to my '${NOTE.title}' note`, "--vault", vault, "--offline", "--judge", "llm", "--json"],
          { LLM_BASE_URL: llm.url, LLM_MODEL: "scripted-reader", OPENROUTER_API_KEY: undefined }
        )
      )
      const report = JSON.parse(result.stdout) as {
        keywords: ReadonlyArray<string>
        language: { reader: string; detected: { language: string }; terms: ReadonlyArray<{ english: string; via: string }> }
        survivors: ReadonlyArray<string>
      }
      assert.strictEqual(report.language.reader, "scripted-reader")
      assert.strictEqual(report.language.detected.language, "ru")
      assert.include(report.keywords, "generative adversarial networks")
      assert.include(report.keywords, "discriminator")
    })))
})
