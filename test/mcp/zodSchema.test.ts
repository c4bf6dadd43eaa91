/**
 * The MCP output shapes are derived from the tools' Effect Schemas; these
 * checks keep the two in agreement (property names, required fields, types,
 * integer and bound refinements, nullability).
 */
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js"
import { JSONSchema, Schema } from "effect"
import { assert, describe, it } from "vitest"
import { zodObjectFromSchema } from "../../src/mcp/zodSchema.js"
import * as Tools from "../../src/tools/index.js"

type Json = Record<string, unknown>

/** Resolve `$ref`s of Effect's JSON Schema against its `$defs`. */
const deref = (s: Json, defs: Json): Json => {
  const ref = s["$ref"]
  return typeof ref === "string" ? deref(defs[ref.replace("#/$defs/", "")] as Json, defs) : s
}

/** The shape a JSON Schema describes, reduced to what both converters must agree on. */
const shape = (raw: Json, defs: Json): unknown => {
  const s = deref(raw, defs)
  if (Array.isArray(s["type"])) return shape({ anyOf: (s["type"] as Array<string>).map((type) => ({ type })) }, defs)
  if (Array.isArray(s["anyOf"])) return { anyOf: (s["anyOf"] as Array<Json>).map((m) => shape(m, defs)).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))) }
  if (Array.isArray(s["enum"])) return { enum: [...(s["enum"] as Array<unknown>)].sort() }
  if (s["type"] === "array") return { array: shape(s["items"] as Json, defs) }
  if (s["type"] === "object" || s["properties"] !== undefined) {
    const props = (s["properties"] ?? {}) as Record<string, Json>
    return {
      props: Object.fromEntries(Object.keys(props).sort().map((k) => [k, shape(props[k]!, defs)])),
      required: [...((s["required"] ?? []) as Array<string>)].sort()
    }
  }
  if ("const" in s) return { enum: [s["const"]] }
  return { type: s["type"], ...(typeof s["minimum"] === "number" ? { minimum: s["minimum"] } : {}) }
}

const schemas = {
  SearchResult: Tools.SearchResult,
  PaperDetail: Tools.PaperDetail,
  PapersResult: Tools.PapersResult,
  RecentResult: Tools.RecentResult,
  TrendsResult: Tools.TrendsResult,
  BibtexResult: Tools.BibtexResult,
  ReferencesResult: Tools.ReferencesResult,
  CitationsResult: Tools.CitationsResult,
  FoundationalResult: Tools.FoundationalResult,
  RelevanceResult: Tools.RelevanceResult,
  ReadPaperResult: Tools.ReadPaperResult,
  CategoriesResult: Tools.CategoriesResult,
  CompanionResult: Tools.CompanionResult
} as const

describe("zod output shapes derived from Effect Schemas", () => {
  for (const [name, schema] of Object.entries(schemas)) {
    it(`${name}: same properties, required fields, types and bounds`, () => {
      const effect = JSONSchema.make(schema as Schema.Schema<unknown, unknown>) as unknown as Json
      const zod = toJsonSchemaCompat(zodObjectFromSchema(schema as Schema.Schema<unknown, unknown>), { pipeStrategy: "output" }) as unknown as Json
      assert.deepEqual(shape(zod, {}), shape(effect, (effect["$defs"] ?? {}) as Json))
    })
  }

  it("zod rejects what the Effect Schema rejects", () => {
    const z = zodObjectFromSchema(Tools.SearchResult)
    const good = { query: "q", total: 1, start: 0, papers: [] }
    assert.isTrue(z.safeParse(good).success)
    assert.isFalse(z.safeParse({ ...good, total: -1 }).success)
    assert.isFalse(z.safeParse({ ...good, total: 1.5 }).success)
    assert.isFalse(z.safeParse({ ...good, papers: [{ arxiv_id: "x" }] }).success)
    const read = zodObjectFromSchema(Tools.ReadPaperResult)
    const page = { arxiv_id: "1", source: "pdf", url: "u", title: "t", text: "", offset: 0, next_offset: null, total_chars: 0 }
    assert.isTrue(read.safeParse(page).success)
    assert.isFalse(read.safeParse({ ...page, source: "web" }).success)
    assert.isFalse(read.safeParse({ ...page, next_offset: undefined }).success)
  })
})
