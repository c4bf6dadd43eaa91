import { cpSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Plugin } from "esbuild"
import { defineConfig } from "tsup"

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

export default defineConfig({
  entry: { index: "src/index.ts", cli: "src/cli/main.ts", mcp: "src/mcp/main.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: { entry: { index: "src/index.ts" } },
  clean: true,
  sourcemap: true,
  splitting: true,
  treeshake: true,
  esbuildPlugins: [deepImportsPlugin],
  // effect and @effect/* are peer dependencies: never bundle a second copy
  external: [/^effect(\/|$)/, /^@effect\//, /^@modelcontextprotocol\//, "zod", "fast-xml-parser", "htmlparser2", "unpdf", "stemmer", "node-sqlite3-wasm"],
  // the local page's files (`arxiv-companion ui`), served as they are
  onSuccess: async () => {
    cpSync("src/ui/static", "dist/ui/static", { recursive: true })
  }
})
