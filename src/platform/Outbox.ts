import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import type { CustomerId } from "../domain/Ids.ts"
import type { WebhookEventType } from "../domain/WebhookEvents.ts"

/** One webhook event for `emitMany`. */
export interface OutboxEntry {
  readonly customerId: CustomerId
  readonly type: WebhookEventType
  readonly data: unknown
}

/**
 * The transactional outbox of webhook events. `emit` joins the caller's
 * transaction: the event and one delivery per matching subscription (pending,
 * or skipped while the subscription is disabled) commit together with the
 * change they report, or not at all. The webhook dispatcher delivers them.
 */
export class Outbox extends Context.Service<Outbox, {
  readonly emit: (customerId: CustomerId, type: WebhookEventType, data: unknown) => Effect.Effect<void>
  /** Several events in two statements whatever their count (the publisher's batches). */
  readonly emitMany: (entries: ReadonlyArray<OutboxEntry>) => Effect.Effect<void>
}>()("herald/platform/Outbox") {
  static readonly layer = Layer.effect(
    Outbox,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const insertMany = (entries: ReadonlyArray<OutboxEntry>) =>
        Effect.gen(function*() {
          if (entries.length === 0) return
          const ids = entries.map(() => `evt_${randomUUID().replaceAll("-", "")}`)
          const customers = entries.map((e) => e.customerId)
          const types = entries.map((e) => e.type)
          yield* sql`INSERT INTO webhook_events (id, customer_id, type, data)
          SELECT e.id, e.customer_id, e.type, e.data::json
          FROM unnest(${ids}::text[], ${customers}::uuid[], ${types}::text[], ${
            entries.map((e) => JSON.stringify(e.data))
          }::text[])
            AS e(id, customer_id, type, data)`
          // A disabled subscription's deliveries are recorded as skipped, for a later recovery to send.
          // The key-share lock makes a recovery (which locks the subscription for update) wait for this
          // transaction, or this statement wait for the recovery and read the subscription it left:
          // either way no event falls between "skipped" and "recovered".
          yield* sql`INSERT INTO webhook_deliveries (id, event_id, webhook_id, status)
          SELECT 'dlv_' || md5(e.id || w.id), e.id, w.id, CASE WHEN w.disabled_at IS NULL THEN 'pending' ELSE 'skipped' END
          FROM unnest(${ids}::text[], ${customers}::uuid[], ${types}::text[]) AS e(id, customer_id, type)
          JOIN webhooks w ON w.customer_id = e.customer_id AND w.deleted_at IS NULL AND e.type = ANY (w.events)
          FOR KEY SHARE OF w`
        }).pipe(Effect.orDie)
      const emit = (customerId: CustomerId, type: WebhookEventType, data: unknown) =>
        insertMany([{ customerId, type, data }]).pipe(Effect.withSpan("Outbox.emit"))
      const emitMany = (entries: ReadonlyArray<OutboxEntry>) =>
        insertMany(entries).pipe(Effect.withSpan("Outbox.emitMany"))
      return Outbox.of({ emit, emitMany })
    })
  )
}
