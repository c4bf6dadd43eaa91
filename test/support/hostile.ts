/**
 * Text written to break a note or a diagram: quotes and brackets that close a
 * label, `-->` and `;` that add edges, `%%` comments and directives, code
 * fences, HTML, Markdown and Obsidian syntax, the companion's own markers,
 * control and bidirectional characters, and unicode.
 */
import { FastCheck as fc } from "effect"

export const HOSTILE_TITLES: ReadonlyArray<string> = [
  "\"]; S --> X[\"owned",
  "%%{init: {\"theme\": \"dark\", \"securityLevel\": \"loose\"}}%%",
  "%% arxiv-companion:end %%",
  "\n%% arxiv-companion:end %%\n",
  "```\n# heading\n%% arxiv-companion:end %%",
  "```\n```mermaid\nflowchart LR\n  X --> Y\n```",
  "<img src=x onerror=alert(1)><script>alert(1)</script>",
  "A --> B & C ; click A call alert()",
  "`**md string**`",
  "#quot; #35; #9829; &amp; &#35;",
  "end",
  "subgraph x",
  "classDef x fill:#f00",
  "[[Wikilink]] ![[Embed]] | pipe ~~strike~~ ==hl== $x^2$ #tag ^block",
  "---\nkept: 0\n---",
  "| a | b |\n|---|---|",
  "# Heading\n## Reading order",
  "\u202eRTL override \u0000 NUL \ufeff BOM \u2028 LS",
  "Ünïcödé 日本語 العربية 😀👩‍👩‍👧"
]

/** Pieces that mean something to a note, a YAML value or a line counter, mixed into random text. */
const HOSTILE_PIECES: ReadonlyArray<string> = [
  "\r\n", "\r", "\n", "\u2028", "\u2029", "\u0085", "\u000b", "\u000c", "\t", "\u00a0", "\u3000", "\ufeff",
  "e\u0301", "\u0301", "\u200d", "😀", "👩‍👩‍👧", "%%", "---", "...", "#", "[[", "]]", "`", "\"", "'", ": ", "- ", "|", "\\"
]

/** Arbitrary hostile text: random code points, one of the titles above, or random text mixed with meaningful pieces. */
export const hostileText = (maxLength = 80): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: "binary", maxLength }),
    fc.constantFrom(...HOSTILE_TITLES),
    fc.array(fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), fc.constantFrom(...HOSTILE_PIECES)), { maxLength: Math.floor(maxLength / 2) })
      .map((pieces) => pieces.join(""))
  )
