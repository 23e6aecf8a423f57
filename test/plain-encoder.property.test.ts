import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import { Health } from "../src/domain/Health.ts"
import { plainEncoder, unplain } from "../src/platform/http/PlainEncoder.ts"

/** A schema and values that mostly fit it (to reach the shortcut), mixed with values of any kind. */
interface Shape {
  readonly schema: Schema.Top
  readonly fitting: fc.Arbitrary<unknown>
}

const noise = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 0, 1),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.integer(), { maxKeys: 2 })
)

const plainLeaves: ReadonlyArray<Shape> = [
  { schema: Schema.String, fitting: fc.string({ maxLength: 6 }) },
  { schema: Schema.Number, fitting: fc.oneof(fc.double(), fc.integer()) },
  { schema: Schema.Finite, fitting: fc.double({ noNaN: true }) },
  { schema: Schema.Boolean, fitting: fc.boolean() },
  { schema: Schema.Null, fitting: fc.constant(null) },
  { schema: Schema.Literal("ok"), fitting: fc.constantFrom("ok", "no") },
  { schema: Schema.Literal(true), fitting: fc.boolean() },
  { schema: Schema.Literal(1), fitting: fc.constantFrom(1, -0, 0) },
  { schema: Schema.Literals(["a", "b"]), fitting: fc.constantFrom("a", "b", "c") },
  { schema: Schema.NullOr(Schema.String), fitting: fc.oneof(fc.constant(null), fc.string({ maxLength: 3 })) },
  { schema: Schema.Union([Schema.String, Schema.Literal("a")]), fitting: fc.constantFrom("a", "b") },
  { schema: Schema.String.annotate({ format: "date-time" }), fitting: fc.string({ maxLength: 4 }) }
]

/** Fields the shortcut leaves to the schema (a check, an optional key, an array, a transformation). */
const otherLeaves: ReadonlyArray<Shape> = [
  { schema: Schema.String.check(Schema.isMaxLength(2)), fitting: fc.string({ maxLength: 4 }) },
  { schema: Schema.optional(Schema.String), fitting: fc.option(fc.string({ maxLength: 2 }), { nil: undefined }) },
  { schema: Schema.optionalKey(Schema.Number), fitting: fc.option(fc.integer(), { nil: undefined }) },
  { schema: Schema.Array(Schema.String), fitting: fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }) },
  { schema: Schema.NumberFromString, fitting: fc.integer() }
]

const fieldNames = fc.constantFrom("a", "b", "status", "__proto__", "toString", "constructor", "x y")

const shape: fc.Arbitrary<Shape> = fc.letrec<{ shape: Shape; struct: Shape }>((tie) => ({
  shape: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 6, arbitrary: fc.constantFrom(...plainLeaves) },
    { weight: 1, arbitrary: fc.constantFrom(...otherLeaves) },
    { weight: 2, arbitrary: tie("struct") }
  ),
  struct: fc.uniqueArray(fc.tuple(fieldNames, tie("shape")), { selector: ([name]) => name, maxLength: 4 })
    .map((fields) => {
      const schema = Schema.Struct(Object.fromEntries(fields.map(([name, field]) => [name, field.schema])))
      const fitting = fc.tuple(
        fc.record(
          Object.fromEntries(
            fields.map((
              [name, field]
            ) => [name, fc.oneof({ weight: 12, arbitrary: field.fitting }, { weight: 1, arbitrary: noise })])
          )
        ),
        fc.dictionary(fc.constantFrom("extra", "a", "__proto__"), noise, { maxKeys: 1 }),
        fc.oneof(
          { weight: 4, arbitrary: fc.constant<Array<string>>([]) },
          fc.subarray(fields.map(([name]): string => name))
        )
      ).map(([record, extra, dropped]) => {
        const value: Record<string, unknown> = { ...extra }
        for (const [name, item] of Object.entries(record)) {
          if (!dropped.includes(name)) {
            Object.defineProperty(value, name, { value: item, enumerable: true, writable: true })
          }
        }
        return value
      })
      return { schema, fitting: fc.oneof({ weight: 5, arbitrary: fitting }, { weight: 1, arbitrary: noise }) }
    })
})).struct

/** Keys in order, all the way down: JSON alone would not tell an own `__proto__` from an absent one. */
const layout = (value: unknown): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? Reflect.ownKeys(value).map((key) => [String(key), layout((value as Record<PropertyKey, unknown>)[key])])
    : value

describe("plain answer encoder (properties)", () => {
  it("answers what the schema's own encoder answers whenever it answers at all", () => {
    let shortcuts = 0
    fc.assert(
      fc.property(shape.chain((s) => fc.tuple(fc.constant(s.schema), s.fitting)), ([schema, value]) => {
        const encoder = plainEncoder(schema.ast)
        if (encoder === undefined) return
        const fast = encoder(value)
        if (fast === unplain) return
        shortcuts++
        const exit = Schema.encodeUnknownExit(schema as Schema.Codec<unknown, unknown>)(value)
        assert.strictEqual(exit._tag, "Success", "the shortcut took a value the schema refuses")
        if (exit._tag !== "Success") return
        assert.deepStrictEqual(layout(fast), layout(exit.value))
        assert.strictEqual(JSON.stringify(fast), JSON.stringify(exit.value))
      }),
      { numRuns: 3000 }
    )
    // A property that never reaches the shortcut proves nothing.
    assert.isAbove(shortcuts, 150)
  })

  it("takes the liveness answer, and leaves a schema with checks or transformations to the schema", () => {
    const encoder = plainEncoder(Health.ast)
    assert.isDefined(encoder)
    const answer = { timestamp: "2026-11-26T00:00:00.000Z", status: "ok", service: "herald", internal: 1 }
    assert.strictEqual(
      JSON.stringify(encoder!(answer)),
      JSON.stringify({
        service: "herald",
        status: "ok",
        timestamp: "2026-11-26T00:00:00.000Z"
      })
    )
    assert.strictEqual(encoder!({ ...answer, status: "down" }), unplain)
    assert.isUndefined(plainEncoder(Schema.Struct({ a: Schema.String.check(Schema.isMaxLength(2)) }).ast))
    assert.isUndefined(plainEncoder(Schema.Struct({ a: Schema.optional(Schema.String) }).ast))
    assert.isUndefined(plainEncoder(Schema.Struct({ a: Schema.NumberFromString }).ast))
    assert.isUndefined(plainEncoder(Schema.Struct({ a: Schema.Array(Schema.String) }).ast))
  })
})
