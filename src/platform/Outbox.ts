import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import type { WebhookEventType } from "../domain/WebhookEvents.ts"

/**
 * The transactional outbox of webhook events. `emit` joins the caller's
 * transaction: the event and one pending delivery per matching subscription
 * commit together with the change they report, or not at all. The webhook
 * dispatcher delivers them.
 */
export class Outbox extends Context.Service<Outbox, {
  readonly emit: (customerId: string, type: WebhookEventType, data: unknown) => Effect.Effect<void>
}>()("herald/platform/Outbox") {
  static readonly layer = Layer.effect(Outbox, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const emit = (customerId: string, type: WebhookEventType, data: unknown) =>
      Effect.gen(function*() {
        const eventId = `evt_${randomUUID().replaceAll("-", "")}`
        yield* sql`INSERT INTO webhook_events (id, customer_id, type, data)
          VALUES (${eventId}, ${customerId}, ${type}, ${JSON.stringify(data)}::json)`
        yield* sql`INSERT INTO webhook_deliveries (id, event_id, webhook_id)
          SELECT 'dlv_' || md5(${eventId} || w.id), ${eventId}, w.id FROM webhooks w
          WHERE w.customer_id = ${customerId} AND w.deleted_at IS NULL AND w.disabled_at IS NULL
            AND ${type} = ANY (w.events)`
      }).pipe(Effect.orDie, Effect.withSpan("Outbox.emit"))
    return Outbox.of({ emit })
  }))
}
