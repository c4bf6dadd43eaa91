/**
 * Dependency direction: src/core is pure. It may import `effect` and its own
 * modules, never adapters or entrypoints (cli, mcp, the composition root),
 * node built-ins, @effect/platform-node (or another runtime platform), the MCP
 * SDK, nor read `process` (configuration comes in through Config and layers).
 *
 * Every .ts file under src/core is parsed with the TypeScript compiler, so
 * comments and strings that merely mention "node:fs" do not count, and
 * dynamic imports, re-exports, `import type` and require() do.
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { builtinModules } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const CORE = path.join(ROOT, "src", "core")

/** One broken rule, where it is and why. */
interface Violation {
  readonly file: string
  readonly line: number
  readonly rule: string
  readonly text: string
}

const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith("_")))

/** Why a module specifier may not be imported from `fromFile` (absolute path), or undefined when it may. */
const forbiddenImport = (specifier: string, fromFile: string): string | undefined => {
  if (specifier.startsWith("node:")) return "node built-in"
  const bare = specifier.split("/")[0]!
  if (BUILTINS.has(specifier) || BUILTINS.has(bare)) return "node built-in"
  if (/^@effect\/platform-(node|node-shared|bun|browser)(\/|$)/.test(specifier)) return "runtime platform (@effect/platform-node ...)"
  if (/^@modelcontextprotocol\//.test(specifier)) return "MCP SDK"
  if (specifier.startsWith(".") || specifier.startsWith("/")) {
    const target = path.resolve(path.dirname(fromFile), specifier)
    const rel = path.relative(CORE, target)
    if (rel.startsWith("..") || path.isAbsolute(rel)) {
      const fromSrc = path.relative(path.join(ROOT, "src"), target).split(path.sep)[0]
      const layer = fromSrc === "adapters" || fromSrc === "cli" || fromSrc === "mcp" ? fromSrc : "outside src/core"
      return `${layer} (${path.relative(ROOT, target).split(path.sep).join("/")})`
    }
    return undefined
  }
  if (/(^|\/)src\/(adapters|cli|mcp)(\/|$)/.test(specifier)) return "adapters or entrypoints"
  return undefined
}

/** Parse one source file and list every dependency-direction violation in it. */
const checkSource = (fileName: string, text: string): ReadonlyArray<Violation> => {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const out: Array<Violation> = []
  const report = (node: ts.Node, rule: string) =>
    out.push({
      file: path.relative(ROOT, fileName).split(path.sep).join("/"),
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      rule,
      text: node.getText(source).slice(0, 120)
    })
  const checkSpecifier = (node: ts.Node, specifier: ts.Node | undefined) => {
    if (specifier === undefined || !ts.isStringLiteralLike(specifier)) return
    const why = forbiddenImport(specifier.text, fileName)
    if (why !== undefined) report(node, `imports ${why}`)
  }
  const isProcess = (e: ts.Expression): boolean =>
    (ts.isIdentifier(e) && e.text === "process") ||
    (ts.isPropertyAccessExpression(e) && e.name.text === "process" && ts.isIdentifier(e.expression) &&
      (e.expression.text === "globalThis" || e.expression.text === "global"))

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      checkSpecifier(node, node.moduleSpecifier)
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      checkSpecifier(node, node.moduleReference.expression)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      checkSpecifier(node, node.argument.literal)
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require")) {
        checkSpecifier(node, node.arguments[0])
      }
    }
    if (ts.isPropertyAccessExpression(node) && node.name.text === "env" && isProcess(node.expression)) {
      report(node, "uses process.env")
    } else if (ts.isElementAccessExpression(node) && isProcess(node.expression)) {
      const key = node.argumentExpression
      report(node, ts.isStringLiteralLike(key) && key.text === "env" ? "uses process.env" : "uses the process global")
    } else if (ts.isIdentifier(node) && node.text === "process" && isValueReference(node)) {
      const p = node.parent
      const reported = (ts.isPropertyAccessExpression(p) && p.expression === node && p.name.text === "env") ||
        (ts.isElementAccessExpression(p) && p.expression === node)
      if (!reported) report(node, "uses the process global")
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}

/** An identifier used as a value (not a property name, declaration name or import/export name). */
const isValueReference = (node: ts.Identifier): boolean => {
  const p = node.parent
  if ((ts.isPropertyAccessExpression(p) || ts.isQualifiedName(p)) && (p as { name: ts.Node }).name === node) return false
  if ((ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p)) && p.name === node) {
    return false
  }
  if ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isFunctionDeclaration(p) || ts.isBindingElement(p)) && p.name === node) return false
  if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p)) return false
  if (ts.isTypeReferenceNode(p)) return false
  return true
}

/** Every .ts file under a folder, recursively. */
const tsFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name)
    if (e.isDirectory()) return tsFiles(full)
    return e.isFile() && e.name.endsWith(".ts") ? [full] : []
  })

/** Scan a folder as the dependency check does. */
const scan = (dir: string): ReadonlyArray<Violation> => tsFiles(dir).flatMap((f) => checkSource(f, readFileSync(f, "utf8")))

describe("dependency direction", () => {
  it("src/core imports no adapters, entrypoints, node built-ins, runtime platforms or MCP SDK, and reads no process.env", () => {
    const files = tsFiles(CORE)
    const names = files.map((f) => path.relative(CORE, f).split(path.sep).join("/"))
    // a real scan: the core's modules and its ports are all here
    for (const expected of ["workflow.ts", "rules.ts", "compose.ts", "models.ts", "ports/VaultPort.ts"]) {
      assert.include(names, expected)
    }
    const violations = scan(CORE)
    assert.deepStrictEqual(
      violations.map((v) => `${v.file}:${v.line} ${v.rule}: ${v.text}`),
      [],
      "src/core must stay pure: move I/O behind a port and into src/adapters"
    )
  })
})

/** Every module a file imports (static, dynamic, re-export, type or require), with its line. */
const importsOf = (fileName: string): ReadonlyArray<{ readonly specifier: string; readonly line: number }> => {
  const source = ts.createSourceFile(fileName, readFileSync(fileName, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const out: Array<{ specifier: string; line: number }> = []
  const add = (node: ts.Node, specifier: ts.Node | undefined) => {
    if (specifier !== undefined && ts.isStringLiteralLike(specifier)) {
      out.push({ specifier: specifier.text, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 })
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node, node.moduleSpecifier)
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal)
    else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
      (ts.isIdentifier(node.expression) && node.expression.text === "require"))) add(node, node.arguments[0])
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}

/** Imports from the files under `from` (folders of src/) into the folders `to`, as "file:line -> target". */
const crossings = (from: ReadonlyArray<string>, to: ReadonlyArray<string>): ReadonlyArray<string> =>
  from.flatMap((dir) =>
    tsFiles(path.join(ROOT, "src", dir)).flatMap((file) =>
      importsOf(file).flatMap(({ line, specifier }) => {
        if (!specifier.startsWith(".")) return []
        const target = path.relative(path.join(ROOT, "src"), path.resolve(path.dirname(file), specifier)).split(path.sep)
        return to.includes(target[0]!) ? [`${path.relative(ROOT, file)}:${line} -> src/${target.join("/")}`] : []
      })
    )
  )

/** The faces: the CLI, the MCP server and the local page (`arxiv-companion ui`). */
const FACES = ["cli", "mcp", "ui"] as const

describe("one composition root", () => {
  it("the faces (src/cli, src/mcp, src/ui) never import adapters: they take their layers from src/layers.ts", () => {
    for (const face of FACES) assert.isAbove(tsFiles(path.join(ROOT, "src", face)).length, 1, `src/${face} has its files`)
    assert.deepStrictEqual(crossings(FACES, ["adapters"]), [])
  })

  it("adapters, the core and the use cases never import a face", () => {
    assert.deepStrictEqual(crossings(["adapters", "core", "tools"], FACES), [])
  })

  it("the faces stand side by side: the MCP server and the page import no other face; the CLI only starts the page", () => {
    assert.deepStrictEqual(crossings(["mcp"], ["cli", "ui"]), [])
    assert.deepStrictEqual(crossings(["ui"], ["cli", "mcp"]), [])
    assert.deepStrictEqual(crossings(["cli"], ["mcp"]), [])
  })

  it("the composition root is where the faces' layers come from: each face builds on src/layers.ts", () => {
    for (const face of FACES) {
      const fromRoot = tsFiles(path.join(ROOT, "src", face)).flatMap((f) =>
        importsOf(f).filter((i) => path.resolve(path.dirname(f), i.specifier) === path.join(ROOT, "src", "layers.js"))
      )
      assert.isAbove(fromRoot.length, 0, `src/${face} takes no layer from src/layers.ts`)
    }
  })

  it("the check sees every kind of import", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "arch-faces-"))
    try {
      const file = path.join(dir, "face.ts")
      writeFileSync(file, `import type { A } from "../adapters/a.js"\nconst b = await import("../adapters/b.js")\nexport * from "./c.js"\n`)
      assert.deepStrictEqual(importsOf(file).map((i) => `${i.line} ${i.specifier}`), ["1 ../adapters/a.js", "2 ../adapters/b.js", "3 ./c.js"])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("the dependency checker itself", () => {
  const inCore = (name: string) => path.join(CORE, name)
  const rules = (text: string, file = inCore("example.ts")) => checkSource(file, text).map((v) => v.rule)

  it("flags node built-ins, with or without the node: prefix", () => {
    assert.deepStrictEqual(rules(`import { readFile } from "node:fs/promises"`), ["imports node built-in"])
    assert.deepStrictEqual(rules(`import * as fs from "fs"`), ["imports node built-in"])
    assert.deepStrictEqual(rules(`import { join } from "path"`), ["imports node built-in"])
    assert.deepStrictEqual(rules(`import { readFile } from "fs/promises"`), ["imports node built-in"])
    assert.deepStrictEqual(rules(`import http from "http"`), ["imports node built-in"])
    assert.deepStrictEqual(rules(`const cp = require("child_process")`), ["imports node built-in"])
    assert.deepStrictEqual(rules(`export { createServer } from "node:net"`), ["imports node built-in"])
  })

  it("flags adapters, cli, mcp and the composition root, statically, dynamically and as types", () => {
    assert.deepStrictEqual(rules(`import { make } from "../adapters/vault/FileSystemVault.js"`), [
      "imports adapters (src/adapters/vault/FileSystemVault.js)"
    ])
    assert.deepStrictEqual(rules(`export * from "../cli/main.js"`), ["imports cli (src/cli/main.js)"])
    assert.deepStrictEqual(rules(`import type { Server } from "../mcp/server.js"`), ["imports mcp (src/mcp/server.js)"])
    assert.deepStrictEqual(rules(`const m = await import("../../adapters/http/http.js")`, inCore("ports/X.ts")), [
      "imports adapters (src/adapters/http/http.js)"
    ])
    assert.deepStrictEqual(rules(`import { LiveLayer } from "../layers.js"`), ["imports outside src/core (src/layers.js)"])
    assert.deepStrictEqual(rules(`type T = import("../adapters/x.js").T`), ["imports adapters (src/adapters/x.js)"])
  })

  it("flags @effect/platform-node and the MCP SDK", () => {
    assert.deepStrictEqual(rules(`import { NodeRuntime } from "@effect/platform-node"`), [
      "imports runtime platform (@effect/platform-node ...)"
    ])
    assert.deepStrictEqual(rules(`import { NodeFileSystem } from "@effect/platform-node/NodeFileSystem"`), [
      "imports runtime platform (@effect/platform-node ...)"
    ])
    assert.deepStrictEqual(rules(`import { Client } from "@modelcontextprotocol/sdk/client/index.js"`), ["imports MCP SDK"])
  })

  it("flags process.env, however it is reached", () => {
    assert.deepStrictEqual(rules(`const key = process.env.OPENAI_API_KEY`), ["uses process.env"])
    assert.deepStrictEqual(rules(`const env = process["env"]`), ["uses process.env"])
    assert.deepStrictEqual(rules(`const key = globalThis.process.env.KEY`), ["uses process.env"])
    assert.deepStrictEqual(rules(`const { env } = process`), ["uses the process global"])
    assert.deepStrictEqual(rules(`const cwd = process.cwd()`), ["uses the process global"])
  })

  it("finds an offending file nested anywhere in a scanned folder", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "arch-check-"))
    try {
      mkdirSync(path.join(dir, "deep", "er"), { recursive: true })
      writeFileSync(path.join(dir, "ok.ts"), `import { Effect } from "effect"\n`)
      writeFileSync(path.join(dir, "deep", "er", "bad.ts"), `export const home = () => process.env.HOME\nimport * as os from "os"\n`)
      writeFileSync(path.join(dir, "deep", "notes.md"), `import * as fs from "node:fs"\n`)
      assert.deepStrictEqual(scan(dir).map((v) => [path.basename(v.file), v.line, v.rule]), [
        ["bad.ts", 1, "uses process.env"],
        ["bad.ts", 2, "imports node built-in"]
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("reports the file and line of each offence", () => {
    const v = checkSource(inCore("bad.ts"), `import { Effect } from "effect"\n\nimport * as fs from "node:fs"\n`)
    assert.deepStrictEqual(v, [{ file: "src/core/bad.ts", line: 3, rule: "imports node built-in", text: `import * as fs from "node:fs"` }])
  })

  it("accepts what the core may use, and ignores mere mentions in comments and strings", () => {
    const clean = `
      // reads node:fs? no: the adapter does. process.env is read by Config.
      /** import { x } from "../adapters/y.js" */
      import { Effect, Schema } from "effect"
      import type { Paper } from "./models.js"
      export * from "./rules.js"
      const hint = "set process.env.KEY or import node:fs"
      const o = { process: 1, env: 2 }
      const p = o.process
      interface Job { readonly process: string }
    `
    assert.deepStrictEqual(checkSource(inCore("fine.ts"), clean), [])
    assert.deepStrictEqual(rules(`import { Paper } from "../models.js"`, inCore("ports/X.ts")), [])
  })
})
