import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { call, testApp } from "./support/harness.ts"
import { assertError, awaitFreshWindow, randomIp } from "./support/processes.ts"
import { event, signedEvent, webhookSecret } from "./support/signup.ts"

/** A payment event from the client address `ip`, signed as given (or not at all). */
const deliver = (ip: string, body: Record<string, unknown>, signature: { secret?: string; timestamp?: number } | "none" = {}) => {
  const { payload, header } = signedEvent(body, signature === "none" ? {} : signature)
  return call("POST", "/api/webhooks/payment", {
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": ip,
      ...(signature === "none" ? {} : { "stripe-signature": header })
    },
    body: payload,
    raw: true
  })
}

const nowSeconds = () => Math.floor(Date.now() / 1000)

layer(testApp({ trustProxy: true, paymentWebhookSecret: Option.some(Redacted.make(webhookSecret)) }), {
  timeout: 60_000,
  excludeTestServices: true
})("payment webhook guards", (it) => {
  it.effect("unsigned and badly signed requests spend their sender's pre-auth budget, never the provider's", () =>
    Effect.gen(function*() {
      // The flood and the provider's event must share one window for the check to mean anything.
      yield* awaitFreshWindow(30)
      const flooder = randomIp()
      const statuses: Array<number> = []
      for (let i = 0; i < 120; i++) {
        const res = yield* deliver(flooder, event("invoice.paid", {}), i % 2 === 0 ? "none" : { secret: "whsec_wrong" })
        statuses.push(res.status)
        if (i === 0) {
          assertError(res, 400, "E_SIGNATURE_INVALID")
          assert.strictEqual(res.headers.get("ratelimit-policy"), "\"pre-auth\";q=20;w=60")
          assert.match(res.headers.get("ratelimit")!, /^"pre-auth";r=19;t=\d+$/)
        }
        if (i === 119) {
          assertError(res, 429, "E_RATE_LIMITED")
          assert.isAtLeast(Number(res.headers.get("retry-after")), 1)
          assert.match(res.headers.get("ratelimit")!, /^"pre-auth";r=0;t=\d+$/)
        }
      }
      // The 21st counted attempt of the window is the first refused.
      assert.deepStrictEqual(statuses.slice(0, 20), Array(20).fill(400))
      assert.deepStrictEqual(statuses.slice(20), Array(100).fill(429))
      // A correct signature from the flooding address is refused while its budget is spent.
      assertError(yield* deliver(flooder, event("ping.flooder", {})), 429, "E_RATE_LIMITED")

      // The provider, from its own address: accepted, and the first request counted in the global budget.
      const signed = yield* deliver(randomIp(), event("ping.provider", {}))
      assert.strictEqual(signed.status, 200, signed.text)
      assert.deepStrictEqual(signed.json, { received: true })
      assert.strictEqual(signed.headers.get("ratelimit-policy"), "\"payment-webhook\";q=100;w=60")
      assert.match(signed.headers.get("ratelimit")!, /^"payment-webhook";r=99;t=\d+$/)
    }))

  it.effect("a signature dated more than 300 s ahead is refused like a bad one; within 300 s either way it passes", () =>
    Effect.gen(function*() {
      const ip = randomIp()
      const ahead = yield* deliver(ip, event("ping.ahead", {}), { timestamp: nowSeconds() + 600 })
      assertError(ahead, 400, "E_SIGNATURE_INVALID")
      assert.strictEqual(ahead.headers.get("ratelimit-policy"), "\"pre-auth\";q=20;w=60")
      assertError(yield* deliver(ip, event("ping.ahead", {}), { timestamp: nowSeconds() + 330 }), 400, "E_SIGNATURE_INVALID")
      assertError(yield* deliver(ip, event("ping.old", {}), { timestamp: nowSeconds() - 330 }), 400, "E_SIGNATURE_INVALID")
      // A second `t=` cannot smuggle a date past the check either.
      const body = event("ping.twice", {})
      const future = signedEvent(body, { timestamp: nowSeconds() + 600 })
      const twice = yield* call("POST", "/api/webhooks/payment", {
        headers: { "content-type": "application/json", "x-forwarded-for": ip, "stripe-signature": `t=${nowSeconds()},${future.header}` },
        body: future.payload,
        raw: true
      })
      assertError(twice, 400, "E_SIGNATURE_INVALID")

      const skewed = yield* deliver(ip, event("ping.skewed", {}), { timestamp: nowSeconds() + 60 })
      assert.strictEqual(skewed.status, 200, skewed.text)
      const late = yield* deliver(ip, event("ping.late", {}), { timestamp: nowSeconds() - 200 })
      assert.strictEqual(late.status, 200, late.text)
    }))
})
