/**
 * Notes in other languages, offline: the detector per line and per note
 * (mixed text), the reading into English terms (glossary, cognates,
 * transliteration, stop words never kept), a language without a glossary,
 * and the run through the library's offline layer on notes in Russian and
 * French (the notes of the bug report: a GAN note in Russian that halted with
 * one keyword, a French word-embeddings note searched on "les", "pour").
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as ArxivTermStats from "../../src/adapters/judge/ArxivTermStats.js"
import { cognate } from "../../src/adapters/language/cognates.js"
import { detectLines } from "../../src/adapters/language/detect.js"
import { arxivVocabulary, fold, stopWords } from "../../src/adapters/language/lexicon.js"
import { readNote } from "../../src/adapters/language/reading.js"
import { CONCEPT_QUERY_TERMS, conceptQuery, queryText } from "../../src/core/arxiv.js"
import { noteTerms, rankKeywords } from "../../src/core/keywords.js"
import { CompanionReport } from "../../src/core/models.js"
import { Ask, Layers, Workflow } from "../../src/index.js"
import { FUNCTION_WORDS, words } from "../../src/core/text.js"
import { readMultilingual, readNote as readEvalNote } from "../../eval/retrieval-data.js"
import { summarizeReport } from "../../src/tools/companion.js"
import { runCli } from "../support/cli.js"

export const RUSSIAN_GAN = `# Генеративно-состязательные сети

Две сети: **генератор** и **дискриминатор** играют в минимаксную игру. Генератор превращает шум в изображения,
дискриминатор отличает настоящие изображения от сгенерированных.

## Проблемы
- коллапс мод: генератор выдаёт несколько похожих образцов
- нестабильное обучение

## Варианты
- DCGAN — свёрточная архитектура
- расстояние Вассерштейна (WGAN) стабилизирует обучение
`

const FRENCH_EMBEDDINGS = `# Plongements lexicaux

Les **plongements lexicaux** représentent chaque mot par un vecteur dense. Le modèle skip-gram prédit les mots du
contexte à partir du mot central ; l'**échantillonnage négatif** rend l'apprentissage rapide.

GloVe factorise la matrice de cooccurrences. Les analogies montrent la structure linéaire des plongements.
`

const UKRAINIAN_ATTENTION = `# Увага в трансформері

Механізм self-attention дозволяє кожному токену дивитися на всі інші токени речення.
- multi-head увага: кілька голів дивляться на різні зв'язки
- seq2seq модель з енкодером і декодером, оцінка BLEU на WMT
`

const ITALIAN_NOTE = `# Reti generative avversarie

Le reti GAN hanno un generatore e un discriminatore che giocano una partita. Il problema principale è il mode collapse:
il generatore produce pochi esempi diversi. DCGAN usa convoluzioni, WGAN usa la distanza di Wasserstein per un
addestramento più stabile.
`

const keywordsOf = (text: string, title: string) => {
  const english = readNote({ title, text })
  const terms = noteTerms(english.text, english.title)
  const stats = Effect.runSync(Effect.flatMap(ArxivTermStats.make, (s) => s.lookup(terms.map((t) => t.term))))
  const keywords = rankKeywords(terms, stats, CONCEPT_QUERY_TERMS)
  return { english, keywords: keywords.map((k) => k.term), query: queryText(conceptQuery(keywords)) }
}

describe("language detection", () => {
  it("tells each note's language, Ukrainian from Russian, and the English terms mixed in", () => {
    assert.strictEqual(detectLines(RUSSIAN_GAN).detected.language, "ru")
    assert.strictEqual(detectLines(FRENCH_EMBEDDINGS).detected.language, "fr")
    assert.strictEqual(detectLines(ITALIAN_NOTE).detected.language, "it")
    const uk = detectLines(UKRAINIAN_ATTENTION).detected
    assert.strictEqual(uk.language, "uk")
    assert.strictEqual(uk.name, "Ukrainian")
    assert.isTrue(uk.mixed)
    const english = uk.shares.find((s) => s.language === "en")
    assert.isDefined(english)
    // self-attention, multi-head, seq2seq, BLEU, WMT: a fifth or so of the words
    assert.isAbove(english!.share, 0.1)
    assert.isBelow(english!.share, 0.5)
  })

  it("reads a line of each language in a mixed note as that language", () => {
    const { lines, detected } = detectLines(
      "# Dropout\n\nDropout randomly removes units during training to prevent co-adaptation.\n" +
        "Le dropout retire des neurones au hasard pendant l'entraînement du réseau.\n" +
        "Dropout entfernt zufällig Neuronen während des Trainings des Netzes.\n"
    )
    assert.deepEqual(lines.filter((l) => l.words >= 3).map((l) => l.language), ["en", "fr", "de"])
    assert.isTrue(detected.mixed)
    assert.deepEqual(detected.shares.map((s) => s.language).sort(), ["de", "en", "fr"])
  })

  it("an English note is read as it is", () => {
    const text = "# Word embeddings\n\nSkip-gram with negative sampling learns dense word vectors.\n"
    const english = readNote({ title: "Word embeddings", text })
    assert.strictEqual(english.text, text)
    assert.strictEqual(english.reading.dictionary, "none")
    assert.strictEqual(english.reading.detected.language, "en")
    assert.deepEqual(english.reading.terms, [])
  })
})

describe("offline reading", () => {
  it("transliterates Cyrillic loanwords and rewrites cognate suffixes, checked against arXiv's vocabulary", () => {
    const v = arxivVocabulary()
    const read = (language: "ru" | "uk" | "fr" | "de" | "es", word: string) => cognate(language, fold(word), v)?.english
    assert.strictEqual(read("ru", "дискриминатора"), "discriminator")
    assert.strictEqual(read("ru", "трансформер"), "transformer")
    assert.strictEqual(read("uk", "градієнт"), "gradient")
    assert.strictEqual(read("ru", "регуляризации"), "regularization")
    assert.strictEqual(read("fr", "convolutif"), "convolutional")
    assert.strictEqual(read("fr", "régularisation"), "regularization")
    assert.strictEqual(read("es", "convolucional"), "convolutional")
    assert.strictEqual(read("es", "estocástico"), "stochastic")
    assert.strictEqual(read("de", "konvolutionell"), "convolutional")
    assert.strictEqual(read("de", "Konvergenz"), "convergence")
    // a short native word is never matched by its spelling; a French word is not English because arXiv quotes it
    assert.isUndefined(read("ru", "сеть"))
    assert.isUndefined(read("fr", "apprentissage"))
  })

  it("the Russian GAN note of the report yields its concept in English (it halted with one keyword)", () => {
    const { english, keywords } = keywordsOf(RUSSIAN_GAN, "Генеративно-состязательные сети")
    assert.strictEqual(english.title, "generative adversarial network")
    assert.include(keywords, "generative adversarial network")
    assert.include(keywords, "discriminator")
    assert.include(keywords, "dcgan")
    assert.include(keywords, "wasserstein")
    assert.isAtLeast(keywords.length, 6)
    const via = new Map(english.reading.terms.map((t) => [t.source.toLowerCase(), t]))
    assert.strictEqual(via.get("коллапс мод")?.english, "mode collapse")
    assert.strictEqual(via.get("коллапс мод")?.via, "glossary")
    assert.strictEqual(via.get("минимаксную")?.via, "transliteration")
  })

  it("the French note is searched on its concept, never on French function words", () => {
    const { keywords, query } = keywordsOf(FRENCH_EMBEDDINGS, "Plongements lexicaux")
    assert.include(keywords, "word embedding")
    assert.include(keywords, "negative sampling")
    assert.include(keywords, "skip-gram")
    assert.include(keywords, "glove")
    const fr = stopWords("fr")
    for (const w of words(query.replace(/\b(all|ti|abs):/g, " "))) {
      assert.isFalse(fr.has(w), `${w} is a French stop word`)
    }
    for (const bad of ["les", "pour", "mot", "predit"]) assert.notInclude(keywords, bad)
  })

  it("a language without a glossary is searched on its English terms only, and says so", () => {
    const { english, keywords } = keywordsOf(ITALIAN_NOTE, "Reti generative avversarie")
    assert.strictEqual(english.reading.detected.language, "it")
    assert.strictEqual(english.reading.dictionary, "english-only")
    assert.match(english.reading.notes.join(" "), /No Italian glossary offline: its lines were searched on their English terms only/)
    // the note's English terms, and nothing else
    for (const k of keywords) {
      assert.include(["gan", "mode collapse", "dcgan", "wgan", "wasserstein", "mode", "collapse"], k.toLowerCase(), k)
    }
    assert.include(keywords.map((k) => k.toLowerCase()), "wgan")
    const it = stopWords("it")
    for (const k of keywords) for (const w of k.split(" ")) assert.isFalse(it.has(w), w)
  })
})

describe("no note is searched on stop words", () => {
  it("over every note in other languages of the evaluation (tuning and held-out), the query holds no stop word of the note's language", () => {
    const notes = readMultilingual()
    assert.isAtLeast(notes.length, 30)
    for (const n of notes) {
      const { english, query } = keywordsOf(readEvalNote(n), n.title)
      const stop = stopWords(english.reading.detected.language)
      const searched = words(query.replace(/\b(all|ti|abs|au):/g, " ").replace(/\b(AND|OR|ANDNOT)\b/g, " "))
      for (const w of searched) {
        assert.isFalse(stop.has(w), `${n.note}: "${w}" is a stop word (query ${query})`)
        assert.isFalse(FUNCTION_WORDS.has(w), `${n.note}: "${w}" is an English function word (query ${query})`)
      }
    }
  }, 120_000)
})

describe("a run through the library's offline layer", { timeout: 180_000 }, () => {
  it.live("the Russian note finds the GAN landmarks and the report says what was detected and read", () =>
    Effect.gen(function*() {
      const vault = mkdtempSync(join(tmpdir(), "companion-lang-"))
      try {
        writeFileSync(join(vault, "Генеративно-состязательные сети.md"), RUSSIAN_GAN)
        const report = yield* Workflow.runCompanion("Find papers related to my 'Генеративно-состязательные сети' note").pipe(
          Effect.provide(Layers.OfflineLayer({ vault, offline: true }))
        )
        assert.strictEqual(report.language?.detected.language, "ru")
        assert.strictEqual(report.language?.reader, "offline")
        const candidates = report.candidates.map((c) => c.paper.arxivId)
        assert.include(candidates, "1406.2661") // Goodfellow et al.
        assert.include(candidates, "1511.06434") // DCGAN
        assert.include(report.survivors, "1406.2661")
        // the report's language field survives the JSON encoding the CLI and MCP use
        const encoded = Schema.encodeSync(CompanionReport)(report)
        assert.strictEqual(encoded.language?.detected.name, "Russian")
        // the MCP result of run_companion says it in one line, terms and all
        const result = summarizeReport(report)
        assert.match(result.language!, /^ru: Russian; read offline with the Russian glossary/)
        assert.include(result.language!, "дискриминатор → discriminator (glossary)")
        const written = readFileSync(join(vault, "Генеративно-состязательные сети — Related Papers.md"), "utf8")
        assert.include(written, "## Отобранные статьи")
        assert.include(written, "Язык заметки: Russian")
        assert.match(written, /дискриминатор → discriminator \(glossary\)/)
        // the paper titles stay as arXiv has them
        assert.include(written, "Generative Adversarial Networks")
      } finally {
        rmSync(vault, { recursive: true, force: true })
      }
    }))
})

describe("ask, offline, with a question in another language", { timeout: 180_000 }, () => {
  it.live("a Russian question is read into English terms and finds the GAN papers; the notes say how it was read", () =>
    Effect.gen(function*() {
      const answer = yield* Ask.askArxiv("какие есть способы стабилизировать обучение генеративно-состязательных сетей?").pipe(
        Effect.provide(Layers.askLayer({ offline: true }))
      )
      assert.match(answer.query.notes[0]!, /^The question is in Russian.*; it was searched as ".*generative adversarial network.*"\.$/)
      assert.include(answer.papers.map((p) => p.paper.arxivId), "1406.2661")
    }))

  it.live("an English question is asked as it is", () =>
    Effect.gen(function*() {
      const answer = yield* Ask.askArxiv("what are the main ways to stabilise GAN training?").pipe(
        Effect.provide(Layers.askLayer({ offline: true }))
      )
      assert.isFalse(answer.query.notes.some((n) => n.startsWith("The question is in")))
    }))
})

describe("the built CLI, offline", { timeout: 240_000 }, () => {
  it("runs the Russian note end to end: the concept's papers kept, the language in --json and in the note", async () => {
    const vault = mkdtempSync(join(tmpdir(), "companion-cli-lang-"))
    try {
      writeFileSync(join(vault, "Генеративно-состязательные сети.md"), RUSSIAN_GAN)
      const result = await runCli(["run", "Find papers related to my 'Генеративно-состязательные сети' note", "--vault", vault, "--offline", "--json"])
      assert.strictEqual(result.code, 0, result.stderr)
      const report = JSON.parse(result.stdout) as {
        keywords: ReadonlyArray<string>
        survivors: ReadonlyArray<string>
        language: { detected: { language: string; name: string; mixed: boolean }; reader: string; dictionary: string }
      }
      assert.deepEqual(
        [report.language.detected.language, report.language.detected.name, report.language.reader, report.language.dictionary],
        ["ru", "Russian", "offline", "glossary"]
      )
      assert.include(report.keywords, "generative adversarial network")
      assert.include(report.survivors, "1406.2661")
      assert.include(report.survivors, "1511.06434")
      const human = await runCli(["run", "Find papers related to my 'Генеративно-состязательные сети' note", "--vault", vault, "--offline"])
      assert.strictEqual(human.code, 0, human.stderr)
      assert.match(human.stdout, /Note language: Russian/)
      const written = readFileSync(join(vault, "Генеративно-состязательные сети — Related Papers.md"), "utf8")
      assert.include(written, "## Отобранные статьи")
      // the source note is never modified
      assert.strictEqual(readFileSync(join(vault, "Генеративно-состязательные сети.md"), "utf8"), RUSSIAN_GAN)
    } finally {
      rmSync(vault, { recursive: true, force: true })
    }
  })
})
