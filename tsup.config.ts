import { cpSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import type { Plugin } from "esbuild"
import { defineConfig, type Options } from "tsup"

const require = createRequire(import.meta.url)

/**
 * The packages whose index re-exports every module as a namespace
 * (`export * as Effect from "./Effect.js"`), and what their index drags in:
 * `effect` the property-testing library (fast-check), `@effect/platform` every
 * HTTP/API module, `@effect/platform-node` clusters, RPC, sockets and undici,
 * `@effect/cli` all of it. The bundle imports each namespace from its own
 * module instead (`import * as Effect from "effect/Effect"`), so a command
 * loads only the modules it uses.
 */
const BARRELS = ["effect", "@effect/platform", "@effect/platform-node", "@effect/cli"] as const

const subpaths = new Map<string, Set<string>>(
  BARRELS.map((pkg) => {
    const manifest = JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), "utf8")) as { exports: Record<string, unknown> }
    return [pkg, new Set(Object.keys(manifest.exports).map((k) => k.replace(/^\.\/?/, "")))]
  })
)

const IMPORT = /import\s+(type\s+)?\{([^}]*)\}\s*from\s*"(effect|@effect\/platform|@effect\/platform-node|@effect\/cli)"/g

/** `import { A, type B, C as D } from "effect"` → one namespace import per module. */
export const deepImports = (source: string, file: string): string =>
  source.replace(IMPORT, (_, typeOnly: string | undefined, names: string, pkg: string) =>
    names.split(",").map((s) => s.trim()).filter((s) => s !== "").map((spec) => {
      const m = /^(type\s+)?([A-Za-z0-9_]+)(?:\s+as\s+([A-Za-z0-9_]+))?$/.exec(spec)
      if (m === null || !subpaths.get(pkg)!.has(m[2]!)) {
        throw new Error(`${file}: cannot import ${spec} from its own module of ${pkg}; import it from a subpath`)
      }
      return `import ${typeOnly !== undefined || m[1] !== undefined ? "type " : ""}* as ${m[3] ?? m[2]} from "${pkg}/${m[2]}"`
    }).join("; ")
  )

const deepImportsPlugin: Plugin = {
  name: "deep-imports",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => ({
      contents: deepImports(readFileSync(args.path, "utf8"), args.path),
      loader: "ts"
    }))
  }
}

/** Packages the library leaves to the user's app: peer dependencies (one copy of Effect) and its own dependencies. */
const LIBRARY_EXTERNAL = [/^effect(\/|$)/, /^@effect\//, /^@modelcontextprotocol\//, "zod", "fast-xml-parser", "htmlparser2", "unpdf", "stemmer", "node-sqlite3-wasm", /^eld(\/|$)/, "stopwords-iso"]

/**
 * Loaded on demand only (a PDF's text, a Notion page, an Obsidian MCP server's client), large, or
 * resolved from node_modules at run time: the bins import them as installed.
 */
const BIN_EXTERNAL = ["unpdf", "node-sqlite3-wasm", "@notionhq/client", "mermaid", /^@modelcontextprotocol\/sdk\/client\//, /^eld(\/|$)/, "stopwords-iso"]

const common = {
  format: ["esm"],
  target: "node20",
  platform: "node",
  // no source maps: they doubled dist/ and nothing ships or reads them
  sourcemap: false,
  splitting: true,
  treeshake: true,
  esbuildPlugins: [deepImportsPlugin]
} satisfies Options

export default defineConfig((flags): Array<Options> => {
  // `tsup --dts-only` (npm run build:types): the library's declarations, nothing else
  if (flags.dts !== undefined) return [{ ...common, entry: { index: "src/index.ts" }, external: LIBRARY_EXTERNAL }]
  // one clean before both builds (each build's own `clean` would race the other's output)
  rmSync("dist", { recursive: true, force: true })
  return [
    {
      ...common,
      // the declarations (a minute or two of rollup-plugin-dts) are built by `npm run build:types`,
      // which `prepack` runs: the quick start and the tests run JavaScript only
      entry: { index: "src/index.ts" },
      dts: false,
      // effect and @effect/* are peer dependencies: the library never bundles a second copy
      external: LIBRARY_EXTERNAL
    },
    {
      ...common,
      /**
       * The bins are programs, not a library: each runs in a process of its own, where no second copy
       * of Effect can meet the user's. Bundled with Effect, @effect/*, the MCP SDK server and zod, a
       * start reads a few dozen files instead of 600–750 modules (Effect's Schema alone pulls in
       * fast-check's 239), which was most of a CLI run's and the first MCP answer's time.
       */
      entry: { cli: "src/cli/main.ts", mcp: "src/mcp/main.ts" },
      dts: false,
      // esbuild's own tree shaking; tsup's (a Rollup pass over the output) took minutes over bundled Effect
      treeshake: false,
      noExternal: [/^effect(\/|$)/, /^@effect\//, /^@modelcontextprotocol\/sdk\/server\//, /^@modelcontextprotocol\/sdk\/(types|shared)/, "zod", "zod-to-json-schema", "htmlparser2", "stemmer"],
      external: BIN_EXTERNAL,
      // bundled CommonJS dependencies (of @effect/platform-node) require Node's built-ins: give them `require`
      banner: { js: `import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);` },
      // the local page's files (`arxiv-companion ui`), served as they are
      onSuccess: async () => {
        cpSync("src/ui/static", "dist/ui/static", { recursive: true })
      }
    }
  ]
})
