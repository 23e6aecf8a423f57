import { Effect, Option } from "effect"
import { queryGa4 } from "../../api/tools/definitions.ts"
import { periodDays } from "../../domain/Social.ts"
import { implement, ToolFailure } from "../../platform/tools/Handler.ts"
import { Reports } from "../reports/Reports.ts"
import { Ga4 } from "./Ga4.ts"
import { OwnFiguresRepo } from "./OwnFiguresRepo.ts"

const defaultMetrics = ["sessions", "totalUsers", "screenPageViews", "conversions"]

/**
 * query_ga4: GA4's runReport over the period when GA4 is configured;
 * otherwise Herald's own counts for the period, saying that GA4 is not set up.
 * Either way the customer's latest performance report, when there is one, is
 * named with its url (`latestReport`): the figures a marketer already has.
 */
export const queryGa4Tool = implement(
  queryGa4,
  Effect.gen(function*() {
    const ga4 = yield* Ga4
    const repo = yield* OwnFiguresRepo
    const reports = yield* Reports
    return (input) =>
      Effect.gen(function*() {
        const latest = yield* reports.latest(input.customerId, "performance-report")
        const also = latest === undefined
          ? { summary: "", data: {} }
          : {
            summary: ` The latest performance report is "${latest.title}" (${latest.url}).`,
            data: {
              latestReport: {
                reportId: latest.reportId,
                title: latest.title,
                createdAt: latest.createdAt,
                url: latest.url
              }
            }
          }
        const period = input.period ?? "last_7_days"
        const days = periodDays[period]
        if (Option.isSome(ga4.propertyId)) {
          const metrics = input.metrics ?? defaultMetrics
          const dimensions = input.dimensions ?? []
          const report = yield* ga4.runReport({
            startDate: `${days}daysAgo`,
            endDate: "today",
            metrics,
            dimensions,
            limit: input.limit ?? 100
          }).pipe(Effect.mapError((e) => new ToolFailure({ code: "E_GA4", message: e.message })))
          const totals = Object.entries(report.totals).map(([name, value]) => `${name} ${value}`).join(", ")
          return {
            summary: `GA4 property ${report.propertyId}, ${period}: ${
              totals.length > 0 ? totals : "no numeric metrics"
            } (${report.rowCount} rows).${also.summary}`,
            data: { source: "ga4", period, metrics: [...metrics], dimensions: [...dimensions], ...report, ...also.data }
          }
        }
        const figures = yield* repo.ownFigures(input.customerId, new Date(Date.now() - days * 86_400_000))
        const created = Object.values(figures.contentCreated).reduce((a, b) => a + b, 0)
        return {
          summary:
            `GA4 is not configured for this Herald server (GA4_PROPERTY_ID, GA4_CREDENTIALS), so these are Herald's own figures for ${period}, not website analytics: ${created} pieces created, ${figures.published} published.${also.summary}`,
          data: { source: "herald", ga4Configured: false, period, ...figures, ...also.data }
        }
      })
  })
)
