import { Effect, Option, Schema } from "effect"
import { type AnalyticsPeriod, ChannelMetrics, metricNames } from "../../../domain/Social.ts"
import { Analytics } from "../../analytics/Analytics.ts"
import { Scanner } from "../../scan/Scanner.ts"
import { once, recorded } from "./Once.ts"
import { competitorScanKey, competitorUrls, ScanRecord, siteScanKey } from "./scan.ts"
import { type RunContext, type StepDefinition, StepFailed, skipped, succeeded, text, texts } from "./Step.ts"
import { writePieces } from "./write.ts"

/** A report a step writes: its exactly-once key, what it is about, and the facts it is written from. */
interface ReportSpec {
  readonly key: string
  readonly topic: string
  readonly facts: ReadonlyArray<string>
}

/**
 * The one place a report is stored: today as a blog piece written by the
 * model from the facts (exactly once per key, as every piece).
 */
const writeReport = (ctx: RunContext, report: ReportSpec) =>
  writePieces(ctx, [{ key: report.key, type: "blog", kind: "report", topic: report.topic, angle: 0, facts: report.facts }])

// ---- SEO audit ------------------------------------------------------------

/** How many checklist findings a report is written from (failures first, heaviest first). */
const maxFindings = 12

const scoreLine = (label: string, value: number | null) => value === null ? undefined : `${label} score: ${value}/100`

/** Writes the audit report from the scan's findings. */
export const writeAuditReport: StepDefinition = {
  name: "write-audit-report",
  run: (ctx) =>
    Effect.gen(function*() {
      const site = yield* recorded(ctx.runId, siteScanKey, ScanRecord)
      if (Option.isNone(site)) return yield* skipped("no scan results to report on (the scan step was skipped)")
      const scan = yield* (yield* Scanner).get(ctx.customerId, site.value.scanId).pipe(
        Effect.mapError((error) => new StepFailed({ message: `the scan to report on is gone: ${error.error}` }))
      )
      const rank = { fail: 0, warn: 1, pass: 2 } as const
      const findings = scan.checklist
        .filter((item) => item.status !== "pass")
        .sort((a, b) => rank[a.status] - rank[b.status] || b.weight - a.weight || a.id.localeCompare(b.id))
        .slice(0, maxFindings)
      const facts = [
        `Site audited: ${scan.url}`,
        scoreLine("SEO", scan.seoScore),
        scoreLine("GEO (AI search visibility)", scan.geoScore),
        scoreLine("Conversion (CRO)", scan.croScore),
        scan.citabilityGrade === null ? undefined : `Citability grade: ${scan.citabilityGrade}`,
        `Checks passed: ${scan.checklist.filter((i) => i.status === "pass").length} of ${scan.checklist.length}`,
        ...findings.map((item) =>
          `${item.status === "fail" ? "Fix" : "Improve"} (${item.category.toUpperCase()}): ${item.title}. ${item.detail}${
            item.recommendation.length > 0 ? ` ${item.recommendation}` : ""
          }`)
      ].filter((f): f is string => f !== undefined)
      const written = yield* writeReport(ctx, {
        key: "audit-report-0",
        topic: `SEO and AI visibility audit of ${new URL(scan.url).hostname}`,
        facts
      })
      return succeeded({ ...written.detail, scanId: scan.scanId, findings: findings.length })
    })
}

// ---- Competitor brief -----------------------------------------------------

/** What the competitor scans found, as facts for the brief. */
const competitorFacts = (ctx: RunContext) =>
  Effect.gen(function*() {
    const facts: Array<string> = []
    for (const [i, url] of competitorUrls(ctx).entries()) {
      const scan = yield* recorded(ctx.runId, competitorScanKey(i), ScanRecord)
      if (Option.isNone(scan)) continue
      const score = (value: number | null) => String(value ?? "n/a")
      const { seo, geo, cro } = scan.value.scores
      facts.push(scan.value.status === "done"
        ? `Competitor ${url}: SEO ${score(seo)}/100, GEO ${score(geo)}/100, CRO ${score(cro)}/100`
        : `Competitor ${url} could not be scanned`)
    }
    return facts
  })

export const writePositioningBrief: StepDefinition = {
  name: "write-positioning-brief",
  run: (ctx) =>
    Effect.gen(function*() {
      const competitors = [...texts(ctx.options.competitorNames), ...texts(ctx.options.competitors)]
      if (competitors.length === 0) return yield* skipped("no competitors configured (set config.competitors or config.competitorNames)")
      return yield* writeReport(ctx, {
        key: "brief-0",
        topic: "how we compare with the competitors we watch",
        facts: [...competitors.map((c) => `Competitor watched: ${c}`), ...(yield* competitorFacts(ctx))]
      })
    })
}

// ---- Performance report ---------------------------------------------------

const periods: Record<string, AnalyticsPeriod> = {
  "7d": "last_7_days",
  "30d": "last_30_days",
  "90d": "last_90_days",
  last_7_days: "last_7_days",
  last_30_days: "last_30_days",
  last_90_days: "last_90_days"
}

const periodLabel: Record<AnalyticsPeriod, string> = {
  last_7_days: "the last 7 days",
  last_30_days: "the last 30 days",
  last_90_days: "the last 90 days"
}

/** The period's figures as the report step reads them. */
const Figures = Schema.Struct({
  period: Schema.Literals(["last_7_days", "last_30_days", "last_90_days"]),
  totals: ChannelMetrics,
  channels: Schema.Record(Schema.String, ChannelMetrics)
})
type Figures = typeof Figures.Type

const analyticsKey = "analytics"

/** Reads the period's analytics (config or input `period`: 7d, 30d, 90d or last_N_days; default 7 days). */
export const readAnalytics: StepDefinition = {
  name: "read-analytics",
  run: (ctx) =>
    Effect.gen(function*() {
      const asked = text(ctx.options.period)
      const period = asked === undefined ? "last_7_days" : periods[asked]
      if (period === undefined) {
        return yield* new StepFailed({ message: `config.period must be 7d, 30d or 90d (got ${JSON.stringify(asked!.slice(0, 40))})` })
      }
      const figures = yield* once(
        ctx.runId,
        analyticsKey,
        Figures,
        Effect.map(Effect.flatMap(Analytics, (analytics) => analytics.report(ctx.customerId, period)), (report): Figures => ({
          period: report.period,
          totals: report.totals,
          channels: Object.fromEntries(Object.entries(report.channels).filter(([, m]) => metricNames.some((n) => m[n] !== 0)))
        }))
      )
      return succeeded(figures)
    })
}

const metricLine = (label: string, m: ChannelMetrics) =>
  `${label}: ${m.posts} posts published, ${m.impressions} impressions, ${m.engagements} engagements, ${m.clicks} clicks, ${m.revenue} revenue`

/** Writes the performance report from the analytics read. */
export const writePerformanceReport: StepDefinition = {
  name: "write-performance-report",
  run: (ctx) =>
    Effect.gen(function*() {
      const found = yield* recorded(ctx.runId, analyticsKey, Figures)
      if (Option.isNone(found)) return yield* skipped("no analytics to report on (the analytics step was skipped)")
      const figures = found.value
      const over = periodLabel[figures.period]
      return yield* writeReport(ctx, {
        key: "performance-report-0",
        topic: `marketing performance over ${over}`,
        facts: [
          metricLine(`Total over ${over}`, figures.totals),
          ...Object.entries(figures.channels).map(([channel, m]) =>
            metricLine(channel === "x" ? "X" : channel.charAt(0).toUpperCase() + channel.slice(1), m))
        ]
      })
    })
}
