import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { createHash } from "node:crypto"
import { generateApiKey, hashApiKey, isWellFormedKey, parseBearer } from "../src/domain/ApiKeys.ts"
import { safeEqual, sameDigest, sha256Hex } from "../src/domain/Secrets.ts"

const prefixes = fc.oneof(
  fc.constant("svc_live_"),
  fc.stringMatching(/^[a-z]{1,8}_[a-z]{1,8}_$/)
)

const anyString = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }))

describe("API keys (properties)", () => {
  it("generated keys are prefix + 64 lowercase hex, well formed, and distinct", () => {
    fc.assert(fc.property(prefixes, (prefix) => {
      const key = generateApiKey(prefix)
      assert.match(key.slice(prefix.length), /^[0-9a-f]{64}$/)
      assert.isTrue(key.startsWith(prefix))
      assert.isTrue(isWellFormedKey(prefix, key))
      assert.notStrictEqual(generateApiKey(prefix), key)
    }))
  })

  it("any change to a key's shape makes it malformed", () => {
    fc.assert(fc.property(
      prefixes,
      fc.integer({ min: 0, max: 63 }),
      fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZghijklmnopqrstuvwxyz!-_ ./+=\u00e9"),
      (prefix, at, ch) => {
        const key = generateApiKey(prefix)
        const hex = key.slice(prefix.length)
        const mutated = prefix + hex.slice(0, at) + ch + hex.slice(at + 1)
        assert.isFalse(isWellFormedKey(prefix, mutated))
        assert.isFalse(isWellFormedKey(prefix, key + "0"))
        assert.isFalse(isWellFormedKey(prefix, key.slice(0, -1)))
        assert.isFalse(isWellFormedKey(prefix, "#" + key.slice(1)))
      }
    ))
  })

  it("well-formedness never throws and accepts only prefix + 64 lowercase hex", () => {
    fc.assert(fc.property(prefixes, anyString, (prefix, s) => {
      const candidate = fc.sample(fc.constantFrom(s, prefix + s), 1)[0]
      const ok = isWellFormedKey(prefix, candidate)
      assert.strictEqual(ok, candidate.startsWith(prefix) && /^[0-9a-f]{64}$/.test(candidate.slice(prefix.length)))
    }))
    fc.assert(fc.property(fc.stringMatching(/^[0-9a-f]{64}$/), (hex) => {
      assert.isTrue(isWellFormedKey("svc_live_", "svc_live_" + hex))
    }))
  })

  it("hashing is SHA-256 hex, deterministic, and never the key", () => {
    fc.assert(fc.property(anyString, (s) => {
      const h = hashApiKey(s)
      assert.match(h, /^[0-9a-f]{64}$/)
      assert.strictEqual(h, hashApiKey(s))
      assert.strictEqual(h, createHash("sha256").update(s, "utf8").digest("hex"))
      assert.strictEqual(h, sha256Hex(s))
    }))
    fc.assert(fc.property(prefixes, (prefix) => {
      const a = generateApiKey(prefix)
      const b = generateApiKey(prefix)
      assert.notStrictEqual(hashApiKey(a), hashApiKey(b))
      assert.notInclude(hashApiKey(a), a.slice(prefix.length))
    }))
  })

  it("safeEqual is string equality for any strings", () => {
    fc.assert(fc.property(anyString, anyString, (a, b) => {
      assert.strictEqual(safeEqual(a, b), a === b)
      assert.isTrue(safeEqual(a, a))
    }))
  })

  it("sameDigest is string equality for any strings, digests among them", () => {
    const digests = fc.string({ minLength: 1 }).map(sha256Hex)
    fc.assert(fc.property(fc.oneof(anyString, digests), fc.oneof(anyString, digests), (a, b) => {
      assert.strictEqual(sameDigest(a, b), a === b)
      assert.isTrue(sameDigest(a, a))
    }))
    // Strings that latin1 or UTF-8 would encode alike stay apart.
    assert.isFalse(sameDigest("\u0100", "\u0000"))
    assert.isFalse(sameDigest("\ud800", "\ud801"))
  })

  it("parseBearer never throws and reads exactly `Bearer <token>`", () => {
    fc.assert(
      fc.property(fc.option(anyString, { nil: undefined }), (header) => {
        const parsed = parseBearer(header)
        assert.include(["Missing", "Malformed", "Key"], parsed._tag)
        if (header === undefined || header === "") assert.strictEqual(parsed._tag, "Missing")
        if (parsed._tag === "Key") {
          assert.match(header!, /^bearer /i)
          assert.notMatch(parsed.key, /\s/)
          assert.isAbove(parsed.key.length, 0)
        }
      }),
      { numRuns: 2000 }
    )
    fc.assert(fc.property(prefixes, fc.constantFrom("Bearer ", "bearer ", "BEARER  "), (prefix, scheme) => {
      const key = generateApiKey(prefix)
      assert.deepStrictEqual(parseBearer(scheme + key), { _tag: "Key", key })
      assert.strictEqual(parseBearer(`${scheme}${key} ${key}`)._tag, "Malformed")
      assert.strictEqual(parseBearer(`Basic ${key}`)._tag, "Malformed")
      assert.strictEqual(parseBearer(key)._tag, "Malformed")
    }))
    for (const header of ["Bearer", "Bearer ", "Basic x", "Bearer\ta", "Bearer a b"]) {
      assert.strictEqual(parseBearer(header)._tag, "Malformed", header)
    }
  })

  it("parseBearer stays linear on adversarial input", () => {
    const start = performance.now()
    for (
      const header of [
        "Bearer " + " ".repeat(100_000) + "x y",
        "Bearer " + "a".repeat(200_000) + " ".repeat(100_000) + "!"
      ]
    ) {
      parseBearer(header)
    }
    assert.isBelow(performance.now() - start, 500)
  })
})
