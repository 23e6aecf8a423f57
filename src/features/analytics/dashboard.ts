import { Effect } from "effect"
import { analyticsChannels, type AnalyticsPeriod, metricNames, platformNames } from "../../domain/Social.ts"
import { html } from "../../platform/http/Html.ts"
import { type DashboardSection, svgBarChart } from "../dashboard/Dashboard.ts"
import { Analytics } from "./Analytics.ts"

/** The period the dashboard shows. */
export const dashboardPeriod: AnalyticsPeriod = "last_30_days"

const channelNames: Record<string, string> = { ...platformNames, web: "Web", email: "Email" }

const number = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 2 })

/**
 * The last 30 days per channel (a fixed list of eight): a bar chart of
 * impressions and the table of every figure, from Analytics.report.
 */
export const analyticsSection = (analytics: Analytics["Service"]): DashboardSection => ({
  id: "analytics",
  title: "Analytics · last 30 days",
  order: 38,
  wide: true,
  render: (context) =>
    Effect.gen(function*() {
      const report = yield* analytics.report(context.customer.id, dashboardPeriod)
      const rows = analyticsChannels.map((channel) => ({ channel, metrics: report.channels[channel] }))
      const chart = svgBarChart(rows.map((r) => ({ label: channelNames[r.channel] ?? r.channel, value: r.metrics.impressions })), {
        title: "Impressions per channel, last 30 days"
      })
      return html`${
        report.totals.posts === 0 && report.totals.clicks === 0 && report.totals.revenue === 0
          ? html`<p class="muted small">Nothing published or clicked in the last 30 days yet.</p>`
          : ""
      }<figure>${chart}<figcaption class="muted small">Impressions per channel</figcaption></figure>
<div class="table-scroll"><table><thead><tr><th>Channel</th>${metricNames.map((m) => html`<th>${m}</th>`)}</tr></thead><tbody>${
        rows.map((r) => html`<tr data-channel="${r.channel}"><td>${channelNames[r.channel] ?? r.channel}</td>${metricNames.map((m) => html`<td>${number(r.metrics[m])}</td>`)}</tr>`)
      }<tr class="total"><td><strong>Total</strong></td>${metricNames.map((m) => html`<td><strong>${number(report.totals[m])}</strong></td>`)}</tr></tbody></table></div>`
    })
})
