import { assert, describe, it } from "@effect/vitest"
import { canonicalBody, openReplay, sealReplay } from "../src/domain/ReplaySeal.ts"
import { rewriteLinks, withUtm } from "../src/domain/Social.ts"
import { parseRetryAfter, retryDelaySeconds } from "../src/domain/Webhooks.ts"

describe("replay seals", () => {
  it("an empty answer seals and opens; anything shorter than a seal's header does not open", () => {
    const sealed = sealReplay("", "idem", "server", "scope")
    assert.match(sealed, /^v1\.[A-Za-z0-9_-]+$/)
    assert.strictEqual(Buffer.from(sealed.slice(3), "base64url").length, 28)
    assert.strictEqual(openReplay(sealed, "idem", "server", "scope"), "")
    assert.isUndefined(openReplay(sealed.slice(0, -2), "idem", "server", "scope"))
    assert.isUndefined(openReplay("v2." + sealed.slice(3), "idem", "server", "scope"))
    assert.strictEqual(
      openReplay(sealReplay("ünïcødé ✓", "idem", "server", "scope"), "idem", "server", "scope"),
      "ünïcødé ✓"
    )
  })

  it("bodies compare as JSON: null and no body are the empty object, key order is ignored, arrays keep theirs", () => {
    assert.strictEqual(canonicalBody("null"), "{}")
    assert.strictEqual(canonicalBody(" \n "), "{}")
    assert.strictEqual(
      canonicalBody("{\"b\":{\"d\":1,\"c\":[{\"f\":1,\"e\":2}]},\"a\":null}"),
      "{\"a\":null,\"b\":{\"c\":[{\"e\":2,\"f\":1}],\"d\":1}}"
    )
    assert.strictEqual(canonicalBody("[3, 1, 2]"), "[3,1,2]")
    assert.strictEqual(canonicalBody("\"text\""), "\"text\"")
    assert.strictEqual(canonicalBody("{not json"), "{not json")
  })
})

describe("tracked links", () => {
  it("links already under the tracked prefix are left alone, whatever their case", () => {
    assert.strictEqual(
      rewriteLinks("go HTTPS://H.EXAMPLE/r/abc now", "x", "https://h.example/r/", () => "NEW"),
      "go HTTPS://H.EXAMPLE/r/abc now"
    )
    assert.strictEqual(
      rewriteLinks("go https://a.example/p now", "x", "HTTPS://H.EXAMPLE/R/", () => "C"),
      "go HTTPS://H.EXAMPLE/R/C now"
    )
    assert.strictEqual(
      rewriteLinks("(see https://a.example/p).", "x", "https://h.example/r/", () => "C"),
      "(see https://h.example/r/C)."
    )
  })

  it("UTM parameters are added, existing ones kept", () => {
    assert.strictEqual(
      withUtm("https://a.example/p?utm_source=news&x=1", "x"),
      "https://a.example/p?utm_source=news&x=1&utm_medium=social&utm_campaign=herald"
    )
  })
})

describe("delivery retries", () => {
  it("Retry-After dates round up to whole seconds; no schedule left means no retry", () => {
    const now = Date.parse("2026-11-23T12:00:00.000Z")
    assert.strictEqual(parseRetryAfter("Mon, 23 Nov 2026 12:00:01 GMT", now + 500), 1)
    assert.strictEqual(parseRetryAfter("0", now), 0)
    assert.strictEqual(parseRetryAfter("86400", now), 86_400)
    assert.strictEqual(parseRetryAfter("86401", now), 86_400)
    assert.isUndefined(parseRetryAfter("", now))
    assert.isUndefined(retryDelaySeconds(1, []))
    assert.strictEqual(retryDelaySeconds(1, [5], 0), 5)
    assert.strictEqual(retryDelaySeconds(1, [0]), 0)
  })
})
