/**
 * The settings of a setup as every face spells them: for each port's backend
 * (and the `offline` preset, the cache) its flag, its environment variable,
 * the words it allows and its help. The CLI's options, the MCP bin's flags,
 * `setupConfig` (src/layers.ts) and the help are all derived from `SETUP`.
 *
 * Plain data, without Effect: the MCP bin reads its flags with it before
 * Effect is loaded. The Schemas of these values are in src/layers.ts, built
 * from the same lists (and checked against this table by the compiler).
 *
 * @since 0.1.0
 */

/** The arXiv backends named by a word; `mirror:DIR` names a mirror's directory. */
export const ARXIV_BACKENDS = ["live", "corpus", "mirror"] as const
/** An arXiv backend as text: a word, or `mirror:DIR`. */
export type ArxivBackendText =
  | (typeof ARXIV_BACKENDS)[number]
  | `mirror:${string}`
  | `postgres://${string}`
  | `postgresql://${string}`
/** Where citation data comes from. */
export const CITATIONS_BACKENDS = ["openalex", "recorded", "mirror"] as const
/** Who judges relevance. */
export const JUDGE_BACKENDS = ["local", "llm"] as const
/** Who writes `ask`'s arXiv query. */
export const QUERY_BUILDER_BACKENDS = ["rules", "llm"] as const
/** The recorded citation sources, the default first. */
export const OFFLINE_CITATION_SOURCES = ["all", "semantic-scholar", "google-scholar-2025", "google-scholar"] as const

/** One setting of the setup as every face spells it: its flag, its variable, and how its text is read. */
export interface SetupSetting<A> {
  /** The flag, without dashes (`--arxiv`). */
  readonly flag: string
  /** What the flag's value looks like in help (`live|corpus|mirror[:DIR]`). */
  readonly pseudoName: string
  /** The environment variable a face falls back to. */
  readonly env: string
  /** The values allowed, in words (for the one-line refusal). */
  readonly allowed: string
  /** What the setting does, for help. */
  readonly description: string
  /** The text as a value; undefined when it is none. */
  readonly parse: (text: string) => A | undefined
  /** Every value, when the setting is a choice among words. */
  readonly choices?: ReadonlyArray<A & string> | undefined
}

/** One of `values` (trimmed), else undefined. */
const oneOf = <A extends string>(values: ReadonlyArray<A>) => (text: string): A | undefined => {
  const t = text.trim()
  return (values as ReadonlyArray<string>).includes(t) ? t as A : undefined
}

const BOOLEAN: Readonly<Record<string, boolean>> = { true: true, yes: true, on: true, "1": true, false: false, no: false, off: false, "0": false }

/**
 * Every setting of `CompanionSetup` / `AskSetup` with its flag and variable:
 * the CLI's options, the MCP bin's flags, `setupConfig` and the help all come
 * from here. `offline` and `cache` are switches (`--offline`, `--no-cache`).
 */
export const SETUP = {
  vault: {
    flag: "vault",
    pseudoName: "folder",
    env: "ARXIV_COMPANION_VAULT",
    allowed: "a folder",
    description: "The Obsidian vault folder (env ARXIV_COMPANION_VAULT), or mcp: the vault is reached over MCP (OBSIDIAN_MCP_URL or " +
      "OBSIDIAN_MCP_COMMAND), as it is without this setting.",
    parse: (text: string): string | undefined => text
  },
  arxiv: {
    flag: "arxiv",
    pseudoName: "live|corpus|mirror[:DIR]",
    env: "ARXIV_COMPANION_ARXIV",
    allowed: "live, corpus, mirror, mirror:DIR or postgres://user@host/database",
    description:
      "Where arXiv's papers come from: live (the API), corpus (the recorded offline corpus), mirror or mirror:DIR " +
      "(a local mirror: `arxiv-companion mirror sync`), postgres://… (a lab's mirror: `mirror sync --to`); env ARXIV_COMPANION_ARXIV. Default: corpus with --offline, else live.",
    /** The setting's text as a backend (blank or "mirror:" alone: no directory), undefined when it is none. */
    parse: (text: string): ArxivBackendText | undefined => {
      const t = text.trim()
      if (t === "mirror:") return "mirror"
      return (ARXIV_BACKENDS as ReadonlyArray<string>).includes(t) || /^(mirror:|postgres(ql)?:\/\/)/.test(t) ? t as ArxivBackendText : undefined
    }
  },
  citations: {
    flag: "citations",
    pseudoName: "openalex|recorded|mirror",
    env: "ARXIV_COMPANION_CITATIONS",
    allowed: "openalex, recorded or mirror",
    description: "Where citation counts, references and citing works come from: openalex (the API), recorded (the recorded " +
      "data; see --offline-citations) or mirror (the counts `mirror sync --citations` stored in the --arxiv mirror[:DIR] or postgres://… " +
      "mirror, as of the day each was fetched); env ARXIV_COMPANION_CITATIONS. Default: mirror when --arxiv is a mirror holding counts, " +
      "else recorded with --offline, else openalex.",
    parse: oneOf(CITATIONS_BACKENDS),
    choices: CITATIONS_BACKENDS
  },
  offlineCitations: {
    flag: "offline-citations",
    pseudoName: "all|semantic-scholar|google-scholar-2025|google-scholar",
    env: "ARXIV_COMPANION_OFFLINE_CITATIONS",
    allowed: OFFLINE_CITATION_SOURCES.join(", "),
    description:
      "Offline citation counts, one source per paper: all (default: per paper the first of Semantic Scholar 2024-02-15, " +
      "Google Scholar 2025 via Paper Copilot, Google Scholar 2017-06-25; 4,415 papers), or one source alone: semantic-scholar " +
      "(551 famous papers), google-scholar-2025 (3,431 papers) or google-scholar (2,434 papers).",
    parse: oneOf(OFFLINE_CITATION_SOURCES),
    choices: OFFLINE_CITATION_SOURCES
  },
  judge: {
    flag: "judge",
    pseudoName: "local|llm",
    env: "ARXIV_COMPANION_JUDGE",
    allowed: "local or llm",
    description: "local (offline scorer) or llm (OPENROUTER_API_KEY or LLM_BASE_URL). Default: llm when configured, else local.",
    parse: oneOf(JUDGE_BACKENDS),
    choices: JUDGE_BACKENDS
  },
  queryBuilder: {
    flag: "query-builder",
    pseudoName: "rules|llm",
    env: "ARXIV_COMPANION_QUERY_BUILDER",
    allowed: "rules or llm",
    description:
      "Who writes the arXiv query: rules (offline) or llm (the judge's endpoint: OPENROUTER_API_KEY or LLM_BASE_URL). Default: llm when configured and not --offline.",
    parse: oneOf(QUERY_BUILDER_BACKENDS),
    choices: QUERY_BUILDER_BACKENDS
  },
  offline: {
    flag: "offline",
    pseudoName: "",
    env: "ARXIV_COMPANION_OFFLINE",
    allowed: "true or false",
    description: "Use the recorded offline corpus and citation data; no network, no key (a preset: --arxiv corpus --citations recorded --judge local).",
    parse: (text: string): boolean | undefined => BOOLEAN[text.trim().toLowerCase()]
  },
  cache: {
    flag: "no-cache",
    pseudoName: "",
    env: "ARXIV_COMPANION_CACHE",
    allowed: "true or false",
    description: "Do not read or write the on-disk response cache.",
    parse: (text: string): boolean | undefined => BOOLEAN[text.trim().toLowerCase()]
  },
  cacheDir: {
    flag: "cache-dir",
    pseudoName: "folder",
    env: "ARXIV_COMPANION_CACHE_DIR",
    allowed: "a folder",
    description: "Response cache folder (default ~/.cache/arxiv-companion; env ARXIV_COMPANION_CACHE_DIR).",
    parse: (text: string): string | undefined => text
  }
} as const

/** The arXiv backend setting alone (its flag, variable and words), as before `SETUP`. */
export const ARXIV_BACKEND = SETUP.arxiv

