import { Effect } from "effect"
import { formatFigure, reportKindNames } from "../../domain/Reports.ts"
import { html } from "../../platform/http/Html.ts"
import { type DashboardSection, formatDate } from "../dashboard/Dashboard.ts"
import type { Reports } from "./Reports.ts"

/** How many reports the dashboard lists. */
export const reportsShown = 5

/**
 * The latest reports, apart from the content queue: each title with its kind
 * and date, and the newest one's figures (money in its currency).
 */
export const reportsSection = (reports: Reports["Service"]): DashboardSection => ({
  id: "reports",
  title: "Reports",
  order: 36,
  wide: false,
  render: (context) =>
    Effect.gen(function*() {
      const page = yield* reports.list(context.customer.id, { limit: reportsShown }).pipe(Effect.orDie)
      const newest = page.reports[0]
      if (newest === undefined) return html`<p class="muted">No reports yet. SEO audits, competitor briefs and performance reports appear here.</p>`
      const latest = yield* reports.get(context.customer.id, newest.reportId).pipe(Effect.orDie)
      return html`<ul class="plain list">${
        page.reports.map((report) =>
          html`<li data-report-id="${report.reportId}"><span class="item-title">${report.title}</span>
<p class="muted small">${reportKindNames[report.kind]} · ${formatDate(report.createdAt)}</p></li>`)
      }</ul>${
        latest.figures.length === 0
          ? ""
          : html`<table><caption class="muted small">${latest.title}</caption><tbody>${
            latest.figures.map((figure) => html`<tr><td>${figure.label}</td><td>${formatFigure(figure)}</td></tr>`)
          }</tbody></table>`
      }`
    })
})
