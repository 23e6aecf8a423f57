import { Effect, Layer } from "effect"
import type { ContentPiece } from "../../domain/Content.ts"
import type { PublicStatus } from "../../domain/Health.ts"
import { recoveryWindowDays, type Webhook } from "../../domain/Webhooks.ts"
import { type Html, html, safeHref } from "../../platform/http/Html.ts"
import { Content } from "../content/Content.ts"
import { Health } from "../health/Health.ts"
import { Settings } from "../settings/Settings.ts"
import { Team } from "../team/Team.ts"
import { Webhooks } from "../webhooks/Webhooks.ts"
import {
  canChange,
  csrfField,
  type DashboardContext,
  type DashboardSection,
  DashboardSections,
  formatDate,
  statusBadge
} from "./Dashboard.ts"

/** Bounds of every list the dashboard shows (each read walks an index and stops). */
export const limits = { queue: 20, recent: 10, webhooks: 25, deliveries: 5, members: 50 } as const

const excerpt = (text: string | null, max = 220) =>
  text === null ? "" : text.length > max ? `${text.slice(0, max)}…` : text

const readOnlyNote = html`<p class="muted small">Sign in at <a href="/dashboard">/dashboard</a> to make changes.</p>`

const pieceHeading = (piece: ContentPiece) =>
  html`<div class="row"><span class="item-title">${piece.title ?? `${piece.type} piece`}</span>${
    statusBadge(piece.status)
  }</div>
<p class="muted small">${piece.type}${piece.platform === null ? "" : ` · ${piece.platform}`} · ${
    formatDate(piece.createdAt)
  }</p>`

const queueSection = (content: Content["Service"]): DashboardSection => ({
  id: "queue",
  title: "Approval queue",
  order: 20,
  wide: true,
  render: (context) =>
    Effect.gen(function*() {
      const page = yield* content.list(context.customer.id, { status: "pending_approval", limit: limits.queue }).pipe(
        Effect.orDie
      )
      if (page.content.length === 0) return html`<p class="muted">Nothing is waiting for your approval.</p>`
      const editable = canChange(context, "editor")
      return html`<ul class="plain list">${
        page.content.map((piece) =>
          html`<li data-content-id="${piece.id}">${pieceHeading(piece)}<p class="excerpt">${excerpt(piece.body)}</p>${
            editable
              ? html`<form method="post" action="/dashboard/content/${piece.id}/review" class="inline">${
                csrfField(context)
              }
<input type="text" name="note" maxlength="1000" placeholder="Note (optional)" aria-label="Review note">
<button type="submit" name="action" value="approve">Approve</button>
<button type="submit" name="action" value="reject" class="danger">Reject</button></form>`
              : ""
          }</li>`
        )
      }</ul>${page.nextCursor === null ? "" : html`<p class="muted small">Showing the newest ${limits.queue}.</p>`}${
        editable || context.csrf !== undefined ? "" : readOnlyNote
      }`
    })
})

const recentSection = (content: Content["Service"]): DashboardSection => ({
  id: "content",
  title: "Recent content",
  order: 30,
  render: (context) =>
    Effect.gen(function*() {
      const page = yield* content.list(context.customer.id, { limit: limits.recent }).pipe(Effect.orDie)
      if (page.content.length === 0) return html`<p class="muted">No content yet.</p>`
      return html`<ul class="plain list">${
        page.content.map((piece) =>
          html`<li>${pieceHeading(piece)}${
            piece.publishedUrl === null
              ? ""
              : html`<a href="${
                safeHref(piece.publishedUrl)
              }" rel="noopener noreferrer" target="_blank">View published post</a>`
          }</li>`
        )
      }</ul>`
    })
})

const overviewSection = (): DashboardSection => ({
  id: "account",
  title: "Account",
  order: 45,
  render: (context) =>
    Effect.succeed(html`<ul class="plain list">
<li><span class="muted small">Email</span><br>${context.customer.email}</li>
<li><span class="muted small">Customer id</span><br><code>${context.customer.id}</code></li>
<li><span class="muted small">Plan</span><br>Pro${
      context.customer.trialEndsAt === null ? "" : html` · free trial until ${formatDate(context.customer.trialEndsAt)}`
    }</li>
<li><span class="muted small">MCP endpoint</span><br><code>${context.customer.mcpEndpoint}</code></li>
</ul>`)
})

const settingsSection = (settings: Settings["Service"]): DashboardSection => ({
  id: "settings",
  title: "Autonomy and budget",
  order: 40,
  render: (context) =>
    Effect.gen(function*() {
      const current = yield* settings.get(context.customer.id)
      const { autonomy, budget } = current
      const amount = (value: number | null) => (value === null ? "" : String(value))
      if (!canChange(context, "admin")) {
        return html`<ul class="plain list"><li>Default autonomy level: <strong>${autonomy.globalDefault}</strong></li>
<li>Budget: daily ${budget.daily ?? "no cap"}, weekly ${budget.weekly ?? "no cap"}, monthly ${
          budget.monthly ?? "no cap"
        }</li></ul>`
      }
      const levels = [
        [1, "1 · Drafts only"],
        [2, "2 · Ask before publishing"],
        [3, "3 · Ask before publishing (more initiative)"],
        [4, "4 · Publish on schedule"],
        [5, "5 · Publish at once"]
      ] as const
      return html`<form method="post" action="/dashboard/settings/autonomy" class="stack">${csrfField(context)}
<label>Default autonomy level<select name="globalDefault">${
        levels.map(([level, label]) =>
          html`<option value="${level}"${autonomy.globalDefault === level ? html` selected` : ""}>${label}</option>`
        )
      }</select></label><button type="submit" class="secondary">Save autonomy</button></form>
<hr>
<form method="post" action="/dashboard/settings/budget" class="stack">${csrfField(context)}
<label>Daily cap<input type="number" name="daily" min="0" step="0.01" value="${
        amount(budget.daily)
      }" placeholder="No cap"></label>
<label>Weekly cap<input type="number" name="weekly" min="0" step="0.01" value="${
        amount(budget.weekly)
      }" placeholder="No cap"></label>
<label>Monthly cap<input type="number" name="monthly" min="0" step="0.01" value="${
        amount(budget.monthly)
      }" placeholder="No cap"></label>
<button type="submit" class="secondary">Save budget</button></form>`
    })
})

/** A webhook URL without userinfo or query (they often carry credentials). */
const displayUrl = (url: string) => {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return ""
  }
}

/** A `datetime-local` value (UTC, to the minute), as the dashboard shows every date. */
const localInput = (date: Date) => date.toISOString().slice(0, 16)

/**
 * The recovery form of a subscription. It starts at the oldest instant a
 * recovery accepts (or the subscription's creation): recovering sends only
 * what was not delivered, so reaching back is safe. An hour inside the
 * window leaves time to submit the form.
 */
const recoverForm = (context: DashboardContext, hook: Webhook) => {
  const earliest = new Date(context.now.getTime() - recoveryWindowDays * 86_400_000 + 3_600_000)
  const created = new Date(hook.createdAt)
  const from = created > earliest ? created : earliest
  return html`<form method="post" action="/dashboard/webhooks/${hook.id}/recover" class="inline">${csrfField(context)}
<label>Missed events since (UTC)<input type="datetime-local" name="since" required value="${localInput(from)}" min="${
    localInput(earliest)
  }" max="${localInput(context.now)}"></label>
<button type="submit" class="secondary">${
    hook.disabledAt === null ? "Resend missed events" : "Enable and resend missed events"
  }</button></form>`
}

const webhooksSection = (webhooks: Webhooks["Service"]): DashboardSection => ({
  id: "webhooks",
  title: "Webhooks",
  order: 50,
  minRole: "admin",
  wide: true,
  render: (context) =>
    Effect.gen(function*() {
      const withDeliveries = yield* webhooks.overview(context.customer.id, limits.webhooks, limits.deliveries)
      if (withDeliveries.length === 0) {
        return html`<p class="muted">No webhook subscriptions. Create one with <code>POST /api/hooks/${context.customer.id}</code>.</p>`
      }
      return html`<ul class="plain list">${
        withDeliveries.map(({ hook, deliveries }) =>
          html`<li><div class="row"><code>${displayUrl(hook.url)}</code>${
            hook.disabledAt === null ? statusBadge("active") : statusBadge("disabled")
          }</div><p class="muted small">${hook.events.join(", ")}</p>${
            canChange(context, "admin") ? recoverForm(context, hook) : ""
          }${
            deliveries.length === 0 ?
              html`<p class="muted small">No deliveries yet.</p>` :
              html`<details><summary>Recent deliveries</summary>
<div class="table-scroll"><table><thead><tr><th>Event</th><th>Attempt</th><th>Status</th><th class="hide-narrow">Duration</th><th>When</th></tr></thead><tbody>${
                deliveries.map((d) =>
                  html`<tr><td>${d.eventType}</td><td>${d.attempt}</td><td>${
                    d.statusCode ?? d.error ?? "—"
                  }</td><td class="hide-narrow">${d.durationMs} ms</td><td>${formatDate(d.attemptedAt)}</td></tr>`
                )
              }</tbody></table></div></details>`
          }</li>`
        )
      }</ul>`
    })
})

const teamSection = (team: Team["Service"]): DashboardSection => ({
  id: "team",
  title: "Team",
  order: 60,
  minRole: "admin",
  render: (context) =>
    Effect.gen(function*() {
      const members = yield* team.list(context.customer.id, limits.members)
      return html`${
        members.length === 0
          ? html`<p class="muted">Only you so far.</p>`
          : html`<ul class="plain list">${
            members.map((m) => html`<li class="row"><span>${m.email}</span><span class="badge">${m.role}</span></li>`)
          }</ul>`
      }${
        canChange(context, "admin")
          ? html`<h3>Invite a member</h3><form method="post" action="/dashboard/team/invite" class="stack">${
            csrfField(context)
          }
<label>Email<input type="email" name="email" required maxlength="254"></label>
<label>Role<select name="role"><option value="viewer">Viewer: read only</option><option value="editor">Editor: write, review, publish</option><option value="admin">Admin: settings, webhooks, team</option></select></label>
<button type="submit" class="secondary">Invite</button></form>`
          : ""
      }`
    })
})

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

const statusSection = (health: Health["Service"]): DashboardSection => ({
  id: "status",
  title: "Service status",
  order: 90,
  render: () => Effect.map(health.publicStatus, (status) => statusDetails(status))
})

/** The built-in sections: account, approval queue, recent content, settings, webhooks, team, status. */
export const CoreSectionsLive = Layer.mergeAll(
  DashboardSections.register(Effect.succeed(overviewSection())),
  DashboardSections.register(Effect.map(Effect.service(Content), queueSection)),
  DashboardSections.register(Effect.map(Effect.service(Content), recentSection)),
  DashboardSections.register(Effect.map(Effect.service(Settings), settingsSection)),
  DashboardSections.register(Effect.map(Effect.service(Webhooks), webhooksSection)),
  DashboardSections.register(Effect.map(Effect.service(Team), teamSection)),
  DashboardSections.register(Effect.map(Effect.service(Health), statusSection))
)

export type { DashboardContext }
