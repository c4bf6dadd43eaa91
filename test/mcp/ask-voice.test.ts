/**
 * ask_arxiv by voice through the real SDK Client (InMemoryTransport), offline:
 * a spoken question as a base64 data URL is heard by pocketsphinx and answered
 * (its `question` is the transcript); `speak` adds an MCP audio content block
 * that decodes; bad audio is a one-line tool error. Needs Debian's espeak-ng,
 * pocketsphinx, pocketsphinx-en-us and sox (test/support/speech.ts).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { decodeWav, seconds } from "../../src/adapters/speech/wav.js"
import { allPortsLayer } from "../../src/layers.js"
import { speechAvailable } from "../support/speech.js"
import { type Connected, connect, tempVault } from "./support.js"

let connected: Connected
let client: Client
let dir: string

describe.skipIf(!speechAvailable("the MCP voice tests"))("ask_arxiv by voice", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "arxiv-companion-voice-mcp-"))
    connected = await connect(allPortsLayer({ offline: true, vault: tempVault(), judge: "local" }))
    client = connected.client
  })
  afterAll(async () => {
    await connected.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const spoken = (text: string): string => {
    const file = join(dir, "q.wav")
    execFileSync("espeak-ng", ["-v", "en-us", "-w", file, text])
    return `data:audio/wav;base64,${readFileSync(file).toString("base64")}`
  }

  it("hears a spoken question, answers the transcript, and reads the answer aloud as an audio block", async () => {
    const result = await client.callTool({ name: "ask_arxiv", arguments: { audio: spoken("attention mechanisms for neural machine translation"), top: 2, speak: true } }) as CallToolResult
    assert.notStrictEqual(result.isError, true, JSON.stringify(result.content))
    const structured = result.structuredContent as { question: string; papers: Array<{ title: string }> }
    assert.match(structured.question, /machine translation/)
    assert.lengthOf(structured.papers, 2)
    const [textBlock, audioBlock] = result.content as [{ type: string; text: string }, { type: string; data: string; mimeType: string }]
    assert.strictEqual(textBlock.type, "text")
    assert.include(textBlock.text, `Question: ${structured.question}`)
    assert.strictEqual(audioBlock.type, "audio")
    assert.strictEqual(audioBlock.mimeType, "audio/wav")
    assert.isAbove(seconds(decodeWav(Buffer.from(audioBlock.data, "base64"))), 3)
  }, 180_000)

  it("refuses silence, a payload that is no data URL, too much audio, and question with audio, in one line each", async () => {
    const silence = Buffer.alloc(44 + 32000)
    silence.write("RIFF", 0), silence.writeUInt32LE(36 + 32000, 4), silence.write("WAVE", 8), silence.write("fmt ", 12)
    silence.writeUInt32LE(16, 16), silence.writeUInt16LE(1, 20), silence.writeUInt16LE(1, 22), silence.writeUInt32LE(16000, 24)
    silence.writeUInt32LE(32000, 28), silence.writeUInt16LE(2, 32), silence.writeUInt16LE(16, 34), silence.write("data", 36), silence.writeUInt32LE(32000, 40)
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [{ audio: `data:audio/wav;base64,${silence.toString("base64")}` }, "Heard nothing in the audio argument (1.0 s of audio, only silence): speak closer to the microphone or type the question"],
      [{ audio: "UklGRiQAAABXQVZF" }, "Cannot use the audio argument: it is not a base64 data URL: send data:audio/wav;base64,… (or audio/ogg, audio/flac)"],
      [{ audio: `data:audio/wav;base64,${"A".repeat(3_400_000)}` }, "Cannot use the audio argument: it is over the 2,500,000-byte limit for a spoken question: record a shorter question"],
      [{ question: "what is dropout", audio: `data:audio/wav;base64,${silence.toString("base64")}` }, "Invalid question: give question or audio, not both"]
    ]
    for (const [args, message] of cases) {
      const result = await client.callTool({ name: "ask_arxiv", arguments: args }) as CallToolResult
      assert.strictEqual(result.isError, true)
      const text = (result.content[0] as { text: string }).text
      assert.include(text, message)
      assert.notInclude(text, "\n")
    }
  }, 120_000)
})
