import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { Event } from "../domain/Identity.ts"

export interface EventQuery {
  readonly limit: number
  readonly since: string | undefined
}

/**
 * Timestamps are shown with millisecond precision while the database keeps
 * microseconds, so "after `since`" means from the next millisecond on: an
 * event's own timestamp passed back as `since` excludes that event.
 */
const sinceBound = (since: string): Date => new Date(Date.parse(since) + 1)

/**
 * The customer's event log. `record` joins the caller's transaction, so an
 * event is written if and only if the change it describes is.
 */
export class Events extends Context.Service<Events, {
  readonly record: (customerId: string, type: string, data?: Record<string, unknown>) => Effect.Effect<void>
  readonly list: (customerId: string, query: EventQuery) => Effect.Effect<ReadonlyArray<Event>>
}>()("herald/server/Events") {
  static readonly layer = Layer.effect(Events, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const record = (customerId: string, type: string, data: Record<string, unknown> = {}) =>
      sql`INSERT INTO events (customer_id, type, data) VALUES (${customerId}, ${type}, ${JSON.stringify(data)}::jsonb)`
        .pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("Events.record"))

    const list = (customerId: string, query: EventQuery) =>
      sql<{ type: string; createdAt: Date; data: unknown }>`
        SELECT type, created_at, data FROM events
        WHERE customer_id = ${customerId}
        ${query.since === undefined ? sql`` : sql`AND created_at >= ${sinceBound(query.since)}`}
        ORDER BY created_at DESC, id DESC
        LIMIT ${query.limit}`.pipe(
        Effect.map((rows) =>
          rows.map((row) => ({
            type: row.type,
            timestamp: new Date(row.createdAt).toISOString(),
            data: (typeof row.data === "string" ? JSON.parse(row.data) : row.data) as Record<string, unknown>
          }))
        ),
        Effect.orDie,
        Effect.withSpan("Events.list")
      )

    return Events.of({ record, list })
  }))
}
