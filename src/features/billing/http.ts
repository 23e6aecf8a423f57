import { Clock, Effect, Layer, Option, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { PaymentSignature, SignupLimits } from "../../api/Billing.ts"
import { AppConfig } from "../../Config.ts"
import { signatureDatedAhead } from "../../domain/Billing.ts"
import { PaymentSignatureInvalid, RateLimited } from "../../domain/Errors.ts"
import { requireUtf8Json } from "../../platform/http/JsonBody.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { addResponseHeaders, currentRequest } from "../../platform/http/RequestContext.ts"
import { Idempotency } from "../../platform/Idempotency.ts"
import { policies, type Policy, RateLimits, type Usage } from "../../platform/RateLimits.ts"
import { Billing } from "./Billing.ts"

/** Stripe's default: a signature older than this is refused. */
export const signatureToleranceSeconds = 300

/**
 * Counts one request against every policy given (all are counted, a refused
 * attempt included), shows the tighter, and refuses when any is spent.
 */
export const enforceAll = (limits: RateLimits["Service"], entries: ReadonlyArray<readonly [Policy, string]>) =>
  Effect.gen(function*() {
    const usages: Array<Usage> = []
    for (const [policy, key] of entries) usages.push(yield* limits.count(policy, key))
    for (const usage of usages) yield* limits.show(usage)
    const over = usages.filter((usage) => usage.count > usage.policy.limit)
    if (over.length > 0) {
      yield* addResponseHeaders({ "retry-after": String(Math.max(...over.map((usage) => usage.resetSeconds))) })
      return yield* new RateLimited()
    }
  })

export const SignupLimitsLive = Layer.effect(
  SignupLimits,
  Effect.gen(function*() {
    const limits = yield* RateLimits
    const idempotency = yield* Idempotency
    return SignupLimits.of(Effect.fnUntraced(function*(httpEffect, { endpoint }) {
      const { clientIp } = yield* currentRequest
      if (endpoint.identifier === "checkout") {
        yield* enforceAll(limits, [[policies.checkout, clientIp], [policies.preAuth, clientIp]])
        const request = yield* HttpServerRequest.HttpServerRequest
        return yield* idempotency.wrap(`checkout ${clientIp}`, requireUtf8Json(httpEffect, request), request)
      }
      yield* limits.enforce(policies.preAuth, clientIp)
      return yield* httpEffect
    }))
  })
)

/** The stripe package's verifier, loaded with the first payment event (the package costs ~70 ms of every start). */
let stripeVerifier: Promise<NonNullable<typeof import("stripe").default.webhooks.signature>> | undefined
const loadStripeVerifier = () =>
  stripeVerifier ??= import("stripe").then(({ default: Stripe }) => {
    if (Stripe.webhooks.signature === null) throw new Error("the stripe package offers no signature verifier")
    return Stripe.webhooks.signature
  })

export const PaymentSignatureLive = Layer.effect(
  PaymentSignature,
  Effect.gen(function*() {
    const limits = yield* RateLimits
    const config = yield* AppConfig

    /** Whether the request carries the provider's signature over its raw body, dated within the tolerance either way. */
    const signed = Effect.fnUntraced(function*(request: HttpServerRequest.HttpServerRequest) {
      const header = request.headers["stripe-signature"]
      const secret = config.paymentWebhookSecret
      if (Option.isNone(secret) || header === undefined) return false
      if (
        signatureDatedAhead(header, Math.floor((yield* Clock.currentTimeMillis) / 1000), signatureToleranceSeconds)
      ) return false
      const raw = yield* Effect.orElseSucceed(request.text, () => undefined)
      if (raw === undefined) return false
      // The stripe package's own verification: t=, every v1=, HMAC-SHA256 keyed with the
      // whsec_ string's UTF-8 bytes over `t.rawBody`, constant-time, at most 300 s old.
      const stripeSignature = yield* Effect.promise(loadStripeVerifier)
      return yield* Effect.try({
        try: () => stripeSignature.verifyHeader(raw, header, Redacted.value(secret.value), signatureToleranceSeconds),
        catch: () => "refused"
      }).pipe(Effect.orElseSucceed(() => false))
    })

    return PaymentSignature.of(Effect.fnUntraced(function*(httpEffect) {
      const { clientIp } = yield* currentRequest
      // Only a signed request spends the global budget, so that nobody but the provider can
      // exhaust it; a failed signature is a failed authentication of its sender's address.
      yield* limits.check(policies.preAuth, clientIp)
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!(yield* signed(request))) {
        yield* limits.enforce(policies.preAuth, clientIp)
        return yield* new PaymentSignatureInvalid()
      }
      yield* limits.enforce(policies.paymentWebhook, "global")
      return yield* requireUtf8Json(httpEffect, request)
    }))
  })
)

export const BillingHandlers = leanGroup(Effect.gen(function*() {
  const billing = yield* Billing
  return HttpApiBuilder.group(Api, "billing", (handlers) =>
    handlers.handleAll({
      checkout: ({ payload }) => billing.createCheckout(payload.email),
      // Cache-Control: no-store comes from the endpoint's NoStore annotation.
      session: ({ params }) => billing.retrieve(params.sessionId)
    }))
}))

export const PaymentWebhookHandlers = leanGroup(Effect.gen(function*() {
  const billing = yield* Billing
  return HttpApiBuilder.group(Api, "paymentWebhook", (handlers) =>
    handlers.handleAll({
      receive: ({ payload }) => Effect.as(billing.handleEvent(payload), { received: true as const })
    }))
}))
