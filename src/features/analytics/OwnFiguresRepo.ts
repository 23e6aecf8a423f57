import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { CustomerId } from "../../domain/Ids.ts"

export interface OwnFigures {
  readonly since: string
  readonly contentCreated: Record<string, number>
  readonly contentByStatus: Record<string, number>
  readonly published: number
  readonly events: Record<string, number>
}

/**
 * Herald's own record of a customer's activity over a window, for the
 * query_ga4 tool when no GA4 property is configured: counts only, read from
 * the content and event tables, always filtered by customer.
 */
export class OwnFiguresRepo extends Context.Service<OwnFiguresRepo, {
  readonly ownFigures: (customerId: CustomerId, since: Date) => Effect.Effect<OwnFigures>
}>()("herald/features/analytics/OwnFiguresRepo") {
  static readonly layer = Layer.effect(
    OwnFiguresRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const ownFigures = (customerId: CustomerId, since: Date) =>
        Effect.gen(function*() {
          const content = yield* sql<{ type: string; status: string; n: number }>`
          SELECT type, status, count(*)::int AS n FROM content
          WHERE customer_id = ${customerId} AND created_at >= ${since}
          GROUP BY type, status`
          const published = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM content
          WHERE customer_id = ${customerId} AND published_at >= ${since}`
          const events = yield* sql<{ type: string; n: number }>`
          SELECT type, count(*)::int AS n FROM events
          WHERE customer_id = ${customerId} AND created_at >= ${since}
          GROUP BY type ORDER BY type`
          const contentCreated: Record<string, number> = {}
          const contentByStatus: Record<string, number> = {}
          for (const row of content) {
            contentCreated[row.type] = (contentCreated[row.type] ?? 0) + Number(row.n)
            contentByStatus[row.status] = (contentByStatus[row.status] ?? 0) + Number(row.n)
          }
          return {
            since: since.toISOString(),
            contentCreated,
            contentByStatus,
            published: Number(published[0]?.n ?? 0),
            events: Object.fromEntries(events.map((row) => [row.type, Number(row.n)]))
          } satisfies OwnFigures
        }).pipe(Effect.orDie)

      return OwnFiguresRepo.of({ ownFigures })
    })
  )
}
