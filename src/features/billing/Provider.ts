import { Context, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../../Config.ts"
import { trialDays } from "../../domain/Billing.ts"
import { Unavailable } from "../../domain/Errors.ts"
import type { CustomerId } from "../../domain/Ids.ts"

export interface NewCheckout {
  /** Our checkout id: the provider's client_reference_id. */
  readonly checkoutId: string
  readonly customerId: CustomerId
  readonly email: string
}

export interface ProviderSession {
  readonly providerSessionId: string | null
  readonly url: string
}

export interface ProviderSessionState {
  readonly complete: boolean
  readonly providerCustomerId: string | undefined
  readonly providerSubscriptionId: string | undefined
}

const unavailable = (cause: unknown) =>
  Effect.andThen(
    Effect.logWarning("payment provider request failed").pipe(
      Effect.annotateLogs({ reason: cause instanceof Error ? cause.message : String(cause) })
    ),
    Effect.fail(new Unavailable({ error: "The payment provider is unavailable; try again shortly" }))
  )

const idOf = (value: unknown): string | undefined =>
  typeof value === "string"
    ? value
    : typeof value === "object" && value !== null && "id" in value && typeof value.id === "string"
    ? value.id
    : undefined

/**
 * Where a checkout happens. `local`: our own hosted page at
 * /checkout/{checkoutId}; `stripe`: a Stripe Checkout Session (subscription,
 * 30-day trial) made through the official SDK.
 */
export class PaymentProvider extends Context.Service<PaymentProvider, {
  readonly name: "local" | "stripe"
  readonly createSession: (checkout: NewCheckout) => Effect.Effect<ProviderSession, Unavailable>
  /** The provider's view of a session (Stripe mode); `undefined` when the provider has nothing to say. */
  readonly sessionState: (providerSessionId: string) => Effect.Effect<ProviderSessionState | undefined, Unavailable>
  /** Ends a subscription at once (one the provider opened for a sign-up that was refused). */
  readonly cancelSubscription: (providerSubscriptionId: string) => Effect.Effect<void, Unavailable>
}>()("herald/features/billing/PaymentProvider") {
  static readonly layer = Layer.effect(
    PaymentProvider,
    Effect.gen(function*() {
      const config = yield* AppConfig
      if (config.paymentProvider === "local") {
        return PaymentProvider.of({
          name: "local",
          createSession: ({ checkoutId }) =>
            Effect.succeed({ providerSessionId: null, url: `${config.baseUrl}/checkout/${checkoutId}` }),
          sessionState: () => Effect.succeed(undefined),
          cancelSubscription: () => Effect.void
        })
      }
      const secretKey = Option.getOrThrow(config.stripeSecretKey)
      const priceId = Option.getOrThrow(config.stripePriceId)
      const base = Option.map(config.stripeApiBase, (text) => new URL(text))
      // Stripe mode only: the package is not loaded by installs that take payments locally.
      const { default: Stripe } = yield* Effect.promise(() => import("stripe"))
      const stripe = new Stripe(Redacted.value(secretKey), {
        maxNetworkRetries: 2,
        timeout: 10_000,
        ...Option.match(base, {
          onNone: () => ({}),
          onSome: (url) => ({
            host: url.hostname,
            port: url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port),
            protocol: url.protocol === "http:" ? "http" as const : "https" as const
          })
        })
      })

      return PaymentProvider.of({
        name: "stripe",
        createSession: ({ checkoutId, customerId, email }) =>
          Effect.tryPromise({
            try: () =>
              stripe.checkout.sessions.create({
                mode: "subscription",
                line_items: [{ price: priceId, quantity: 1 }],
                customer_email: email,
                client_reference_id: checkoutId,
                metadata: { customerId, checkoutId },
                subscription_data: { trial_period_days: trialDays, metadata: { customerId, checkoutId } },
                payment_method_collection: "if_required",
                success_url: `${config.baseUrl}/checkout/{CHECKOUT_SESSION_ID}/success`,
                cancel_url: `${config.baseUrl}/checkout/${checkoutId}`
              }, { idempotencyKey: `herald-checkout-${checkoutId}` }),
            catch: (cause) => cause
          }).pipe(
            Effect.flatMap((session) =>
              session.url === null || session.url === undefined
                ? unavailable(new Error("Stripe answered a session without a url"))
                : Effect.succeed({ providerSessionId: session.id, url: session.url })
            ),
            Effect.catch(unavailable)
          ),
        sessionState: (providerSessionId) =>
          Effect.tryPromise({
            try: () => stripe.checkout.sessions.retrieve(providerSessionId),
            catch: (cause) => cause
          }).pipe(
            Effect.map((session) => ({
              complete: session.status === "complete",
              providerCustomerId: idOf(session.customer),
              providerSubscriptionId: idOf(session.subscription)
            })),
            Effect.catch(unavailable)
          ),
        cancelSubscription: (providerSubscriptionId) =>
          Effect.tryPromise({
            try: () =>
              stripe.subscriptions.cancel(providerSubscriptionId, {}, {
                idempotencyKey: `herald-refused-${providerSubscriptionId}`
              }),
            catch: (cause) => cause
          }).pipe(Effect.asVoid, Effect.catch(unavailable))
      })
    })
  )
}
