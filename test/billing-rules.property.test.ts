import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option } from "effect"
import fc from "fast-check"
import { parseDocument } from "htmlparser2"
import { appConfig, describeConfigError } from "../src/Config.ts"
import {
  type BillingSignal,
  customerReference,
  nextStatus,
  signalOf,
  trialDaysLeft,
  trialEndsAt
} from "../src/domain/Billing.ts"
import type { CustomerStatus } from "../src/domain/Identity.ts"
import { html, safeHref } from "../src/platform/http/Html.ts"

const statuses: ReadonlyArray<CustomerStatus> = ["onboarding", "active", "suspended", "cancelled"]
const status = fc.constantFrom(...statuses)
const signal: fc.Arbitrary<BillingSignal> = fc.oneof(
  fc.constantFrom(
    "active",
    "trialing",
    "past_due",
    "unpaid",
    "canceled",
    "incomplete",
    "incomplete_expired",
    "paused",
    "other"
  )
    .map((s) => ({ _tag: "SubscriptionStatus" as const, status: s })),
  fc.constant({ _tag: "SubscriptionDeleted" as const }),
  fc.nat({ max: 100_000 }).map((amountPaid) => ({ _tag: "InvoicePaid" as const, amountPaid })),
  fc.constant({ _tag: "InvoicePaymentFailed" as const }),
  fc.constant({ _tag: "TrialEndedUnpaid" as const })
)

/** The customer status moves payment events may make (docs/api-rules.md, "Customers and billing"). */
const allowed: Record<CustomerStatus, ReadonlyArray<CustomerStatus>> = {
  onboarding: ["active", "suspended", "cancelled"],
  active: ["suspended", "cancelled"],
  suspended: ["active", "cancelled"],
  cancelled: []
}

describe("billing rules", () => {
  it("ids the database cannot hold name nothing (a NUL in a provider id was a 500)", () => {
    const reference = customerReference("invoice.payment_failed", {
      customer: "cus_\u0000",
      subscription: "\ud800",
      metadata: { customerId: "#" }
    })
    assert.deepStrictEqual(reference, {
      customerId: "#",
      providerCustomerId: undefined,
      providerSubscriptionId: undefined
    })
  })

  it("every move is one the contract's customer table allows; cancelled is terminal", () => {
    fc.assert(fc.property(status, signal, (from, s) => {
      const to = nextStatus(from, s)
      if (to !== undefined) assert.include(allowed[from], to, `${from} -> ${to} on ${JSON.stringify(s)}`)
      if (from === "cancelled") assert.isUndefined(to)
    }))
  })

  it("any sequence of events: once cancelled, always cancelled; never back to onboarding", () => {
    fc.assert(fc.property(status, fc.array(signal, { maxLength: 30 }), (start, signals) => {
      let current = start
      let cancelled = start === "cancelled"
      for (const s of signals) {
        const next = nextStatus(current, s)
        if (next !== undefined) {
          assert.notStrictEqual(next, "onboarding")
          current = next
        }
        if (cancelled) assert.strictEqual(current, "cancelled")
        cancelled ||= current === "cancelled"
      }
    }))
  })

  it("a 0-amount invoice is not the first payment; a paid one is", () => {
    assert.isUndefined(nextStatus("onboarding", { _tag: "InvoicePaid", amountPaid: 0 }))
    assert.strictEqual(nextStatus("onboarding", { _tag: "InvoicePaid", amountPaid: 1 }), "active")
    assert.strictEqual(nextStatus("suspended", { _tag: "InvoicePaid", amountPaid: 0 }), "active")
    assert.isUndefined(nextStatus("onboarding", { _tag: "SubscriptionStatus", status: "active" }))
    assert.strictEqual(nextStatus("active", { _tag: "SubscriptionStatus", status: "past_due" }), "suspended")
  })

  it("only the five handled types carry a signal", () => {
    fc.assert(fc.property(fc.string(), (type) => {
      const handled = [
        "customer.subscription.updated",
        "customer.subscription.deleted",
        "invoice.paid",
        "invoice.payment_failed"
      ]
      if (!handled.includes(type)) assert.isUndefined(signalOf(type, { status: "active" }))
    }))
  })

  it("invoices name the customer in parent.subscription_details.metadata", () => {
    const ref = customerReference("invoice.paid", {
      customer: { id: "cus_1" },
      metadata: {},
      parent: { subscription_details: { subscription: "sub_1", metadata: { customerId: "c1" } } }
    })
    assert.deepStrictEqual(ref, { customerId: "c1", providerCustomerId: "cus_1", providerSubscriptionId: "sub_1" })
    assert.deepStrictEqual(
      customerReference("customer.subscription.updated", {
        id: "sub_2",
        customer: "cus_2",
        metadata: { customerId: 7 }
      }),
      {
        customerId: undefined,
        providerCustomerId: "cus_2",
        providerSubscriptionId: "sub_2"
      }
    )
  })

  it("trials last 30 days and count down to 0", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(2000, 0, 1), max: new Date(2100, 0, 1), noInvalidDate: true }),
        fc.nat({ max: 40 * 86_400_000 }),
        (start, elapsed) => {
          const end = trialEndsAt(start)
          assert.strictEqual(trialDaysLeft(end, start), 30)
          const left = trialDaysLeft(end, new Date(start.getTime() + elapsed))
          assert.isAtLeast(left, 0)
          assert.isAtMost(left, 30)
          if (elapsed >= 30 * 86_400_000) assert.strictEqual(left, 0)
        }
      )
    )
  })
})

describe("the HTML helper escapes by construction", () => {
  const text = (node: any): string => node.type === "text" ? node.data : (node.children ?? []).map(text).join("")

  it("any interpolated text is one text node in element content and one attribute value", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme-composite", maxLength: 80 }),
        fc.string({ maxLength: 40 }),
        (value, other) => {
          const doc = parseDocument(html`<div><p title="${value}" data-x='${other}'>${value}</p></div>`.value, {
            decodeEntities: true
          })
          const div = doc.children[0] as any
          assert.strictEqual(div.children.length, 1)
          const p = div.children[0]
          assert.strictEqual(p.name, "p")
          assert.strictEqual(p.attribs.title, value)
          assert.strictEqual(p.attribs["data-x"], other)
          assert.isTrue(p.children.every((child: any) => child.type === "text"))
          assert.strictEqual(text(p), value)
        }
      )
    )
  })

  it("nested fragments and lists are kept, plain values are not markup", () => {
    const items = ["<a>", "b&c"]
    assert.strictEqual(
      html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`.value,
      "<ul><li>&lt;a&gt;</li><li>b&amp;c</li></ul>"
    )
    assert.strictEqual(html`${null}${undefined}${false}${0}`.value, "0")
  })

  it("links are http(s) or same-site paths only", () => {
    assert.strictEqual(safeHref("javascript:alert(1)"), "#")
    assert.strictEqual(safeHref("//evil.example/x"), "#")
    assert.strictEqual(safeHref("data:text/html,x"), "#")
    assert.strictEqual(safeHref("https://example.com/p?q=1"), "https://example.com/p?q=1")
    assert.strictEqual(safeHref("/p/cnt_1"), "/p/cnt_1")
  })
})

describe("request logs", () => {
  it("name no checkout session id and no query", async () => {
    const { pathOf } = await import("../src/platform/http/Server.ts")
    assert.strictEqual(pathOf("/api/session/chk_abc?x=1"), "/api/session/:sessionId")
    assert.strictEqual(pathOf("/checkout/chk_abc/success"), "/checkout/:sessionId/success")
    assert.strictEqual(pathOf("/api/customer/1?token=svc"), "/api/customer/1")
  })
})

describe("payment settings", () => {
  const read = (env: Record<string, string>) =>
    Effect.runPromise(
      Effect.result(appConfig.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))))
    )

  it("stripe mode needs its secret key and price, named on one line, the key never echoed", async () => {
    const missingKey = await read({ PAYMENT_PROVIDER: "stripe", STRIPE_PRICE_ID: "price_1" })
    assert.strictEqual(missingKey._tag, "Failure")
    if (missingKey._tag === "Failure") {
      assert.match(describeConfigError(missingKey.failure), /^STRIPE_SECRET_KEY: required/)
    }
    const missingPrice = await read({ PAYMENT_PROVIDER: "stripe", STRIPE_SECRET_KEY: "sk_test_hunter2" })
    assert.strictEqual(missingPrice._tag, "Failure")
    if (missingPrice._tag === "Failure") {
      assert.match(describeConfigError(missingPrice.failure), /^STRIPE_PRICE_ID: required/)
      assert.notInclude(describeConfigError(missingPrice.failure), "hunter2")
    }
    const badProvider = await read({ PAYMENT_PROVIDER: "paypal" })
    assert.strictEqual(badProvider._tag, "Failure")
    if (badProvider._tag === "Failure") assert.include(describeConfigError(badProvider.failure), "PAYMENT_PROVIDER")
    const local = await read({})
    assert.strictEqual(local._tag, "Success")
    if (local._tag === "Success") {
      assert.strictEqual(local.success.paymentProvider, "local")
      assert.isTrue(Option.isNone(local.success.paymentWebhookSecret))
    }
    const stripe = await read({
      PAYMENT_PROVIDER: "stripe",
      STRIPE_SECRET_KEY: "sk_x",
      STRIPE_PRICE_ID: "price_1",
      STRIPE_API_BASE: "http://127.0.0.1:9/"
    })
    assert.strictEqual(stripe._tag, "Success")
    if (stripe._tag === "Success") {
      assert.deepStrictEqual(stripe.success.stripeApiBase, Option.some("http://127.0.0.1:9"))
    }
  })
})

describe("svgBarChart", () => {
  it("draws one bar per point, longest for the largest value, labels escaped", async () => {
    const { svgBarChart } = await import("../src/features/dashboard/Dashboard.ts")
    const svg =
      svgBarChart([{ label: "<x>", value: 5 }, { label: "b", value: 10 }, { label: "c", value: Number.NaN }], {
        title: "Clicks & views"
      }).value
    const doc = parseDocument(svg, { xmlMode: true })
    const rects: Array<any> = []
    const walk = (node: any) => {
      if (node.name === "rect") rects.push(node)
      for (const child of node.children ?? []) walk(child)
    }
    walk(doc)
    assert.strictEqual(rects.length, 3)
    // Bars run across, so a long channel name fits beside its bar.
    const widths = rects.map((r) => Number(r.attribs.width))
    assert.isAbove(widths[1], widths[0])
    assert.strictEqual(widths[2], 0)
    assert.include(svg, "&lt;x&gt;")
    assert.include(svg, "Clicks &amp; views")
  })
})
