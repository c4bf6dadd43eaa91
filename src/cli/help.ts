/**
 * What `arxiv-companion --help` prints (ANSI styles included), as @effect/cli
 * renders it from the command tree: answered without loading the commands.
 * test/cli/help.test.ts keeps it identical (UPDATE_CLI_HELP=1 rewrites it).
 *
 * @since 0.1.0
 */

import { VERSION } from "../version.js"

/** The version the CLI reports: package.json's. */
export { VERSION }

/** The top-level help, a line per line (ANSI styles included). */
export const HELP = [
  "\u001b[0;1m\u001b[0;37;1marxiv-companion\u001b[0;1m\u001b[0m",
  "",
  `arxiv-companion ${VERSION}`,
  "",
  "\u001b[0;1mUSAGE\u001b[0m",
  "",
  "$ arxiv-companion",
  "",
  "\u001b[0;1mDESCRIPTION\u001b[0m",
  "",
  "A study companion for Obsidian concept notes: related arXiv papers, scored and written back.",
  "",
  "\u001b[0;1mOPTIONS\u001b[0m",
  "",
  "\u001b[0;1m--completions sh | bash | fish | zsh\u001b[0m",
  "",
  "  One of the following: sh, bash, fish, zsh",
  "",
  "  Generate a completion script for a specific shell.",
  "",
  "  This setting is optional.",
  "",
  "\u001b[0;1m--log-level all | trace | debug | info | warning | error | fatal | none\u001b[0m",
  "",
  "  One of the following: all, trace, debug, info, warning, error, fatal, none",
  "",
  "  Sets the minimum log level for a command.",
  "",
  "  This setting is optional.",
  "",
  "\u001b[0;1m(-h, --help)\u001b[0m",
  "",
  "  A true or false value.",
  "",
  "  Show the help documentation for a command.",
  "",
  "  This setting is optional.",
  "",
  "\u001b[0;1m--wizard\u001b[0m",
  "",
  "  A true or false value.",
  "",
  "  Start wizard mode for a command.",
  "",
  "  This setting is optional.",
  "",
  "\u001b[0;1m--version\u001b[0m",
  "",
  "  A true or false value.",
  "",
  "  Show the version of the application.",
  "",
  "  This setting is optional.",
  "",
  "\u001b[0;1mCOMMANDS\u001b[0m",
  "",
  "  - run [--vault folder] [--offline] [--json] [--judge local | llm] [--no-cache] [--cache-dir folder] [--offline-citations all | semantic-scholar | google-scholar-2025 | google-scholar] [--relevance-threshold number] [--citations-per-year number] [--exempt-years number] [--min-keywords integer] [--max-results integer] [--pool-size integer] [--foundational integer] [--categories list] [--since YYYY-MM-DD] <prompt>  Find arXiv papers related to a concept note and write them back into the vault.",
  "",
  "  - ask [--top integer] [--max-results integer] [--categories list] [--since YYYY-MM-DD] [--save title] [--notion] [--vault folder] [--offline] [--json] [--judge local | llm] [--query-builder rules | llm] [--no-cache] [--cache-dir folder] <question>                                                                                                                                                                         Ask a research question: the most relevant arXiv papers, re-ranked, with links.",
  "",
  "  - search [--offline] [--json] [--max-results integer] [--categories list] [--since YYYY-MM-DD] <query>                                                                                                                                                                                                                                                                                                                          Search arXiv (or the offline corpus).",
  "",
  "  - paper [--offline] [--json] <arxiv-id>...                                                                                                                                                                                                                                                                                                                                                                                      Show papers' metadata by arXiv id.",
  "",
  "  - bibtex [--offline] <arxiv-id>...                                                                                                                                                                                                                                                                                                                                                                                              BibTeX entries (metadata only) for arXiv ids.",
  "",
  "  - ui [--port integer] [--vault folder] [--offline] [--judge local | llm] [--no-cache] [--cache-dir folder]                                                                                                                                                                                                                                                                                                                      Serve a local page (127.0.0.1 only) to find papers for a note or ask a question.",
  "",
  ""
].join("\n")
