import { assert, describe, it as plain, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { findJsonSyntaxError } from "../src/platform/http/JsonSyntax.ts"
import { call, testApp } from "./support/harness.ts"
import { assertError, bearer, provision } from "./support/processes.ts"

const details = (res: { json: any }) =>
  Object.fromEntries((res.json.details ?? []).map((d: any) => [d.path, d.message]))

describe("where JSON goes wrong", () => {
  plain("line, column and offset of the first error; valid JSON has none", () => {
    assert.deepStrictEqual(findJsonSyntaxError("{\n  \"a\": 1,\n  \"b\": oops\n}"), {
      offset: 19,
      line: 3,
      column: 8,
      expected: "a JSON value"
    })
    assert.strictEqual(findJsonSyntaxError("{\"a\":1,}")?.offset, 7)
    assert.strictEqual(findJsonSyntaxError("[1 2]")?.expected, "',' or ']' after an array element")
    assert.strictEqual(findJsonSyntaxError("{\"a\":1} x")?.expected, "the end of the text")
    assert.strictEqual(findJsonSyntaxError("\"abc")?.expected, "a closing quote")
  })

  plain("agrees with JSON.parse on what is valid (bounded property run)", () => {
    const runs = 500
    let ran = 0
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string(), fc.json().map((j) => j.slice(0, -1))), (text) => {
        ran++
        let valid = true
        try {
          JSON.parse(text)
        } catch {
          valid = false
        }
        return (findJsonSyntaxError(text) === undefined) === valid
      }),
      { numRuns: runs }
    )
    console.info(`JSON syntax agreement: ${ran} cases ran`)
    assert.strictEqual(ran, runs)
  })
})

layer(testApp({ trustProxy: 1 }), { timeout: 60_000 })("validation messages", (it) => {
  it.effect("a body missing several required fields names every one of them, in one wording", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const res = yield* call("POST", `/api/content/${a.customerId}`, { headers: bearer(a.apiKey), body: {} })
      assertError(res, 400, "E_VALIDATION")
      assert.deepStrictEqual(details(res), { "body.type": "is required", "body.body": "is required" })
      assert.strictEqual(res.json.error, "Invalid body.type: is required")

      const many = yield* call("POST", `/api/content/${a.customerId}`, {
        headers: bearer(a.apiKey),
        body: { type: "poem", body: 3, title: "t".repeat(301), metadata: "m" }
      })
      assert.deepStrictEqual(details(many), {
        "body.type": "must be one of: blog, social, email, ad, outreach",
        "body.body": "must be a string",
        "body.title": "must be at most 300 characters",
        "body.metadata": "must be an object"
      })
    }))

  it.effect("schema bounds, platform rules and list bounds read alike", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const tweet = yield* call("POST", `/api/content/${a.customerId}`, {
        headers: bearer(a.apiKey),
        body: { type: "social", platform: "x", body: "y".repeat(281) }
      })
      assert.match(details(tweet)["body.body"], /^must be at most 280 characters/)
      const review = yield* call("POST", `/api/content/${a.customerId}/nothing/review`, {
        headers: bearer(a.apiKey),
        body: { action: "approve", note: "n".repeat(1001) }
      })
      assert.strictEqual(details(review)["body.note"], "must be at most 1000 characters")
      const hook = yield* call("POST", `/api/hooks/${a.customerId}`, {
        headers: bearer(a.apiKey),
        body: { url: "https://example.com", events: [] }
      })
      assert.strictEqual(details(hook)["body.events"], "must have at least 1 item")
      const extra = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers: bearer(a.apiKey),
        body: { email: "x@example.com", role: "boss", extra: 1 }
      })
      assert.deepStrictEqual(details(extra), {
        "body.extra": "is not an allowed property",
        "body.role": "must be one of: admin, editor, viewer"
      })
      for (
        const message of Object.values<string>({
          ...details(tweet),
          ...details(review),
          ...details(hook),
          ...details(extra)
        })
      ) {
        assert.notMatch(message, /^Expected|Missing key/)
      }
    }))

  it.effect("a repeated query parameter says it is repeated", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const limit = yield* call("GET", `/api/content/${a.customerId}?limit=5&limit=6`, { headers: bearer(a.apiKey) })
      assertError(limit, 400, "E_VALIDATION")
      assert.deepStrictEqual(details(limit), { "query.limit": "is repeated: give it once" })
      const status = yield* call("GET", `/api/content/${a.customerId}?status=draft&status=approved`, {
        headers: bearer(a.apiKey)
      })
      assert.deepStrictEqual(details(status), { "query.status": "is repeated: give it once" })
      const once = yield* call("GET", `/api/content/${a.customerId}?limit=500`, { headers: bearer(a.apiKey) })
      assert.deepStrictEqual(details(once), { "query.limit": "must be between 1 and 100" })
    }))

  it.effect("malformed JSON says where: line, column and character", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const res = yield* call("POST", `/api/content/${a.customerId}`, {
        headers: bearer(a.apiKey, { "content-type": "application/json" }),
        body: "{\n  \"type\": \"blog\",\n  \"body\": oops\n}",
        raw: true
      })
      assert.strictEqual(res.status, 400, res.text)
      assert.strictEqual(res.json.code, "E_MALFORMED_JSON")
      assert.include(res.json.error, "line 3, column 11")
      assert.include(res.json.error, "character 30")
    }))
})
