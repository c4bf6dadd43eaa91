/**
 * Zod shapes derived from Effect Schemas, so the MCP SDK (which takes zod)
 * advertises and checks exactly what the tool functions' Schemas describe.
 * Covers what the tool results use: structs, arrays, strings, numbers,
 * booleans, literals, nullable unions and number refinements (int, bounds).
 *
 * @since 0.1.0
 */
import { Option, type Schema, SchemaAST as AST } from "effect"
import { z } from "zod"

const applyJsonSchema = (schema: z.ZodTypeAny, annotation: Record<string, unknown>): z.ZodTypeAny => {
  let s = schema
  if (s instanceof z.ZodNumber) {
    let n: z.ZodNumber = s
    if (annotation["type"] === "integer") n = n.int()
    if (typeof annotation["minimum"] === "number") n = n.min(annotation["minimum"])
    if (typeof annotation["maximum"] === "number") n = n.max(annotation["maximum"])
    if (typeof annotation["exclusiveMinimum"] === "number") n = n.gt(annotation["exclusiveMinimum"])
    if (typeof annotation["exclusiveMaximum"] === "number") n = n.lt(annotation["exclusiveMaximum"])
    s = n
  }
  return s
}

const convert = (ast: AST.AST): z.ZodTypeAny => {
  switch (ast._tag) {
    case "StringKeyword":
      return z.string()
    case "NumberKeyword":
      return z.number()
    case "BooleanKeyword":
      return z.boolean()
    case "UnknownKeyword":
    case "AnyKeyword":
      return z.unknown()
    case "Literal":
      return ast.literal === null ? z.null() : z.literal(ast.literal as string | number | boolean)
    case "Refinement": {
      const annotation = Option.getOrUndefined(AST.getJSONSchemaAnnotation(ast)) as Record<string, unknown> | undefined
      return annotation === undefined ? convert(ast.from) : applyJsonSchema(convert(ast.from), annotation)
    }
    case "Transformation":
      // results are sent encoded
      return convert(ast.from)
    case "Suspend":
      return z.lazy(() => convert(ast.f()))
    case "TupleType": {
      if (ast.elements.length === 0 && ast.rest.length === 1) return z.array(described(ast.rest[0]!.type))
      break
    }
    case "TypeLiteral": {
      if (ast.indexSignatures.length > 0) break
      const shape: Record<string, z.ZodTypeAny> = {}
      for (const ps of ast.propertySignatures) {
        const s = described(ps.type, ps)
        shape[String(ps.name)] = ps.isOptional ? s.optional() : s
      }
      return z.object(shape)
    }
    case "Union": {
      // `undefined` members come from optional properties, which are already optional in zod
      const types = ast.types.filter((t) => t._tag !== "UndefinedKeyword")
      const nonNull = types.filter((t) => !(t._tag === "Literal" && t.literal === null))
      const nullable = nonNull.length < types.length
      const literals = nonNull.every((t): t is AST.Literal => t._tag === "Literal" && typeof t.literal === "string")
      let s: z.ZodTypeAny
      if (literals && nonNull.length > 0) {
        s = z.enum(nonNull.map((t) => t.literal as string) as [string, ...Array<string>])
      } else if (nonNull.length === 1) {
        s = convert(nonNull[0]!)
      } else {
        s = z.union(nonNull.map(convert) as unknown as [z.ZodTypeAny, z.ZodTypeAny, ...Array<z.ZodTypeAny>])
      }
      return nullable ? s.nullable() : s
    }
    case "Declaration":
      break
  }
  throw new Error(`zodSchema: no zod equivalent for ${ast._tag} (${String(ast)})`)
}

const described = (ast: AST.AST, annotated: AST.Annotated = ast): z.ZodTypeAny => {
  const s = convert(ast)
  const description = AST.getDescriptionAnnotation(annotated)
  return Option.isSome(description) && annotated !== ast ? s.describe(description.value) : s
}

/** The zod schema of an Effect Schema's encoded form. Throws on shapes it does not cover (a bug). */
export const zodFromSchema = <A, I>(schema: Schema.Schema<A, I>): z.ZodTypeAny => convert(schema.ast)

/** The zod object of an Effect Struct's encoded form, for `outputSchema`. */
export const zodObjectFromSchema = <A, I>(schema: Schema.Schema<A, I>): z.ZodObject<z.ZodRawShape> => {
  const s = zodFromSchema(schema)
  if (!(s instanceof z.ZodObject)) throw new Error("zodObjectFromSchema: the schema is not a struct")
  return s
}
