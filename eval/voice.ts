/**
 * `npm run eval:voice` — asking by voice, offline, measured:
 *
 * - espeak-ng (en-us) reads the first 10 questions of the ask tuning set
 *   (eval/ask/questions.jsonl) to WAV; the offline recogniser (pocketsphinx,
 *   its US-English acoustic model) hears them with the field's language model
 *   (data/speech/, the default) and, for comparison, with pocketsphinx's
 *   general US-English language model and dictionary;
 * - `ask` (its use case, offline: the recorded corpus, the local judge)
 *   answers each transcript and the typed question: how many of the typed
 *   question's top 3 the heard question's top 3 keeps, and how many of the
 *   expected landmarks each finds in its top 3;
 * - recorded human speech, reported apart: Debian's pocketsphinx-testdata
 *   (LibriVox readings of Sense and Sensibility, and spoken playing cards;
 *   BSD-2), with both language models.
 *
 * Word error rate = (substitutions + deletions + insertions) / reference
 * words, over all words of a set; intervals are 95% bootstrap intervals over
 * utterances (5,000 draws, fixed seed). The questions are tuning questions:
 * the field's model was built without them (from the corpus's titles and
 * abstracts and question frames with no concept words); the one setting
 * chosen by listening (the dither floor, audioInput.ts) was chosen on the
 * dropout question's reading. The held-out questions are not read.
 * `--json` prints the rows.
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Pocketsphinx from "../src/adapters/speech/PocketsphinxSpeechToText.js"
import { SpeechToTextPort } from "../src/core/ports/SpeechToTextPort.js"
import { werWords, wordErrors } from "../src/core/speech.js"
import { askLayer } from "../src/layers.js"
import { askArxivTool } from "../src/tools/ask.js"
import { repoRoot } from "./retrieval-data.js"

const QUESTIONS = 10
const TESTDATA = "/usr/share/pocketsphinx/test/data"
const MODEL = Pocketsphinx.DEBIAN_MODEL_DIR
const json = process.argv.includes("--json")

interface Question {
  readonly question: string
  readonly expected: ReadonlyArray<string>
}

const questions: ReadonlyArray<Question> = readFileSync(join(repoRoot, "eval", "ask", "questions.jsonl"), "utf8")
  .split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Question).slice(0, QUESTIONS)

const recognisers = {
  field: Pocketsphinx.layer(),
  general: Pocketsphinx.layer({ languageModel: `${MODEL}/en-us.lm.bin`, dictionary: `${MODEL}/cmudict-en-us.dict` })
} as const

const hear = (engine: keyof typeof recognisers, bytes: Uint8Array, name: string) =>
  SpeechToTextPort.pipe(
    Effect.flatMap((s) => s.transcribe({ bytes, name })),
    Effect.map((t) => t.text),
    // nothing heard counts as every word missed
    Effect.catchTag("NothingHeard", () => Effect.succeed("")),
    Effect.provide(recognisers[engine]),
    Effect.provide(NodeContext.layer)
  )

const errorsOf = (reference: string, heard: string) => {
  const ref = werWords(reference)
  return { errors: wordErrors(ref, werWords(heard)), words: ref.length }
}

/** 95% bootstrap interval of a word error rate (sum of errors / sum of words) over utterances, fixed seed. */
const werInterval = (rows: ReadonlyArray<{ errors: number; words: number }>, seed = 29): readonly [number, number] => {
  let s = seed >>> 0
  const random = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
  const rates: Array<number> = []
  for (let k = 0; k < 5000; k++) {
    let e = 0
    let w = 0
    for (let i = 0; i < rows.length; i++) {
      const r = rows[Math.floor(random() * rows.length)]!
      e += r.errors
      w += r.words
    }
    rates.push(e / Math.max(1, w))
  }
  rates.sort((a, b) => a - b)
  return [rates[125]!, rates[4874]!]
}
const meanInterval = (xs: ReadonlyArray<number>, seed = 31): readonly [number, number] => {
  let s = seed >>> 0
  const random = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
  const means: Array<number> = []
  for (let k = 0; k < 5000; k++) {
    let t = 0
    for (let i = 0; i < xs.length; i++) t += xs[Math.floor(random() * xs.length)]!
    means.push(t / xs.length)
  }
  means.sort((a, b) => a - b)
  return [means[125]!, means[4874]!]
}
const wer = (rows: ReadonlyArray<{ errors: number; words: number }>) => rows.reduce((t, r) => t + r.errors, 0) / rows.reduce((t, r) => t + r.words, 0)
const pct = (x: number) => `${(100 * x).toFixed(0)} %`
const werLine = (rows: ReadonlyArray<{ errors: number; words: number }>) => {
  const [lo, hi] = werInterval(rows)
  return `${pct(wer(rows))} (${pct(lo)}–${pct(hi)})`
}

const top3 = (question: string) =>
  askArxivTool({ question, top: 3 }).pipe(
    Effect.map((r) => r.papers.map((p) => p.arxiv_id)),
    // a transcript with no concept word left gets no answer: it keeps none of the typed top 3
    Effect.catchTag("NotEnoughInformation", () => Effect.succeed<ReadonlyArray<string>>([]))
  )

const main = Effect.gen(function*() {
  const dir = mkdtempSync(join(tmpdir(), "arxiv-companion-eval-voice-"))
  try {
    const rows = []
    for (const q of questions) {
      const wav = join(dir, "q.wav")
      execFileSync("espeak-ng", ["-v", "en-us", "-w", wav, q.question])
      const bytes = readFileSync(wav)
      const field = yield* hear("field", bytes, "q.wav")
      const general = yield* hear("general", bytes, "q.wav")
      const typed = yield* top3(q.question)
      const heard = field === "" ? [] : yield* top3(field)
      rows.push({
        question: q.question,
        field,
        general,
        fieldErrors: errorsOf(q.question, field),
        generalErrors: errorsOf(q.question, general),
        kept: typed.filter((id) => heard.includes(id)).length / Math.max(1, typed.length),
        sameTop3: typed.length > 0 && typed.every((id) => heard.includes(id)),
        landmarksTyped: q.expected.filter((id) => typed.includes(id)).length / q.expected.length,
        landmarksHeard: q.expected.filter((id) => heard.includes(id)).length / q.expected.length
      })
    }
    const recorded = []
    for (const [set, transcription] of [["librivox", "librivox/transcription"], ["cards", "cards/cards.transcription"]] as const) {
      const file = join(TESTDATA, transcription)
      if (!existsSync(file)) continue
      for (const line of readFileSync(file, "utf8").split("\n")) {
        const m = /^<s>\s*(.*?)\s*<\/s>\s*\((\S+)\)/.exec(line)
        if (m === null) continue
        const bytes = readFileSync(join(TESTDATA, set, `${m[2]}.wav`))
        const field = yield* hear("field", bytes, `${m[2]}.wav`)
        const general = yield* hear("general", bytes, `${m[2]}.wav`)
        recorded.push({ set, reference: m[1]!, field, general, fieldErrors: errorsOf(m[1]!, field), generalErrors: errorsOf(m[1]!, general) })
      }
    }
    return { rows, recorded }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}).pipe(Effect.provide(askLayer({ offline: true })))

const { rows, recorded } = await Effect.runPromise(main)
if (json) {
  console.log(JSON.stringify({ rows, recorded }, null, 2))
} else {
  console.log(`espeak-ng reading ${rows.length} tuning questions (eval/ask/questions.jsonl), heard by pocketsphinx offline:\n`)
  for (const r of rows) {
    console.log(`  said:    ${r.question}`)
    console.log(`  field:   ${r.field}   (${r.fieldErrors.errors}/${r.fieldErrors.words} errors; typed top 3 kept ${Math.round(r.kept * 3)}/3)`)
    console.log(`  general: ${r.general}   (${r.generalErrors.errors}/${r.generalErrors.words} errors)\n`)
  }
  const kept = rows.map((r) => r.kept)
  const [klo, khi] = meanInterval(kept)
  console.log(`Word error rate, field language model:   ${werLine(rows.map((r) => r.fieldErrors))}`)
  console.log(`Word error rate, general language model: ${werLine(rows.map((r) => r.generalErrors))}`)
  console.log(`Typed question's top 3 kept by the heard question's top 3: ${pct(kept.reduce((a, b) => a + b, 0) / kept.length)} (${pct(klo)}–${pct(khi)}); the same top 3 for ${rows.filter((r) => r.sameTop3).length} of ${rows.length} questions`)
  const lt = rows.map((r) => r.landmarksTyped)
  const lh = rows.map((r) => r.landmarksHeard)
  const [tlo, thi] = meanInterval(lt)
  const [hlo, hhi] = meanInterval(lh)
  console.log(`Landmarks in the top 3: typed ${pct(lt.reduce((a, b) => a + b, 0) / lt.length)} (${pct(tlo)}–${pct(thi)}), heard ${pct(lh.reduce((a, b) => a + b, 0) / lh.length)} (${pct(hlo)}–${pct(hhi)})`)
  if (recorded.length > 0) {
    console.log(`\nRecorded human speech (pocketsphinx-testdata: LibriVox, playing cards; not research questions), ${recorded.length} utterances:`)
    for (const set of ["librivox", "cards"]) {
      const rs = recorded.filter((r) => r.set === set)
      if (rs.length === 0) continue
      console.log(`  ${set} (${rs.length}): field model ${werLine(rs.map((r) => r.fieldErrors))}, general model ${werLine(rs.map((r) => r.generalErrors))}`)
    }
  } else {
    console.log("\nNo recorded speech here (apt-get install pocketsphinx-testdata).")
  }
}
