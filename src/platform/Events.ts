import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { CurrentPrincipal } from "../api/Security.ts"
import type { Actor, Event } from "../domain/Identity.ts"
import type { CustomerId } from "../domain/Ids.ts"

export interface EventQuery {
  readonly limit: number
  readonly since: string | undefined
  /** Continue after this position (from `EventPage.next`). */
  readonly after?: EventPosition | undefined
}

/** Where a page ends: `created_at` with microseconds (UTC) and the row number that breaks ties. */
export const EventPosition = Schema.Struct({
  t: Schema.String.check(Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/)),
  i: Schema.String.check(Schema.isPattern(/^\d{1,19}$/))
})
export type EventPosition = typeof EventPosition.Type

export interface EventPage {
  readonly events: ReadonlyArray<Event>
  /** The position after the last event, when more events follow. */
  readonly next: EventPosition | undefined
}

/**
 * Who causes the events recorded in this fiber, when not given to `record`:
 * a workflow run or an agent sets it around its work
 * (`Effect.provideService(CurrentActor, { type: "workflow", id: runId })`).
 */
export const CurrentActor = Context.Reference<Actor | undefined>("herald/platform/CurrentActor", {
  defaultValue: () => undefined
})

/**
 * Timestamps are shown with millisecond precision while the database keeps
 * microseconds, so "after `since`" means from the next millisecond on: an
 * event's own timestamp passed back as `since` excludes that event.
 */
const sinceBound = (since: string): Date => new Date(Date.parse(since) + 1)

const system: Actor = { type: "system", id: null }

/**
 * The actor of an event: the one given, else the fiber's `CurrentActor`, else
 * the API key of the request being served (owner or member), else the system.
 */
const resolveActor = (given: Actor | undefined): Effect.Effect<Actor> =>
  given !== undefined ? Effect.succeed(given) : Effect.gen(function*() {
    const current = yield* CurrentActor
    if (current !== undefined) return current
    const principal = yield* Effect.serviceOption(CurrentPrincipal)
    if (Option.isNone(principal)) return system
    const { customerId, memberId } = principal.value
    return memberId === null ? { type: "owner", id: customerId } : { type: "member", id: memberId }
  })

/** One entry for `recordMany`. */
export interface EventEntry {
  readonly customerId: CustomerId
  readonly type: string
  readonly data: Record<string, unknown>
  readonly actor?: Actor | undefined
}

interface EventRow {
  readonly publicId: string
  readonly type: string
  readonly createdAt: Date
  readonly data: string
  readonly actorType: Actor["type"]
  readonly actorId: string | null
  readonly position: string
  readonly rowId: string
}

/**
 * The customer's event log. `record` joins the caller's transaction, so an
 * event is written if and only if the change it describes is.
 */
export class Events extends Context.Service<Events, {
  readonly record: (
    customerId: CustomerId,
    type: string,
    data?: Record<string, unknown>,
    actor?: Actor
  ) => Effect.Effect<void>
  /** Several entries in one statement (the publisher records a batch of posts at once); actors as `record`. */
  readonly recordMany: (entries: ReadonlyArray<EventEntry>) => Effect.Effect<void>
  readonly list: (customerId: CustomerId, query: EventQuery) => Effect.Effect<ReadonlyArray<Event>>
  readonly page: (customerId: CustomerId, query: EventQuery) => Effect.Effect<EventPage>
}>()("herald/platform/Events") {
  static readonly layer = Layer.effect(
    Events,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const insertMany = (entries: ReadonlyArray<EventEntry>) =>
        Effect.gen(function*() {
          if (entries.length === 0) return
          const actors = yield* Effect.forEach(entries, (entry) => resolveActor(entry.actor))
          const rows = entries.map((e, i) => ({
            customer_id: e.customerId,
            type: e.type,
            data: e.data,
            actor_type: actors[i]!.type,
            actor_id: actors[i]!.id,
            n: i
          }))
          // One JSON parameter whatever the count (nulls included, which typed arrays cannot carry); ids follow the given order.
          yield* sql`INSERT INTO events (customer_id, type, data, actor_type, actor_id)
          SELECT e.customer_id, e.type, e.data, e.actor_type, e.actor_id
          FROM json_to_recordset(${JSON.stringify(rows)}::json)
            AS e(customer_id uuid, type text, data json, actor_type text, actor_id text, n int)
          ORDER BY e.n`
        }).pipe(Effect.orDie)

      const record = (customerId: CustomerId, type: string, data: Record<string, unknown> = {}, actor?: Actor) =>
        insertMany([{ customerId, type, data, actor }]).pipe(Effect.withSpan("Events.record"))

      const recordMany = (entries: ReadonlyArray<EventEntry>) =>
        insertMany(entries).pipe(Effect.withSpan("Events.recordMany"))

      // Newest first; the row comparison walks the (customer_id, created_at, id) index backwards.
      const page = (customerId: CustomerId, query: EventQuery) =>
        sql<EventRow>`
        SELECT public_id, type, created_at, data::text AS data, actor_type, actor_id, id::text AS row_id,
          to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS position
        FROM events
        WHERE customer_id = ${customerId}
        ${query.since === undefined ? sql`` : sql`AND created_at >= ${sinceBound(query.since)}`}
        ${
          query.after === undefined
            ? sql``
            : sql`AND (created_at, id) < ((${query.after.t}::timestamp AT TIME ZONE 'UTC'), ${query.after.i}::bigint)`
        }
        ORDER BY created_at DESC, id DESC
        LIMIT ${query.limit + 1}`.pipe(
          Effect.map((rows): EventPage => {
            const shown = rows.slice(0, query.limit)
            const last = shown[shown.length - 1]
            return {
              // Stored JSON goes out as text: the client's snake-to-camel renaming must not touch the data's keys.
              events: shown.map((row) => ({
                id: row.publicId,
                type: row.type,
                timestamp: new Date(row.createdAt).toISOString(),
                actor: { type: row.actorType, id: row.actorId },
                data: JSON.parse(row.data) as Record<string, unknown>
              })),
              next: rows.length > query.limit && last !== undefined ? { t: last.position, i: last.rowId } : undefined
            }
          }),
          Effect.orDie,
          Effect.withSpan("Events.page")
        )

      const list = (customerId: CustomerId, query: EventQuery) => Effect.map(page(customerId, query), (p) => p.events)

      return Events.of({ record, recordMany, list, page })
    })
  )
}
