/**
 * The setup (src/layers.ts, src/setup.ts): one backend per port, `offline`
 * a preset of them, every setting's flag and variable in one table, and the
 * CLI's per-port choice reaching the adapters.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Schema } from "effect"
import { execFile } from "node:child_process"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  ArxivBackend,
  AskSetup,
  backendsOf,
  CitationsBackend,
  describeConfigError,
  JudgeBackend,
  OfflineCitations,
  QueryBuilderBackend,
  SETUP,
  setupConfig
} from "../src/layers.js"
import { ROOT, runCli } from "./support/cli.js"
import { startOpenAlexStandIn } from "./support/openalex-standin.js"

const read = (env: Record<string, string>, overrides: AskSetup = {}) =>
  Effect.withConfigProvider(Effect.either(setupConfig(overrides)), ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("a backend per port", () => {
  it("without a word: the live services, the LLM where configured, the MCP vault", () => {
    assert.deepStrictEqual(backendsOf({}), {
      arxiv: "live",
      citations: "openalex",
      judge: "auto",
      queryBuilder: "auto",
      fullText: "arxiv",
      vault: { _tag: "mcp" }
    })
  })

  it("offline is a preset: the recorded corpus and citations, the local judge and query rules", () => {
    assert.deepStrictEqual(backendsOf({ offline: true, vault: "/notes" }), {
      arxiv: "corpus",
      citations: "recorded",
      judge: "local",
      queryBuilder: "rules",
      fullText: "abstract-only",
      vault: { _tag: "folder", root: "/notes" }
    })
  })

  it("each port's choice wins over the preset, and one port's choice leaves the others as they were", () => {
    const b = backendsOf({ offline: true, arxiv: "mirror:/data/m", citations: "openalex", judge: "llm" })
    assert.deepStrictEqual([b.arxiv, b.citations, b.judge, b.queryBuilder], ["mirror:/data/m", "openalex", "llm", "rules"])
    const corpusOnly = backendsOf({ arxiv: "corpus" })
    assert.deepStrictEqual([corpusOnly.arxiv, corpusOnly.citations, corpusOnly.judge], ["corpus", "openalex", "auto"])
    assert.deepStrictEqual(backendsOf({ vault: "mcp" }).vault, { _tag: "mcp" })
  })

  it("every setting's words are its Schema's: each choice decodes, and what the Schema refuses, parse refuses", () => {
    const pairs: ReadonlyArray<readonly [{ readonly parse: (t: string) => unknown; readonly choices?: ReadonlyArray<string> }, Schema.Schema<any, any>]> = [
      [SETUP.citations, CitationsBackend],
      [SETUP.judge, JudgeBackend],
      [SETUP.queryBuilder, QueryBuilderBackend],
      [SETUP.offlineCitations, OfflineCitations]
    ]
    for (const [setting, schema] of pairs) {
      assert.isAbove(setting.choices!.length, 1)
      for (const choice of setting.choices!) {
        assert.isTrue(Schema.is(schema)(choice), choice)
        assert.strictEqual(setting.parse(` ${choice} `), choice)
      }
      assert.isUndefined(setting.parse("bogus"))
    }
    for (const text of ["live", "corpus", "mirror", "mirror:/x"]) assert.isTrue(Schema.is(ArxivBackend)(SETUP.arxiv.parse(text)), text)
    // every field of the setup Schema has its setting, and no setting is outside the Schema
    assert.deepStrictEqual(Object.keys(SETUP).sort(), Object.keys(AskSetup.fields).sort())
    const envs = Object.values(SETUP).map((s) => s.env)
    assert.strictEqual(new Set(envs).size, envs.length)
  })

  it.effect("setupConfig reads each port's variable; a flag wins; a bad value names the variable and what to use", () =>
    Effect.gen(function*() {
      const env = { ARXIV_COMPANION_CITATIONS: "recorded", ARXIV_COMPANION_QUERY_BUILDER: "rules", ARXIV_COMPANION_VAULT: "/v" }
      const fromEnv = Either.getOrThrow(yield* read(env))
      assert.deepStrictEqual([fromEnv.citations, fromEnv.queryBuilder, fromEnv.vault], ["recorded", "rules", "/v"])
      assert.strictEqual(Either.getOrThrow(yield* read(env, { citations: "openalex" })).citations, "openalex")
      const bad = yield* read({ ARXIV_COMPANION_CITATIONS: "scholar" })
      assert.isTrue(Either.isLeft(bad))
      if (Either.isLeft(bad)) {
        assert.strictEqual(describeConfigError(bad.left), 'ARXIV_COMPANION_CITATIONS: Expected openalex, recorded or mirror, got "scholar"')
      }
    }))
})

describe("the CLI's per-port choice reaches the adapters", { timeout: 180_000 }, () => {
  const PROMPT = "Find papers related to my 'Transformers Concept Note'"

  it("run --offline --citations openalex asks OpenAlex (a loopback stand-in) for impact; --offline alone does not", async () => {
    const standIn = await startOpenAlexStandIn()
    const vault = mkdtempSync(join(tmpdir(), "setup-citations-"))
    try {
      cpSync(join(ROOT, "examples", "vault"), vault, { recursive: true })
      const env = { OPENALEX_API_URL: standIn.url, OPENALEX_API_KEY: "test-key", ARXIV_COMPANION_CACHE: "false", ARXIV_COMPANION_CITATIONS: undefined }
      const recorded = await runCli(["run", PROMPT, "--vault", vault, "--offline", "--json"], env)
      expect(recorded.code, recorded.stderr).toBe(0)
      expect(standIn.worksRequests().length).toBe(0)
      const live = await runCli(["run", PROMPT, "--vault", vault, "--offline", "--citations", "openalex", "--json"], env)
      expect(live.code, live.stderr).toBe(0)
      expect(standIn.worksRequests().length).toBeGreaterThan(0)
      // the arXiv side stayed on the recorded corpus: the report's papers are the corpus's (to April 2017)
      const report = JSON.parse(live.stdout) as { readonly candidates: ReadonlyArray<{ readonly paper: { readonly published: string } }> }
      expect(report.candidates.length).toBeGreaterThan(0)
      for (const c of report.candidates) expect(c.paper.published <= "2017-04-30", c.paper.published).toBe(true)
      const bad = await runCli(["run", PROMPT, "--vault", vault, "--offline"], { ARXIV_COMPANION_CITATIONS: "scholar" })
      expect(bad.code).toBe(1)
      expect(bad.stderr.trim()).toBe(`Invalid ARXIV_COMPANION_CITATIONS: got "scholar"; use openalex, recorded or mirror.`)
    } finally {
      rmSync(vault, { recursive: true, force: true })
      await standIn.close()
    }
  })
})

describe("the MCP bin takes its setup flags from the same table", { timeout: 120_000 }, () => {
  const bin = (args: ReadonlyArray<string>) =>
    new Promise<{ code: number; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [join(ROOT, "dist", "mcp.js"), ...args], { timeout: 60_000 }, (error, _stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stderr }))
      child.stdin?.end()
    })

  it("a bad --citations is one line saying what to use; --help lists every setting's flag and variable", async () => {
    const bad = await bin(["--citations", "scholar"])
    expect(bad.code).toBe(2)
    expect(bad.stderr.split("\n")[0]).toBe("--citations must be openalex, recorded or mirror, got scholar")
    const help = await bin(["--help"])
    expect(help.code).toBe(0)
    for (const s of Object.values(SETUP).filter((s) => s !== SETUP.queryBuilder)) {
      expect(help.stderr).toContain(`--${s.flag}`)
      expect(help.stderr).toContain(s.env)
    }
  })
})
