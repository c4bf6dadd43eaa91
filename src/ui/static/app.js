// The page of `arxiv-companion ui`: plain DOM, no framework. Every text from
// the server is set with textContent; the only markup inserted is the SVG
// Mermaid draws in strict mode.

const $ = (id) => document.getElementById(id)
// the printed address carries the token in its query (so the first HTML can hold the note list);
// it moves to the fragment at once, which the browser never sends, for reloads and the history
const token = new URLSearchParams(location.search).get("token") ?? new URLSearchParams(location.hash.slice(1)).get("token") ?? ""
if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", `/#token=${token}`)
/** What the server put in the first HTML (the mode and the note list), when it did. */
const boot = (() => {
  try {
    return JSON.parse(document.getElementById("boot")?.textContent ?? "null")
  } catch {
    return null
  }
})()

/** A labelled element with text. */
const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null) continue
    if (k === "text") node.textContent = v
    else if (k in node && typeof v !== "string") node[k] = v
    else node.setAttribute(k, v)
  }
  for (const c of children) if (c !== undefined && c !== null) node.append(c)
  return node
}

/** A refusal or a typed error from the server: its tag and its one-line message. */
class ApiError extends Error {
  constructor(message, tag) {
    super(message)
    this.tag = tag
  }
}

/** One line: the page shows every message as a sentence, never a block. */
const oneLine = (text) => String(text).replace(/\s+/g, " ").trim()

/** Call the API with the token; a refusal or a typed error becomes its message. */
const api = async (path, body) => {
  const response = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const data = await response.json().catch(() => ({}))
  if (!response.ok) throw new ApiError(data?.error?.message ?? `The server answered ${response.status}.`, data?.error?.tag)
  return data
}

/**
 * Keep the keyboard's place: when the focused control was hidden or disabled
 * (a button a run disables, Cancel once the run ends), focus moves to
 * `target` instead of falling back to the top of the page.
 */
const rescueFocus = (target) => {
  const active = document.activeElement
  const lost = active === null || active === document.body || active.disabled === true || active.offsetParent === null
  if (lost && target !== undefined && !target.hidden) target.focus()
}

let info = { mermaid: false }
/** Whether this browser can record: a microphone API and MediaRecorder (a page on 127.0.0.1 is a secure context). */
const canRecord = typeof navigator.mediaDevices?.getUserMedia === "function" && typeof MediaRecorder === "function"
let current // { id, controller }
let result // the last result view and its run id

const setBusy = (busy) => {
  for (const id of ["find", "ask", "digest"]) $(id).disabled = busy || token === ""
  $("mic").disabled = busy || token === "" || !canRecord
  $("cancel").hidden = !busy
}

/** Show one error line (or clear it); a keyboard user who lost their place lands on it. */
const showError = (message) => {
  $("error").hidden = message === undefined
  $("error").textContent = message === undefined ? "" : oneLine(message)
  if (message !== undefined) rescueFocus($("error"))
}

// ---- notes: a search box over the vault's titles

let searchTimer
let searchSeq = 0
const loadNotes = async () => {
  const q = $("note-search").value
  const seq = ++searchSeq
  try {
    const { notes, total } = await api(`/api/notes?q=${encodeURIComponent(q)}`)
    if (seq !== searchSeq) return // a later search answered first or is on its way
    const radios = [...document.querySelectorAll("input[name=note]")]
    const chosen = radios.find((r) => r.checked)?.value
    const list = $("note-list")
    const same = radios.length === notes.length && radios.every((r, i) => r.value === notes[i].title)
    if (!same) {
      // the keyboard stays on the note it was on, when that note is still listed
      const focusedTitle = radios.find((r) => r === document.activeElement)?.value
      list.replaceChildren(...notes.map((n, i) => {
        const input = el("input", { type: "radio", name: "note", value: n.title, id: `note-${i}` })
        if (n.title === chosen || notes.length === 1) input.checked = true
        return el("li", {}, el("label", { for: `note-${i}` }, input, el("span", { text: n.title })))
      }))
      if (focusedTitle !== undefined) {
        const again = [...list.querySelectorAll("input[name=note]")].find((r) => r.value === focusedTitle)
        ;(again ?? $("note-search")).focus()
      }
    }
    $("note-count").textContent = total === 0
      ? (q === "" ? "The vault has no notes." : "No note title matches.")
      : total > notes.length
      ? `${total} notes match; the first ${notes.length} are listed.`
      : `${total} note${total === 1 ? "" : "s"}.`
  } catch (e) {
    $("note-count").textContent = e.message
  }
}

// ---- runs: progress as server-sent events over one streamed response

const addProgress = (text) => {
  $("progress").append(el("li", { text }))
  // on a wide screen the log is a short scrolling box: keep its newest line in view
  $("progress").scrollTop = $("progress").scrollHeight
}

const handle = (event) => {
  switch (event.type) {
    case "started":
      current.id = event.id
      performance.mark("first-progress")
      addProgress(event.text)
      break
    case "heard":
      $("voice-status").textContent = `Heard: ${event.text}`
      addProgress(`Heard (${event.seconds} s of audio): ${event.text}`)
      break
    case "progress":
      if (performance.getEntriesByName("first-step").length === 0) performance.mark("first-step")
      addProgress(event.text)
      break
    case "result":
      performance.mark("result")
      $("run-status").textContent = "Done."
      render(event.id, event.view)
      break
    case "failure":
      $("run-status").textContent = "Stopped."
      showError(event.message)
      break
    case "cancelled":
      $("run-status").textContent = "Cancelled."
      break
  }
}

const run = async (body, path = "/api/runs") => {
  if (current !== undefined) return
  performance.clearMarks()
  performance.mark("run-click")
  showError(undefined)
  $("progress").replaceChildren()
  $("run-status").textContent = "Working…"
  $("run").hidden = false
  $("results").hidden = true
  current = { id: undefined, controller: new AbortController() }
  const origin = body.kind === "note" ? $("find") : body.kind === "digest" ? $("digest") : body.kind === "voice" ? $("mic") : $("ask")
  setBusy(true)
  // the button pressed is now disabled: Cancel takes the focus
  rescueFocus($("cancel"))
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: current.controller.signal
    })
    if (!response.ok) {
      const data = await response.json().catch(() => ({}))
      throw new ApiError(data?.error?.message ?? `The server answered ${response.status}.`, data?.error?.tag)
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ""
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += value
      let end
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = frame.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n")
        if (data !== "") handle(JSON.parse(data))
      }
    }
  } catch (e) {
    if (e.name === "AbortError") $("run-status").textContent = "Cancelled."
    else {
      $("run-status").textContent = "Stopped."
      showError(e instanceof ApiError ? e.message : `The connection to the server was lost (${e.message}). Is arxiv-companion ui still running?`)
    }
  } finally {
    current = undefined
    setBusy(false)
    // Cancel is hidden now: back to the button that started the run
    rescueFocus(origin)
  }
}

const cancel = async () => {
  if (current === undefined) return
  $("run-status").textContent = "Cancelling…"
  if (current.id === undefined) return current.controller.abort()
  try {
    await api(`/api/runs/${encodeURIComponent(current.id)}/cancel`, {})
  } catch {
    current?.controller.abort()
  }
}

// ---- results as cards

/** "1st", "2nd", "3rd", "11th" (as the CLI and the note say a place). */
const ordinalOf = (n) => {
  const tens = n % 100
  const suffix = tens >= 11 && tens <= 13 ? "th" : n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th"
  return `${n}${suffix}`
}

const authorsLine = (authors) =>
  authors.length <= 4 ? authors.join(", ") : `${authors.slice(0, 3).join(", ")} et al.`

const link = (href, text, label) => el("a", { href, text, target: "_blank", rel: "noopener noreferrer", "aria-label": label })

const card = (p, i) => {
  const titleId = `paper-${i}`
  const rows = p.place === undefined ? [] : [["Place", p.place]]
  rows.push(["Relevance", p.relevance.toFixed(2)])
  if (p.novelty !== undefined) rows.push(["Novelty", p.novelty.toFixed(2)])
  if (p.foundBy !== undefined) rows.push(["Found by", p.foundBy])
  if (p.impact !== undefined) {
    const source = p.impact.source === undefined ? "" : ` — ${p.impact.source}`
    rows.push(["Impact", `${p.impact.text}${source}`])
  }
  const dl = el("dl", {}, ...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]))
  const parts = [
    el("h3", { id: titleId }, link(p.links.abs, p.title)),
    el("p", { class: "meta", text: `${authorsLine(p.authors)} · ${p.year ?? "year unknown"} · arXiv:${p.arxivId}` }),
    dl
  ]
  if (p.summary !== undefined) parts.push(el("p", { class: "summary", text: p.summary }))
  parts.push(el("p", { class: "rationale", text: p.rationale }))
  if (p.foundations !== undefined) {
    parts.push(el("p", { class: "foundations-title", text: p.foundations.text }))
    if (p.foundations.works.length > 0) {
      parts.push(el("ul", { class: "foundations" }, ...p.foundations.works.map((w) =>
        el("li", { text: `${w.title}${w.year === undefined ? "" : ` (${w.year})`} — cited ${w.citedByCount.toLocaleString("en")} times` })
      )))
    }
  }
  const links = el("p", { class: "links" },
    link(p.links.abs, "arXiv", `arXiv page of ${p.title}`),
    link(p.links.pdf, "PDF", `PDF of ${p.title}`),
    p.links.doi === undefined ? undefined : link(p.links.doi, "DOI", `DOI of ${p.title}`))
  const bib = el("button", { type: "button", class: "secondary", text: "Copy BibTeX", "aria-label": `Copy BibTeX for ${p.title}` })
  bib.addEventListener("click", () => copyBibtex([p.arxivId]))
  parts.push(el("div", { class: "row" }, links, bib))
  return el("article", { class: "card", "aria-labelledby": titleId }, ...parts)
}

/** A digest: per concept note its new papers, then the notes with nothing new and those not searched. */
const renderDigest = (view) => {
  const withNew = view.notes.filter((n) => n.papers.length > 0)
  const nothing = view.notes.filter((n) => n.papers.length === 0)
  $("summary").textContent = `${view.status === "unchanged" ? "Unchanged" : "Wrote"} ${view.digest_note}: ` +
    `${view.notes_covered} concept notes searched, ${view.new_papers} new paper${view.new_papers === 1 ? "" : "s"}` +
    `${view.resumed > 0 ? ` (${view.resumed} notes resumed)` : ""}.${view.notice === null ? "" : ` ${view.notice}`}`
  const sections = withNew.map((n, i) =>
    el("section", { class: "card digest-note", "aria-labelledby": `digest-note-${i}` },
      el("h3", { id: `digest-note-${i}`, text: n.title }),
      el("p", { class: "meta", text: `Since ${n.since} · ${n.candidates} judged · ${n.papers.length} new` }),
      el("ul", {}, ...n.papers.map((p) =>
        el("li", {},
          link(`https://arxiv.org/abs/${p.arxiv_id}`, p.title, `arXiv page of ${p.title}`),
          el("span", { class: "meta", text: ` · arXiv:${p.arxiv_id} · ${p.published} · relevance ${p.relevance.toFixed(2)}` })
        )
      ))
    )
  )
  if (nothing.length > 0) sections.push(el("p", { class: "digest-nothing", text: `Nothing new: ${nothing.map((n) => n.title).join(", ")}` }))
  if (view.not_searched.length > 0) {
    sections.push(el("p", { class: "hint", text: "Not searched:" }))
    sections.push(el("ul", { class: "digest-skipped" }, ...view.not_searched.map((s) => el("li", { text: `${s.note}: ${s.reason}` }))))
  }
  $("cards").replaceChildren(...sections)
  $("action-status").textContent = ""
  $("bibtex-text").hidden = $("bibtex-label").hidden = true
  $("bibtex-all").hidden = true
  $("write").hidden = true
  $("dropped-box").hidden = true
  $("map-box").hidden = true
  $("results").hidden = false
  $("results-title").focus()
}

/** Text in the note's language, marked so (a screen reader reads it in that language). */
const inLanguage = (code, text) => el("span", { lang: code, text })

/**
 * How a note in another language was read, as the CLI and the note say it: the detected language, who read it
 * (the offline glossary or a model), the English terms and the words that had no English reading.
 */
const renderLanguage = (language) => {
  const box = $("language")
  box.hidden = language === undefined
  if (language === undefined) return
  $("language-line").textContent = language.line
  const facts = [
    ["Detected", [language.detected]],
    ["Read", [language.reader.text]]
  ]
  if (language.terms.length > 0) {
    facts.push(["English terms", language.terms.flatMap((t, i) => [
      ...(i === 0 ? [] : ["; "]),
      ...(t.via === "model" ? [] : [inLanguage(language.code, t.source), " → "]),
      t.english,
      t.via === "model" ? "" : ` (${t.via})`
    ])])
  }
  facts.push([
    "No English reading",
    language.unread.length === 0
      ? [language.reader.kind === "model" ? "— (the model read the whole note)" : "none"]
      : language.unread.flatMap((w, i) => [...(i === 0 ? [] : [", "]), inLanguage(language.code, w)])
  ])
  $("language-facts").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", {}, ...v)]))
  $("language-notes").replaceChildren(...language.notes.map((n) => el("li", { text: oneLine(n) })))
}

const render = (id, view) => {
  result = { id, view }
  $("heard").hidden = view.heard === undefined
  $("heard").textContent = view.heard === undefined ? "" : `Heard: ${view.heard.text}`
  $("read-aloud").hidden = view.kind !== "ask"
  $("read-aloud").disabled = false
  resetSpoken()
  renderLanguage(view.kind === "note" ? view.language : undefined)
  if (view.kind === "digest") return renderDigest(view)
  const n = view.papers.length
  const named = view.kind === "note" && view.alreadyInNote.length > 0
    ? ` Already in your note, so not suggested again: ${view.alreadyInNote.map((p) => p.title).join("; ")}.`
    : ""
  const unrecorded = view.kind === "note" && view.unrecorded.length > 0
    ? ` Relevant, impact not recorded (their relevance places them among the kept; no citation count to check): ${
      view.unrecorded.map((p) => `${p.title} (arXiv:${p.arxivId}, relevance ${p.relevance.toFixed(2)}${p.inPlaces ? ", takes a place" : ""})`).join("; ")
    }.`
    : view.kind === "ask" && view.unrecorded.length > 0
    ? ` Relevant, impact not recorded (by relevance among the top; no citation count to check, so a paper as relevant with a count came first): ${
      view.unrecorded.map((p) => `${p.title} (arXiv:${p.arxivId}, relevance ${p.relevance.toFixed(2)}, by relevance ${ordinalOf(p.place)})`).join("; ")
    }.`
    : ""
  $("summary").textContent = view.kind === "note"
    ? `${n} of ${view.candidates} candidates kept for “${view.note.title}”: ${view.counts}.${unrecorded} Keywords: ${view.keywords.join(", ")}.${named}`
    : `${n} paper${n === 1 ? "" : "s"} for “${view.question}” (${view.candidates} of ${view.total} matches re-ranked by ${view.judge}). arXiv query: ${view.query}${view.message === undefined ? "" : `. ${view.message}`}${unrecorded}`
  // a relevant paper without a recorded count that takes a place comes right after the kept, as a card of its own
  $("cards").replaceChildren(...[...view.papers, ...(view.kind === "note" ? view.placed : [])].map(card))
  $("action-status").textContent = ""
  $("bibtex-text").hidden = $("bibtex-label").hidden = true
  $("bibtex-all").hidden = n === 0
  const write = $("write")
  write.hidden = view.kind !== "note"
  if (view.kind === "note") {
    write.disabled = !view.write.pending
    write.textContent = view.write.pending
      ? `Write “${view.write.path}” to the vault`
      : `Already up to date: ${view.write.path}`
  }
  const dropped = view.kind === "note" ? view.dropped : []
  $("dropped-box").hidden = dropped.length === 0
  const droppedTotal = view.kind === "note" ? view.droppedTotal : 0
  $("dropped-title").textContent = droppedTotal > dropped.length
    ? `Dropped candidates (the ${dropped.length} most relevant of ${droppedTotal})`
    : `Dropped candidates (${dropped.length})`
  $("dropped").replaceChildren(...dropped.map((d) => el("li", { text: `${d.title} (arXiv:${d.arxivId}): ${d.reasons.join("; ")}` })))
  renderMap(view.map)
  $("results").hidden = false
  $("results-title").focus()
}

let mermaidLoading
const loadMermaid = () =>
  (mermaidLoading ??= new Promise((resolve, reject) => {
    const script = el("script", { src: "/vendor/mermaid.min.js" })
    script.addEventListener("load", () => {
      window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict" })
      resolve(window.mermaid)
    })
    script.addEventListener("error", () => reject(new Error("Mermaid did not load")))
    document.head.append(script)
  }))

const renderMap = async (source) => {
  const box = $("map-box")
  box.hidden = source === undefined || source === ""
  if (box.hidden) return
  const showSource = () => $("map").replaceChildren(el("pre", { text: source }))
  if (!info.mermaid) return showSource()
  try {
    const mermaid = await loadMermaid()
    const { svg } = await mermaid.render(`citation-map-${Date.now()}`, source)
    $("map").innerHTML = svg
    box.open = true
  } catch {
    showSource()
  }
}

// ---- actions: write the note, copy BibTeX

const writeNote = async () => {
  if (result?.view.kind !== "note") return
  const button = $("write")
  button.disabled = true
  $("action-status").textContent = "Writing…"
  try {
    const written = await api(`/api/runs/${encodeURIComponent(result.id)}/write`, {})
    $("action-status").textContent = written.wrote
      ? `Wrote ${written.path} into the vault.`
      : `${written.path} already holds these results.`
    button.textContent = `Written: ${written.path}`
    rescueFocus($("bibtex-all"))
  } catch (e) {
    $("action-status").textContent = ""
    $("run").hidden = false
    if (e.tag === "UnsafeWrite") {
      // the note changed since the results were found: writing them would lose those edits, so the button stays off
      button.textContent = "Not written: run again to merge your edits"
    } else button.disabled = false
    showError(e.message)
  }
}

const copyBibtex = async (ids) => {
  $("action-status").textContent = "Fetching BibTeX…"
  try {
    const { bibtex, entries } = await api("/api/bibtex", { ids })
    try {
      await navigator.clipboard.writeText(bibtex)
      $("action-status").textContent = `BibTeX for ${entries.length} paper${entries.length === 1 ? "" : "s"} copied to the clipboard.`
    } catch {
      $("bibtex-text").value = bibtex
      $("bibtex-text").hidden = $("bibtex-label").hidden = false
      $("bibtex-text").focus()
      $("bibtex-text").select()
      $("action-status").textContent = "The browser did not allow copying: the BibTeX is selected below, copy it with Ctrl-C."
    }
  } catch (e) {
    $("action-status").textContent = e.message
  }
}

// ---- voice: the question recorded in the browser, sent as 16 kHz mono WAV to the page's server (which hears it
// with the companion's own recogniser; no browser speech service), and the answer read aloud by the server

const SPEECH_RATE = 16000
/** As the server's limit for a spoken question (bytes): a longer recording is refused here, before it is sent. */
const MAX_AUDIO_BYTES = 2_500_000
const MAX_RECORDING_SECONDS = 60
let recording // { recorder, stream, chunks, cancelled, timer }

/** 16-bit PCM WAV of mono samples. */
const wavOf = (samples, rate) => {
  const out = new DataView(new ArrayBuffer(44 + samples.length * 2))
  const text = (at, s) => [...s].forEach((c, i) => out.setUint8(at + i, c.charCodeAt(0)))
  text(0, "RIFF")
  out.setUint32(4, 36 + samples.length * 2, true)
  text(8, "WAVE")
  text(12, "fmt ")
  out.setUint32(16, 16, true)
  out.setUint16(20, 1, true)
  out.setUint16(22, 1, true)
  out.setUint32(24, rate, true)
  out.setUint32(28, rate * 2, true)
  out.setUint16(32, 2, true)
  out.setUint16(34, 16, true)
  text(36, "data")
  out.setUint32(40, samples.length * 2, true)
  for (let i = 0; i < samples.length; i++) {
    const v = Math.max(-1, Math.min(1, samples[i]))
    out.setInt16(44 + i * 2, v < 0 ? v * 0x8000 : v * 0x7fff, true)
  }
  return new Blob([out.buffer], { type: "audio/wav" })
}

/** The recording (WebM/Opus as the browser records it) decoded and resampled to 16 kHz mono WAV with Web Audio. */
const wavOfRecording = async (blob) => {
  const context = new AudioContext()
  let decoded
  try {
    decoded = await context.decodeAudioData(await blob.arrayBuffer())
  } finally {
    void context.close()
  }
  const offline = new OfflineAudioContext(1, Math.max(1, Math.ceil(decoded.duration * SPEECH_RATE)), SPEECH_RATE)
  const source = offline.createBufferSource()
  source.buffer = decoded
  source.connect(offline.destination)
  source.start()
  const rendered = await offline.startRendering()
  return { wav: wavOf(rendered.getChannelData(0), SPEECH_RATE), seconds: decoded.duration }
}

const dataUrlOf = (blob) =>
  new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(reader.result)
    reader.onerror = () => reject(reader.error)
    reader.readAsDataURL(blob)
  })

const showRecording = (on) => {
  $("mic").setAttribute("aria-pressed", on ? "true" : "false")
  $("mic").textContent = on ? "Stop and ask" : "Ask by voice"
  $("mic-cancel").hidden = !on
}

const startRecording = async () => {
  showError(undefined)
  $("voice-status").textContent = "Asking for the microphone…"
  let stream
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1 } })
  } catch (e) {
    $("voice-status").textContent = e.name === "NotAllowedError"
      ? "The browser did not allow the microphone: allow it for this page, or type the question."
      : `No microphone could be opened (${oneLine(e.message)}): type the question.`
    return
  }
  const recorder = new MediaRecorder(stream)
  recording = { recorder, stream, chunks: [], cancelled: false, timer: undefined }
  const mine = recording
  recorder.addEventListener("dataavailable", (e) => {
    if (e.data.size > 0) mine.chunks.push(e.data)
  })
  recorder.addEventListener("stop", () => void finishRecording(mine))
  recorder.start()
  mine.timer = setTimeout(() => stopRecording(false), MAX_RECORDING_SECONDS * 1000)
  showRecording(true)
  $("voice-status").textContent = `Recording: ask your question, then press “Stop and ask” (at most ${MAX_RECORDING_SECONDS} s; Escape cancels).`
}

const stopRecording = (cancel) => {
  if (recording === undefined) return
  recording.cancelled = cancel
  clearTimeout(recording.timer)
  if (recording.recorder.state !== "inactive") recording.recorder.stop()
}

const finishRecording = async (mine) => {
  for (const track of mine.stream.getTracks()) track.stop()
  if (recording === mine) recording = undefined
  showRecording(false)
  rescueFocus($("mic"))
  $("mic").focus()
  if (mine.cancelled) {
    $("voice-status").textContent = "Recording cancelled: nothing was sent."
    return
  }
  $("voice-status").textContent = "Preparing the recording…"
  let audio
  try {
    const { wav, seconds } = await wavOfRecording(new Blob(mine.chunks, { type: mine.recorder.mimeType }))
    if (wav.size > MAX_AUDIO_BYTES) {
      $("voice-status").textContent = `The recording is ${Math.round(seconds)} s (${wav.size.toLocaleString("en")} bytes), over the ${
        MAX_AUDIO_BYTES.toLocaleString("en")
      }-byte limit for a spoken question: record a shorter question.`
      return
    }
    audio = await dataUrlOf(wav)
  } catch (e) {
    $("voice-status").textContent = `The recording could not be read (${oneLine(e.message)}): try again, or type the question.`
    return
  }
  $("voice-status").textContent = "Sent: listening to the recording…"
  await run({ kind: "voice", audio }, "/api/voice")
  if ($("voice-status").textContent === "Sent: listening to the recording…") $("voice-status").textContent = ""
}

// ---- the answer read aloud

let spokenUrl
const resetSpoken = () => {
  const audio = $("spoken")
  audio.pause()
  audio.removeAttribute("src")
  audio.hidden = true
  if (spokenUrl !== undefined) URL.revokeObjectURL(spokenUrl)
  spokenUrl = undefined
}

const readAloud = async () => {
  if (result?.view.kind !== "ask") return
  const button = $("read-aloud")
  button.disabled = true
  $("action-status").textContent = "Preparing the spoken answer…"
  try {
    const response = await fetch(`/api/runs/${encodeURIComponent(result.id)}/speech`, { headers: { authorization: `Bearer ${token}` } })
    if (!response.ok) {
      const data = await response.json().catch(() => ({}))
      throw new ApiError(data?.error?.message ?? `The server answered ${response.status}.`, data?.error?.tag)
    }
    resetSpoken()
    spokenUrl = URL.createObjectURL(await response.blob())
    const audio = $("spoken")
    audio.src = spokenUrl
    audio.hidden = false
    await new Promise((resolve, reject) => {
      audio.addEventListener("loadedmetadata", resolve, { once: true })
      audio.addEventListener("error", () => reject(new Error("the browser could not play the spoken answer")), { once: true })
    })
    $("action-status").textContent = `Reading the answer aloud (${Math.round(audio.duration)} s); the player below pauses and replays it.`
    await audio.play().catch(() => {
      $("action-status").textContent = `The spoken answer is ready (${Math.round(audio.duration)} s): press play below.`
    })
  } catch (e) {
    $("action-status").textContent = oneLine(e.message)
  } finally {
    button.disabled = false
  }
}

// ---- start

const start = async () => {
  if (token === "") {
    $("no-token").hidden = false
    $("mode").textContent = ""
    setBusy(false)
    return
  }
  setBusy(false)
  $("note-search").addEventListener("input", () => {
    clearTimeout(searchTimer)
    searchTimer = setTimeout(loadNotes, 120)
  })
  $("note-search").addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown") {
      e.preventDefault()
      const first = document.querySelector("input[name=note]:checked") ?? document.querySelector("input[name=note]")
      first?.focus()
    }
  })
  $("note-form").addEventListener("submit", (e) => {
    e.preventDefault()
    const title = document.querySelector("input[name=note]:checked")?.value
    if (title === undefined) {
      $("run").hidden = false
      showError("Pick a note first: type part of its title, then choose it in the list.")
      return
    }
    void run({ kind: "note", title })
  })
  $("ask-form").addEventListener("submit", (e) => {
    e.preventDefault()
    void run({ kind: "ask", question: $("question").value })
  })
  $("digest-form").addEventListener("submit", (e) => {
    e.preventDefault()
    void run({ kind: "digest", since: $("digest-since").value })
  })
  $("question").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("ask-form").requestSubmit()
  })
  $("cancel").addEventListener("click", cancel)
  if (!canRecord) $("voice-status").textContent = "This browser cannot record here: type the question."
  $("mic").addEventListener("click", () => (recording === undefined ? void startRecording() : stopRecording(false)))
  $("mic-cancel").addEventListener("click", () => stopRecording(true))
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && recording !== undefined) stopRecording(true)
  })
  $("read-aloud").addEventListener("click", readAloud)
  $("write").addEventListener("click", writeNote)
  $("bibtex-all").addEventListener("click", () => {
    if (result !== undefined) copyBibtex(result.view.papers.map((p) => p.arxivId))
  })
  if (boot !== null) {
    // the mode and the note list came with the HTML: nothing to wait for
    info = boot.info
    performance.mark("ready")
    performance.mark("notes-listed")
    return
  }
  try {
    info = await api("/api/info")
    performance.mark("ready")
    $("mode").textContent = `Vault: ${info.vault} · ${info.offline ? "offline (recorded data)" : "live arXiv and OpenAlex"}`
  } catch (e) {
    $("mode").textContent = ""
    $("run").hidden = false
    showError(e.message)
    return
  }
  await loadNotes()
  performance.mark("notes-listed")
}

void start()
