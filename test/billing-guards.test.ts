import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { call, testApp, TestServer } from "./support/harness.ts"
import { adminSecret, assertError, awaitFreshWindow, randomIp } from "./support/processes.ts"
import {
  completeCheckout,
  event,
  formToken,
  signedEvent,
  signUp,
  startCheckout,
  webhookSecret
} from "./support/signup.ts"

/** A payment event from the client address `ip`, signed as given (or not at all). */
const deliver = (
  ip: string,
  body: Record<string, unknown>,
  signature: { secret?: string; timestamp?: number } | "none" = {}
) => {
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

const checkoutFor = (email: string) =>
  call("POST", "/api/checkout", { headers: { "x-forwarded-for": randomIp() }, body: { email } })

const holdersOf = (email: string) =>
  Effect.gen(function*() {
    const { sql } = yield* TestServer
    return yield* sql<
      { id: string; status: string }
    >`SELECT id, status FROM customers WHERE lower(email) = ${email.toLowerCase()}`
  })

layer(testApp({ trustProxy: true, paymentWebhookSecret: Option.some(Redacted.make(webhookSecret)) }), {
  timeout: 60_000,
  excludeTestServices: true
})("sign-up and payment webhook guards", (it) => {
  it.effect(
    "unsigned and badly signed requests spend their sender's pre-auth budget, never the provider's",
    () =>
      Effect.gen(function*() {
        // The flood and the provider's event must share one window for the check to mean anything.
        yield* awaitFreshWindow(30)
        const flooder = randomIp()
        const statuses: Array<number> = []
        for (let i = 0; i < 120; i++) {
          const res = yield* deliver(
            flooder,
            event("invoice.paid", {}),
            i % 2 === 0 ? "none" : { secret: "whsec_wrong" }
          )
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
      }),
    { timeout: 90_000 }
  ) // waiting for a fresh window alone can take 30 s

  it.effect("a signature dated more than 300 s ahead is refused like a bad one; within 300 s either way it passes", () =>
    Effect.gen(function*() {
      const ip = randomIp()
      const ahead = yield* deliver(ip, event("ping.ahead", {}), { timestamp: nowSeconds() + 600 })
      assertError(ahead, 400, "E_SIGNATURE_INVALID")
      assert.strictEqual(ahead.headers.get("ratelimit-policy"), "\"pre-auth\";q=20;w=60")
      assertError(
        yield* deliver(ip, event("ping.ahead", {}), { timestamp: nowSeconds() + 330 }),
        400,
        "E_SIGNATURE_INVALID"
      )
      assertError(
        yield* deliver(ip, event("ping.old", {}), { timestamp: nowSeconds() - 330 }),
        400,
        "E_SIGNATURE_INVALID"
      )
      // A second `t=` cannot smuggle a date past the check either.
      const body = event("ping.twice", {})
      const future = signedEvent(body, { timestamp: nowSeconds() + 600 })
      const twice = yield* call("POST", "/api/webhooks/payment", {
        headers: {
          "content-type": "application/json",
          "x-forwarded-for": ip,
          "stripe-signature": `t=${nowSeconds()},${future.header}`
        },
        body: future.payload,
        raw: true
      })
      assertError(twice, 400, "E_SIGNATURE_INVALID")

      const skewed = yield* deliver(ip, event("ping.skewed", {}), { timestamp: nowSeconds() + 60 })
      assert.strictEqual(skewed.status, 200, skewed.text)
      const late = yield* deliver(ip, event("ping.late", {}), { timestamp: nowSeconds() - 200 })
      assert.strictEqual(late.status, 200, late.text)
    }))

  it.effect("one trial per address: a checkout for an address a customer holds is 409, in any letter case", () =>
    Effect.gen(function*() {
      const { customerId } = yield* signUp("Trial-Once@Example.com")
      for (const email of ["trial-once@example.com", "TRIAL-ONCE@EXAMPLE.COM", "Trial-Once@Example.com"]) {
        const res = yield* checkoutFor(email)
        assertError(res, 409, "E_CONFLICT")
        assert.include(res.json.error, "already exists")
      }
      assert.deepStrictEqual((yield* holdersOf("trial-once@example.com")).map((row) => row.id), [customerId])
      // Another address is a new trial.
      assert.strictEqual((yield* checkoutFor("trial-twice@example.com")).status, 200)
    }))

  it.effect("only a cancelled customer's address may start another trial; a suspended one may not", () =>
    Effect.gen(function*() {
      for (
        const [status, expected] of [["cancelled", 200], ["suspended", 409], ["active", 409], [
          "onboarding",
          409
        ]] as const
      ) {
        const email = `held-${status}@example.com`
        const made = yield* call("POST", "/api/admin/provision", {
          headers: { "x-admin-secret": adminSecret, "x-forwarded-for": randomIp() },
          body: { email, status }
        })
        assert.strictEqual(made.status, 200, made.text)
        const res = yield* checkoutFor(email.toUpperCase())
        assert.strictEqual(res.status, expected, `${status}: ${res.text}`)
        if (expected === 409) assertError(res, 409, "E_CONFLICT")
      }
      // After cancellation, the new trial completes into a second customer for the address.
      const { customerId } = yield* signUp("held-cancelled@example.com")
      const holders = yield* holdersOf("held-cancelled@example.com")
      assert.strictEqual(holders.length, 2)
      assert.deepStrictEqual(holders.filter((row) => row.status !== "cancelled").map((row) => row.id), [customerId])
    }))

  it.effect("two open checkouts for one address: the first to complete wins, the other is refused at completion", () =>
    Effect.gen(function*() {
      const first = yield* startCheckout("race@example.com")
      const second = yield* startCheckout("RACE@example.com")
      yield* completeCheckout(first.sessionId)
      const page = yield* call("GET", `/checkout/${second.sessionId}`)
      assert.strictEqual(page.status, 200)
      const press = yield* call("POST", `/checkout/${second.sessionId}`, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `_csrf=${encodeURIComponent(formToken(page.text))}`,
        raw: true
      })
      assert.strictEqual(press.status, 409, press.text)
      assert.include(press.headers.get("content-type"), "text/html")
      assert.include(press.text, "already exists")
      assert.include(press.text, press.headers.get("x-request-id")!)
      assert.strictEqual((yield* holdersOf("race@example.com")).length, 1)
      assertError(
        yield* call("GET", `/api/session/${second.sessionId}`, { headers: { "x-forwarded-for": second.ip } }),
        409,
        "E_CHECKOUT_INCOMPLETE"
      )
      const key = yield* call("GET", `/api/session/${first.sessionId}`, { headers: { "x-forwarded-for": first.ip } })
      assert.strictEqual(key.status, 200, key.text)
    }))

  it.effect("two completions racing for one address make one customer", () =>
    Effect.gen(function*() {
      const sessions = yield* Effect.forEach(["a", "b", "c", "d"], () => startCheckout("racing@example.com"))
      const pages = yield* Effect.forEach(sessions, (s) => call("GET", `/checkout/${s.sessionId}`))
      const presses = yield* Effect.forEach(sessions, (s, i) =>
        call("POST", `/checkout/${s.sessionId}`, {
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `_csrf=${encodeURIComponent(formToken(pages[i].text))}`,
          raw: true
        }), { concurrency: "unbounded" })
      assert.deepStrictEqual(presses.map((p) => p.status).sort(), [303, 409, 409, 409])
      assert.strictEqual((yield* holdersOf("racing@example.com")).length, 1)
    }))
})
