/**
 * Help a person reads: @effect/cli's help text (the static top-level help and
 * each command's), with each flag's kind said in words ("An integer.", not "A
 * user-defined piece of text."), one example per command, the command list as
 * usage then description, and every line wrapped to the terminal's width.
 * No imports: the static help (src/cli/main.ts) loads it.
 *
 * @since 0.1.0
 */

/** One example per command: what a first-time user would type. */
export const EXAMPLES: Readonly<Record<string, string>> = {
  run: `arxiv-companion run "Find papers related to my 'Transformers Concept Note'" --vault ~/Notes`,
  ask: `arxiv-companion ask "what are the main ways to stabilise GAN training?" --top 5`,
  search: `arxiv-companion search "ti:attention AND cat:cs.CL" --max-results 5`,
  paper: "arxiv-companion paper 1706.03762 1409.0473",
  bibtex: "arxiv-companion bibtex 1706.03762 > refs.bib",
  ui: "arxiv-companion ui --vault ~/Notes",
  mirror: "arxiv-companion mirror sync --categories cs.LG,cs.CL"
}

/** What a flag's value is, in words, by the name its usage gives it. */
const KINDS: Readonly<Record<string, string>> = {
  integer: "An integer.",
  number: "A number.",
  "YYYY-MM-DD": "A date, YYYY-MM-DD.",
  folder: "A folder.",
  list: "A comma-separated list.",
  title: "A note title.",
  file: "A file.",
  text: "Text.",
  "live|corpus|mirror[:DIR]": "A backend: live, corpus, mirror or mirror:DIR."
}

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g
const visible = (s: string): number => [...s.replace(ANSI, "")].length

/** `line` broken at spaces into lines of at most `width` visible characters; continuations indented by `indent`. */
const wrapLine = (line: string, width: number, indent: string, usage = false): Array<string> => {
  if (visible(line) <= width) return [line]
  const lead = /^\s*/.exec(line)![0]
  const body = line.slice(lead.length)
  // a usage breaks between its [--flag value] groups, never inside one
  const room = width - visible(indent)
  const words = usage
    ? (body.match(/\[[^\]]*\]|\S+/g) ?? [body]).flatMap((group) => (visible(group) > room ? group.split(" ") : [group]))
    : body.split(" ")
  const out: Array<string> = []
  let current = lead
  let currentWidth = visible(lead)
  let empty = true
  for (const word of words) {
    const w = visible(word)
    if (!empty && currentWidth + 1 + w > width) {
      out.push(current)
      current = indent + word
      currentWidth = visible(indent) + w
    } else {
      current += (empty ? "" : " ") + word
      currentWidth += (empty ? 0 : 1) + w
    }
    empty = false
  }
  out.push(current)
  return out
}

/** The help text made readable at `width` columns (at least 40). */
export const readableHelp = (help: string, width: number): string => {
  const columns = Math.max(40, Math.floor(width))
  const lines = help.split("\n")
  const out: Array<string> = []
  let kind: string | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const plain = line.replace(ANSI, "")
    // a flag's heading: `--max-results integer`, `--vault folder`, `(-h, --help)`
    const heading = /^(?:\(?-{1,2}[\w-]+(?:, --[\w-]+\))?)(?: (.+))?$/.exec(plain)
    if (heading !== null && !plain.startsWith(" ")) kind = heading[1] === undefined ? undefined : KINDS[heading[1]]
    if (/^<[\w-]+>(?:\.\.\.| \d+\+)?$/.test(plain)) kind = KINDS["text"]
    if (plain === "  A user-defined piece of text." && kind !== undefined) {
      out.push(`  ${kind}`)
      continue
    }
    // the command list: `  - run [flags…] <prompt>   Description`, padded to the longest usage
    const listed = /^ {2}- (\S+)(.*?) {2,}(\S.*)$/.exec(plain)
    if (listed !== null) {
      out.push(...wrapLine(`  - ${listed[1]}${listed[2]}`, columns, "      ", true))
      out.push(...wrapLine(`    ${listed[3]}`, columns, "    "))
      const example = EXAMPLES[listed[1]!]
      if (example !== undefined) out.push(...wrapLine(`    e.g. ${example}`, columns, "      "))
      continue
    }
    // a command's usage line: `$ run [--vault folder] …`
    if (plain.startsWith("$ ")) {
      out.push(...wrapLine(line, columns, "    ", true))
      const example = EXAMPLES[/^\$ (\S+)/.exec(plain)![1]!]
      if (example !== undefined) out.push("", "EXAMPLE", "", ...wrapLine(`$ ${example}`, columns, "    "))
      continue
    }
    const indent = /^\s*/.exec(plain)![0]
    out.push(...wrapLine(line, columns, indent))
  }
  return out.join("\n")
}

/** The width help is wrapped to: the terminal's, else 80 (piped). */
export const helpWidth = (stream: { readonly columns?: number | undefined } = process.stdout): number =>
  stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80
