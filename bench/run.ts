/**
 * `npm run bench` — runs every `bench/*.bench.ts` in name order (or only those
 * whose name contains one of the command-line arguments:
 * `npm run bench -- companion`).
 *
 * A bench file exports a default `async () => void` that prints its own
 * figures to stdout. Add a new bench by adding a file; nothing to register.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const dir = path.dirname(fileURLToPath(import.meta.url))
const filters = process.argv.slice(2)
const files = fs.readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort()

if (files.length === 0) {
  console.error(`no bench matches ${filters.join(", ")}`)
  process.exit(1)
}
for (const file of files) {
  console.log(`\n=== ${file} ===`)
  const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { default?: () => Promise<void> }
  if (typeof mod.default !== "function") {
    console.error(`${file} has no default export to run`)
    process.exitCode = 1
    continue
  }
  await mod.default()
}
