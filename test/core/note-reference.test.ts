import { assert, describe, it } from "@effect/vitest"
import { GeneratedNoteNamed, NotEnoughInformation, NoteAmbiguous, NoteNotFound } from "../../src/core/errors.js"
import { NoteRef } from "../../src/core/models.js"
import { matchNote, NO_NOTE_NAMED, parseNoteReference } from "../../src/core/noteReference.js"

const named = (prompt: string) => parseNoteReference(prompt)?.candidates

describe("parseNoteReference", () => {
  it("finds a double-quoted title, straight or curly", () => {
    assert.deepStrictEqual(named(`Find papers related to my "Transformers Concept Note"`), ["Transformers Concept Note"])
    assert.deepStrictEqual(named("Find papers related to my “Transformers Concept Note”"), ["Transformers Concept Note"])
    assert.deepStrictEqual(named("Papers for «Word Embeddings», please"), ["Word Embeddings"])
  })

  it("finds a single-quoted title, straight or curly", () => {
    assert.deepStrictEqual(named("Find papers related to my 'Transformers Concept Note'"), ["Transformers Concept Note"])
    assert.deepStrictEqual(named("Find papers related to my ‘Transformers Concept Note’."), ["Transformers Concept Note"])
  })

  it("does not take apostrophes for quotes", () => {
    assert.deepStrictEqual(named("What's in Bob's 'Attention' note?"), ["Attention"])
    assert.deepStrictEqual(named("Don’t miss my ‘Attention’ note"), ["Attention"])
  })

  it("keeps an apostrophe inside a single-quoted title, straight or curly, in any language", () => {
    assert.deepStrictEqual(named("Trouve des articles pour 'L'attention multi-tête'"), ["L'attention multi-tête"])
    assert.deepStrictEqual(named("Trouve des articles pour ma note ‘Réseaux d’attention’."), ["Réseaux d’attention"])
    assert.deepStrictEqual(named("my 'Apprentissage à partir de très peu d'exemples' note"), ["Apprentissage à partir de très peu d'exemples"])
    assert.deepStrictEqual(named("Знайди статті до 'Зв'язки в графах'"), ["Зв'язки в графах"])
    assert.deepStrictEqual(named("Find papers related to my 'Hinton's dropout' note"), ["Hinton's dropout"])
    assert.deepStrictEqual(named("Find papers related to ‘Hinton’s dropout’"), ["Hinton’s dropout"])
  })

  it("an apostrophe after a word's last letter may close the quote: both titles, the longer first", () => {
    assert.deepStrictEqual(named("Find papers related to my 'Bayes' rule' note"), ["Bayes' rule", "Bayes"])
    assert.deepStrictEqual(named("Find papers related to my 'Bayes' note, it's short"), ["Bayes"])
    assert.deepStrictEqual(named("Compare 'Attention' and 'Memory'"), ["Attention"])
  })

  it("finds a [[wikilink]], with an alias, heading or .md suffix", () => {
    assert.deepStrictEqual(named("Related papers for [[Transformers Concept Note]]"), ["Transformers Concept Note"])
    assert.deepStrictEqual(named("Related papers for [[Transformers Concept Note|transformers]]"), ["Transformers Concept Note"])
    assert.deepStrictEqual(named("Related papers for [[Transformers Concept Note#Self-attention]]"), ["Transformers Concept Note"])
    assert.deepStrictEqual(named("Related papers for [[Papers/Word Embeddings.md]]"), ["Papers/Word Embeddings"])
  })

  it("prefers a wikilink over quoted words", () => {
    assert.deepStrictEqual(named(`What does "attention" mean in [[Transformers Concept Note]]?`), ["Transformers Concept Note"])
  })

  it("reads \"my X note\" as X or \"X note\"", () => {
    assert.deepStrictEqual(named("Find papers related to my transformers note"), ["transformers", "transformers note"])
    assert.deepStrictEqual(named("Find papers for my Generative Adversarial Networks page."), [
      "Generative Adversarial Networks",
      "Generative Adversarial Networks page"
    ])
  })

  it("reads \"note called X\" / \"page titled X\"", () => {
    assert.deepStrictEqual(named("Find papers for the note called Word Embeddings."), ["Word Embeddings"])
    assert.deepStrictEqual(named("Use the page titled Generative Adversarial Networks, thanks"), ["Generative Adversarial Networks"])
    assert.deepStrictEqual(named("the note named Quick Idea"), ["Quick Idea"])
  })

  it("collapses whitespace in the title", () => {
    assert.deepStrictEqual(named(`my "Transformers   Concept\tNote"`), ["Transformers Concept Note"])
  })

  it("names nothing in a plain question", () => {
    for (
      const prompt of [
        "What's a transformer?",
        "What’s a transformer?",
        "Find papers about attention mechanisms",
        "Explain the students' results on GANs",
        ""
      ]
    ) {
      assert.strictEqual(parseNoteReference(prompt), undefined, prompt)
    }
  })

  it("the halt message for no note is exact", () => {
    assert.strictEqual(
      new NotEnoughInformation({ detail: NO_NOTE_NAMED }).message,
      "Not enough information: no Obsidian note or page was named in the prompt."
    )
  })
})

describe("matchNote", () => {
  const vault = [
    new NoteRef({ title: "Transformers Concept Note", path: "Transformers Concept Note.md" }),
    new NoteRef({ title: "Generative Adversarial Networks", path: "Generative Adversarial Networks.md" }),
    new NoteRef({ title: "Word Embeddings", path: "Papers/Word Embeddings.md" }),
    new NoteRef({ title: "Quick Idea", path: "Quick Idea.md" }),
    new NoteRef({ title: "Reading List", path: "Reading List.md" }),
    new NoteRef({ title: "Réseaux de neurones", path: "Fr/Réseaux de neurones.md" })
  ]
  const match = (prompt: string) => matchNote(parseNoteReference(prompt)!, vault)

  it("matches case-insensitively", () => {
    const m = match(`my "transformers CONCEPT note"`)
    assert.strictEqual(m._tag, "Found")
    if (m._tag === "Found") assert.strictEqual(m.note.path, "Transformers Concept Note.md")
  })

  it("matches diacritic-insensitively, both ways", () => {
    const m = match(`"Reseaux de Neurones"`)
    assert.strictEqual(m._tag, "Found")
    if (m._tag === "Found") assert.strictEqual(m.note.path, "Fr/Réseaux de neurones.md")
    const vault2 = [new NoteRef({ title: "Reseaux", path: "Reseaux.md" })]
    assert.strictEqual(matchNote(parseNoteReference(`"Réseaux"`)!, vault2)._tag, "Found")
  })

  it("matches a note in a subfolder by its title", () => {
    const m = match("[[Word Embeddings]]")
    assert.strictEqual(m._tag, "Found")
    if (m._tag === "Found") assert.strictEqual(m.note.path, "Papers/Word Embeddings.md")
  })

  it("matches a path-qualified [[Folder/Title]] link to that folder's note", () => {
    const twins = [
      new NoteRef({ title: "Word Embeddings", path: "Old/Word Embeddings.md" }),
      new NoteRef({ title: "Word Embeddings", path: "Papers/Word Embeddings.md" })
    ]
    for (const prompt of ["[[Papers/Word Embeddings]]", "[[papers/word embeddings|emb]]", `"Papers/Word Embeddings.md"`]) {
      const m = matchNote(parseNoteReference(prompt)!, twins)
      assert.strictEqual(m._tag === "Found" ? m.note.path : undefined, "Papers/Word Embeddings.md", prompt)
    }
    // the bare title is a tie between the two folders: listed, not guessed
    const plain = matchNote(parseNoteReference("[[Word Embeddings]]")!, twins)
    assert.deepStrictEqual(plain._tag === "Ambiguous" ? plain.notes.map((n) => n.path) : plain._tag, [
      "Old/Word Embeddings.md",
      "Papers/Word Embeddings.md"
    ])
  })

  it("tries \"X note\" when \"my X note\" names no note X", () => {
    const m = match("Find papers related to my Transformers Concept note")
    assert.strictEqual(m._tag, "Found")
    if (m._tag === "Found") assert.strictEqual(m.note.title, "Transformers Concept Note")
  })

  it("a single-quoted title with an apostrophe: the whole title, or the word before it when only that note exists", () => {
    const notes = [
      new NoteRef({ title: "Bayes' rule", path: "Bayes' rule.md" }),
      new NoteRef({ title: "Bayes", path: "Bayes.md" }),
      new NoteRef({ title: "Réseaux d'attention", path: "Réseaux d'attention.md" }),
      new NoteRef({ title: "Réseaux d", path: "Réseaux d.md" })
    ]
    const path = (prompt: string, vault = notes) => {
      const m = matchNote(parseNoteReference(prompt)!, vault)
      return m._tag === "Found" ? m.note.path : m._tag
    }
    assert.strictEqual(path("my 'Bayes' rule' note"), "Bayes' rule.md")
    assert.strictEqual(path("my 'Bayes' rule' note", notes.slice(1)), "Bayes.md")
    assert.strictEqual(path("ma note ‘Réseaux d’attention’"), "Réseaux d'attention.md")
  })

  it("prefers the shallowest of two notes with the same title", () => {
    const twins = [
      new NoteRef({ title: "Attention", path: "Deep/Inside/Attention.md" }),
      new NoteRef({ title: "Attention", path: "Attention.md" })
    ]
    const m = matchNote(parseNoteReference(`"attention"`)!, twins)
    assert.strictEqual(m._tag, "Found")
    if (m._tag === "Found") assert.strictEqual(m.note.path, "Attention.md")
  })

  it("suggests the closest titles when none matches", () => {
    const m = match(`"Transformer Concept Notes"`)
    assert.strictEqual(m._tag, "NotFound")
    if (m._tag === "NotFound") {
      assert.strictEqual(m.closest.length, 3)
      assert.strictEqual(m.closest[0], "Transformers Concept Note")
    }
    const gan = match(`"Generative Adversarial Nets"`)
    assert.strictEqual(gan._tag === "NotFound" ? gan.closest[0] : undefined, "Generative Adversarial Networks")
  })

  it("suggests nothing from an empty vault, and the error says so", () => {
    const m = matchNote(parseNoteReference(`"Anything"`)!, [])
    assert.deepStrictEqual(m, { _tag: "NotFound", closest: [] })
    assert.include(new NoteNotFound({ title: "Anything", closest: [] }).message, "The vault has no notes.")
  })

  it("names the closest titles in the NoteNotFound message", () => {
    const m = match(`"Transformer Concept Notes"`)
    const closest = m._tag === "NotFound" ? m.closest : []
    assert.include(
      new NoteNotFound({ title: "Transformer Concept Notes", closest }).message,
      `Closest titles: "Transformers Concept Note"`
    )
  })
})

describe("matchNote: the note the prompt names, never a look-alike", () => {
  const note = (path: string) => new NoteRef({ title: path.slice(path.lastIndexOf("/") + 1, -3), path })
  const pathOf = (m: ReturnType<typeof matchNote>) => (m._tag === "Found" ? m.note.path : m._tag)
  const find = (prompt: string, paths: ReadonlyArray<string>) => matchNote(parseNoteReference(prompt)!, paths.map(note))

  it("prefers the exact title, then case-insensitive, then normalised (case, spacing, diacritics)", () => {
    // a trailing space or another case is a different note when the exact one exists
    assert.strictEqual(pathOf(find("[[CON]]", ["Con .md", "con.md", "CON.md"])), "CON.md")
    assert.strictEqual(pathOf(find("[[CON]]", ["Con .md", "con.md"])), "con.md")
    assert.strictEqual(pathOf(find("[[CON]]", ["Con .md"])), "Con .md")
    assert.strictEqual(pathOf(find(`"Resume"`, ["Résumé.md", "resume.md"])), "resume.md")
    assert.strictEqual(pathOf(find(`"Résumé"`, ["Resume.md", "Résumé.md"])), "Résumé.md")
    assert.strictEqual(pathOf(find(`"Word  Embeddings"`, ["Word Embeddings.md"])), "Word Embeddings.md")
  })

  it("stops and lists the notes when two match equally well", () => {
    const m = find(`"attention"`, ["ATTENTION.md", "Attention.md", "Other.md"])
    assert.strictEqual(m._tag, "Ambiguous")
    if (m._tag === "Ambiguous") assert.deepStrictEqual(m.notes.map((n) => n.path), ["ATTENTION.md", "Attention.md"])
    const folders = find("[[Attention]]", ["A/Attention.md", "B/Attention.md"])
    assert.strictEqual(folders._tag, "Ambiguous")
    const error = new NoteAmbiguous({ title: "Attention", paths: ["A/Attention.md", "B/Attention.md"] })
    assert.include(error.message, `"A/Attention.md", "B/Attention.md"`)
    assert.include(error.message, "[[A/Attention]]")
    // an exact match is not a tie, nor is a shallower note of the same title (Obsidian resolves [[X]] to it)
    assert.strictEqual(pathOf(find(`"Attention"`, ["ATTENTION.md", "Attention.md"])), "Attention.md")
    assert.strictEqual(pathOf(find("[[Attention]]", ["A/Attention.md", "Attention.md"])), "Attention.md")
  })

  it("matches the longest vault title the prompt contains when the title itself holds quotes", () => {
    const title = `Attention: is it "all" you need?`
    const prompt = `Find papers for my '${title}' note`
    assert.strictEqual(pathOf(find(prompt, [`${title}.md`, "Attention.md", "all you need.md"])), `${title}.md`)
    // even when a note has the title of the quoted fragment
    assert.strictEqual(pathOf(find(prompt, [`${title}.md`, "all.md"])), `${title}.md`)
    const bob = `Bob's "draft" on GANs`
    assert.strictEqual(pathOf(find(`Papers for "${bob}"`, [`${bob}.md`, "draft.md"])), `${bob}.md`)
    assert.strictEqual(pathOf(find(`Papers for "${bob.toLowerCase()}"`, [`${bob}.md`, "Bob's.md"])), `${bob}.md`)
    // a title found elsewhere in the prompt is not what the prompt named
    const m = find(`Compare "Transformer" with my GAN notes`, ["GAN.md", "Transformers.md"])
    assert.strictEqual(m._tag, "NotFound")
  })

  it("never takes a generated Related Papers note for a concept note, nor suggests one", () => {
    const vault = ["Attention.md", "Attention — Related Papers.md", "Attention — Related Papers (2026-11-29).md"]
    const named = find("[[Attention — Related Papers]]", vault)
    assert.strictEqual(named._tag, "Generated")
    if (named._tag === "Generated") assert.strictEqual(named.source, "Attention")
    assert.strictEqual(find(`"attention — related papers (2026-11-29)"`, vault)._tag, "Generated")
    assert.include(
      new GeneratedNoteNamed({ title: "Attention — Related Papers", source: "Attention" }).message,
      `name the concept note instead, e.g. "Attention"`
    )
    const missing = find(`"Atention"`, vault)
    assert.deepStrictEqual(missing._tag === "NotFound" ? missing.closest : [], ["Attention"])
  })
})
