import { afterAll, assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { startFakeStripe } from "./support/fake-stripe.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { assertError, randomIp } from "./support/processes.ts"
import { event, postEvent, webhookSecret } from "./support/signup.ts"

const secretKey = "sk_test_herald_0123456789"
const priceId = "price_pro_monthly"
const stripe = await startFakeStripe(secretKey, priceId)
afterAll(() => stripe.close())

const checkout = (email: string, ip = randomIp()) =>
  Effect.gen(function*() {
    const res = yield* call("POST", "/api/checkout", { headers: { "x-forwarded-for": ip }, body: { email } })
    assert.strictEqual(res.status, 200, res.text)
    const sessionId = new URL(res.json.url).pathname.split("/").pop()!
    return { url: res.json.url as string, sessionId, ip, session: stripe.sessions.get(sessionId)! }
  })

layer(
  testApp({
    trustProxy: true,
    paymentProvider: "stripe",
    stripeSecretKey: Option.some(Redacted.make(secretKey)),
    stripePriceId: Option.some(priceId),
    stripeApiBase: Option.some(stripe.url),
    paymentWebhookSecret: Option.some(Redacted.make(webhookSecret))
  }),
  { timeout: 60_000, excludeTestServices: true }
)("Stripe mode", (it) => {
  it.effect("creates a subscription Checkout Session with a 30-day trial through the SDK", () =>
    Effect.gen(function*() {
      const { url, session } = yield* checkout("stripe-a@example.com")
      assert.match(url, /^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_[0-9a-f]{24}$/)
      const request = stripe.requests.findLast((r) => r.method === "POST")!
      assert.strictEqual(request.path, "/v1/checkout/sessions")
      assert.strictEqual(request.authorization, `Bearer ${secretKey}`)
      assert.include(request.contentType, "application/x-www-form-urlencoded")
      assert.strictEqual(request.form.mode, "subscription")
      assert.strictEqual(request.form["line_items[0][price]"], priceId)
      assert.strictEqual(request.form["line_items[0][quantity]"], "1")
      assert.strictEqual(request.form["subscription_data[trial_period_days]"], "30")
      assert.strictEqual(request.form.customer_email, "stripe-a@example.com")
      assert.match(request.form.client_reference_id, /^chk_[0-9a-f]{32}$/)
      assert.match(request.form["metadata[customerId]"], /^[0-9a-f-]{36}$/)
      assert.strictEqual(request.form["subscription_data[metadata][customerId]"], request.form["metadata[customerId]"])
      assert.include(request.form.success_url, "/checkout/{CHECKOUT_SESSION_ID}/success")
      assert.strictEqual(request.idempotencyKey, `herald-checkout-${request.form.client_reference_id}`)
      assert.strictEqual(session.client_reference_id, request.form.client_reference_id)
    }))

  it.effect("the success page's look-up by cs_ id asks Stripe, completes once, then 410", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      const { session, ip } = yield* checkout("stripe-b@example.com")
      assertError(
        yield* call("GET", `/api/session/${session.id}`, { headers: { "x-forwarded-for": ip } }),
        409,
        "E_CHECKOUT_INCOMPLETE"
      )

      const done = stripe.complete(session.id)
      const res = yield* call("GET", `/api/session/${session.id}`, { headers: { "x-forwarded-for": ip } })
      assert.strictEqual(res.status, 200, res.text)
      assert.strictEqual(res.json.customerId, session.metadata.customerId)
      assert.strictEqual(res.json.email, "stripe-b@example.com")
      assert.strictEqual(res.headers.get("cache-control"), "no-store")
      const rows = yield* sql<
        { status: string; providerCustomerId: string; providerSubscriptionId: string; trialEndsAt: Date }
      >`
        SELECT c.status, c.trial_ends_at, b.provider_customer_id, b.provider_subscription_id
        FROM customers c JOIN customer_billing b ON b.customer_id = c.id WHERE c.id = ${res.json.customerId}`
      assert.strictEqual(rows[0].status, "onboarding")
      assert.strictEqual(rows[0].providerCustomerId, done.customer)
      assert.strictEqual(rows[0].providerSubscriptionId, done.subscription)

      // The webhook that follows is a second completion: nothing changes.
      const before = yield* sql<
        { n: number }
      >`SELECT count(*)::int AS n FROM events WHERE customer_id = ${res.json.customerId}`
      const ack = yield* postEvent(event("checkout.session.completed", { ...done }))
      assert.strictEqual(ack.status, 200)
      const after = yield* sql<
        { n: number }
      >`SELECT count(*)::int AS n FROM events WHERE customer_id = ${res.json.customerId}`
      assert.strictEqual(after[0].n, before[0].n)
      assertError(
        yield* call("GET", `/api/session/${session.id}`, { headers: { "x-forwarded-for": ip } }),
        410,
        "E_KEY_ALREADY_RETRIEVED"
      )

      const customer = yield* call("GET", `/api/customer/${res.json.customerId}`, {
        headers: { authorization: `Bearer ${res.json.apiKey}` }
      })
      assert.strictEqual(customer.status, 200)
      // Later events find it by the subscription Stripe made.
      yield* postEvent(
        event("customer.subscription.updated", {
          id: done.subscription,
          customer: done.customer,
          status: "past_due",
          metadata: {}
        })
      )
      const status = yield* sql<{ status: string }>`SELECT status FROM customers WHERE id = ${res.json.customerId}`
      assert.strictEqual(status[0].status, "suspended")
    }))

  it.effect("the webhook may arrive first: it completes the session and the key is still shown once", () =>
    Effect.gen(function*() {
      const { session, ip } = yield* checkout("stripe-c@example.com")
      const done = stripe.complete(session.id)
      assert.strictEqual((yield* postEvent(event("checkout.session.completed", { ...done }))).status, 200)
      const lookups = stripe.requests.length
      const res = yield* call("GET", `/api/session/${session.id}`, { headers: { "x-forwarded-for": ip } })
      assert.strictEqual(res.status, 200, res.text)
      assert.strictEqual(stripe.requests.length, lookups, "a completed session needs no question to Stripe")
      assertError(
        yield* call("GET", `/api/session/${session.id}`, { headers: { "x-forwarded-for": ip } }),
        410,
        "E_KEY_ALREADY_RETRIEVED"
      )
    }))

  it.effect("one trial per address: two sessions opened for one address complete into one customer, the other subscription is ended", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      // Both opened before either completed: the check at checkout cannot see the other.
      const first = yield* checkout("stripe-race@example.com")
      const second = yield* checkout("Stripe-Race@Example.com")
      const firstDone = stripe.complete(first.session.id)
      const secondDone = stripe.complete(second.session.id)
      assert.strictEqual((yield* postEvent(event("checkout.session.completed", { ...firstDone }))).status, 200)
      // The provider's second completion is acknowledged (Stripe must not retry it) and makes no customer.
      assert.strictEqual((yield* postEvent(event("checkout.session.completed", { ...secondDone }))).status, 200)
      const holders = yield* sql<
        { id: string }
      >`SELECT id FROM customers WHERE lower(email) = 'stripe-race@example.com'`
      assert.deepStrictEqual(holders.map((row) => row.id), [first.session.metadata.customerId])
      assert.isTrue(
        stripe.cancelled.has(secondDone.subscription!),
        "the refused sign-up's subscription is cancelled at Stripe"
      )
      assert.isFalse(stripe.cancelled.has(firstDone.subscription!))
      const cancel = stripe.requests.findLast((r) => r.method === "DELETE")!
      assert.strictEqual(cancel.path, `/v1/subscriptions/${secondDone.subscription}`)

      // The success page of each: the key once for the first, a conflict (not "still waiting") for the second.
      const key = yield* call("GET", `/api/session/${first.session.id}`, { headers: { "x-forwarded-for": first.ip } })
      assert.strictEqual(key.status, 200, key.text)
      assertError(
        yield* call("GET", `/api/session/${second.session.id}`, { headers: { "x-forwarded-for": second.ip } }),
        409,
        "E_CONFLICT"
      )
      // A new checkout for the address is refused at once.
      const third = yield* call("POST", "/api/checkout", {
        headers: { "x-forwarded-for": randomIp() },
        body: { email: "STRIPE-RACE@example.com" }
      })
      assertError(third, 409, "E_CONFLICT")
    }))

  it.effect("a refused sign-up whose subscription cannot be ended yet is answered 503 and acted on when the provider sends it again", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      const first = yield* checkout("stripe-retry@example.com")
      const second = yield* checkout("stripe-retry@example.com")
      const firstDone = stripe.complete(first.session.id)
      const secondDone = stripe.complete(second.session.id)
      assert.strictEqual((yield* postEvent(event("checkout.session.completed", { ...firstDone }))).status, 200)
      const refused = event("checkout.session.completed", { ...secondDone })
      stripe.down = true
      const unavailable = yield* postEvent(refused).pipe(Effect.ensuring(Effect.sync(() => (stripe.down = false))))
      assertError(unavailable, 503, "E_UNAVAILABLE")
      assert.isFalse(stripe.cancelled.has(secondDone.subscription!))
      // The provider's retry of the same event ends the subscription; still one customer for the address.
      assert.strictEqual((yield* postEvent(refused)).status, 200)
      assert.isTrue(
        stripe.cancelled.has(secondDone.subscription!),
        "the refused sign-up's subscription is cancelled at Stripe"
      )
      const holders = yield* sql<
        { id: string }
      >`SELECT id FROM customers WHERE lower(email) = 'stripe-retry@example.com'`
      assert.strictEqual(holders.length, 1)
    }))

  it.effect("the browser may arrive before the webhook of a refused sign-up: 409, and no customer", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      const first = yield* checkout("stripe-race2@example.com")
      const second = yield* checkout("stripe-race2@example.com")
      stripe.complete(first.session.id)
      stripe.complete(second.session.id)
      assert.strictEqual(
        (yield* call("GET", `/api/session/${first.session.id}`, { headers: { "x-forwarded-for": first.ip } })).status,
        200
      )
      assertError(
        yield* call("GET", `/api/session/${second.session.id}`, { headers: { "x-forwarded-for": second.ip } }),
        409,
        "E_CONFLICT"
      )
      const holders = yield* sql<
        { n: number }
      >`SELECT count(*)::int AS n FROM customers WHERE lower(email) = 'stripe-race2@example.com'`
      assert.strictEqual(holders[0].n, 1)
    }))

  it.effect("Stripe unreachable: checkout is 503 E_UNAVAILABLE; the local hosted page cannot complete a Stripe session", () =>
    Effect.gen(function*() {
      const { session } = yield* checkout("stripe-d@example.com")
      const page = yield* call("GET", `/checkout/${session.client_reference_id}`)
      assert.strictEqual(page.status, 200)
      assert.include(page.text, "Checkout not completed")
      assert.notInclude(page.text, "Start free trial")
      const press = yield* call("POST", `/checkout/${session.client_reference_id}`, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "_csrf=x",
        raw: true
      })
      assert.strictEqual(press.status, 403)

      stripe.down = true
      try {
        const res = yield* call("POST", "/api/checkout", {
          headers: { "x-forwarded-for": randomIp() },
          body: { email: "down@example.com" }
        })
        assertError(res, 503, "E_UNAVAILABLE")
        assert.notInclude(res.text, secretKey)
      } finally {
        stripe.down = false
      }
    }))
})
