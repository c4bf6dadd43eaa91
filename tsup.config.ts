import { cpSync } from "node:fs"
import { defineConfig } from "tsup"

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
  // effect and @effect/* are peer dependencies: never bundle a second copy
  external: [/^effect(\/|$)/, /^@effect\//, /^@modelcontextprotocol\//, "zod", "fast-xml-parser", "htmlparser2", "unpdf", "stemmer"],
  // the local page's files (`arxiv-companion ui`), served as they are
  onSuccess: async () => {
    cpSync("src/ui/static", "dist/ui/static", { recursive: true })
  }
})
