/**
 * The use cases in src/tools speak to adapters only through the ports: no
 * module src/tools imports, directly or through the modules it imports
 * (static, dynamic, type-only or re-exported), is an adapter or the
 * composition root that wires adapters (src/layers.ts, src/index.ts,
 * src/promise.ts). Imports are read with the TypeScript compiler, so a
 * comment or a string that names an adapter does not count.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const ROOT = fileURLToPath(new URL("..", import.meta.url))

/** The relative module specifiers of one file (imports, re-exports, import types, dynamic imports). */
const specifiers = (file: string): ReadonlyArray<string> => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const out: Array<string> = []
  const add = (node: ts.Node | undefined) => {
    if (node !== undefined && ts.isStringLiteralLike(node) && node.text.startsWith(".")) out.push(node.text)
  }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier)
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal)
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0])
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}

/** The source file a relative specifier names (`./x.js` is `./x.ts`), or undefined when it is not a source file. */
const resolve = (from: string, specifier: string): string | undefined => {
  const target = path.resolve(path.dirname(from), specifier)
  for (const candidate of [target.replace(/\.js$/, ".ts"), target, `${target}.ts`, path.join(target, "index.ts")]) {
    if (candidate.endsWith(".ts") && existsSync(candidate)) return candidate
  }
  return undefined
}

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []
  )

/** Each way from a file of `tools` to a forbidden module: the chain of imports, as paths relative to `root`. */
const waysToAdapters = (root: string, tools: string): ReadonlyArray<string> => {
  const src = path.join(root, "src")
  const forbidden = (file: string) => {
    const rel = path.relative(src, file).split(path.sep).join("/")
    return rel.startsWith("adapters/") || rel === "layers.ts" || rel === "index.ts" || rel === "promise.ts"
  }
  const seen = new Set<string>()
  const ways: Array<string> = []
  const queue: Array<ReadonlyArray<string>> = filesUnder(tools).map((f) => [f])
  while (queue.length > 0) {
    const chain = queue.shift()!
    const file = chain[chain.length - 1]!
    if (seen.has(file)) continue
    seen.add(file)
    for (const specifier of specifiers(file)) {
      const target = resolve(file, specifier)
      if (target === undefined) continue
      const next = [...chain, target]
      if (forbidden(target)) ways.push(next.map((f) => path.relative(root, f).split(path.sep).join("/")).join(" -> "))
      else queue.push(next)
    }
  }
  return ways
}

describe("src/tools reaches adapters only through ports", () => {
  it("no import chain from src/tools ends in an adapter or the composition root", () => {
    const tools = path.join(ROOT, "src", "tools")
    assert.isAbove(filesUnder(tools).length, 3)
    assert.deepStrictEqual(waysToAdapters(ROOT, tools), [])
  })

  it("the check finds a chain, through another module and a dynamic import", () => {
    const root = mkdtempSync(path.join(tmpdir(), "tools-ports-"))
    try {
      for (const dir of ["src/tools", "src/core", "src/adapters/arxiv"]) mkdirSync(path.join(root, dir), { recursive: true })
      writeFileSync(path.join(root, "src/tools/search.ts"), `import { x } from "../core/shared.js"\n// "../adapters/arxiv/LiveArxiv.js" in a comment\nexport const y = x\n`)
      writeFileSync(path.join(root, "src/core/shared.ts"), `export const x = () => import("../adapters/arxiv/LiveArxiv.js")\n`)
      writeFileSync(path.join(root, "src/adapters/arxiv/LiveArxiv.ts"), `export const live = 1\n`)
      assert.deepStrictEqual(waysToAdapters(root, path.join(root, "src/tools")), [
        "src/tools/search.ts -> src/core/shared.ts -> src/adapters/arxiv/LiveArxiv.ts"
      ])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
