import { Effect } from "effect"
import { roleAllows } from "../../domain/Identity.ts"
import { html } from "../../platform/http/Html.ts"
import { canChange, csrfField, type DashboardSection, formatDate } from "../dashboard/Dashboard.ts"
import type { OAuth } from "./OAuth.ts"

/** How many connected apps the dashboard lists. */
export const appsShown = 25

/**
 * The assistants connected by OAuth: each with the role it was given, who
 * approved it and when it last renewed its token, and a button that
 * disconnects it (its tokens stop working at once). Admins disconnect any;
 * editors the ones they connected; viewers change nothing.
 */
export const connectedAppsSection = (oauth: OAuth["Service"]): DashboardSection => ({
  id: "apps",
  title: "Connected apps",
  order: 47,
  wide: false,
  render: (context) =>
    Effect.gen(function*() {
      const grants = yield* oauth.grants(context.customer.id, appsShown)
      if (grants.length === 0) {
        return html`<p class="muted">No apps connected. An assistant that supports MCP sign-in connects at <code>${context.customer.mcpEndpoint}</code>.</p>`
      }
      const mayRevoke = (memberId: string | null) =>
        canChange(context, "editor") &&
        (roleAllows(context.principal.role, "admin") || (memberId !== null && memberId === context.principal.memberId))
      return html`<ul class="plain list">${
        grants.map((grant) =>
          html`<li data-grant-id="${grant.id}"><div class="row"><span class="item-title">${grant.clientName}</span><span class="badge">${grant.role}</span></div>
<p class="muted small">Approved by ${grant.memberId === null ? "the owner" : "a team member"} · ${
            formatDate(new Date(grant.createdAt).toISOString())
          }${
            grant.lastUsedAt === null
              ? ""
              : html` · last renewed ${formatDate(new Date(grant.lastUsedAt).toISOString())}`
          }</p>${
            mayRevoke(grant.memberId)
              ? html`<form method="post" action="/dashboard/apps/${grant.id}/revoke" class="inline">${
                csrfField(context)
              }
<button type="submit" class="danger">Disconnect</button></form>`
              : ""
          }</li>`
        )
      }</ul>`
    })
})
