import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../Config.ts"
import { LimitReached, NotFound, ValidationError } from "../domain/Errors.ts"
import { type DeliveryAttempt, maxWebhooksPerCustomer, type Webhook, type WebhookCreate } from "../domain/Webhooks.ts"
import { generateSecret } from "../domain/WebhookSignature.ts"
import { Events } from "./Events.ts"
import { checkTarget } from "./OutboundGuard.ts"

interface WebhookRow {
  readonly id: string
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly createdAt: Date
  readonly disabledAt: Date | null
}

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: row.events,
  createdAt: new Date(row.createdAt).toISOString(),
  disabledAt: row.disabledAt === null ? null : new Date(row.disabledAt).toISOString()
})

interface AttemptRow {
  readonly id: string
  readonly eventId: string
  readonly eventType: string
  readonly attempt: number
  readonly statusCode: number | null
  readonly durationMs: number
  readonly error: string | null
  readonly attemptedAt: Date
}

const notFound = new NotFound({ error: "Webhook not found" })

/** How long a rotated-out secret keeps signing beside the new one. */
const rotationOverlap = "24 hours"

/** Webhook subscriptions: create, list, delete, rotate the secret, inspect attempts. */
export class Webhooks extends Context.Service<Webhooks, {
  readonly create: (customerId: string, input: WebhookCreate) =>
    Effect.Effect<Webhook & { secret: string }, ValidationError | LimitReached>
  readonly list: (customerId: string) => Effect.Effect<ReadonlyArray<Webhook>>
  readonly remove: (customerId: string, webhookId: string) => Effect.Effect<void, NotFound>
  readonly rotateSecret: (customerId: string, webhookId: string) => Effect.Effect<string, NotFound>
  readonly deliveries: (customerId: string, webhookId: string, limit: number) =>
    Effect.Effect<ReadonlyArray<DeliveryAttempt>, NotFound>
}>()("herald/server/Webhooks") {
  static readonly layer = Layer.effect(Webhooks, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const events = yield* Events
    const config = yield* AppConfig

    const create = Effect.fn("Webhooks.create")(function*(customerId: string, input: WebhookCreate) {
      yield* checkTarget(input.url, config.allowPrivateTargets).pipe(
        Effect.mapError((refused) =>
          new ValidationError({
            error: `Invalid body.url: ${refused.message}`,
            details: [{ path: "body.url", message: refused.message }]
          })
        )
      )
      const id = `wh_${randomUUID().replaceAll("-", "").slice(0, 24)}`
      const secret = generateSecret()
      const created = yield* Effect.gen(function*() {
        // The customer row lock serialises concurrent creations, so the count holds.
        yield* sql`SELECT id FROM customers WHERE id = ${customerId} FOR UPDATE`
        const [{ count }] = yield* sql<{ count: number }>`
          SELECT count(*)::int AS count FROM webhooks WHERE customer_id = ${customerId} AND deleted_at IS NULL`
        if (count >= maxWebhooksPerCustomer) return undefined
        const rows = yield* sql<WebhookRow>`
          INSERT INTO webhooks (id, customer_id, url, events, secret)
          VALUES (${id}, ${customerId}, ${input.url}, ${[...new Set(input.events)]}, ${secret})
          RETURNING id, url, events, created_at, disabled_at`
        const hook = toWebhook(rows[0])
        yield* events.record(customerId, "webhook.created", { id: hook.id, url: hook.url, events: hook.events })
        return hook
      }).pipe(sql.withTransaction, Effect.orDie)
      if (created === undefined) {
        return yield* new LimitReached({ error: `At most ${maxWebhooksPerCustomer} webhooks per customer` })
      }
      return { ...created, secret }
    })

    const list = (customerId: string) =>
      sql<WebhookRow>`
        SELECT id, url, events, created_at, disabled_at FROM webhooks
        WHERE customer_id = ${customerId} AND deleted_at IS NULL ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map(toWebhook)),
        Effect.orDie,
        Effect.withSpan("Webhooks.list")
      )

    const remove = Effect.fn("Webhooks.remove")(function*(customerId: string, webhookId: string) {
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

    const rotateSecret = Effect.fn("Webhooks.rotateSecret")(function*(customerId: string, webhookId: string) {
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

    // A read on the GET path: untraced (README, "Benchmarks").
    const deliveries = Effect.fnUntraced(function*(customerId: string, webhookId: string, limit: number) {
      const owned = yield* sql`SELECT id FROM webhooks
        WHERE id = ${webhookId} AND customer_id = ${customerId} AND deleted_at IS NULL`.pipe(Effect.orDie)
      if (owned.length === 0) return yield* notFound
      const rows = yield* sql<AttemptRow>`
        SELECT id, event_id, event_type, attempt, status_code, duration_ms, error, attempted_at
        FROM webhook_attempts WHERE webhook_id = ${webhookId}
        ORDER BY attempted_at DESC, id DESC LIMIT ${limit}`.pipe(Effect.orDie)
      return rows.map((row): DeliveryAttempt => ({ ...row, attemptedAt: new Date(row.attemptedAt).toISOString() }))
    })

    return Webhooks.of({ create, list, remove, rotateSecret, deliveries })
  }))
}
