import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../Config.ts"
import { Conflict, InvalidCursor, LimitReached, NotFound, ValidationError } from "../../domain/Errors.ts"
import { type CustomerId, newWebhookId, type WebhookId } from "../../domain/Ids.ts"
import {
  type Delivery,
  type DeliveryAttempt,
  maxWebhooksPerCustomer,
  recoverySinceProblem,
  redactedUrl,
  type Webhook,
  type WebhookCreate,
  type WebhookDisabledReason
} from "../../domain/Webhooks.ts"
import { generateSecret } from "../../domain/WebhookSignature.ts"
import { Cursors } from "../../platform/Cursor.ts"
import { Events } from "../../platform/Events.ts"
import { checkTarget } from "../../platform/OutboundGuard.ts"
import { Customers } from "../customers/Customers.ts"

interface WebhookRow {
  readonly id: WebhookId
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly createdAt: Date
  readonly disabledAt: Date | null
  readonly disabledReason: WebhookDisabledReason | null
}

const webhookColumns = "id, url, events, created_at, disabled_at, disabled_reason"

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: row.events,
  createdAt: new Date(row.createdAt).toISOString(),
  disabledAt: row.disabledAt === null ? null : new Date(row.disabledAt).toISOString(),
  disabledReason: row.disabledAt === null ? null : row.disabledReason ?? "gone"
})

interface AttemptRow {
  readonly id: string
  readonly deliveryId: string
  readonly deliveryStatus: Delivery["status"]
  readonly nextAttemptAt: Date
  readonly position: string
  readonly eventId: string
  readonly eventType: string
  readonly attempt: number
  readonly statusCode: number | null
  readonly durationMs: number
  readonly error: string | null
  readonly attemptedAt: Date
}

interface DeliveryRow {
  readonly id: string
  readonly webhookId: WebhookId
  readonly eventId: string
  readonly eventType: string
  readonly status: Delivery["status"]
  readonly attempts: number
  readonly nextAttemptAt: Date
}

const toDelivery = (row: DeliveryRow): Delivery => ({
  ...row,
  nextAttemptAt: row.status === "pending" ? new Date(row.nextAttemptAt).toISOString() : null
})

/** Where a page of attempts ends: `attempted_at` with microseconds (UTC) and the id that breaks ties. */
const AttemptPosition = Schema.Struct({
  t: Schema.String.check(Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/)),
  i: Schema.String.check(Schema.isMaxLength(64))
})

export interface DeliveriesPage {
  readonly deliveries: ReadonlyArray<DeliveryAttempt>
  readonly nextCursor: string | null
}

const notFound = new NotFound({ error: "Webhook not found" })

/** How long a rotated-out secret keeps signing beside the new one. */
const rotationOverlap = "24 hours"

/** Webhook subscriptions: create, list, delete, rotate the secret, inspect attempts. */
export class Webhooks extends Context.Service<Webhooks, {
  readonly create: (
    customerId: CustomerId,
    input: WebhookCreate
  ) => Effect.Effect<Webhook & { secret: string }, ValidationError | LimitReached>
  readonly list: (customerId: CustomerId) => Effect.Effect<ReadonlyArray<Webhook>>
  readonly remove: (customerId: CustomerId, webhookId: WebhookId) => Effect.Effect<void, NotFound>
  readonly rotateSecret: (customerId: CustomerId, webhookId: WebhookId) => Effect.Effect<string, NotFound>
  readonly deliveries: (
    customerId: CustomerId,
    webhookId: WebhookId,
    limit: number,
    cursor?: string
  ) => Effect.Effect<DeliveriesPage, NotFound | InvalidCursor>
  /** Clears `disabledAt`: later events are delivered again. */
  readonly enable: (customerId: CustomerId, webhookId: WebhookId) => Effect.Effect<Webhook, NotFound>
  /** Queues a signed `webhook.test` event for this subscription only, due now. */
  readonly sendTest: (customerId: CustomerId, webhookId: WebhookId) => Effect.Effect<Delivery, NotFound>
  /** Makes a delivery due now again, with a fresh retry schedule. */
  readonly redeliver: (
    customerId: CustomerId,
    webhookId: WebhookId,
    deliveryId: string
  ) => Effect.Effect<Delivery, NotFound | Conflict>
  /**
   * Enables the subscription and queues, oldest event first, every one of
   * its deliveries of an event since `since` that was never delivered
   * (skipped while disabled, cancelled, or failed), each once, under its
   * first `webhook-id`. Answers how many were queued.
   */
  readonly recover: (
    customerId: CustomerId,
    webhookId: WebhookId,
    since: string
  ) => Effect.Effect<number, NotFound | ValidationError>
  /**
   * The first `hooks` subscriptions (oldest first) with each one's newest
   * `perHook` attempts, in one bounded statement (the dashboard's view).
   */
  readonly overview: (
    customerId: CustomerId,
    hooks: number,
    perHook: number
  ) => Effect.Effect<ReadonlyArray<{ readonly hook: Webhook; readonly deliveries: ReadonlyArray<DeliveryAttempt> }>>
}>()("herald/features/webhooks/Webhooks") {
  static readonly layer = Layer.effect(
    Webhooks,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const events = yield* Events
      const config = yield* AppConfig
      const cursors = yield* Cursors
      const customers = yield* Customers

      const create = Effect.fn("Webhooks.create")(function*(customerId: CustomerId, input: WebhookCreate) {
        yield* checkTarget(input.url, config.allowPrivateTargets).pipe(
          Effect.mapError((refused) =>
            new ValidationError({
              error: `Invalid body.url: ${refused.message}`,
              details: [{ path: "body.url", message: refused.message }]
            })
          )
        )
        const id = newWebhookId()
        const secret = generateSecret()
        const created = yield* Effect.gen(function*() {
          // The customer row lock serialises concurrent creations, so the count holds.
          yield* customers.lock(customerId)
          const [{ count }] = yield* sql<{ count: number }>`
          SELECT count(*)::int AS count FROM webhooks WHERE customer_id = ${customerId} AND deleted_at IS NULL`
          if (count >= maxWebhooksPerCustomer) return undefined
          const rows = yield* sql<WebhookRow>`
          INSERT INTO webhooks (id, customer_id, url, events, secret)
          VALUES (${id}, ${customerId}, ${input.url}, ${[...new Set(input.events)]}, ${secret})
          RETURNING ${sql.literal(webhookColumns)}`
          const hook = toWebhook(rows[0])
          // The log shows where events go, not the credentials a URL may carry.
          yield* events.record(customerId, "webhook.created", {
            id: hook.id,
            url: redactedUrl(hook.url),
            events: hook.events
          })
          return hook
        }).pipe(sql.withTransaction, Effect.orDie)
        if (created === undefined) {
          return yield* new LimitReached({ error: `At most ${maxWebhooksPerCustomer} webhooks per customer` })
        }
        return { ...created, secret }
      })

      const list = (customerId: CustomerId) =>
        sql<WebhookRow>`
        SELECT ${sql.literal(webhookColumns)} FROM webhooks
        WHERE customer_id = ${customerId} AND deleted_at IS NULL ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map(toWebhook)),
          Effect.orDie,
          Effect.withSpan("Webhooks.list")
        )

      const remove = Effect.fn("Webhooks.remove")(function*(customerId: CustomerId, webhookId: WebhookId) {
        const removed = yield* Effect.gen(function*() {
          const rows = yield* sql`UPDATE webhooks SET deleted_at = now()
          WHERE id = ${webhookId} AND customer_id = ${customerId} AND deleted_at IS NULL RETURNING id`
          if (rows.length === 0) return false
          yield* sql`UPDATE webhook_deliveries SET status = 'cancelled'
          WHERE webhook_id = ${webhookId} AND status = 'pending'`
          yield* events.record(customerId, "webhook.deleted", { id: webhookId })
          return true
        }).pipe(sql.withTransaction, Effect.orDie)
        if (!removed) return yield* notFound
      })

      const rotateSecret = Effect.fn("Webhooks.rotateSecret")(function*(customerId: CustomerId, webhookId: WebhookId) {
        const secret = generateSecret()
        const rotated = yield* Effect.gen(function*() {
          const rows = yield* sql`UPDATE webhooks SET previous_secret = secret, secret = ${secret},
            previous_secret_expires_at = now() + ${rotationOverlap}::interval
          WHERE id = ${webhookId} AND customer_id = ${customerId} AND deleted_at IS NULL RETURNING id`
          if (rows.length === 0) return false
          yield* events.record(customerId, "webhook.secret_rotated", { id: webhookId })
          return true
        }).pipe(sql.withTransaction, Effect.orDie)
        if (!rotated) return yield* notFound
        return secret
      })

      const owned = (customerId: CustomerId, webhookId: WebhookId) =>
        sql<WebhookRow>`SELECT ${sql.literal(webhookColumns)} FROM webhooks
        WHERE id = ${webhookId} AND customer_id = ${customerId} AND deleted_at IS NULL`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) => rows.length === 0 ? Effect.fail(notFound) : Effect.succeed(rows[0]))
        )

      // A read on the GET path: untraced (docs/design/http-core.md, "What the fast paths cost").
      const deliveries = Effect.fnUntraced(
        function*(customerId: CustomerId, webhookId: WebhookId, limit: number, cursor?: string) {
          yield* owned(customerId, webhookId)
          const after = cursor === undefined
            ? undefined
            : yield* cursors.decode(`deliveries:${webhookId}`, customerId, AttemptPosition, cursor)
          const rows = yield* sql<AttemptRow>`
        SELECT a.id, a.delivery_id, d.status AS delivery_status, d.next_attempt_at, a.event_id, a.event_type, a.attempt,
          a.status_code, a.duration_ms, a.error, a.attempted_at,
          to_char(a.attempted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS position
        FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE a.webhook_id = ${webhookId}
        ${
            after === undefined
              ? sql``
              : sql`AND (a.attempted_at, a.id) < ((${after.t}::timestamp AT TIME ZONE 'UTC'), ${after.i})`
          }
        ORDER BY a.attempted_at DESC, a.id DESC LIMIT ${limit + 1}`.pipe(Effect.orDie)
          const page = rows.slice(0, limit)
          const last = page[page.length - 1]
          return {
            deliveries: page.map(({ position: _, ...row }): DeliveryAttempt => ({
              ...row,
              nextAttemptAt: row.deliveryStatus === "pending" ? new Date(row.nextAttemptAt).toISOString() : null,
              attemptedAt: new Date(row.attemptedAt).toISOString()
            })),
            nextCursor: rows.length > limit && last !== undefined
              ? cursors.encode(`deliveries:${webhookId}`, customerId, { t: last.position, i: last.id })
              : null
          }
        }
      )

      const enable = Effect.fn("Webhooks.enable")(function*(customerId: CustomerId, webhookId: WebhookId) {
        return yield* Effect.gen(function*() {
          const current = yield* owned(customerId, webhookId)
          if (current.disabledAt === null) return toWebhook(current)
          const rows = yield* sql<WebhookRow>`UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL
          WHERE id = ${webhookId} AND customer_id = ${customerId} RETURNING ${sql.literal(webhookColumns)}`.pipe(
            Effect.orDie
          )
          yield* events.record(customerId, "webhook.enabled", { id: webhookId })
          return toWebhook(rows[0])
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      })

      const deliveryColumns = sql.literal(`d.id, d.webhook_id, d.event_id, e.type AS event_type, d.status, d.attempts,
      d.next_attempt_at`)

      const sendTest = Effect.fn("Webhooks.sendTest")(function*(customerId: CustomerId, webhookId: WebhookId) {
        return yield* Effect.gen(function*() {
          yield* owned(customerId, webhookId)
          const eventId = `evt_${randomUUID().replaceAll("-", "")}`
          const deliveryId = `dlv_${randomUUID().replaceAll("-", "")}`
          const data = { webhookId, message: "A test event sent from the Herald API" }
          yield* sql`INSERT INTO webhook_events (id, customer_id, type, data)
          VALUES (${eventId}, ${customerId}, 'webhook.test', ${JSON.stringify(data)}::json)`
          yield* sql`INSERT INTO webhook_deliveries (id, event_id, webhook_id) VALUES (${deliveryId}, ${eventId}, ${webhookId})`
          const rows = yield* sql<DeliveryRow>`SELECT ${deliveryColumns}
          FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.id = ${deliveryId}`
          return toDelivery(rows[0])
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      })

      const redeliver = Effect.fn("Webhooks.redeliver")(
        function*(customerId: CustomerId, webhookId: WebhookId, deliveryId: string) {
          return yield* Effect.gen(function*() {
            const hook = yield* owned(customerId, webhookId)
            const found = yield* sql<DeliveryRow & { inFlight: boolean }>`SELECT ${deliveryColumns},
            (d.locked_until IS NOT NULL AND d.locked_until > now()) AS in_flight
          FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
          WHERE d.id = ${deliveryId} AND d.webhook_id = ${webhookId} FOR UPDATE OF d`
            if (found.length === 0) return yield* new NotFound({ error: "Delivery not found" })
            if (hook.disabledAt !== null) {
              return yield* new Conflict({ error: "The subscription is disabled: enable it before redelivering" })
            }
            if (found[0].inFlight) return yield* new Conflict({ error: "The delivery is being attempted right now" })
            const rows = yield* sql<DeliveryRow>`UPDATE webhook_deliveries d SET status = 'pending', attempts = 0,
            next_attempt_at = clock_timestamp(), locked_until = NULL, claim_token = NULL
          FROM webhook_events e WHERE e.id = d.event_id AND d.id = ${deliveryId}
          RETURNING ${deliveryColumns}`
            return toDelivery(rows[0])
          }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
        }
      )

      const recover = Effect.fn("Webhooks.recover")(
        function*(customerId: CustomerId, webhookId: WebhookId, since: string) {
          const from = new Date(since)
          const problem = recoverySinceProblem(from, new Date())
          if (problem !== undefined) {
            return yield* new ValidationError({
              error: `Invalid body.since: ${problem}`,
              details: [{ path: "body.since", message: problem }]
            })
          }
          return yield* Effect.gen(function*() {
            // Locked for update: an event being written now either commits first (its skipped delivery is
            // seen below) or waits and finds the subscription enabled (see Outbox).
            const rows = yield* sql<WebhookRow>`SELECT ${sql.literal(webhookColumns)} FROM webhooks
          WHERE id = ${webhookId} AND customer_id = ${customerId} AND deleted_at IS NULL FOR UPDATE`
            if (rows.length === 0) return yield* notFound
            if (rows[0].disabledAt !== null) {
              yield* sql`UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL WHERE id = ${webhookId}`
              yield* events.record(customerId, "webhook.enabled", { id: webhookId })
            }
            // Due one microsecond apart in event order, so the dispatcher claims them oldest first. Only
            // deliveries that are not pending are touched: a claimed one (being tried now) is pending.
            const queued = yield* sql<{ id: string }>`
          WITH undelivered AS (
            SELECT d.id, row_number() OVER (ORDER BY e.created_at, e.id) AS n
            FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
            WHERE d.webhook_id = ${webhookId} AND d.status IN ('skipped', 'cancelled', 'failed')
              AND e.created_at >= ${from}
          )
          UPDATE webhook_deliveries d SET status = 'pending', attempts = 0, locked_until = NULL, claim_token = NULL,
            next_attempt_at = clock_timestamp() + make_interval(secs => u.n / 1000000.0)
          FROM undelivered u WHERE d.id = u.id AND d.status IN ('skipped', 'cancelled', 'failed')
          RETURNING d.id`
            yield* events.record(customerId, "webhook.recovered", {
              id: webhookId,
              since: from.toISOString(),
              queued: queued.length
            })
            return queued.length
          }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
        }
      )

      const overview = Effect.fnUntraced(function*(customerId: CustomerId, hooks: number, perHook: number) {
        const subscriptions = yield* sql<WebhookRow>`
        SELECT ${sql.literal(webhookColumns)} FROM webhooks
        WHERE customer_id = ${customerId} AND deleted_at IS NULL ORDER BY created_at, id LIMIT ${hooks}`.pipe(
          Effect.orDie
        )
        if (subscriptions.length === 0) return []
        const ids = subscriptions.map((row) => row.id)
        // One index walk per subscription (webhook_attempts_webhook), each stopping after perHook rows.
        const attempts = yield* sql<AttemptRow & { webhookId: WebhookId }>`
        SELECT a.webhook_id, a.id, a.delivery_id, d.status AS delivery_status, d.next_attempt_at, a.event_id, a.event_type,
          a.attempt, a.status_code, a.duration_ms, a.error, a.attempted_at
        FROM unnest(${ids}::text[]) AS h(id)
        CROSS JOIN LATERAL (
          SELECT * FROM webhook_attempts WHERE webhook_id = h.id ORDER BY attempted_at DESC, id DESC LIMIT ${perHook}
        ) a
        JOIN webhook_deliveries d ON d.id = a.delivery_id
        ORDER BY a.webhook_id, a.attempted_at DESC, a.id DESC`.pipe(Effect.orDie)
        return subscriptions.map((row) => ({
          hook: toWebhook(row),
          deliveries: attempts.filter((a) => a.webhookId === row.id).map((
            { webhookId: _, position: __, ...a }
          ): DeliveryAttempt => ({
            ...a,
            nextAttemptAt: a.deliveryStatus === "pending" ? new Date(a.nextAttemptAt).toISOString() : null,
            attemptedAt: new Date(a.attemptedAt).toISOString()
          }))
        }))
      })

      return Webhooks.of({
        create,
        list,
        remove,
        rotateSecret,
        deliveries,
        enable,
        sendTest,
        redeliver,
        recover,
        overview
      })
    })
  )
}
