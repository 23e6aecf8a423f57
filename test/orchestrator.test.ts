import { assert, describe, it as plain, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import fc from "fast-check"
import { signOrchestratorRequest, verifyOrchestratorSignature } from "../src/domain/OrchestratorSignature.ts"
import { call, testApp } from "./support/harness.ts"
import { bearer, provision } from "./support/processes.ts"

const key = "orchestrator-test-key"
const now = () => Math.floor(Date.now() / 1000)

describe("orchestrator signature", () => {
  plain("accepts its own signatures within 300 s and refuses any change of key, body or time", () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: -300, max: 300 }), (body, skew) => {
      const t = 1_800_000_000
      assert.isTrue(verifyOrchestratorSignature(signOrchestratorRequest(key, body, t + skew), body, key, t))
      assert.isFalse(verifyOrchestratorSignature(signOrchestratorRequest(key, body, t + skew), body + "x", key, t))
      assert.isFalse(verifyOrchestratorSignature(signOrchestratorRequest("other", body, t + skew), body, key, t))
      assert.isFalse(verifyOrchestratorSignature(signOrchestratorRequest(key, body, t + 301), body, key, t))
      assert.isFalse(verifyOrchestratorSignature(signOrchestratorRequest(key, body, t - 301), body, key, t))
    }))
    assert.isFalse(verifyOrchestratorSignature(undefined, "", key, now()))
    assert.isFalse(verifyOrchestratorSignature("t=abc,v1=00", "", key, now()))
    assert.isFalse(verifyOrchestratorSignature(signOrchestratorRequest(key, "", now()), "", "", now()))
  })
})

layer(testApp({ orchestratorSigningKey: Option.some(Redacted.make(key)) }), {
  timeout: 60_000,
  excludeTestServices: true
})("orchestrator over HTTP", (it) => {
  const signed = (method: string, body?: unknown, signature?: string) => {
    const text = body === undefined ? "" : JSON.stringify(body)
    return call(method, "/api/orchestrator", {
      headers: {
        "x-orchestrator-signature": signature ?? signOrchestratorRequest(key, text, now()),
        "content-type": "application/json"
      },
      ...(body === undefined ? {} : { body: text, raw: true })
    })
  }

  it.effect("401 E_SIGNATURE_INVALID without, with a bad or a stale signature", () =>
    Effect.gen(function*() {
      for (
        const res of [
          yield* call("GET", "/api/orchestrator"),
          yield* signed("GET", undefined, "t=1,v1=" + "0".repeat(64)),
          yield* signed("GET", undefined, signOrchestratorRequest(key, "", now() - 400)),
          yield* signed("POST", { workflow: "lead-magnet" }, signOrchestratorRequest(key, "{}", now()))
        ]
      ) {
        assert.strictEqual(res.status, 401)
        assert.strictEqual(res.json.code, "E_SIGNATURE_INVALID")
        assert.isString(res.json.requestId)
      }
    }))

  it.effect("POST starts a run, GET lists workflows, schedules and runners, PUT re-syncs", () =>
    Effect.gen(function*() {
      const { customerId, apiKey } = yield* provision({ email: "orch@x.co" })
      const h = bearer(apiKey)
      const started = yield* signed("POST", { workflow: "performance-report", customerId, input: { period: "30d" } })
      assert.strictEqual(started.status, 200)
      assert.match(started.json.runId, /^run_/)
      const run = yield* call("GET", `/api/runs/${customerId}/${started.json.runId}`, { headers: h })
      assert.strictEqual(run.json.workflow, "performance-report")
      assert.strictEqual((yield* signed("POST", { workflow: "nope", customerId })).status, 404)
      const bad = yield* signed("POST", { workflow: "lead-magnet", customerId, extra: 1 })
      assert.strictEqual(bad.status, 400)
      assert.strictEqual(bad.json.code, "E_VALIDATION")
      assert.strictEqual((yield* signed("POST", { workflow: "lead-magnet", customerId: "not-a-uuid" })).status, 400)

      yield* call("POST", `/api/workflows/${customerId}/daily-social-posts/toggle`, {
        headers: h,
        body: { enabled: true }
      })
      const listed = yield* signed("GET")
      assert.strictEqual(listed.status, 200)
      assert.deepStrictEqual(listed.json.workflows, [
        "weekly-content-plan",
        "daily-social-posts",
        "monthly-seo-audit",
        "competitor-research",
        "lead-magnet",
        "performance-report"
      ])
      assert.deepStrictEqual(listed.json.engineWorkflows, ["HeraldRun"])
      const mine = listed.json.schedules.filter((s: any) => s.customerId === customerId)
      assert.deepStrictEqual(mine.map((s: any) => [s.workflow, s.schedule, s.timezone]), [[
        "daily-social-posts",
        "0 10 * * *",
        "UTC"
      ]])
      assert.isAtLeast(listed.json.runners.length, 1)
      const resynced = yield* signed("PUT", {})
      assert.strictEqual(resynced.status, 200)
      assert.isNumber(resynced.json.resynced)
    }))
})
