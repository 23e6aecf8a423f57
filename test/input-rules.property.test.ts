import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { canonicalBody, openReplay, sealReplay } from "../src/domain/ReplaySeal.ts"
import { isNestedAtMost, isStorableJson, isStorableText } from "../src/domain/Text.ts"

const anyString = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }))

describe("stored idempotency replies", () => {
  it("open what was sealed, with the same key and scope only", () =>
    fc.assert(
      fc.property(
        anyString,
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        fc.string(),
        (text, key, other, scope) => {
          const sealed = sealReplay(text.toWellFormed(), key, "server-secret", scope)
          assert.strictEqual(openReplay(sealed, key, "server-secret", scope), text.toWellFormed())
          if (other !== key) assert.isUndefined(openReplay(sealed, other, "server-secret", scope))
          assert.isUndefined(openReplay(sealed, key, "server-secret", `${scope}x`))
          assert.isUndefined(openReplay(sealed, key, "another-secret", scope))
          assert.notInclude(sealed, key.length > 3 ? key : "\u0000never")
        }
      )
    ))

  it("never throw on a damaged seal", () =>
    fc.assert(fc.property(anyString, (junk) => {
      assert.isUndefined(openReplay(junk, "k", "s", "scope"))
      assert.isUndefined(openReplay(`v1.${junk}`, "k", "s", "scope"))
    })))

  it("compare bodies as JSON: key order and spacing do not matter, values do", () =>
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
      const reversed = Object.fromEntries(Object.entries(object).reverse())
      assert.strictEqual(canonicalBody(JSON.stringify(reversed, null, 2)), canonicalBody(JSON.stringify(object)))
      assert.notStrictEqual(
        canonicalBody(JSON.stringify({ ...object, "\u0001extra": 1 })),
        canonicalBody(JSON.stringify(object))
      )
    })))

  it("compare text that is not JSON as sent, without throwing on deep nesting", () => {
    assert.strictEqual(canonicalBody("not json"), "not json")
    for (const empty of ["", "  \n", "null", " null "]) assert.strictEqual(canonicalBody(empty), canonicalBody("{}"))
    const deep = "[".repeat(200_000) + "]".repeat(200_000)
    assert.isString(canonicalBody(deep))
  })
})

describe("storable text", () => {
  it("refuses exactly NUL and unpaired surrogates", () =>
    fc.assert(fc.property(anyString, (text) => {
      assert.strictEqual(isStorableText(text), !text.includes("\u0000") && text.isWellFormed())
    })))

  it("checks every string of a JSON value, keys included", () => {
    assert.isTrue(isStorableJson({ a: ["b", { c: 1 }], d: null }))
    assert.isFalse(isStorableJson({ a: ["b", { c: "\u0000" }] }))
    assert.isFalse(isStorableJson({ ["k\ud800"]: 1 }))
  })
})

describe("nesting", () => {
  it("counts levels of objects and arrays, without recursion", () => {
    assert.isTrue(isNestedAtMost({ a: 1 }, 1))
    assert.isFalse(isNestedAtMost({ a: { b: 1 } }, 1))
    assert.isTrue(isNestedAtMost({ a: [{ b: 1 }] }, 3))
    assert.isFalse(isNestedAtMost({ a: [{ b: [] }] }, 3))
    assert.isTrue(isNestedAtMost("text", 0))
    const deep = JSON.parse("[".repeat(300_000) + "]".repeat(300_000))
    assert.isFalse(isNestedAtMost(deep, 16))
    assert.isTrue(isStorableJson(deep))
  })
})
