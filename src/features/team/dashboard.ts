import { Effect, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { Email, MemberRole } from "../../domain/Identity.ts"
import { html } from "../../platform/http/Html.ts"
import { dashboardChange, dashboardNotice, invalidField } from "../dashboard/Change.ts"
import { canChange, csrfField, type DashboardSection } from "../dashboard/Dashboard.ts"
import { Team } from "./Team.ts"

/** How many members the dashboard lists (the read walks an index and stops). */
const membersShown = 50

const isEmail = Schema.is(Email)
const isMemberRole = Schema.is(MemberRole)

/** The team's members and, for admins, the invitation form. */
export const teamSection = (team: Team["Service"]): DashboardSection => ({
  id: "team",
  title: "Team",
  order: 60,
  minRole: "admin",
  render: (context) =>
    Effect.gen(function*() {
      const members = yield* team.list(context.customer.id, membersShown)
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

/** The invitation form's post: the new member's key is shown once, on the dashboard that answers. */
export const TeamDashboardRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const change = yield* dashboardChange
    const notice = yield* dashboardNotice
    const team = yield* Team
    yield* router.add(
      "POST",
      "/dashboard/team/invite",
      change("admin", (session, form) =>
        Effect.gen(function*() {
          const email = (form.get("email") ?? "").trim()
          const role = form.get("role") ?? ""
          if (!isEmail(email)) return yield* invalidField("email", "must be an email address")
          if (!isMemberRole(role)) return yield* invalidField("role", "must be admin, editor or viewer")
          const member = yield* team.invite(session.principal.customerId, email, role)
          return yield* notice(
            session,
            `${member.email} was invited as ${member.role}`,
            html`<p>Give them this key now: it is shown only this once.</p><div class="copy-row"><code class="secret" id="invited-key">${member.apiKey}</code>
<button type="button" class="secondary" data-copy="invited-key" hidden>Copy key</button></div>`
          )
        }))
    )
  })
)
