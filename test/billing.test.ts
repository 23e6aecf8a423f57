import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { call, testApp, TestServer } from "./support/harness.ts"
import { assertError, randomIp } from "./support/processes.ts"
import {
  completeCheckout,
  event,
  formToken,
  postEvent,
  signedEvent,
  signUp,
  startCheckout,
  webhookSecret
} from "./support/signup.ts"

const statusOf = (customerId: string) =>
  Effect.gen(function*() {
    const { sql } = yield* TestServer
    const rows = yield* sql<{ status: string }>`SELECT status FROM customers WHERE id = ${customerId}`
    return rows[0]?.status
  })

const statusEvents = (customerId: string) =>
  Effect.gen(function*() {
    const { sql } = yield* TestServer
    return yield* sql<{ data: any }>`SELECT data FROM events WHERE customer_id = ${customerId}
      AND type = 'customer.status_changed' ORDER BY id`
  })

const providerIdsOf = (customerId: string) =>
  Effect.gen(function*() {
    const { sql } = yield* TestServer
    return yield* sql<{ providerCustomerId: string | null; providerSubscriptionId: string | null }>`
      SELECT provider_customer_id, provider_subscription_id FROM customer_billing WHERE customer_id = ${customerId}`
  })

layer(
  testApp({
    trustProxy: true,
    paymentWebhookSecret: Option.some(Redacted.make(webhookSecret)),
    trialSweepIntervalMs: 100
  }),
  { timeout: 60_000, excludeTestServices: true }
)("sign-up and payment events", (it) => {
  it.effect("checkout, hosted page, completion, the key exactly once, then the key works", () =>
    Effect.gen(function*() {
      const { url, sql } = yield* TestServer
      const started = yield* startCheckout("first@example.com")
      assert.match(started.url, new RegExp(`^${url}/checkout/chk_[0-9a-f]{32}$`))

      const early = yield* call("GET", `/api/session/${started.sessionId}`, {
        headers: { "x-forwarded-for": started.ip }
      })
      assertError(early, 409, "E_CHECKOUT_INCOMPLETE")

      const page = yield* call("GET", `/checkout/${started.sessionId}`)
      assert.strictEqual(page.status, 200)
      assert.include(page.headers.get("content-type"), "text/html")
      assert.include(page.text, "Start free trial")
      assert.include(page.text, "30 days")
      assert.include(page.text, "Herald Pro")
      assert.include(page.headers.get("content-security-policy"), "default-src 'none'")
      assert.strictEqual(page.headers.get("referrer-policy"), "no-referrer")
      assert.strictEqual(page.headers.get("x-content-type-options"), "nosniff")

      const token = formToken(page.text)
      yield* completeCheckout(started.sessionId)
      const sealed = yield* sql<
        { sealedKey: string | null }
      >`SELECT sealed_key FROM checkout_sessions WHERE id = ${started.sessionId}`
      assert.match(sealed[0].sealedKey!, /^v1\./)

      const first = yield* call("GET", `/api/session/${started.sessionId}`, {
        headers: { "x-forwarded-for": started.ip }
      })
      assert.strictEqual(first.status, 200, first.text)
      assert.deepStrictEqual(Object.keys(first.json).sort(), ["apiKey", "customerId", "email", "mcpEndpoint"])
      assert.strictEqual(first.json.email, "first@example.com")
      assert.match(first.json.apiKey, /^svc_live_[0-9a-f]{64}$/)
      assert.strictEqual(first.json.mcpEndpoint, `${url}/mcp/sse?token=${first.json.apiKey}`)
      assert.strictEqual(first.headers.get("cache-control"), "no-store")
      assert.notInclude(sealed[0].sealedKey!, first.json.apiKey.slice(9))

      const after = yield* sql<{ sealedKey: string | null; keyRetrievedAt: Date | null }>`
        SELECT sealed_key, key_retrieved_at FROM checkout_sessions WHERE id = ${started.sessionId}`
      assert.isNull(after[0].sealedKey)
      assert.isNotNull(after[0].keyRetrievedAt)

      const again = yield* call("GET", `/api/session/${started.sessionId}`, {
        headers: { "x-forwarded-for": started.ip }
      })
      assertError(again, 410, "E_KEY_ALREADY_RETRIEVED")

      const customer = yield* call("GET", `/api/customer/${first.json.customerId}`, {
        headers: { authorization: `Bearer ${first.json.apiKey}` }
      })
      assert.strictEqual(customer.status, 200, customer.text)
      assert.strictEqual(customer.json.status, "onboarding")
      assert.strictEqual(customer.json.plan, "pro")
      const trialMs = Date.parse(customer.json.trialEndsAt) - Date.now()
      assert.isAbove(trialMs, 30 * 86_400_000 - 60_000)
      assert.isBelow(trialMs, 30 * 86_400_000 + 60_000)
      const events = yield* statusEvents(first.json.customerId)
      assert.deepStrictEqual(events.map((e) => [e.data.from, e.data.to]), [[null, "onboarding"]])

      // The page of a completed session leads to its success page; pressing the button again changes nothing.
      const done = yield* call("GET", `/checkout/${started.sessionId}`)
      assert.strictEqual(done.status, 303)
      const pressedAgain = yield* call("POST", `/checkout/${started.sessionId}`, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `_csrf=${encodeURIComponent(token)}`,
        raw: true
      })
      assert.strictEqual(pressedAgain.status, 303)
      const count = yield* sql<
        { n: number }
      >`SELECT count(*)::int AS n FROM customers WHERE email = 'first@example.com'`
      assert.strictEqual(count[0].n, 1)
    }))

  it.effect("unknown sessions are 404 (JSON on the API, HTML on the pages)", () =>
    Effect.gen(function*() {
      const ip = randomIp()
      for (const id of ["chk_0000", "cs_test_nothing", "%00", "x".repeat(300)]) {
        const res = yield* call("GET", `/api/session/${id}`, { headers: { "x-forwarded-for": ip } })
        assertError(res, 404, "E_NOT_FOUND")
      }
      const page = yield* call("GET", "/checkout/chk_unknown")
      assert.strictEqual(page.status, 404)
      assert.include(page.headers.get("content-type"), "text/html")
      assert.include(page.text, page.headers.get("x-request-id")!)
      const success = yield* call("GET", "/checkout/chk_unknown/success")
      assert.strictEqual(success.status, 200, "the success page asks the API, which answers 404")
    }))

  it.effect("the hosted form refuses a missing or foreign token and another origin (403, HTML)", () =>
    Effect.gen(function*() {
      const a = yield* startCheckout("csrf-a@example.com")
      const b = yield* startCheckout("csrf-b@example.com")
      const pageB = yield* call("GET", `/checkout/${b.sessionId}`)
      const form = { "content-type": "application/x-www-form-urlencoded" }
      const cases: ReadonlyArray<[Record<string, string>, string]> = [
        [form, ""],
        [form, `_csrf=${encodeURIComponent(formToken(pageB.text))}`],
        [
          { ...form, "sec-fetch-site": "cross-site" },
          `_csrf=${encodeURIComponent(formToken((yield* call("GET", `/checkout/${a.sessionId}`)).text))}`
        ],
        [
          { ...form, origin: "https://evil.example" },
          `_csrf=${encodeURIComponent(formToken((yield* call("GET", `/checkout/${a.sessionId}`)).text))}`
        ]
      ]
      for (const [headers, body] of cases) {
        const res = yield* call("POST", `/checkout/${a.sessionId}`, { headers, body, raw: true })
        assert.strictEqual(res.status, 403, body)
        assert.include(res.headers.get("content-type"), "text/html")
      }
      const early = yield* call("GET", `/api/session/${a.sessionId}`, { headers: { "x-forwarded-for": a.ip } })
      assertError(early, 409, "E_CHECKOUT_INCOMPLETE")
    }))

  it.effect("the email is escaped on the hosted page", () =>
    Effect.gen(function*() {
      const { sessionId } = yield* startCheckout("a'b&c<x>@example.com".replace("<x>", ""))
      const page = yield* call("GET", `/checkout/${sessionId}`)
      assert.include(page.text, "a&#39;b&amp;c@example.com")
      assert.notInclude(page.text, "a'b&c@")
    }))

  it.effect("checkout validates its body", () =>
    Effect.gen(function*() {
      const ip = randomIp()
      assertError(
        yield* call("POST", "/api/checkout", { headers: { "x-forwarded-for": ip }, body: { email: "nope" } }),
        400,
        "E_VALIDATION"
      )
      assertError(
        yield* call("POST", "/api/checkout", {
          headers: { "x-forwarded-for": ip },
          body: { email: "a@b.co", plan: "x" }
        }),
        400,
        "E_VALIDATION"
      )
    }))

  it.effect("checkout: 5 per minute per IP, and counted in the pre-auth budget of 20", () =>
    Effect.gen(function*() {
      const ip = randomIp()
      for (let i = 1; i <= 5; i++) {
        const res = yield* call("POST", "/api/checkout", {
          headers: { "x-forwarded-for": ip },
          body: { email: `rl${i}@example.com` }
        })
        assert.strictEqual(res.status, 200)
        assert.strictEqual(res.headers.get("ratelimit-policy"), "\"checkout\";q=5;w=60")
        assert.match(res.headers.get("ratelimit")!, new RegExp(`^"checkout";r=${5 - i};t=\\d+$`))
      }
      const over = yield* call("POST", "/api/checkout", {
        headers: { "x-forwarded-for": ip },
        body: { email: "rl6@example.com" }
      })
      assertError(over, 429, "E_RATE_LIMITED", "Rate limit exceeded")
      assert.isAtLeast(Number(over.headers.get("retry-after")), 1)

      // The six checkouts used six of the IP's 20 pre-auth attempts: 14 look-ups pass, the 15th is 429.
      for (let i = 1; i <= 14; i++) {
        const res = yield* call("GET", "/api/session/chk_none", { headers: { "x-forwarded-for": ip } })
        assert.strictEqual(res.status, 404, `look-up ${i}`)
        assert.strictEqual(res.headers.get("ratelimit-policy"), "\"pre-auth\";q=20;w=60")
      }
      assertError(
        yield* call("GET", "/api/session/chk_none", { headers: { "x-forwarded-for": ip } }),
        429,
        "E_RATE_LIMITED"
      )
      // And failed authentications from that address are refused too.
      const auth = yield* call("GET", `/api/customer/00000000-0000-0000-0000-000000000000`, {
        headers: { "x-forwarded-for": ip, authorization: "Bearer nope" }
      })
      assertError(auth, 429, "E_RATE_LIMITED")
    }))

  it.effect("payment signatures: missing, wrong secret, tampered, stale are 400; the stripe package's header passes", () =>
    Effect.gen(function*() {
      const ok = event("ping.unknown", { id: "x" })
      const accepted = yield* postEvent(ok)
      assert.strictEqual(accepted.status, 200, accepted.text)
      assert.deepStrictEqual(accepted.json, { received: true })
      assert.isNotNull(accepted.headers.get("ratelimit-policy"))

      const noHeader = yield* call("POST", "/api/webhooks/payment", { body: ok })
      assertError(noHeader, 400, "E_SIGNATURE_INVALID")
      assertError(yield* postEvent(event("x.y", {}), { secret: "whsec_other" }), 400, "E_SIGNATURE_INVALID")
      const stale = yield* postEvent(event("x.y", {}), { timestamp: Math.floor(Date.now() / 1000) - 301 })
      assertError(stale, 400, "E_SIGNATURE_INVALID")
      const fresh = yield* postEvent(event("x.y", {}), { timestamp: Math.floor(Date.now() / 1000) - 290 })
      assert.strictEqual(fresh.status, 200)
      const { payload, header } = signedEvent(event("x.y", {}))
      const tampered = yield* call("POST", "/api/webhooks/payment", {
        headers: { "content-type": "application/json", "stripe-signature": header },
        body: payload.replace("x.y", "x.z"),
        raw: true
      })
      assertError(tampered, 400, "E_SIGNATURE_INVALID")
      // Several v1 signatures (a secret being rolled): one matching is enough; other schemes are ignored.
      const rolled = signedEvent(event("x.y", {}))
      const t = /t=(\d+)/.exec(rolled.header)![1]
      const good = /v1=([0-9a-f]+)/.exec(rolled.header)![1]
      const multi = yield* call("POST", "/api/webhooks/payment", {
        headers: {
          "content-type": "application/json",
          "stripe-signature": `t=${t},v1=${"0".repeat(64)},v0=abc,v1=${good}`
        },
        body: rolled.payload,
        raw: true
      })
      assert.strictEqual(multi.status, 200, multi.text)
      const onlyV0 = yield* call("POST", "/api/webhooks/payment", {
        headers: { "content-type": "application/json", "stripe-signature": `t=${t},v0=${good}` },
        body: rolled.payload,
        raw: true
      })
      assertError(onlyV0, 400, "E_SIGNATURE_INVALID")
      // Re-serialised JSON (spacing changed) is not the raw body that was signed.
      const reformatted = yield* call("POST", "/api/webhooks/payment", {
        headers: { "content-type": "application/json", "stripe-signature": header },
        body: JSON.stringify(JSON.parse(payload), null, 2),
        raw: true
      })
      assertError(reformatted, 400, "E_SIGNATURE_INVALID")
    }))

  it.effect("payment events move the status as the contract says, once per event id, cancelled terminal", () =>
    Effect.gen(function*() {
      const { customerId } = yield* signUp("lifecycle@example.com")
      const sub = { id: "sub_life", object: "subscription", customer: "cus_life", metadata: { customerId } }
      const invoice = (amount: number) => ({
        id: `in_${amount}`,
        object: "invoice",
        customer: "cus_life",
        amount_paid: amount,
        parent: { subscription_details: { subscription: "sub_life", metadata: { customerId } } }
      })
      const t0 = Math.floor(Date.now() / 1000)

      // The 0-amount invoice that opens a trial is not a payment.
      assert.strictEqual((yield* postEvent(event("invoice.paid", invoice(0), t0))).status, 200)
      assert.strictEqual(yield* statusOf(customerId), "onboarding")

      const failed = event("invoice.payment_failed", invoice(4900), t0 + 1)
      assert.strictEqual((yield* postEvent(failed)).status, 200)
      assert.strictEqual(yield* statusOf(customerId), "suspended")
      // The same event again (a provider retry) is acknowledged and acts once.
      const replay = yield* postEvent(failed)
      assert.deepStrictEqual(replay.json, { received: true })

      // Out of order: an older "subscription active" arriving late changes nothing.
      yield* postEvent(event("customer.subscription.updated", { ...sub, status: "active" }, t0))
      assert.strictEqual(yield* statusOf(customerId), "suspended")

      yield* postEvent(event("invoice.paid", invoice(4900), t0 + 2))
      assert.strictEqual(yield* statusOf(customerId), "active")
      yield* postEvent(event("customer.subscription.updated", { ...sub, status: "past_due" }, t0 + 3))
      assert.strictEqual(yield* statusOf(customerId), "suspended")
      yield* postEvent(event("customer.subscription.updated", { ...sub, status: "active" }, t0 + 4))
      assert.strictEqual(yield* statusOf(customerId), "active")
      yield* postEvent(event("customer.subscription.deleted", { ...sub, status: "canceled" }, t0 + 5))
      assert.strictEqual(yield* statusOf(customerId), "cancelled")
      yield* postEvent(event("invoice.paid", { ...invoice(4900), id: "in_late" }, t0 + 6))
      yield* postEvent(event("customer.subscription.updated", { ...sub, status: "active" }, t0 + 7))
      assert.strictEqual(yield* statusOf(customerId), "cancelled")

      const moves = (yield* statusEvents(customerId)).map((e) => `${e.data.from}>${e.data.to}`)
      assert.deepStrictEqual(moves, [
        "null>onboarding",
        "onboarding>suspended",
        "suspended>active",
        "active>suspended",
        "suspended>active",
        "active>cancelled"
      ])
      const key = yield* call("GET", `/api/customer/${customerId}`, { headers: { authorization: "Bearer x" } })
      assert.strictEqual(key.status, 401)
    }))

  it.effect("checkout.session.completed: completes an open session, records provider ids, a second completion changes nothing", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      const { sessionId, ip } = yield* startCheckout("webhook-completed@example.com")
      const session = {
        id: "cs_test_abc",
        object: "checkout.session",
        client_reference_id: sessionId,
        customer: "cus_wh",
        subscription: "sub_wh",
        status: "complete",
        metadata: {}
      }
      assert.strictEqual((yield* postEvent(event("checkout.session.completed", session))).status, 200)
      const result = yield* call("GET", `/api/session/${sessionId}`, { headers: { "x-forwarded-for": ip } })
      assert.strictEqual(result.status, 200, result.text)
      const customerId = result.json.customerId
      assert.strictEqual(yield* statusOf(customerId), "onboarding")

      // Under another event id, the same session again: no new customer, no new key, no event.
      yield* postEvent(event("checkout.session.completed", session))
      const customers = yield* sql<
        { n: number }
      >`SELECT count(*)::int AS n FROM customers WHERE email = 'webhook-completed@example.com'`
      assert.strictEqual(customers[0].n, 1)
      const keys = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys WHERE customer_id = ${customerId}`
      assert.strictEqual(keys[0].n, 1)
      assertError(
        yield* call("GET", `/api/session/${sessionId}`, { headers: { "x-forwarded-for": ip } }),
        410,
        "E_KEY_ALREADY_RETRIEVED"
      )

      // A third completion of the session naming other provider ids changes nothing either: those ids are
      // not recorded, so events naming them never reach this customer.
      const third = yield* postEvent(
        event("checkout.session.completed", { ...session, customer: "cus_other", subscription: "sub_other" })
      )
      assert.deepStrictEqual([third.status, third.json], [200, { received: true }])
      assert.deepStrictEqual(yield* providerIdsOf(customerId), [{
        providerCustomerId: "cus_wh",
        providerSubscriptionId: "sub_wh"
      }])
      yield* postEvent(event("customer.subscription.deleted", { id: "sub_other", customer: "cus_other", metadata: {} }))
      yield* postEvent(
        event("invoice.payment_failed", {
          id: "in_o",
          customer: "cus_other",
          parent: { subscription_details: { subscription: "sub_other", metadata: {} } }
        })
      )
      assert.strictEqual(yield* statusOf(customerId), "onboarding")
      assert.deepStrictEqual((yield* statusEvents(customerId)).map((e) => e.data.to), ["onboarding"])

      // Events without metadata find the customer by the ids recorded at completion.
      yield* postEvent(
        event("invoice.payment_failed", {
          id: "in_x",
          customer: "cus_wh",
          parent: { subscription_details: { subscription: "sub_wh", metadata: {} } }
        })
      )
      assert.strictEqual(yield* statusOf(customerId), "suspended")
      yield* postEvent(event("customer.subscription.deleted", { id: "sub_wh", customer: "cus_wh", metadata: {} }))
      assert.strictEqual(yield* statusOf(customerId), "cancelled")
    }))

  it.effect("a session completed on the hosted page is done: a later completion event records no provider ids", () =>
    Effect.gen(function*() {
      const { customerId, sessionId } = yield* signUp("completed-locally@example.com")
      const late = yield* postEvent(event("checkout.session.completed", {
        id: "cs_test_late",
        object: "checkout.session",
        client_reference_id: sessionId,
        customer: "cus_late",
        subscription: "sub_late",
        status: "complete",
        metadata: {}
      }))
      assert.strictEqual(late.status, 200, late.text)
      assert.deepStrictEqual(yield* providerIdsOf(customerId), [{
        providerCustomerId: null,
        providerSubscriptionId: null
      }])
      yield* postEvent(event("customer.subscription.deleted", { id: "sub_late", customer: "cus_late", metadata: {} }))
      assert.strictEqual(yield* statusOf(customerId), "onboarding")
      const { sql } = yield* TestServer
      const row = yield* sql<
        { providerSessionId: string | null }
      >`SELECT provider_session_id FROM checkout_sessions WHERE id = ${sessionId}`
      assert.isNull(row[0].providerSessionId)
    }))

  it.effect("the daily job cancels trials that ended unpaid, once per day across processes", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      const unpaid = yield* signUp("trial-unpaid@example.com")
      const paid = yield* signUp("trial-paid@example.com")
      const running = yield* signUp("trial-running@example.com")
      yield* postEvent(event("invoice.paid", {
        id: "in_paid",
        amount_paid: 4900,
        parent: { subscription_details: { metadata: { customerId: paid.customerId } } }
      }))
      assert.strictEqual(yield* statusOf(paid.customerId), "active")
      yield* sql`UPDATE customers SET trial_ends_at = now() - interval '1 minute'
        WHERE id IN (${unpaid.customerId}, ${paid.customerId})`
      // Not due yet: nothing happens.
      yield* sql`UPDATE scheduled_jobs SET next_run_at = now() + interval '1 hour' WHERE name = 'trial-expiry'`
      yield* Effect.sleep("400 millis")
      assert.strictEqual(yield* statusOf(unpaid.customerId), "onboarding")
      // Due: one run, which moves the next run a day on.
      yield* sql`UPDATE scheduled_jobs SET next_run_at = now() WHERE name = 'trial-expiry'`
      for (let i = 0; i < 50 && (yield* statusOf(unpaid.customerId)) !== "cancelled"; i++) {
        yield* Effect.sleep("100 millis")
      }
      assert.strictEqual(yield* statusOf(unpaid.customerId), "cancelled")
      assert.strictEqual(yield* statusOf(paid.customerId), "active")
      assert.strictEqual(yield* statusOf(running.customerId), "onboarding")
      const next = yield* sql<{ hours: number }>`SELECT extract(epoch FROM next_run_at - now()) / 3600 AS hours
        FROM scheduled_jobs WHERE name = 'trial-expiry'`
      assert.isAbove(Number(next[0].hours), 23)
      const moves = (yield* statusEvents(unpaid.customerId)).map((e) => [e.data.to, e.data.reason])
      assert.deepStrictEqual(moves.at(-1), ["cancelled", "trial_ended"])
    }))
  it.effect("checkout honours Idempotency-Key: the same key and body replay the same session", () =>
    Effect.gen(function*() {
      const ip = randomIp()
      const headers = { "x-forwarded-for": ip, "idempotency-key": "signup-retry-1" }
      const first = yield* call("POST", "/api/checkout", { headers, body: { email: "idem@example.com" } })
      const second = yield* call("POST", "/api/checkout", { headers, body: { email: "idem@example.com" } })
      assert.strictEqual(first.status, 200)
      assert.strictEqual(second.json.url, first.json.url)
      assert.strictEqual(second.headers.get("idempotent-replayed"), "true")
      assertError(
        yield* call("POST", "/api/checkout", { headers, body: { email: "other@example.com" } }),
        409,
        "E_CONFLICT"
      )
    }))

  // Last in this file: the payment webhook limit is global.
  it.effect("the payment webhook takes 100 requests a minute in all, then 429 with Retry-After", () =>
    Effect.gen(function*() {
      let last: any
      let sent = 0
      for (; sent < 250; sent++) {
        const res = yield* postEvent(event("ping.limit", {}))
        if (res.status === 429) {
          last = res
          break
        }
        assert.strictEqual(res.status, 200)
        assert.strictEqual(res.headers.get("ratelimit-policy"), "\"payment-webhook\";q=100;w=60")
      }
      assert.isDefined(last, "a 429 within 250 requests (a window may end midway)")
      assertError(last, 429, "E_RATE_LIMITED")
      assert.isAtLeast(Number(last.headers.get("retry-after")), 1)
      assert.match(last.headers.get("ratelimit"), /^"payment-webhook";r=0;t=\d+$/)
    }))
})
