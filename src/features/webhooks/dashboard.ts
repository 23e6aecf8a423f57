import { Effect } from "effect"
import { HttpRouter } from "effect/http"
import { isDateTime } from "../../api/Shared.ts"
import { NotFound } from "../../domain/Errors.ts"
import { WebhookId } from "../../domain/Ids.ts"
import { isStorableText } from "../../domain/Text.ts"
import { recoveryWindowDays, type Webhook } from "../../domain/Webhooks.ts"
import { html } from "../../platform/http/Html.ts"
import { dashboardChange, dashboardNotice, invalidField } from "../dashboard/Change.ts"
import {
  canChange,
  csrfField,
  type DashboardContext,
  type DashboardSection,
  formatDate,
  statusBadge
} from "../dashboard/Dashboard.ts"
import { Webhooks } from "./Webhooks.ts"

/** Bounds of the webhook lists the dashboard shows (each read walks an index and stops). */
const limits = { webhooks: 25, deliveries: 5 } as const

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

/** The subscriptions with their latest deliveries, and a recovery form each, for admins. */
export const webhooksSection = (webhooks: Webhooks["Service"]): DashboardSection => ({
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

/** The recovery form's post: resend what a subscription missed since an instant, and say how many. */
export const WebhooksDashboardRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const change = yield* dashboardChange
    const notice = yield* dashboardNotice
    const webhooks = yield* Webhooks
    yield* router.add(
      "POST",
      "/dashboard/webhooks/:webhookId/recover",
      change("admin", (session, form) =>
        Effect.gen(function*() {
          const webhookId = (yield* HttpRouter.params).webhookId ?? ""
          if (!isStorableText(webhookId)) return yield* new NotFound({ error: "Webhook not found" })
          // A datetime-local field: to the minute (seconds optional), read as UTC like every date shown here.
          const text = (form.get("since") ?? "").trim()
          const since = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(text) ? `${text}:00Z` : `${text}Z`
          if (!isDateTime(since)) return yield* invalidField("since", "must be a date and time (UTC)")
          const queued = yield* webhooks.recover(session.principal.customerId, WebhookId.make(webhookId), since)
          return yield* notice(
            session,
            queued === 1 ? "1 missed event is on its way" : `${queued} missed events are on their way`,
            html`<p>The subscription is enabled; its deliveries appear under Webhooks.</p>`
          )
        }))
    )
  })
)
