import { assert, describe, it } from "@effect/vitest"
import { runConformance, skipped } from "../scripts/mcp-conformance.ts"

describe("the MCP conformance suite against a started Herald", () => {
  it("passes every server scenario of a capability Herald declares, on each revision the suite covers", async () => {
    const outcomes = await runConformance()
    const failed = outcomes.filter((o) => o.outcome === "failed").map((o) => `${o.revision} ${o.scenario}: ${o.detail}`)
    assert.deepStrictEqual(failed, [])
    const passed = new Set(outcomes.filter((o) => o.outcome === "passed").map((o) => `${o.revision} ${o.scenario}`))
    for (const scenario of ["server-initialize", "tools-list", "ping"]) {
      for (const revision of ["2025-06-18", "2025-11-25"]) {
        assert.isTrue(passed.has(`${revision} ${scenario}`), `${revision} ${scenario}`)
      }
    }
    assert.isTrue(passed.has("2025-11-25 dns-rebinding-protection"))
    // Every skip is one the list explains; a scenario the suite adds shows up as passed or failed, never silently skipped.
    for (const o of outcomes.filter((o) => o.outcome === "skipped")) assert.isString(skipped[o.scenario])
  }, 900_000)
})
