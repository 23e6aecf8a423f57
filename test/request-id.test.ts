import { assert, describe, it } from "@effect/vitest"
import { pickRequestId } from "../src/platform/http/RequestContext.ts"

describe("request ids", () => {
  it("fresh ids are req_ and 32 hex digits, none repeated across many refills of their random bytes", () => {
    const seen = new Set<string>()
    for (let i = 0; i < 5_000; i++) {
      const id = pickRequestId(undefined)
      assert.match(id, /^req_[0-9a-f]{32}$/)
      seen.add(id)
    }
    assert.strictEqual(seen.size, 5_000)
  })

  it("a well-formed incoming id is kept; anything else is replaced", () => {
    assert.strictEqual(pickRequestId("trace-1234.abc_DEF"), "trace-1234.abc_DEF")
    assert.match(pickRequestId("short"), /^req_[0-9a-f]{32}$/)
    assert.match(pickRequestId("has space in it"), /^req_[0-9a-f]{32}$/)
  })
})
