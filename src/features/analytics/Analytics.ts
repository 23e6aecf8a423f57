import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { CustomerId } from "../../domain/Ids.ts"
import {
  analyticsChannels,
  type AnalyticsPeriod,
  type AnalyticsReport,
  type ChannelMetrics,
  metricNames,
  periodDays,
  zeroMetrics
} from "../../domain/Social.ts"

/** Revenue of one channel in one currency over a period. */
export interface RevenueLine {
  readonly channel: string
  readonly currency: string
  readonly amount: number
}

interface Row {
  readonly channel: string
  readonly metric: string
  readonly value: string
}

/**
 * The analytics overview, from SQL aggregates over the period: posts are
 * pieces published (social platforms by platform, email pieces under
 * `email`, the rest under `web`); clicks are human clicks on tracked links
 * (under the platform of the post they were in, else `web`); impressions and
 * engagements are the provider's latest figures for posts published in the
 * period; revenue is what `track_revenue` recorded (under its piece's or
 * link's channel, else `web`). Nothing is estimated.
 */
export class Analytics extends Context.Service<Analytics, {
  readonly report: (customerId: CustomerId, period: AnalyticsPeriod) => Effect.Effect<AnalyticsReport>
  /** The period's revenue by channel and currency (the report's `revenue` sums currencies as recorded). */
  readonly revenueByCurrency: (
    customerId: CustomerId,
    period: AnalyticsPeriod
  ) => Effect.Effect<ReadonlyArray<RevenueLine>>
}>()("herald/features/analytics/Analytics") {
  static readonly layer = Layer.effect(
    Analytics,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const platforms = analyticsChannels.filter((c) => c !== "web" && c !== "email")

      const report = Effect.fnUntraced(function*(customerId: CustomerId, period: AnalyticsPeriod) {
        const since = new Date(Date.now() - periodDays[period] * 86_400_000)
        const rows = yield* sql<Row>`
        SELECT CASE WHEN platform IN ${
          sql.in(platforms)
        } THEN platform WHEN type = 'email' THEN 'email' ELSE 'web' END AS channel,
          'posts' AS metric, count(*)::text AS value
        FROM content WHERE customer_id = ${customerId} AND status = 'published' AND published_at >= ${since}
        GROUP BY 1
        UNION ALL
        SELECT CASE WHEN l.platform IN ${
          sql.in(platforms)
        } THEN l.platform ELSE 'web' END, 'clicks', sum(c.clicks)::text
        FROM link_clicks c JOIN tracked_links l ON l.code = c.code
        WHERE c.customer_id = ${customerId} AND c.bot = false AND c.clicked_at >= ${since}
        GROUP BY 1
        UNION ALL
        SELECT m.platform, 'impressions', sum(m.impressions)::text
        FROM post_metrics m JOIN content p ON p.id = m.content_id
        WHERE m.customer_id = ${customerId} AND p.published_at >= ${since}
        GROUP BY 1
        UNION ALL
        SELECT m.platform, 'engagements', sum(m.engagements)::text
        FROM post_metrics m JOIN content p ON p.id = m.content_id
        WHERE m.customer_id = ${customerId} AND p.published_at >= ${since}
        GROUP BY 1
        UNION ALL
        SELECT CASE WHEN channel IN ${
          sql.in([...analyticsChannels])
        } THEN channel ELSE 'web' END, 'revenue', sum(amount)::text
        FROM revenue WHERE customer_id = ${customerId} AND created_at >= ${since}
        GROUP BY 1`.pipe(Effect.orDie)
        const channels = Object.fromEntries(analyticsChannels.map((c) => [c, { ...zeroMetrics }])) as Record<
          typeof analyticsChannels[number],
          { -readonly [K in keyof ChannelMetrics]: number }
        >
        for (const row of rows) {
          const channel = channels[row.channel as typeof analyticsChannels[number]]
          if (channel === undefined || !(metricNames as ReadonlyArray<string>).includes(row.metric)) continue
          channel[row.metric as keyof ChannelMetrics] += Number(row.value)
        }
        const totals = { ...zeroMetrics } as { -readonly [K in keyof ChannelMetrics]: number }
        for (const metrics of Object.values(channels)) {
          for (const name of metricNames) totals[name] += metrics[name]
        }
        // Money sums in millionths would drift in binary floating point: round to cents' hundredths.
        for (const metrics of [...Object.values(channels), totals]) {
          metrics.revenue = Math.round(metrics.revenue * 1e6) / 1e6
        }
        return { period, channels, totals }
      })

      const revenueByCurrency = (customerId: CustomerId, period: AnalyticsPeriod) =>
        sql<{ channel: string; currency: string; amount: string }>`
        SELECT CASE WHEN channel IN ${
          sql.in([...analyticsChannels])
        } THEN channel ELSE 'web' END AS channel, currency, sum(amount)::text AS amount
        FROM revenue WHERE customer_id = ${customerId} AND created_at >= ${new Date(
          Date.now() - periodDays[period] * 86_400_000
        )}
        GROUP BY 1, 2 ORDER BY 1, 2`.pipe(
          Effect.map((rows) =>
            rows.map((row) => ({
              channel: row.channel,
              currency: row.currency,
              amount: Math.round(Number(row.amount) * 1e6) / 1e6
            }))
          ),
          Effect.orDie
        )

      return Analytics.of({ report, revenueByCurrency })
    })
  )
}
