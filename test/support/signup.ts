import { assert } from "@effect/vitest"
import { Effect } from "effect"
import Stripe from "stripe"
import type { CustomerId } from "../../src/domain/Ids.ts"
import { call } from "./harness.ts"
import { randomIp } from "./processes.ts"

export const webhookSecret = "whsec_test_0123456789abcdef"

/** Starts a checkout from a fresh client address; returns the session id of its URL. */
export const startCheckout = (email: string, ip = randomIp()) =>
  Effect.gen(function*() {
    const res = yield* call("POST", "/api/checkout", { headers: { "x-forwarded-for": ip }, body: { email } })
    assert.strictEqual(res.status, 200, res.text)
    const url = new URL(res.json.url)
    return { url: res.json.url as string, sessionId: url.pathname.split("/").pop()!, ip }
  })

/** The hosted page's form token. */
export const formToken = (page: string): string => {
  const match = /name="_csrf" value="([^"]+)"/.exec(page)
  assert.isNotNull(match, "the page carries a form token")
  return match![1]
}

/** Opens the hosted page and presses "Start free trial" as a browser would. */
export const completeCheckout = (sessionId: string) =>
  Effect.gen(function*() {
    const page = yield* call("GET", `/checkout/${sessionId}`)
    assert.strictEqual(page.status, 200, page.text)
    const res = yield* call("POST", `/checkout/${sessionId}`, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `_csrf=${encodeURIComponent(formToken(page.text))}`,
      raw: true
    })
    assert.strictEqual(res.status, 303, res.text)
    assert.strictEqual(res.headers.get("location"), `/checkout/${sessionId}/success`)
  })

/** A signed-up customer: checkout, completion, key collected. */
export const signUp = (email: string) =>
  Effect.gen(function*() {
    const { sessionId, ip } = yield* startCheckout(email)
    yield* completeCheckout(sessionId)
    const res = yield* call("GET", `/api/session/${sessionId}`, { headers: { "x-forwarded-for": ip } })
    assert.strictEqual(res.status, 200, res.text)
    return { sessionId, customerId: res.json.customerId as CustomerId, apiKey: res.json.apiKey as string }
  })

/** A payment event signed the way Stripe signs, by the stripe package itself. */
export const signedEvent = (event: Record<string, unknown>, options: { secret?: string; timestamp?: number } = {}) => {
  const payload = JSON.stringify(event)
  const header = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? webhookSecret,
    ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp })
  })
  return { payload, header }
}

export const postEvent = (event: Record<string, unknown>, options: { secret?: string; timestamp?: number } = {}) => {
  const { payload, header } = signedEvent(event, options)
  return call("POST", "/api/webhooks/payment", {
    headers: { "content-type": "application/json", "stripe-signature": header },
    body: payload,
    raw: true
  })
}

let counter = 0
export const event = (type: string, object: Record<string, unknown>, created = Math.floor(Date.now() / 1000)) => ({
  id: `evt_${Date.now()}_${++counter}`,
  object: "event",
  type,
  created,
  data: { object }
})
