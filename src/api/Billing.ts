import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import {
  CheckoutCreated,
  CheckoutRequest,
  CheckoutSessionResult,
  PaymentEvent,
  PaymentEventReceived
} from "../domain/Billing.ts"
import {
  CheckoutIncomplete,
  Conflict,
  KeyAlreadyRetrieved,
  NotFound,
  PaymentSignatureInvalid,
  RateLimited,
  Unavailable,
  ValidationError
} from "../domain/Errors.ts"
import { PathId } from "../domain/Text.ts"
import { NoStore, strictParse, StrictPayload } from "./Shared.ts"

/**
 * Limits of the sign-up routes, before anything else: checkout counts against
 * the checkout limit (5/min per IP) and the pre-auth budget (20/min per IP),
 * a session look-up against the pre-auth budget; `Idempotency-Key` on checkout.
 */
export class SignupLimits extends HttpApiMiddleware.Service<SignupLimits>()("herald/api/SignupLimits", {
  error: [RateLimited, Conflict, ValidationError]
}) {}

/**
 * The payment webhook's gate, before the body is decoded: the
 * `Stripe-Signature` of the raw body; a request that fails it counts in its
 * address's pre-auth budget (20/min), a signed one in the global limit (100/min).
 */
export class PaymentSignature extends HttpApiMiddleware.Service<PaymentSignature>()("herald/api/PaymentSignature", {
  error: [RateLimited, PaymentSignatureInvalid, Conflict, ValidationError]
}) {}

export class BillingApi extends HttpApiGroup.make("billing")
  .add(
    HttpApiEndpoint.post("checkout", "/api/checkout", {
      payload: CheckoutRequest,
      success: CheckoutCreated,
      error: [Conflict, Unavailable]
    }).annotate(StrictPayload, strictParse).annotateMerge(OpenApi.annotations({
      summary: "Start a sign-up",
      description:
        "Opens a checkout session for plan Pro with a 30-day free trial and answers the `url` of its hosted page: " +
        "Herald's own page at `/checkout/{sessionId}` (PAYMENT_PROVIDER=local) or a Stripe Checkout page. When the " +
        "person completes it, `GET /api/session/{sessionId}` gives the API key once. No authentication; 5 requests " +
        "per minute per IP, also counted in the pre-auth budget of 20 per minute per IP (the headers show the " +
        "tighter). One trial per address: 409 E_CONFLICT when the email belongs to a customer who is not cancelled " +
        "(compared case-insensitively), or reuses an `Idempotency-Key` with another body. 503 E_UNAVAILABLE when the " +
        "payment provider cannot be reached."
    })),
    HttpApiEndpoint.get("session", "/api/session/:sessionId", {
      params: { sessionId: PathId },
      success: CheckoutSessionResult,
      error: [NotFound, CheckoutIncomplete, KeyAlreadyRetrieved, Conflict, Unavailable]
    }).annotate(NoStore, true).annotateMerge(OpenApi.annotations({
      summary: "Collect the key of a completed checkout",
      description:
        "`sessionId` is the id in the checkout URL, or the payment provider's own (Stripe's `cs_...`). The first " +
        "call after completion answers the customer id, the API key and the MCP endpoint carrying it " +
        "(`Cache-Control: no-store`); the key is not kept, so later calls are 410 E_KEY_ALREADY_RETRIEVED. " +
        "409 E_CHECKOUT_INCOMPLETE before completion; 409 E_CONFLICT when the payment provider reports the session " +
        "complete but another sign-up for the same address completed first (no second customer is created, the " +
        "provider's subscription is ended); 404 for an unknown id. Counts in the pre-auth budget (20 per minute per IP)."
    }))
  )
  .middleware(SignupLimits)
  .annotateMerge(OpenApi.annotations({ title: "Billing and session", description: "Sign-up with a 30-day trial" }))
{}

export class PaymentWebhookApi extends HttpApiGroup.make("paymentWebhook")
  .add(
    HttpApiEndpoint.post("receive", "/api/webhooks/payment", {
      payload: PaymentEvent,
      success: PaymentEventReceived,
      error: Unavailable
    }).annotateMerge(OpenApi.annotations({
      summary: "Payment provider events",
      description:
        "Called by the payment provider (Stripe's event format). The `Stripe-Signature` header (`t=<unix>,v1=<hex>`, " +
        "HMAC-SHA256 of `t.rawBody` keyed with the `whsec_` secret's UTF-8 bytes) must match PAYMENT_WEBHOOK_SECRET " +
        "and be dated at most 300 s from now (in either direction), else 400 E_SIGNATURE_INVALID. Acts on checkout.session.completed, " +
        "customer.subscription.updated, customer.subscription.deleted, invoice.paid and invoice.payment_failed; " +
        "other types are acknowledged; 503 E_UNAVAILABLE when the event cannot be acted on now (the provider sends it again). The same event id twice is acted on once; a later completion of a completed checkout session changes nothing (provider ids included); an event older than one already " +
        "applied to the customer changes nothing. Signed requests: 100 per minute in all. A request whose signature " +
        "fails counts in the pre-auth budget of its address (20 per minute per IP, shared with failed " +
        "authentications), never in the signed requests' limit."
    }))
  )
  .middleware(PaymentSignature)
  .annotateMerge(OpenApi.annotations({ title: "Payment webhook", description: "Subscription life cycle" }))
{}
