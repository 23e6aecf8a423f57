import { Effect } from "effect"
import type { PublicStatus } from "../../domain/Health.ts"
import { type Html, html } from "../../platform/http/Html.ts"
import { type DashboardSection, formatDate, statusBadge } from "../dashboard/Dashboard.ts"
import type { Health } from "./Health.ts"

/** The public status: overall badge, uptime, components and the latest incidents (the dashboard section and /status). */
export const statusDetails = (status: PublicStatus, level: 2 | 3 = 3): Html =>
  html`<p>${statusBadge(status.status)} <span class="muted small">uptime 24 h ${(status.uptime24h * 100).toFixed(2)}%${
    status.uptime7d === null ? "" : ` · 7 d ${(status.uptime7d * 100).toFixed(2)}%`
  }</span></p><ul class="plain">${
    status.components.map((c) => html`<li class="row"><span>${c.name}</span>${statusBadge(c.status)}</li>`)
  }</ul>${
    status.incidents.length === 0 ?
      "" :
      html`${level === 2 ? html`<h2>Incidents</h2>` : html`<h3>Incidents</h3>`}<ul class="plain list">${
        status.incidents.slice(0, 5).map((i) =>
          html`<li>${i.component}: ${i.summary} <span class="muted small">${formatDate(i.startedAt)}</span></li>`
        )
      }</ul>`
  }`

/** The service's public status, as /status shows it. */
export const statusSection = (health: Health["Service"]): DashboardSection => ({
  id: "status",
  title: "Service status",
  order: 90,
  render: () => Effect.map(health.publicStatus, (status) => statusDetails(status))
})
