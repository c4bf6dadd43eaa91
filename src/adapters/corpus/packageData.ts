/**
 * Files that ship with the package, beside the code: the judge's tables
 * (`data/judge/`) and the offline data (`fixtures/offline/`).
 *
 * The code runs from `src/` (vitest, tsx) and bundled from `dist/` (one file
 * or chunks), and the package may sit in any `node_modules`: its directory is
 * found by walking up from this module to the `package.json` named
 * `arxiv-companion`, once per process.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** The package's name in its package.json. */
export const PACKAGE_NAME = "arxiv-companion"

let root: string | null | undefined

/** The package's directory, or undefined when no `package.json` above this module names it. */
export const packageRoot = (): string | undefined => {
  if (root !== undefined) return root ?? undefined
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown }
      if (pkg.name === PACKAGE_NAME) return (root = dir)
    } catch {
      // no package.json here, or not JSON: keep walking
    }
    const parent = dirname(dir)
    if (parent === dir) {
      root = null
      return undefined
    }
    dir = parent
  }
}

/** Where this module is (for messages when the package directory is not found). */
export const modulePath = (): string => fileURLToPath(import.meta.url)

/**
 * A JSON data file of the package (`data/<...path>`), read and parsed
 * synchronously: the judge's tables are needed inside synchronous scoring, once
 * per process. A missing or unreadable file is a broken install: it throws.
 */
export const readPackageJson = <A>(...path: ReadonlyArray<string>): A => {
  const dir = packageRoot()
  if (dir === undefined) {
    throw new Error(`${PACKAGE_NAME}: its package directory was not found above ${modulePath()}; reinstall the package`)
  }
  const file = join(dir, "data", ...path)
  try {
    return JSON.parse(readFileSync(file, "utf8")) as A
  } catch (e) {
    throw new Error(`${PACKAGE_NAME}: cannot read ${file} (${e instanceof Error ? e.message : String(e)}); reinstall the package`)
  }
}
