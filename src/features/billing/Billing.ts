import { Context, Duration, Effect, Layer, Option, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { createHmac, randomBytes } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import {
  checkoutReference,
  customerReference,
  nextStatus,
  type PaymentEvent,
  providerIds,
  providerSessionId,
  signalOf,
  trialEndsAt
} from "../../domain/Billing.ts"
import { CheckoutIncomplete, Conflict, KeyAlreadyRetrieved, NotFound, Unavailable } from "../../domain/Errors.ts"
import { CustomerId, newCustomerId } from "../../domain/Ids.ts"
import { openReplay, sealReplay } from "../../domain/ReplaySeal.ts"
import { safeEqual } from "../../domain/Secrets.ts"
import { isStorableText } from "../../domain/Text.ts"
import { claimPeriod } from "../../platform/Periodic.ts"
import { serverSecret } from "../../platform/ServerSecrets.ts"
import { Customers } from "../customers/Customers.ts"
import { PaymentProvider } from "./Provider.ts"

export interface SessionResult {
  readonly customerId: CustomerId
  readonly email: string
  readonly apiKey: string
  readonly mcpEndpoint: string
}

export interface CheckoutView {
  readonly id: string
  readonly email: string
  readonly status: "open" | "completed"
  readonly provider: "local" | "stripe"
}

interface CheckoutRow {
  readonly id: string
  readonly provider: "local" | "stripe"
  readonly providerSessionId: string | null
  readonly email: string
  readonly customerId: CustomerId
  readonly status: "open" | "completed"
  readonly sealedKey: string | null
  readonly keyRetrievedAt: Date | null
}

const sealScope = "checkout session key"

/** One trial per address: the refusal of a checkout, or of its completion, for an address already in use. */
const addressTaken = () =>
  new Conflict({ error: "An account with this email address already exists: sign in to the dashboard with its key" })

/** `chk_` + 32 hex digits: unguessable, it is the only thing that names a session. */
const newCheckoutId = () => `chk_${randomBytes(16).toString("hex")}`

/**
 * Sign-up and the customer's payment life cycle: checkout sessions, the key
 * shown once, payment events and the end of unpaid trials.
 */
export class Billing extends Context.Service<Billing, {
  readonly provider: "local" | "stripe"
  /** A checkout for an address that a customer who is not cancelled holds (any letter case) is refused. */
  readonly createCheckout: (email: string) => Effect.Effect<{ readonly url: string }, Conflict | Unavailable>
  /** A local checkout session as its hosted page shows it. */
  readonly checkout: (checkoutId: string) => Effect.Effect<CheckoutView, NotFound>
  /** Completes a local checkout (the hosted page's button). Completing twice changes nothing. */
  readonly completeLocal: (checkoutId: string) => Effect.Effect<CheckoutView, NotFound | Conflict>
  /** The session result with the key, once; by our id or the provider's (`cs_...`). */
  readonly retrieve: (sessionId: string) => Effect.Effect<
    SessionResult,
    NotFound | CheckoutIncomplete | KeyAlreadyRetrieved | Conflict | Unavailable
  >
  /** Acts on a verified payment event; the same event id twice acts once. */
  readonly handleEvent: (event: PaymentEvent) => Effect.Effect<void, Unavailable>
  /** The token the hosted page's form carries, bound to its session (HMAC under a server secret). */
  readonly formToken: (checkoutId: string) => string
  readonly checkFormToken: (checkoutId: string, token: string | undefined) => boolean
  /** Cancels customers whose trial ended without payment; returns how many. */
  readonly expireTrials: Effect.Effect<number>
  /** Runs `expireTrials` when the daily run is due and this process claims it; returns how many or undefined when not due. */
  readonly runDueTrialExpiry: Effect.Effect<number | undefined>
}>()("herald/features/billing/Billing") {
  static readonly layer = Layer.effect(
    Billing,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const customers = yield* Customers
      const provider = yield* PaymentProvider
      const secret = yield* serverSecret("checkout")

      const inTransaction = <A, E>(effect: Effect.Effect<A, E>) =>
        effect.pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))

      const findRow = (sessionId: string, lock: boolean) =>
        // An id no row could hold (NUL, lone surrogates, absurd length) names nothing: not a database error.
        !isStorableText(sessionId) || sessionId.length > 255 ? Effect.succeed(undefined) : Effect.map(
          lock
            ? sql<
              CheckoutRow
            >`SELECT id, provider, provider_session_id, email, customer_id, status, sealed_key, key_retrieved_at
              FROM checkout_sessions WHERE id = ${sessionId} OR provider_session_id = ${sessionId} FOR UPDATE`
            : sql<
              CheckoutRow
            >`SELECT id, provider, provider_session_id, email, customer_id, status, sealed_key, key_retrieved_at
              FROM checkout_sessions WHERE id = ${sessionId} OR provider_session_id = ${sessionId}`,
          (rows) => rows[0]
        )

      const view = (row: CheckoutRow): CheckoutView => ({
        id: row.id,
        email: row.email,
        status: row.status,
        provider: row.provider
      })

      const createCheckout = Effect.fn("Billing.createCheckout")(function*(email: string) {
        const holders = yield* customers.findByEmail(email)
        if (holders.some((customer) => customer.status !== "cancelled")) return yield* addressTaken()
        const checkoutId = newCheckoutId()
        const customerId = newCustomerId()
        yield* sql`INSERT INTO checkout_sessions (id, provider, email, customer_id, status)
        VALUES (${checkoutId}, ${provider.name}, ${email}, ${customerId}, 'open')`.pipe(Effect.orDie)
        const session = yield* provider.createSession({ checkoutId, customerId, email })
        if (session.providerSessionId !== null) {
          yield* sql`UPDATE checkout_sessions SET provider_session_id = ${session.providerSessionId}
          WHERE id = ${checkoutId}`.pipe(Effect.orDie)
        }
        return { url: session.url }
      })

      /** Records what the provider calls the customer, keeping what is known. */
      const recordProviderIds = (
        customerId: CustomerId,
        ids: { customer?: string | undefined; subscription?: string | undefined }
      ) =>
        sql`INSERT INTO customer_billing (customer_id, provider_customer_id, provider_subscription_id)
        VALUES (${customerId}, ${ids.customer ?? null}, ${ids.subscription ?? null})
        ON CONFLICT (customer_id) DO UPDATE SET
          provider_customer_id = COALESCE(customer_billing.provider_customer_id, EXCLUDED.provider_customer_id),
          provider_subscription_id = COALESCE(EXCLUDED.provider_subscription_id, customer_billing.provider_subscription_id)`

      /**
       * Completes a session under its row lock: the customer is created
       * (onboarding, plan pro, trial 30 days), its key sealed until the one GET
       * that shows it. A completed session is done: completing it again changes
       * nothing, provider ids included (a later completion naming other ids
       * must not tie them to this customer, or their events would act on it).
       * The address is checked again here, under a lock per address: two
       * sessions opened for one address before either completed yield one
       * customer; the later completion fails with Conflict and its session stays open.
       */
      const completeRow = (
        checkoutId: string,
        ids: { customer?: string | undefined; subscription?: string | undefined }
      ) =>
        inTransaction(Effect.gen(function*() {
          const row = yield* findRow(checkoutId, true)
          if (row === undefined) return undefined
          if (row.status === "completed") return row
          const now = new Date()
          const { apiKey } = yield* customers.provisionUnique({
            id: row.customerId,
            email: row.email,
            status: "onboarding",
            trialEndsAt: trialEndsAt(now),
            actor: { type: "system", id: null }
          }).pipe(Effect.mapError(addressTaken))
          yield* recordProviderIds(row.customerId, ids)
          const sealed = sealReplay(apiKey, row.id, secret, sealScope)
          yield* sql`UPDATE checkout_sessions SET status = 'completed', completed_at = ${now}, sealed_key = ${sealed}
          WHERE id = ${row.id}`
          return { ...row, status: "completed" as const }
        }))

      const checkout = (checkoutId: string) =>
        Effect.flatMap(
          findRow(checkoutId, false).pipe(Effect.orDie),
          (row) =>
            row === undefined || row.id !== checkoutId
              ? Effect.fail(new NotFound({ error: "Checkout session not found" }))
              : Effect.succeed(view(row))
        )

      const completeLocal = Effect.fn("Billing.completeLocal")(function*(checkoutId: string) {
        const existing = yield* checkout(checkoutId)
        if (existing.provider !== "local") {
          return yield* new NotFound({ error: "Checkout session not found" })
        }
        const row = yield* completeRow(checkoutId, {})
        if (row === undefined) return yield* new NotFound({ error: "Checkout session not found" })
        return view(row)
      })

      const retrieve = Effect.fn("Billing.retrieve")(function*(sessionId: string) {
        const first = yield* findRow(sessionId, false).pipe(Effect.orDie)
        if (first === undefined) return yield* new NotFound({ error: "Checkout session not found" })
        // Stripe mode: the browser may arrive before the webhook; ask Stripe (outside any lock).
        if (first.status === "open" && first.provider === "stripe" && first.providerSessionId !== null) {
          const state = yield* provider.sessionState(first.providerSessionId)
          if (state?.complete === true) {
            yield* completeRow(first.id, {
              customer: state.providerCustomerId,
              subscription: state.providerSubscriptionId
            })
          }
        }
        return yield* inTransaction(Effect.gen(function*() {
          const row = yield* findRow(first.id, true)
          if (row === undefined) return yield* new NotFound({ error: "Checkout session not found" })
          if (row.status !== "completed") return yield* new CheckoutIncomplete()
          const apiKey = row.sealedKey === null ? undefined : openReplay(row.sealedKey, row.id, secret, sealScope)
          if (apiKey === undefined) return yield* new KeyAlreadyRetrieved()
          yield* sql`UPDATE checkout_sessions SET sealed_key = NULL, key_retrieved_at = now() WHERE id = ${row.id}`
          return {
            customerId: row.customerId,
            email: row.email,
            apiKey,
            mcpEndpoint: customers.mcpEndpointFor(apiKey)
          } satisfies SessionResult
        }))
      })

      /** Our customer for an event: metadata.customerId, else the provider ids recorded at checkout. */
      const findCustomer = (type: string, object: Record<string, unknown>) =>
        Effect.gen(function*() {
          const ref = customerReference(type, object)
          if (
            ref.customerId !== undefined &&
            /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref.customerId)
          ) {
            const found = yield* Effect.option(customers.get(CustomerId.make(ref.customerId.toLowerCase())))
            if (Option.isSome(found)) return found.value.id
          }
          if (ref.providerSubscriptionId !== undefined) {
            const rows = yield* sql<{ customerId: CustomerId }>`SELECT customer_id FROM customer_billing
            WHERE provider_subscription_id = ${ref.providerSubscriptionId}`
            if (rows.length > 0) return rows[0].customerId
          }
          if (ref.providerCustomerId !== undefined) {
            const rows = yield* sql<{ customerId: CustomerId }>`SELECT customer_id FROM customer_billing
            WHERE provider_customer_id = ${ref.providerCustomerId}`
            if (rows.length > 0) return rows[0].customerId
          }
          return undefined
        })

      const handleEvent = Effect.fn("Billing.handleEvent")(function*(event: PaymentEvent) {
        const object = event.data.object
        const refused = yield* inTransaction(Effect.gen(function*() {
          const fresh = yield* sql`INSERT INTO payment_events (event_id, type) VALUES (${event.id}, ${event.type})
          ON CONFLICT (event_id) DO NOTHING RETURNING event_id`
          if (fresh.length === 0) return undefined

          if (event.type === "checkout.session.completed") {
            const reference = checkoutReference(object) ?? providerSessionId(object)
            if (reference === undefined) return undefined
            const found = yield* findRow(reference, true)
            if (found === undefined) return undefined
            if (
              found.status === "open" && found.providerSessionId === null && found.provider === "stripe" &&
              providerSessionId(object)?.startsWith("cs_") === true
            ) {
              yield* sql`UPDATE checkout_sessions SET provider_session_id = ${providerSessionId(
                object
              )!} WHERE id = ${found.id}`
            }
            const ids = providerIds(object)
            // The provider took a second sign-up for an address already in use: no second customer;
            // its subscription is ended once this transaction has committed.
            return yield* completeRow(found.id, ids).pipe(
              Effect.as(undefined),
              Effect.catchTag(
                "Conflict",
                () => Effect.succeed({ checkoutId: found.id, subscription: ids.subscription })
              )
            )
          }

          const signal = signalOf(event.type, object)
          if (signal === undefined) return undefined
          const customerId = yield* findCustomer(event.type, object)
          if (customerId === undefined) return undefined
          const ref = customerReference(event.type, object)
          yield* recordProviderIds(customerId, {
            customer: ref.providerCustomerId,
            subscription: ref.providerSubscriptionId
          })
          const billing = yield* sql<{ lastEventCreated: string | number | null }>`
          SELECT last_event_created FROM customer_billing WHERE customer_id = ${customerId} FOR UPDATE`
          const last = billing[0]?.lastEventCreated ?? null
          const created = event.created
          // Out of order: an event older than one already applied changes nothing (Stripe does not promise order).
          if (created !== undefined && last !== null && created < Number(last)) return undefined
          if (created !== undefined) {
            yield* sql`UPDATE customer_billing SET last_event_created = ${
              Math.floor(created)
            } WHERE customer_id = ${customerId}`
          }
          if (signal._tag === "InvoicePaid" && signal.amountPaid > 0) {
            yield* sql`UPDATE customer_billing SET paid_at = COALESCE(paid_at, now()) WHERE customer_id = ${customerId}`
          }
          yield* customers.changeStatus(customerId, (current) => nextStatus(current, signal), {
            reason: event.type,
            eventId: event.id
          }).pipe(Effect.catchTag("NotFound", () => Effect.void))
          return undefined
        }))
        if (refused === undefined) return
        yield* Effect.logWarning("checkout refused at completion: its address already belongs to a customer").pipe(
          Effect.annotateLogs({ checkoutId: refused.checkoutId })
        )
        if (refused.subscription !== undefined) {
          // Until the refused sign-up's subscription is ended it would bill a person with no account: when
          // the provider cannot be reached the event is forgotten and answered 503, so the provider sends
          // it again (the cancel is idempotent at the provider).
          yield* provider.cancelSubscription(refused.subscription).pipe(
            Effect.tapError(() =>
              Effect.andThen(
                sql`DELETE FROM payment_events WHERE event_id = ${event.id}`.pipe(Effect.orDie),
                Effect.logWarning("could not end the subscription of a refused checkout yet; the event will be retried")
                  .pipe(
                    Effect.annotateLogs({ checkoutId: refused.checkoutId, subscription: refused.subscription })
                  )
              )
            ),
            Effect.mapError(() => new Unavailable({}))
          )
        }
      })

      const expireTrials = Effect.gen(function*() {
        const ended = yield* customers.endedTrials
        if (ended.length === 0) return 0
        const paid = yield* sql<{ customerId: CustomerId }>`SELECT customer_id FROM customer_billing
        WHERE customer_id = ANY (${ended}::uuid[]) AND paid_at IS NOT NULL`
        const paying = new Set(paid.map((row) => row.customerId))
        let cancelled = 0
        for (const id of ended) {
          if (paying.has(id)) continue
          const moved = yield* customers.changeStatus(
            id,
            (current) => nextStatus(current, { _tag: "TrialEndedUnpaid" }),
            {
              reason: "trial_ended"
            }
          ).pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
          if (moved !== undefined) cancelled++
        }
        return cancelled
      }).pipe(inTransaction)

      /**
       * The daily run, claimed in PostgreSQL: moving `next_run_at` a day on and
       * the cancellations share one transaction, so one process runs it per day
       * and a crash leaves it due for the next look.
       */
      const runDueTrialExpiry = inTransaction(Effect.gen(function*() {
        if (
          !(yield* Effect.provideService(claimPeriod("trial-expiry", Duration.days(1)), SqlClient.SqlClient, sql))
        ) return undefined
        return yield* expireTrials
      }))

      const formToken = (checkoutId: string) =>
        createHmac("sha256", secret).update(`checkout form ${checkoutId}`).digest("base64url")
      const checkFormToken = (checkoutId: string, token: string | undefined) =>
        token !== undefined && safeEqual(formToken(checkoutId), token)

      return Billing.of({
        provider: provider.name,
        formToken,
        checkFormToken,
        createCheckout,
        checkout,
        completeLocal,
        retrieve,
        handleEvent,
        expireTrials,
        runDueTrialExpiry
      })
    })
  ).pipe(Layer.provide(PaymentProvider.layer))

  /**
   * Each process looks every TRIAL_SWEEP_INTERVAL_MS whether the daily
   * trial-expiry run is due (local mode only: with Stripe, the subscription's
   * own end arrives as an event).
   */
  static readonly trialSweeper = Layer.effectDiscard(Effect.gen(function*() {
    const config = yield* AppConfig
    const billing = yield* Billing
    if (config.paymentProvider !== "local") return
    const run = billing.runDueTrialExpiry.pipe(
      Effect.tap((count) =>
        count === undefined || count === 0
          ? Effect.void
          : Effect.logInfo("trial expiry run").pipe(Effect.annotateLogs({ cancelled: count }))
      ),
      Effect.catchCause((cause) => Effect.logWarning("trial expiry run failed", cause))
    )
    yield* run.pipe(Effect.repeat(Schedule.spaced(Duration.millis(config.trialSweepIntervalMs))), Effect.forkScoped)
  }))
}
