/**
 * Parsers of the upstream full-text formats: arXiv's HTML (LaTeXML) and the
 * text of a PDF, page by page, into the core's sections. Loaded by the
 * full-text adapter when it first parses a paper.
 *
 * @since 0.1.0
 */
import { Parser } from "htmlparser2"
import { Section } from "../../core/fulltext.js"

const SKIP_TAGS = new Set(["script", "style", "noscript", "nav", "header", "footer", "button", "svg", "head", "template"])
const SKIP_CLASSES = /\b(ltx_page_header|ltx_page_footer|ltx_page_navbar|ltx_TOC|ltx_dates|package-alerts|html-header|ltx_role_footnotemark)\b/
const BLOCK_TAGS = new Set([
  "p", "div", "section", "article", "li", "ul", "ol", "table", "tr", "figure", "figcaption", "blockquote", "pre",
  "dl", "dt", "dd", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "cite"
])
const VOID_TAGS = new Set(["br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "track", "wbr"])
const HEADING = /^h([1-6])$/

const levelOfHeading = (tag: string, className: string): number => {
  if (/ltx_title_(abstract|bibliography|appendix|acknowledgements?|section|chapter|part)\b/.test(className)) return 1
  if (/ltx_title_subsection\b/.test(className)) return 2
  if (/ltx_title_subsubsection\b/.test(className)) return 3
  if (/ltx_title_(paragraph|subparagraph)\b/.test(className)) return 4
  return Math.min(6, Math.max(1, Number(HEADING.exec(tag)?.[1] ?? 2) - 1))
}

const tidy = (text: string): string =>
  text
    .replace(/[ \t\r\f\v\u00A0]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()

/**
 * Sections of an arXiv HTML (LaTeXML) page: headings start sections, math is
 * kept as its TeX (`$...$`), page chrome, scripts and styles are dropped.
 * Text before the first heading becomes a "Front matter" section.
 */
export const sectionsFromHtml = (html: string): { readonly title: string; readonly sections: ReadonlyArray<Section> } => {
  let title = ""
  const sections: Array<{ heading: string; level: number; text: string }> = []
  let current = { heading: "Front matter", level: 1, text: "" }
  let skipDepth = 0
  const stack: Array<{ tag: string; skip: boolean }> = []
  let heading: { tag: string; level: number; text: string; isTitle: boolean } | undefined
  const emit = (s: string) => {
    if (heading !== undefined) heading.text += s
    else current.text += s
  }
  const parser = new Parser({
    onopentag(name, attribs) {
      const className = attribs["class"] ?? ""
      const skip = skipDepth > 0 || SKIP_TAGS.has(name) || SKIP_CLASSES.test(className) || name === "math" ||
        attribs["aria-hidden"] === "true"
      if (skipDepth === 0 && name === "math") {
        const tex = (attribs["alttext"] ?? "").trim()
        if (tex !== "") emit(` $${tex}$ `)
      }
      if (!VOID_TAGS.has(name)) {
        stack.push({ tag: name, skip })
        if (skip) skipDepth++
      }
      if (skip) return
      if (HEADING.test(name) && heading === undefined) {
        heading = {
          tag: name,
          level: levelOfHeading(name, className),
          text: "",
          isTitle: name === "h1" || /ltx_title_document\b/.test(className)
        }
        return
      }
      if (BLOCK_TAGS.has(name)) emit("\n\n")
      else if (name === "td" || name === "th") emit(" ")
    },
    ontext(data) {
      if (skipDepth === 0) emit(data)
    },
    onclosetag(name) {
      if (VOID_TAGS.has(name)) return
      // pop to the matching open tag (htmlparser2 closes implied tags for us)
      while (stack.length > 0) {
        const top = stack.pop()!
        if (top.skip) skipDepth--
        if (top.tag === name) break
      }
      if (skipDepth > 0) return
      if (heading !== undefined && heading.tag === name) {
        const text = tidy(heading.text).replace(/\n+/g, " ")
        if (heading.isTitle && title === "") {
          title = text
        } else if (text !== "") {
          sections.push(current)
          current = { heading: text, level: heading.level, text: "" }
        }
        heading = undefined
        return
      }
      if (BLOCK_TAGS.has(name)) emit("\n\n")
    }
  }, { decodeEntities: true })
  parser.write(html)
  parser.end()
  sections.push(current)
  const kept = sections
    .map((s) => new Section({ heading: s.heading, level: s.level, text: tidy(s.text) }))
    .filter((s, i) => i > 0 || s.text !== "")
  return { title, sections: kept }
}

// ---------------------------------------------------------------------------
// PDF text

const UNNUMBERED = /^(abstract|introduction|related work|background|conclusions?|discussion|references|bibliography|acknowledg(e)?ments?|appendix(?: [a-z])?)$/i
const NUMBERED = /^((?:\d{1,2}|[A-H])(?:\.\d{1,2}){0,2})\.?\s+(\p{Lu}[^\n]{1,80})$/u

/** The heading a PDF text line is, if it looks like one. */
const pdfHeading = (line: string, appendix: boolean): { readonly heading: string; readonly level: number } | undefined => {
  const l = line.trim()
  if (l.length === 0 || l.length > 90) return undefined
  if (UNNUMBERED.test(l)) return { heading: l, level: 1 }
  const m = NUMBERED.exec(l)
  // lettered headings ("A Proofs") only in the appendices, after the references
  if (m === null || (/^[A-H]/.test(m[1]!) && !appendix)) return undefined
  const words = m[2]!.split(/\s+/)
  if (words.length > 12 || /[.,;:]$/.test(m[2]!) || /\d{3,}/.test(m[2]!)) return undefined
  // more letters than anything else: not a table row or an equation
  if ((m[2]!.match(/\p{L}/gu)?.length ?? 0) < m[2]!.length * 0.6) return undefined
  return { heading: `${m[1]} ${m[2]}`, level: m[1]!.split(".").length }
}

/**
 * Sections of a paper's text extracted from its PDF (one string per page):
 * lines that look like headings ("3.2 Training", "References") start
 * sections; without any, each page is a section.
 */
export const sectionsFromPdfText = (pages: ReadonlyArray<string>): ReadonlyArray<Section> => {
  const sections: Array<{ heading: string; level: number; text: string }> = []
  let current = { heading: "Front matter", level: 1, text: "" }
  let headings = 0
  let appendix = false
  for (const page of pages) {
    for (const line of page.split(/\n/)) {
      const h = pdfHeading(line, appendix)
      if (h !== undefined) {
        if (/^(references|bibliography|appendix)/i.test(h.heading)) appendix = true
        headings++
        sections.push(current)
        current = { heading: h.heading, level: h.level, text: "" }
      } else {
        current.text += `${line}\n`
      }
    }
    current.text += "\n"
  }
  sections.push(current)
  if (headings < 2) {
    return pages.map((p, i) => new Section({ heading: `Page ${i + 1}`, level: 1, text: tidy(p) }))
  }
  return sections
    .map((s) => new Section({ heading: s.heading, level: s.level, text: tidy(s.text) }))
    .filter((s, i) => i > 0 || s.text !== "")
}

// ---------------------------------------------------------------------------
// Views
