/**
 * WAV in pure JavaScript: read a RIFF/WAVE file (PCM 8/16/24/32-bit, IEEE
 * float 32/64, any channel count and rate), mix it to mono, resample it to
 * the recogniser's 16 kHz and write 16-bit PCM WAV back. Other formats go
 * through sox (see `audioInput.ts`).
 *
 * @since 0.1.0
 */

/** Mono samples in -1..1 at a sample rate. */
export interface Pcm {
  readonly samples: Float32Array
  readonly rate: number
}

/** Why a WAV file cannot be read, in words for the user. */
export class WavError extends Error {}

const ascii = (b: Uint8Array, at: number, n: number): string => String.fromCharCode(...b.subarray(at, at + n))

/** Whether the bytes start like a RIFF/WAVE (or RF64) file. */
export const isWav = (b: Uint8Array): boolean =>
  b.length >= 12 && (ascii(b, 0, 4) === "RIFF" || ascii(b, 0, 4) === "RF64") && ascii(b, 8, 4) === "WAVE"

/** Decode a WAV file to mono samples; a WavError says why it cannot be read (cut off, unsupported encoding). */
export const decodeWav = (b: Uint8Array): Pcm => {
  if (!isWav(b)) throw new WavError("it is not a WAV file")
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
  let at = 12
  let format: { tag: number; channels: number; rate: number; bits: number } | undefined
  while (at + 8 <= b.length) {
    const id = ascii(b, at, 4)
    const size = view.getUint32(at + 4, true)
    const body = at + 8
    if (id === "fmt ") {
      if (size < 16 || body + 16 > b.length) throw new WavError("its format header is cut off")
      let tag = view.getUint16(body, true)
      // WAVE_FORMAT_EXTENSIBLE: the real tag is the first two bytes of the sub-format GUID
      if (tag === 0xfffe && size >= 40 && body + 26 <= b.length) tag = view.getUint16(body + 24, true)
      format = { tag, channels: view.getUint16(body + 2, true), rate: view.getUint32(body + 4, true), bits: view.getUint16(body + 14, true) }
    } else if (id === "data") {
      if (format === undefined) throw new WavError("its data comes before its format header")
      // streaming writers (espeak-ng --stdout, sox to a pipe) cannot know the length: 0, 0xffffffff or ~0x7ffff000
      const declared = size === 0 || size >= 0x7fff0000 ? b.length - body : size
      if (body + declared > b.length) {
        throw new WavError(`it is cut off (the header announces ${declared} bytes of audio, the file holds ${b.length - body})`)
      }
      return toMono(view, body, declared, format)
    }
    at = body + size + (size % 2)
  }
  throw new WavError(format === undefined ? "it has no format header" : "it has no audio data")
}

const toMono = (
  view: DataView,
  start: number,
  length: number,
  f: { tag: number; channels: number; rate: number; bits: number }
): Pcm => {
  const { channels, bits, rate } = f
  if (channels < 1 || rate < 1000 || rate > 384000) throw new WavError(`its header is not valid (${channels} channels at ${rate} Hz)`)
  const bytes = bits / 8
  const read: ((o: number) => number) | undefined = f.tag === 1
    ? bits === 8
      ? (o) => (view.getUint8(o) - 128) / 128
      : bits === 16
      ? (o) => view.getInt16(o, true) / 32768
      : bits === 24
      ? (o) => ((view.getUint8(o) | (view.getUint8(o + 1) << 8) | (view.getInt8(o + 2) << 16)) / 8388608)
      : bits === 32
      ? (o) => view.getInt32(o, true) / 2147483648
      : undefined
    : f.tag === 3
    ? bits === 32 ? (o) => view.getFloat32(o, true) : bits === 64 ? (o) => view.getFloat64(o, true) : undefined
    : undefined
  if (read === undefined) {
    const what = f.tag === 1 ? `${bits}-bit PCM` : f.tag === 3 ? `${bits}-bit float` : `encoding ${f.tag} (compressed)`
    throw new WavError(`its ${what} audio is not supported; save it as 16-bit PCM WAV`)
  }
  const frame = bytes * channels
  const frames = Math.floor(length / frame)
  const samples = new Float32Array(frames)
  for (let i = 0; i < frames; i++) {
    let sum = 0
    for (let c = 0; c < channels; c++) sum += read(start + i * frame + c * bytes)
    samples[i] = sum / channels
  }
  return { samples, rate }
}

/** Resample to `rate` (linear interpolation after a box low-pass when shrinking). */
export const resample = (pcm: Pcm, rate: number): Pcm => {
  if (pcm.rate === rate) return pcm
  const ratio = pcm.rate / rate
  const src = ratio > 1 ? boxFilter(pcm.samples, Math.round(ratio)) : pcm.samples
  const n = Math.floor(src.length / ratio)
  const out = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    const x = i * ratio
    const j = Math.floor(x)
    const frac = x - j
    out[i] = (src[j] ?? 0) * (1 - frac) + (src[j + 1] ?? src[j] ?? 0) * frac
  }
  return { samples: out, rate }
}

const boxFilter = (s: Float32Array, width: number): Float32Array => {
  if (width <= 1) return s
  const out = new Float32Array(s.length)
  let acc = 0
  for (let i = 0; i < s.length; i++) {
    acc += s[i]!
    if (i >= width) acc -= s[i - width]!
    out[i] = acc / Math.min(i + 1, width)
  }
  return out
}

/** 16-bit little-endian PCM bytes of mono samples (no header). */
export const pcm16 = (pcm: Pcm): Uint8Array => {
  const out = new Uint8Array(pcm.samples.length * 2)
  const view = new DataView(out.buffer)
  pcm.samples.forEach((v, i) => view.setInt16(i * 2, Math.max(-32768, Math.min(32767, Math.round(v * 32767))), true))
  return out
}

/** A 16-bit PCM mono WAV file of the samples. */
export const encodeWav = (pcm: Pcm): Uint8Array => {
  const data = pcm16(pcm)
  const out = new Uint8Array(44 + data.length)
  const view = new DataView(out.buffer)
  const put = (at: number, s: string) => [...s].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)))
  put(0, "RIFF")
  view.setUint32(4, 36 + data.length, true)
  put(8, "WAVE")
  put(12, "fmt ")
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true)
  view.setUint16(22, 1, true)
  view.setUint32(24, pcm.rate, true)
  view.setUint32(28, pcm.rate * 2, true)
  view.setUint16(32, 2, true)
  view.setUint16(34, 16, true)
  put(36, "data")
  view.setUint32(40, data.length, true)
  out.set(data, 44)
  return out
}

/** Seconds of audio. */
export const seconds = (pcm: Pcm): number => pcm.samples.length / pcm.rate

/**
 * Whether the audio holds anything that could be speech: some 20 ms frame
 * louder than -45 dBFS, and frame loudness that varies as syllables do
 * (steady hiss or hum does not). Measured on espeak-ng and the recorded
 * test speech (`test/speech/wav.test.ts`).
 */
export const speechLikelihood = (pcm: Pcm): { readonly loudestDb: number; readonly spreadDb: number } => {
  const frame = Math.max(1, Math.round(pcm.rate * 0.02))
  const dbs: Array<number> = []
  for (let at = 0; at + frame <= pcm.samples.length; at += frame) {
    let sum = 0
    for (let i = at; i < at + frame; i++) sum += pcm.samples[i]! * pcm.samples[i]!
    dbs.push(10 * Math.log10(sum / frame + 1e-12))
  }
  if (dbs.length === 0) return { loudestDb: -120, spreadDb: 0 }
  const sorted = [...dbs].sort((a, b) => a - b)
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
  return { loudestDb: sorted[sorted.length - 1]!, spreadDb: q(0.9) - q(0.1) }
}
