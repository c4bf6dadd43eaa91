/**
 * `arxiv-companion ask --audio` as a user runs it (the built CLI, offline):
 * espeak-ng reads a question to a WAV file, pocketsphinx hears it, the answer
 * is printed after "Heard: …" and spoken to a file; bad audio is one line on
 * stderr and nothing else runs. Needs Debian's espeak-ng, pocketsphinx,
 * pocketsphinx-en-us and sox (skipped locally with a message when missing;
 * CI fails instead).
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { decodeWav, encodeWav, seconds } from "../../src/adapters/speech/wav.js"
import { runCli } from "../support/cli.js"
import { speechAvailable } from "../support/speech.js"

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "arxiv-companion-voice-cli-"))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const say = (text: string, file: string): string => {
  const path = join(dir, file)
  execFileSync("espeak-ng", ["-v", "en-us", "-w", path, text])
  return path
}

describe.skipIf(!speechAvailable("the CLI voice tests"))("ask --audio, offline", () => {
  it("prints what it heard first, answers it as a typed question, and writes the spoken answer", async () => {
    const question = say("how does dropout prevent overfitting in neural networks", "question.wav")
    const answer = join(dir, "answer.wav")
    const r = await runCli(["ask", "--offline", "--top", "2", "--audio", question, "--speak-to", answer])
    expect(r.stderr).toContain(`Wrote the spoken answer to ${answer}`)
    expect(r.code).toBe(0)
    const lines = r.stdout.split("\n")
    expect(lines[0]).toMatch(/^Heard: .*overfitting/)
    const heard = lines[0]!.slice("Heard: ".length)
    expect(lines[1]).toBe(`Question: ${heard}`)
    expect(r.stdout).toMatch(/^1\. .+\(\d{4}-\d\d-\d\d\)$/m)
    const spoken = decodeWav(readFileSync(answer))
    expect(seconds(spoken)).toBeGreaterThan(5)
  }, 180_000)

  it("gives the transcript inside the JSON document with --json", async () => {
    const question = say("attention mechanisms for neural machine translation", "attention.wav")
    const r = await runCli(["ask", "--offline", "--json", "--top", "1", "--audio", question])
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout) as { heard: { text: string; engine: string; seconds: number; language: string }; question: string; papers: Array<unknown> }
    expect(doc.heard.text).toBe(doc.question)
    expect(doc.heard.text).toMatch(/translation/)
    expect(doc.heard.language).toBe("en")
    expect(doc.heard.seconds).toBeGreaterThan(2)
    expect(doc.papers).toHaveLength(1)
  }, 180_000)

  it("answers bad audio with one line on stderr and runs nothing else", async () => {
    const silence = join(dir, "silence.wav")
    writeFileSync(silence, encodeWav({ samples: new Float32Array(Math.round(16000 * 3.2)), rate: 16000 }))
    const speech = readFileSync(say("semantic segmentation with fully convolutional networks", "seg.wav"))
    const cut = join(dir, "cut.wav")
    writeFileSync(cut, speech.subarray(0, 3000))
    const text = join(dir, "question.txt")
    writeFileSync(text, "how does dropout work")
    const big = join(dir, "big.wav")
    writeFileSync(big, new Uint8Array(2_600_000))
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["--audio", silence], "Heard nothing in silence.wav (3.2 s of audio, only silence): speak closer to the microphone or type the question"],
      [["--audio", cut], "Cannot use cut.wav: it is cut off (the header announces"],
      [["--audio", text], "Cannot use question.txt: it is not audio in a format read here (WAV, Ogg, FLAC, AIFF or MP3): save the recording as WAV"],
      [["--audio", big], "Cannot use big.wav: it is 2,600,000 bytes, over the 2,500,000-byte limit for a spoken question: record a shorter question"],
      [["--audio", join(dir, "missing.wav")], `Cannot use missing.wav: there is no file ${join(dir, "missing.wav")}: check the path`],
      [["what is dropout", "--audio", silence], "Invalid question: give a typed question or --audio FILE, not both"],
      [[], "Invalid question: type a research question, or give a recording of one with --audio FILE"]
    ]
    for (const [args, message] of cases) {
      const r = await runCli(["ask", "--offline", ...args])
      expect(r.code, args.join(" ")).toBe(1)
      expect(r.stdout, args.join(" ")).toBe("")
      expect(r.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1)
      expect(r.stderr.trim().startsWith(message), `${r.stderr} should start with ${message}`).toBe(true)
    }
  }, 180_000)

  it("never writes the spoken answer over an existing file, and checks that before anything runs", async () => {
    const question = say("variational autoencoders", "vae.wav")
    const mine = join(dir, "mine.wav")
    writeFileSync(mine, "my own recording")
    const before = statSync(mine).mtimeMs
    const r = await runCli(["ask", "--offline", "--audio", question, "--speak-to", mine])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr.trim()).toBe(`Cannot use ${mine}: the file exists: choose another name for the spoken answer or remove it`)
    expect(readFileSync(mine, "utf8")).toBe("my own recording")
    expect(statSync(mine).mtimeMs).toBe(before)
  }, 60_000)
})
