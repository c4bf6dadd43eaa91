import { describe, expect, it } from "vitest"
import { decodeWav, encodeWav, isWav, resample, seconds, speechLikelihood, WavError } from "../../src/adapters/speech/wav.js"

const tone = (rate: number, secs: number, f: (t: number) => number): Float32Array =>
  Float32Array.from({ length: Math.round(rate * secs) }, (_, i) => f(i / rate))

/** A WAV file written by hand: 16-bit stereo at 44.1 kHz, left and right different. */
const stereo16 = (frames: number): Uint8Array => {
  const data = frames * 4
  const b = new Uint8Array(44 + data)
  const v = new DataView(b.buffer)
  const put = (at: number, s: string) => [...s].forEach((c, i) => v.setUint8(at + i, c.charCodeAt(0)))
  put(0, "RIFF"), v.setUint32(4, 36 + data, true), put(8, "WAVE"), put(12, "fmt "), v.setUint32(16, 16, true)
  v.setUint16(20, 1, true), v.setUint16(22, 2, true), v.setUint32(24, 44100, true), v.setUint32(28, 44100 * 4, true)
  v.setUint16(32, 4, true), v.setUint16(34, 16, true), put(36, "data"), v.setUint32(40, data, true)
  for (let i = 0; i < frames; i++) {
    v.setInt16(44 + i * 4, 16384, true)
    v.setInt16(46 + i * 4, -8192, true)
  }
  return b
}

describe("the pure-JS WAV reader", () => {
  it("reads 16-bit stereo, mixes it to mono and resamples it to 16 kHz", () => {
    const pcm = decodeWav(stereo16(44100))
    expect(pcm.rate).toBe(44100)
    expect(pcm.samples.length).toBe(44100)
    expect(pcm.samples[100]).toBeCloseTo((0.5 - 0.25) / 2, 4)
    const down = resample(pcm, 16000)
    expect(down.rate).toBe(16000)
    expect(Math.abs(down.samples.length - 16000)).toBeLessThanOrEqual(1)
    expect(seconds(down)).toBeCloseTo(1, 2)
  })

  it("round-trips what it writes", () => {
    const samples = tone(16000, 0.5, (t) => 0.5 * Math.sin(2 * Math.PI * 440 * t))
    const back = decodeWav(encodeWav({ samples, rate: 16000 }))
    expect(back.rate).toBe(16000)
    expect(back.samples.length).toBe(samples.length)
    expect(Math.max(...back.samples.map((s, i) => Math.abs(s - samples[i]!)))).toBeLessThan(1e-4)
  })

  it("says a cut-off file is cut off, and names an encoding it does not read", () => {
    const whole = stereo16(1000)
    expect(() => decodeWav(whole.subarray(0, 2000))).toThrow(/cut off \(the header announces 4000 bytes of audio, the file holds 1956\)/)
    expect(() => decodeWav(whole.subarray(0, 30))).toThrow(WavError)
    const alaw = Uint8Array.from(whole)
    new DataView(alaw.buffer).setUint16(20, 6, true)
    expect(() => decodeWav(alaw)).toThrow(/encoding 6 \(compressed\) audio is not supported; save it as 16-bit PCM WAV/)
    expect(isWav(new TextEncoder().encode("OggS\0\0\0\0\0\0\0\0"))).toBe(false)
  })

  it("reads a streamed WAV whose header carries no length (espeak-ng --stdout)", () => {
    const b = stereo16(500)
    new DataView(b.buffer).setUint32(40, 0x7ffff000, true)
    expect(decodeWav(b).samples.length).toBe(500)
  })

  it("tells speech-like loudness from silence and steady noise", () => {
    const rate = 16000
    const silence = speechLikelihood({ samples: new Float32Array(rate * 2), rate })
    // a steady hiss: pseudo-random at a constant level
    let seed = 1
    const hiss = speechLikelihood({
      samples: tone(rate, 2, () => ((seed = (seed * 48271) % 2147483647) / 2147483647 - 0.5) * 0.4),
      rate
    })
    // syllables: a tone switched on and off four times a second
    const syllables = speechLikelihood({ samples: tone(rate, 2, (t) => (Math.floor(t * 8) % 2 === 0 ? 0.3 * Math.sin(2 * Math.PI * 200 * t) : 0.001 * Math.sin(t * 3000))), rate })
    expect(silence.loudestDb).toBeLessThan(-100)
    expect(hiss.spreadDb).toBeLessThan(3)
    expect(syllables.spreadDb).toBeGreaterThan(30)
  })
})
