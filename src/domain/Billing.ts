import { Schema } from "effect"
import type { CustomerStatus } from "./Identity.ts"
import { Email } from "./Identity.ts"
import { isStorableText, storableJson, storableText } from "./Text.ts"

/** A trial lasts 30 days from checkout completion. */
export const trialDays = 30
export const trialEndsAt = (completedAt: Date): Date => new Date(completedAt.getTime() + trialDays * 86_400_000)

/** Whole days left of a trial (0 once it has ended), rounded up: "1 day left" until the last second. */
export const trialDaysLeft = (endsAt: Date, now: Date): number =>
  Math.max(0, Math.ceil((endsAt.getTime() - now.getTime()) / 86_400_000))

export const CheckoutRequest = Schema.Struct({ email: Email }).annotate({ identifier: "CheckoutRequest" })

export const CheckoutCreated = Schema.Struct({
  url: Schema.String.annotate({ format: "uri" })
}).annotate({ identifier: "CheckoutCreated" })

export const CheckoutSessionResult = Schema.Struct({
  customerId: Schema.String.annotate({ format: "uuid" }),
  email: Schema.String.annotate({ format: "email" }),
  apiKey: Schema.String,
  mcpEndpoint: Schema.String.annotate({ format: "uri" })
}).annotate({ identifier: "CheckoutSessionResult" })

/**
 * A payment provider event as Stripe sends it: only `id`, `type` and
 * `data.object` are read; every other property is kept and ignored.
 */
export const PaymentEvent = Schema.Struct({
  // Ids and references are stored and looked up: text the database cannot hold (NUL, lone surrogates) is a 400, never a 500.
  id: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255), storableText),
  type: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255), storableText),
  created: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100_000_000_000 }))),
  data: Schema.Struct({ object: Schema.Record(Schema.String, Schema.Unknown).check(storableJson) })
}).annotate({ identifier: "PaymentEvent" })
export type PaymentEvent = typeof PaymentEvent.Type

export const PaymentEventReceived = Schema.Struct({ received: Schema.Literal(true) })
  .annotate({ identifier: "PaymentEventReceived" })

/** What a payment event means for the customer's status, once the customer is found. */
export type BillingSignal =
  | { readonly _tag: "SubscriptionStatus"; readonly status: string }
  | { readonly _tag: "SubscriptionDeleted" }
  | { readonly _tag: "InvoicePaid"; readonly amountPaid: number }
  | { readonly _tag: "InvoicePaymentFailed" }
  | { readonly _tag: "TrialEndedUnpaid" }

/** Subscription states Stripe reports that mean the customer is not paying. */
const delinquent = new Set(["past_due", "unpaid"])
/** Subscription states that mean it has ended for good. */
const ended = new Set(["canceled", "incomplete_expired"])
/** Subscription states that mean it is in good standing again. */
const inGoodStanding = new Set(["active", "trialing"])

/**
 * The status a signal moves a customer to (docs/api-rules.md, "Customers and
 * billing"), or `undefined` when it changes nothing. Cancelled is terminal.
 * - onboarding -> active on the first paid invoice (an amount above 0: the
 *   0-amount invoice that opens a trial is not a payment);
 * - onboarding, active -> suspended on a failed payment or a past_due/unpaid subscription;
 * - suspended -> active on a paid invoice or a subscription active (or trialing) again;
 * - any but cancelled -> cancelled when the subscription is deleted (or
 *   reported canceled), or the trial ended without payment.
 */
export const nextStatus = (current: CustomerStatus, signal: BillingSignal): CustomerStatus | undefined => {
  if (current === "cancelled") return undefined
  switch (signal._tag) {
    case "SubscriptionDeleted":
    case "TrialEndedUnpaid":
      return "cancelled"
    case "InvoicePaymentFailed":
      return current === "onboarding" || current === "active" ? "suspended" : undefined
    case "InvoicePaid":
      if (current === "suspended") return "active"
      if (current === "onboarding" && signal.amountPaid > 0) return "active"
      return undefined
    case "SubscriptionStatus":
      if (ended.has(signal.status)) return "cancelled"
      if (delinquent.has(signal.status)) {
        return current === "onboarding" || current === "active"
          ? "suspended"
          : undefined
      }
      if (inGoodStanding.has(signal.status)) return current === "suspended" ? "active" : undefined
      return undefined
  }
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined

/** A non-empty string the database can hold (an id with a NUL or a lone surrogate names nothing). */
const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 && value.length <= 255 && isStorableText(value) ? value : undefined

/** An expandable reference: Stripe sends an id, or the object itself when expanded. */
const reference = (value: unknown): string | undefined => text(value) ?? text(record(value)?.id)

/** How a payment event names its customer (docs/api-rules.md, "Customers and billing"). */
export interface CustomerReference {
  /** Our customer id from metadata, when the event carries it. */
  readonly customerId: string | undefined
  readonly providerCustomerId: string | undefined
  readonly providerSubscriptionId: string | undefined
}

/**
 * `metadata.customerId` of the event's object (for invoices,
 * `parent.subscription_details.metadata`), and the provider's customer and
 * subscription ids to fall back on.
 */
export const customerReference = (type: string, object: Record<string, unknown>): CustomerReference => {
  if (type.startsWith("invoice.")) {
    const details = record(record(object.parent)?.subscription_details)
    return {
      customerId: text(record(details?.metadata)?.customerId) ?? text(record(object.metadata)?.customerId),
      providerCustomerId: reference(object.customer),
      providerSubscriptionId: reference(details?.subscription)
    }
  }
  if (type.startsWith("customer.subscription.")) {
    return {
      customerId: text(record(object.metadata)?.customerId),
      providerCustomerId: reference(object.customer),
      providerSubscriptionId: text(object.id)
    }
  }
  return {
    customerId: text(record(object.metadata)?.customerId),
    providerCustomerId: reference(object.customer),
    providerSubscriptionId: reference(object.subscription)
  }
}

/** The signal of a status-moving event type; undefined for the types that move nothing. */
export const signalOf = (type: string, object: Record<string, unknown>): BillingSignal | undefined => {
  switch (type) {
    case "customer.subscription.updated":
      return typeof object.status === "string" ? { _tag: "SubscriptionStatus", status: object.status } : undefined
    case "customer.subscription.deleted":
      return { _tag: "SubscriptionDeleted" }
    case "invoice.paid":
      return { _tag: "InvoicePaid", amountPaid: typeof object.amount_paid === "number" ? object.amount_paid : 0 }
    case "invoice.payment_failed":
      return { _tag: "InvoicePaymentFailed" }
    default:
      return undefined
  }
}

/** `client_reference_id` of a completed Checkout Session: our checkout id. */
export const checkoutReference = (object: Record<string, unknown>): string | undefined =>
  text(object.client_reference_id)
export const providerSessionId = (object: Record<string, unknown>): string | undefined => text(object.id)
export const providerIds = (object: Record<string, unknown>) => ({
  customer: reference(object.customer),
  subscription: reference(object.subscription)
})

/**
 * Whether a `Stripe-Signature` header is dated more than `toleranceSeconds`
 * ahead of `nowSeconds`. The tolerance only bounds a signature's age, so a
 * date in the future would otherwise keep a captured request replayable for
 * as long as its sender chose. Every `t=` item is looked at (the verifier
 * reads the last one), each read as the verifier reads it.
 */
export const signatureDatedAhead = (header: string, nowSeconds: number, toleranceSeconds: number): boolean =>
  header.split(",").some((item) => {
    const [name, value] = item.split("=")
    return name === "t" && Number.parseInt(value ?? "", 10) - nowSeconds > toleranceSeconds
  })
