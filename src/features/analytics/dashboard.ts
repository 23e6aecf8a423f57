import { Effect } from "effect"
import { analyticsChannels, type AnalyticsPeriod, metricNames, platformNames } from "../../domain/Social.ts"
import { html } from "../../platform/http/Html.ts"
import { type DashboardSection, svgBarChart } from "../dashboard/Dashboard.ts"
import { Analytics } from "./Analytics.ts"

/** The period the dashboard shows. */
export const dashboardPeriod: AnalyticsPeriod = "last_30_days"

const channelNames: Record<string, string> = { ...platformNames, web: "Web", email: "Email" }

const number = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 2 })

const money = (value: number) =>
  value.toLocaleString("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 })

/** The metrics charted, in this order; impressions only when a provider reported some. */
const charted = [
  { metric: "posts", title: "Posts", color: "#4f46e5", format: number },
  { metric: "clicks", title: "Clicks", color: "#0f7b4f", format: number },
  { metric: "revenue", title: "Revenue", color: "#c2410c", format: money },
  { metric: "impressions", title: "Impressions", color: "#475569", format: number }
] as const

/**
 * The last 30 days per channel (a fixed list of eight): a bar chart each of
 * posts, clicks and revenue (and impressions when the provider reports
 * them), then the table of every figure, from Analytics.report.
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
      const charts = charted.filter((c) => c.metric !== "impressions" || report.totals.impressions > 0).map((c) =>
        html`<figure class="card">${
          svgBarChart(rows.map((r) => ({ label: channelNames[r.channel] ?? r.channel, value: r.metrics[c.metric] })), {
            title: `${c.title} per channel, last 30 days`,
            color: c.color,
            format: c.format
          })
        }<figcaption class="small"><strong>${c.title}</strong> · total ${
          c.format(report.totals[c.metric])
        }</figcaption></figure>`
      )
      return html`${
        report.totals.posts === 0 && report.totals.clicks === 0 && report.totals.revenue === 0
          ? html`<p class="muted small">Nothing published or clicked in the last 30 days yet.</p>`
          : ""
      }<div class="charts">${charts}</div>
<div class="table-scroll"><table><caption class="muted small">Every figure per channel, last 30 days</caption><thead><tr><th scope="col">Channel</th>${
        metricNames.map((m) => html`<th scope="col">${m}</th>`)
      }</tr></thead><tbody>${
        rows.map((r) =>
          html`<tr data-channel="${r.channel}"><td>${channelNames[r.channel] ?? r.channel}</td>${
            metricNames.map((m) => html`<td>${number(r.metrics[m])}</td>`)
          }</tr>`
        )
      }<tr class="total"><td><strong>Total</strong></td>${
        metricNames.map((m) => html`<td><strong>${number(report.totals[m])}</strong></td>`)
      }</tr></tbody></table></div>`
    })
})
