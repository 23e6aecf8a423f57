import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import fc from "fast-check"
import Stripe from "stripe"
import { send, testApp, TestServer } from "./support/harness.ts"
import { randomIp } from "./support/processes.ts"
import { webhookSecret } from "./support/signup.ts"

const types = [
  "checkout.session.completed",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.paid",
  "invoice.payment_failed",
  "something.else"
]

const pathIds = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s.toWellFormed())),
  fc.constantFrom("%00", "%ED%A0%80", "%ff", "..", "chk_" + "a".repeat(300))
)
const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    "",
    "\u0000",
    "\ud800",
    "00000000-0000-0000-0000-000000000000",
    "chk_",
    "cs_test_x",
    "' OR 1=1 --",
    "x".repeat(5000)
  )
)
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 })
)
const object = fc.record({
  id: hostileValue,
  customer: hostileValue,
  subscription: hostileValue,
  client_reference_id: hostileValue,
  status: fc.oneof(fc.constantFrom("active", "past_due", "canceled", "trialing"), hostileValue),
  amount_paid: hostileValue,
  metadata: fc.oneof(fc.record({ customerId: hostileValue }), hostileValue),
  parent: fc.oneof(
    fc.record({ subscription_details: fc.record({ subscription: hostileValue, metadata: hostileValue }) }),
    hostileValue
  )
}, { requiredKeys: [] })

const event = fc.record({
  id: fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), hostileValue),
  type: fc.oneof(fc.constantFrom(...types), hostileValue),
  created: fc.oneof(fc.integer({ min: 0, max: 4_000_000_000 }), hostileValue),
  data: fc.oneof(fc.record({ object }), hostileValue)
}, { requiredKeys: [] })

layer(testApp({ trustProxy: true, paymentWebhookSecret: Option.some(Redacted.make(webhookSecret)) }), {
  timeout: 120_000,
  excludeTestServices: true
})("billing fuzz", (it) => {
  it.effect("signed hostile payment events, hostile checkout bodies and session ids never get a 5xx", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      // Found by this fuzzer on PGlite: text the database cannot store is refused, not a 500.
      for (
        const value of [
          { id: "\u0000", type: "invoice.paid", data: { object: {} } },
          { id: "evt_nul", type: "checkout.session.completed", data: { object: { client_reference_id: "a\u0000b" } } },
          { id: "evt_surrogate", type: "invoice.paid\ud800", data: { object: {} } }
        ]
      ) {
        const payload = JSON.stringify(value)
        const res = yield* Effect.promise(() =>
          send(url, "POST", "/api/webhooks/payment", {
            headers: {
              "content-type": "application/json",
              "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret })
            },
            body: payload,
            raw: true
          })
        )
        assert.strictEqual(res.status, 400, `${payload} => ${res.text}`)
        assert.strictEqual(res.json.code, "E_VALIDATION")
      }
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(event, async (value) => {
            const payload = JSON.stringify(value)
            const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret })
            const res = await send(url, "POST", "/api/webhooks/payment", {
              headers: { "content-type": "application/json", "stripe-signature": header },
              body: payload,
              raw: true
            })
            assert.isBelow(res.status, 500, `${payload.slice(0, 300)} => ${res.status} ${res.text}`)
            assert.oneOf(res.status, [200, 400, 429], res.text)
          }),
          { numRuns: 90 }
        )
      )
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), pathIds, async (body, id) => {
            const ip = randomIp()
            const checkout = await send(url, "POST", "/api/checkout", {
              headers: { "x-forwarded-for": ip },
              body: { email: body }
            })
            assert.isBelow(checkout.status, 500, checkout.text)
            const session = await send(url, "GET", `/api/session/${id}`, { headers: { "x-forwarded-for": ip } })
            assert.isBelow(session.status, 500, session.text)
            const page = await send(url, "GET", `/checkout/${id}`)
            assert.isBelow(page.status, 500, page.text)
          }),
          { numRuns: 60 }
        )
      )
    }))
})
