import { Effect, Option, Schema } from "effect"
import { joinList } from "../../../domain/Copywriting.ts"
import { formatFigure, type ReportFigure, type ReportKind } from "../../../domain/Reports.ts"
import { type AnalyticsPeriod, ChannelMetrics, metricNames, platformNames } from "../../../domain/Social.ts"
import { Analytics } from "../../analytics/Analytics.ts"
import { Reports } from "../../reports/Reports.ts"
import { Scanner } from "../../scan/Scanner.ts"
import { once, recorded } from "./Once.ts"
import { competitorScanKey, competitorUrls, ScanRecord, siteScanKey } from "./scan.ts"
import { type RunContext, skipped, type StepDefinition, StepFailed, succeeded, text, texts } from "./Step.ts"
import { answerOnce, brandOf } from "./write.ts"

/** A report a step writes: its exactly-once key, its kind and title, the facts it is written from and its figures. */
interface ReportSpec {
  readonly key: string
  readonly kind: ReportKind
  readonly title: string
  readonly facts: ReadonlyArray<string>
  readonly figures: ReadonlyArray<ReportFigure>
}

/** What a written report's record says: the report as it was stored. */
export const ReportRecord = Schema.Struct({ reportId: Schema.String, kind: Schema.String, title: Schema.String })

/**
 * Stores a report (never a content piece: reports are for the marketer, not
 * for publishing), its body written by the model from the facts; once per
 * key, the report and its record committing together. The step's detail names
 * the `reportId`, and so does the run's output.
 */
const writeReport = (ctx: RunContext, report: ReportSpec, detail: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const done = yield* recorded(ctx.runId, report.key, ReportRecord)
    const stored = Option.isSome(done) ? done.value : yield* Effect.gen(function*() {
      const brand = yield* brandOf(ctx)
      const written = yield* answerOnce(ctx, brand, report.key, {
        kind: "report",
        topic: report.title,
        angle: 0,
        facts: report.facts
      })
      const reports = yield* Reports
      return yield* once(
        ctx.runId,
        report.key,
        ReportRecord,
        Effect.map(
          reports.record({
            customerId: ctx.customerId,
            kind: report.kind,
            title: report.title,
            body: written.body,
            runId: ctx.runId,
            workflow: ctx.workflowId,
            figures: report.figures
          }),
          (created) => ({ reportId: created.reportId, kind: created.kind, title: created.title })
        ),
        { atomic: true }
      )
    })
    return succeeded({ ...detail, reportId: stored.reportId, report: stored })
  })

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
          `${
            item.status === "fail" ? "Fix" : "Improve"
          } (${item.category.toUpperCase()}): ${item.title}. ${item.detail}${
            item.recommendation.length > 0 ? ` ${item.recommendation}` : ""
          }`
        )
      ].filter((f): f is string => f !== undefined)
      const audited = new URL(scan.url)
      const score = (label: string, value: number | null): ReadonlyArray<ReportFigure> =>
        value === null ? [] : [{ label, value }]
      return yield* writeReport(ctx, {
        key: "audit-report-0",
        kind: "seo-audit",
        title: `SEO audit of ${audited.hostname}${audited.pathname === "/" ? "" : audited.pathname}`,
        facts,
        figures: [
          ...score("SEO score", scan.seoScore),
          ...score("GEO score", scan.geoScore),
          ...score("CRO score", scan.croScore),
          { label: "Checks passed", value: scan.checklist.filter((i) => i.status === "pass").length },
          { label: "Checks to fix", value: scan.checklist.filter((i) => i.status === "fail").length }
        ]
      }, { scanId: scan.scanId, findings: findings.length })
    })
}

// ---- Competitor brief -----------------------------------------------------

/** What the competitor scans found, as facts for the brief. */
const competitorFacts = (ctx: RunContext) =>
  Effect.gen(function*() {
    const facts: Array<string> = []
    const figures: Array<ReportFigure> = []
    for (const [i, url] of competitorUrls(ctx).entries()) {
      const scan = yield* recorded(ctx.runId, competitorScanKey(i), ScanRecord)
      if (Option.isNone(scan)) continue
      const score = (value: number | null) => String(value ?? "n/a")
      const { seo, geo, cro } = scan.value.scores
      facts.push(
        scan.value.status === "done"
          ? `Competitor ${url}: SEO ${score(seo)}/100, GEO ${score(geo)}/100, CRO ${score(cro)}/100`
          : `Competitor ${url} could not be scanned`
      )
      if (scan.value.status === "done" && seo !== null) {
        figures.push({ label: `SEO score of ${new URL(url).hostname}`, value: seo })
      }
    }
    return { facts, figures }
  })

export const writePositioningBrief: StepDefinition = {
  name: "write-positioning-brief",
  run: (ctx) =>
    Effect.gen(function*() {
      const competitors = [...texts(ctx.options.competitorNames), ...texts(ctx.options.competitors)]
      if (competitors.length === 0) {
        return yield* skipped("no competitors configured (set config.competitors or config.competitorNames)")
      }
      const scanned = yield* competitorFacts(ctx)
      const named = competitors.map((c) => URL.parse(c)?.hostname ?? c)
      return yield* writeReport(ctx, {
        key: "brief-0",
        kind: "competitor-brief",
        title: `Competitor brief: ${
          joinList(named.length > 3 ? [...named.slice(0, 3), `${named.length - 3} more`] : named)
        }`,
        facts: [...competitors.map((c) => `Competitor watched: ${c}`), ...scanned.facts],
        figures: [{ label: "Competitors watched", value: competitors.length }, ...scanned.figures]
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

const RevenueLine = Schema.Struct({ channel: Schema.String, currency: Schema.String, amount: Schema.Finite })

/** The period's figures as the report step reads them: revenue per channel and currency (absent in records made before it was read). */
const Figures = Schema.Struct({
  period: Schema.Literals(["last_7_days", "last_30_days", "last_90_days"]),
  totals: ChannelMetrics,
  channels: Schema.Record(Schema.String, ChannelMetrics),
  revenue: Schema.optionalKey(Schema.Array(RevenueLine))
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
        return yield* new StepFailed({
          message: `config.period must be 7d, 30d or 90d (got ${JSON.stringify(asked!.slice(0, 40))})`
        })
      }
      const figures = yield* once(
        ctx.runId,
        analyticsKey,
        Figures,
        Effect.gen(function*() {
          const analytics = yield* Analytics
          const report = yield* analytics.report(ctx.customerId, period)
          const revenue = yield* analytics.revenueByCurrency(ctx.customerId, period)
          return {
            period: report.period,
            totals: report.totals,
            channels: Object.fromEntries(
              Object.entries(report.channels).filter(([, m]) => metricNames.some((n) => m[n] !== 0))
            ),
            revenue
          } satisfies Figures
        })
      )
      return succeeded(figures)
    })
}

const counted = (n: number, one: string, many: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`

/** Money as a person reads it, in each currency it was recorded in ("€36.00", "€36.00 and $12.50"). */
const money = (lines: ReadonlyArray<typeof RevenueLine.Type>): string | undefined => {
  const byCurrency = new Map<string, number>()
  for (const line of lines) byCurrency.set(line.currency, (byCurrency.get(line.currency) ?? 0) + line.amount)
  const amounts = [...byCurrency].filter(([, amount]) => amount !== 0).map(([currency, value]) =>
    formatFigure({ label: "Revenue", value, currency })
  )
  return amounts.length === 0 ? undefined : joinList(amounts)
}

const metricLine = (label: string, m: ChannelMetrics, revenue: string | undefined) =>
  `${label}: ${counted(m.posts, "post", "posts")} published, ${counted(m.impressions, "impression", "impressions")}, ${
    counted(m.engagements, "engagement", "engagements")
  }, ${counted(m.clicks, "click", "clicks")}${revenue === undefined ? "" : `, ${revenue} revenue`}`

const channelName = (channel: string) =>
  platformNames[channel] ?? (channel === "web" ? "Web" : channel === "email" ? "Email" : channel)

/** Writes the performance report from the analytics read. */
export const writePerformanceReport: StepDefinition = {
  name: "write-performance-report",
  run: (ctx) =>
    Effect.gen(function*() {
      const found = yield* recorded(ctx.runId, analyticsKey, Figures)
      if (Option.isNone(found)) return yield* skipped("no analytics to report on (the analytics step was skipped)")
      const figures = found.value
      const over = periodLabel[figures.period]
      const revenue = figures.revenue ?? []
      const total = money(revenue)
      const currencies = [...new Set(revenue.filter((r) => r.amount !== 0).map((r) => r.currency))]
      const until = new Date().toLocaleDateString("en-GB", {
        day: "numeric",
        month: "long",
        year: "numeric",
        timeZone: "UTC"
      })
      return yield* writeReport(ctx, {
        key: "performance-report-0",
        kind: "performance-report",
        title: `Performance report, ${over.replace(/^the /, "")} to ${until}`,
        facts: [
          metricLine(`Total over ${over}`, figures.totals, total),
          ...Object.entries(figures.channels).map(([channel, m]) =>
            metricLine(channelName(channel), m, money(revenue.filter((r) => r.channel === channel)))
          ),
          total === undefined ? `Revenue: none recorded over ${over}` : `Revenue: ${total}`
        ],
        figures: [
          { label: "Posts published", value: figures.totals.posts },
          { label: "Impressions", value: figures.totals.impressions },
          { label: "Engagements", value: figures.totals.engagements },
          { label: "Clicks", value: figures.totals.clicks },
          ...currencies.map((currency) => ({
            label: currencies.length === 1 ? "Revenue" : `Revenue in ${currency}`,
            value: Math.round(
              revenue.filter((r) => r.currency === currency).reduce((sum, r) => sum + r.amount, 0) * 1e6
            ) / 1e6,
            currency
          }))
        ]
      })
    })
}
