import type { SchemaAST } from "effect"

/**
 * A shortcut for encoding an answer whose schema is a plain struct: fields
 * that are strings, finite numbers, booleans, null, string or boolean
 * literals, unions of these, or nested plain structs, each required, with no
 * checks, transformations or defaults anywhere. For such a schema, a value
 * that has every field with a value of its kind encodes to an object of
 * those fields alone, in the schema's order, with the values as they are:
 * what the schema's own encoder answers, without its per-field exits.
 *
 * Anything else (a field missing or of another kind, a non-finite number, an
 * array, a schema outside this shape) answers `unplain`, and the caller
 * encodes through the schema as before, so every refusal and its message
 * stay the schema's. `test/plain-encoder.property.test.ts` checks the two
 * against each other on generated schemas and values.
 */
export const unplain: unique symbol = Symbol("herald/unplain")

export type PlainEncoder = (value: unknown) => unknown

type Accepts = (value: unknown) => boolean

const isBare = (ast: SchemaAST.AST): boolean =>
  ast.checks === undefined && ast.encoding === undefined && ast.context === undefined &&
  (ast as { readonly encodingChecks?: unknown }).encodingChecks === undefined

const isFiniteNumber: Accepts = (value) => typeof value === "number" && Number.isFinite(value)

/** What a leaf field takes as it is, or undefined when the field is not a plain leaf. */
const leaf = (ast: SchemaAST.AST): Accepts | undefined => {
  if (!isBare(ast)) return undefined
  switch (ast._tag) {
    case "String":
      return (value) => typeof value === "string"
    case "Number":
      return isFiniteNumber
    case "Boolean":
      return (value) => typeof value === "boolean"
    case "Null":
      return (value) => value === null
    case "Literal": {
      const literal = ast.literal
      return typeof literal === "string" || typeof literal === "boolean" ? (value) => value === literal : undefined
    }
    case "Union": {
      // "oneOf" refuses a value two members take; the shortcut does not count, so it leaves such unions alone.
      if ((ast.options as { readonly mode?: string } | undefined)?.mode === "oneOf") return undefined
      const members: Array<Accepts> = []
      for (const member of ast.types) {
        const accepts = leaf(member)
        if (accepts === undefined) return undefined
        members.push(accepts)
      }
      return (value) => members.some((accepts) => accepts(value))
    }
    default:
      return undefined
  }
}

/** A leaf's shortcut: the value as it is when the leaf takes it, else `unplain`. */
const leafEncoder = (accepts: Accepts): PlainEncoder => (value) => accepts(value) ? value : unplain

/** The shortcut for a schema's AST, or undefined when the schema is not a plain struct. */
export const plainEncoder = (ast: SchemaAST.AST): PlainEncoder | undefined => {
  // An empty struct is the schema of any object (or array), which its encoder answers as it is.
  if (ast._tag !== "Objects" || !isBare(ast) || ast.indexSignatures.length > 0) return undefined
  if (ast.propertySignatures.length === 0) return undefined
  const fields: Array<{ readonly name: string; readonly encode: PlainEncoder }> = []
  for (const property of ast.propertySignatures) {
    const name = property.name
    if (typeof name !== "string" || name === "__proto__") return undefined
    const accepts = leaf(property.type)
    const encode = accepts !== undefined ? leafEncoder(accepts) : plainEncoder(property.type)
    if (encode === undefined) return undefined
    fields.push({ name, encode })
  }
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return unplain
    const record = value as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const field of fields) {
      // `in`, as the schema's own encoder looks a field up (inherited and getter fields count).
      if (!(field.name in record)) return unplain
      const encoded = field.encode(record[field.name])
      if (encoded === unplain) return unplain
      out[field.name] = encoded
    }
    return out
  }
}
