/**
 * The answer to a question as a document: a vault note (merged by the
 * safe-write rules of ./compose.ts) and a neutral list of blocks that a page
 * adapter (Notion) renders.
 *
 * @since 0.1.0
 */
import { absUrl } from "./arxiv.js"
import type { AskAnswer } from "./ask.js"
import { type GeneratedNote, LINE_BREAKS, sanitizeTitle, yamlString } from "./compose.js"
import { ordinal } from "./rules.js"
import { wellFormed } from "./text.js"

/** A run of text, optionally a link or code. */
export interface Span {
  readonly text: string
  readonly url?: string | undefined
  readonly code?: boolean | undefined
}

/** One block of a document. */
export interface DocBlock {
  readonly kind: "heading" | "paragraph" | "bullet" | "quote"
  readonly spans: ReadonlyArray<Span>
}

/** The PDF of a paper. */
export const pdfUrl = (arxivId: string): string => `https://arxiv.org/pdf/${arxivId}`

const flat = (s: string): string => s.replace(LINE_BREAKS, " ").replace(/\s+/g, " ").trim()
const num = (n: number): string => n.toFixed(2)

/** The vault path of a saved answer: the sanitised title at the vault root. */
export const answerNotePath = (title: string): string => `${sanitizeTitle(title)}.md`

/** The answer as blocks: the question, the query and how it was made, then each paper. */
export const answerDocument = (answer: AskAnswer): ReadonlyArray<DocBlock> => {
  const blocks: Array<DocBlock> = []
  const text = (t: string): Span => ({ text: flat(t) })
  blocks.push({ kind: "quote", spans: [text(answer.question)] })
  blocks.push({
    kind: "paragraph",
    spans: [text(`arXiv query (${answer.query.builder}): `), { text: answer.query.sent, code: true }]
  })
  if (answer.query.second !== undefined) {
    blocks.push({ kind: "paragraph", spans: [text("arXiv title search: "), { text: answer.query.second, code: true }] })
  }
  if (answer.query.cited !== undefined) blocks.push({ kind: "paragraph", spans: [text(`Most cited: ${answer.query.cited}`)] })
  for (const note of answer.query.notes) blocks.push({ kind: "paragraph", spans: [text(note)] })
  blocks.push({
    kind: "paragraph",
    spans: [text(`${answer.candidates} candidates judged by ${answer.judge}; the top ${answer.papers.length} below.`)]
  })
  if (answer.message !== undefined) blocks.push({ kind: "paragraph", spans: [text(answer.message)] })
  answer.papers.forEach((p, i) => {
    const id = p.paper.arxivId
    blocks.push({ kind: "heading", spans: [text(`${i + 1}. `), { text: flat(p.paper.title), url: absUrl(id) }] })
    blocks.push({
      kind: "bullet",
      spans: [text("arXiv: "), { text: id, url: absUrl(id) }, text(" · "), { text: "PDF", url: pdfUrl(id) }, text(` · first version ${p.paper.published}`)]
    })
    blocks.push({ kind: "bullet", spans: [text(`Authors: ${p.paper.authors.join(", ")}`)] })
    blocks.push({
      kind: "bullet",
      spans: [text(`Relevance: ${num(p.relevance)}${p.searchRank === undefined ? "" : ` (arXiv rank ${p.searchRank})`}`)]
    })
    blocks.push({ kind: "bullet", spans: [text(`Why it answers: ${p.why}`)] })
    if (p.summary !== undefined && p.summary !== "") blocks.push({ kind: "bullet", spans: [text(`Summary: ${p.summary}`)] })
    blocks.push({ kind: "bullet", spans: [text(`Judge: ${p.rationale}`)] })
  })
  if (answer.unrecorded.length > 0) {
    blocks.push({ kind: "heading", spans: [text("Relevant, impact not recorded")] })
    blocks.push({
      kind: "paragraph",
      spans: [text(
        `Relevant enough to rank among the top ${answer.papers.length}, but no citation count is recorded, so a paper as relevant with a count came first. Worth a look.`
      )]
    })
    for (const p of answer.unrecorded) {
      const id = p.paper.arxivId
      blocks.push({
        kind: "bullet",
        spans: [
          { text: flat(p.paper.title), url: absUrl(id) },
          text(` · first version ${p.paper.published} · relevance ${num(p.relevance)}${p.place === undefined ? "" : ` · by relevance ${ordinal(p.place)}`} · why it answers: ${p.why}`)
        ]
      })
    }
  }
  return blocks
}

const markdownText = (s: Span): string => {
  // untrusted strings: brackets and backticks could forge links or code; line breaks are gone already
  if (s.code === true) return `\`${s.text.replace(/`/g, "'")}\``
  const t = s.text.replace(/([[\]])/g, "\\$1")
  return s.url === undefined ? t : `[${t}](${s.url})`
}

/** The answer as Markdown lines (the generated block of the saved note). */
export const answerMarkdown = (answer: AskAnswer, title: string): string => {
  const lines = [`# ${sanitizeTitle(title)}`, ""]
  let inList = false
  for (const b of answerDocument(answer)) {
    const body = b.spans.map(markdownText).join("")
    if (b.kind !== "bullet" && inList) lines.push("")
    inList = b.kind === "bullet"
    if (b.kind === "heading") lines.push(`## ${body}`)
    else if (b.kind === "quote") lines.push(`> [!question] ${body}`, "")
    else if (b.kind === "bullet") lines.push(`- ${body}`)
    else lines.push(body, "")
  }
  return wellFormed(lines.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd())
}

/** The saved answer as a generated note: its block and the frontmatter keys the companion owns. */
export const answerNote = (answer: AskAnswer, title: string): GeneratedNote => ({
  block: answerMarkdown(answer, title),
  frontmatter: (updated) => [
    ["question", yamlString(flat(answer.question))],
    ["query", yamlString(answer.query.sent)],
    ["query_builder", yamlString(answer.query.builder)],
    ["judge", yamlString(answer.judge)],
    ["papers", `[${answer.papers.map((p) => yamlString(p.paper.arxivId)).join(", ")}]`],
    ["updated", updated],
    ["tags", "[arxiv-companion, question]"]
  ]
})
