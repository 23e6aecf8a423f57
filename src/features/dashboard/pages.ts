import { Effect, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { isDateTime } from "../../api/Shared.ts"
import { AppConfig } from "../../Config.ts"
import { ReviewAction } from "../../domain/Content.ts"
import { AccountInactive, Forbidden, InvalidApiKey, NotFound } from "../../domain/Errors.ts"
import { Email, MemberRole } from "../../domain/Identity.ts"
import { ContentId, WebhookId } from "../../domain/Ids.ts"
import { BudgetUpdate } from "../../domain/Settings.ts"
import { isStorableText } from "../../domain/Text.ts"
import { type Html, html, htmlPage, htmlResponse, readForm } from "../../platform/http/Html.ts"
import { currentRequest } from "../../platform/http/RequestContext.ts"
import { policies, RateLimits } from "../../platform/RateLimits.ts"
import { Content } from "../content/Content.ts"
import { Settings } from "../settings/Settings.ts"
import { Team } from "../team/Team.ts"
import { Webhooks } from "../webhooks/Webhooks.ts"
import { backTo, dashboardChange, invalidField, signInFromOurOrigin, signInResponse } from "./Change.ts"
import { Dashboard } from "./Dashboard.ts"
import { DashboardAuth, type SignedIn } from "./Session.ts"

const invalid = invalidField

const decodeBudget = Schema.decodeUnknownEffect(BudgetUpdate)
const isEmail = Schema.is(Email)
const isMemberRole = Schema.is(MemberRole)
const isReviewAction = Schema.is(ReviewAction)

/** A money amount from a form field: empty means no cap. */
const amountField = (form: URLSearchParams, name: string) => {
  const text = (form.get(name) ?? "").trim()
  return text === "" ? null : /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : Number.NaN
}

/**
 * The cookie-signed-in dashboard: sign-in, sign-out and the changes its
 * sections' forms post. Every change needs the session, its CSRF token
 * (`_csrf` field or `X-CSRF-Token`), a same-site request and the role the
 * change needs; errors answer as HTML pages.
 */
export const DashboardRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const auth = yield* DashboardAuth
    const dashboard = yield* Dashboard
    const limits = yield* RateLimits
    const config = yield* AppConfig
    const content = yield* Content
    const settings = yield* Settings
    const team = yield* Team
    const webhooks = yield* Webhooks

    const request = Effect.service(HttpServerRequest.HttpServerRequest)
    const signedIn = Effect.flatMap(request, (req) => auth.current(req.headers.cookie))

    const render = (session: SignedIn, notice?: Html, status = 200, query?: URLSearchParams) =>
      Effect.map(
        dashboard.page(session.principal, session.csrf, notice, query),
        (page) => htmlResponse(page, { status })
      )

    /** A change: session, CSRF token, same site, role, the customer's REST limit; then `run`. */
    const change = yield* dashboardChange

    yield* router.add(
      "GET",
      "/dashboard",
      htmlPage(Effect.gen(function*() {
        const session = yield* signedIn
        if (session === undefined) return yield* signInResponse()
        yield* limits.enforce(policies.rest, session.principal.customerId)
        const url = (yield* request).url
        const q = url.indexOf("?")
        return yield* render(session, undefined, 200, new URLSearchParams(q === -1 ? "" : url.slice(q + 1)))
      }))
    )

    yield* router.add(
      "POST",
      "/dashboard",
      htmlPage(Effect.gen(function*() {
        const req = yield* request
        const { clientIp } = yield* currentRequest
        // A key posted from another site's page (or from none that says where) opens no session.
        if (!signInFromOurOrigin(req, config.baseUrl)) {
          return yield* new Forbidden({ error: "Sign in from the dashboard page." })
        }
        // Brute-force protection: failed sign-ins count in the pre-auth budget of the address.
        yield* limits.check(policies.preAuth, clientIp)
        const form = yield* readForm
        const key = (form.get("apiKey") ?? "").trim()
        const opened = yield* Effect.result(auth.signIn(key))
        if (opened._tag === "Success") {
          return HttpServerResponse.redirect("/dashboard", { status: 303, headers: { "set-cookie": opened.success } })
        }
        const failure = opened.failure
        if (failure instanceof InvalidApiKey) yield* limits.enforce(policies.preAuth, clientIp)
        const message = failure instanceof AccountInactive ? "Customer account is not active" : "Invalid API key"
        return yield* signInResponse(message, 401)
      }))
    )

    yield* router.add(
      "POST",
      "/dashboard/sign-out",
      change("viewer", (session) =>
        Effect.as(
          auth.signOut(session.sessionHash),
          HttpServerResponse.redirect("/dashboard", {
            status: 303,
            headers: { "set-cookie": auth.clearCookie }
          })
        ))
    )

    yield* router.add(
      "POST",
      "/dashboard/content/:contentId/review",
      change("editor", (session, form) =>
        Effect.gen(function*() {
          const contentId = (yield* HttpRouter.params).contentId ?? ""
          if (!isStorableText(contentId)) return yield* new NotFound({ error: "Content not found" })
          const action = form.get("action") ?? ""
          if (!isReviewAction(action)) return yield* invalid("action", "must be approve or reject")
          const note = (form.get("note") ?? "").trim()
          if ([...note].length > 1000) return yield* invalid("note", "must be at most 1000 characters")
          yield* content.review(
            session.principal.customerId,
            ContentId.make(contentId),
            action,
            note === "" ? undefined : note
          )
          return backTo("queue")
        }))
    )

    yield* router.add(
      "POST",
      "/dashboard/settings/autonomy",
      change("admin", (session, form) =>
        Effect.gen(function*() {
          const level = Number(form.get("globalDefault"))
          if (!Number.isInteger(level) || level < 1 || level > 5) {
            return yield* invalid("globalDefault", "must be an integer from 1 to 5")
          }
          yield* settings.updateAutonomy(session.principal.customerId, { globalDefault: level as 1 | 2 | 3 | 4 | 5 })
          return backTo("settings")
        }))
    )

    yield* router.add(
      "POST",
      "/dashboard/settings/budget",
      change("admin", (session, form) =>
        Effect.gen(function*() {
          const update = yield* decodeBudget({
            daily: amountField(form, "daily"),
            weekly: amountField(form, "weekly"),
            monthly: amountField(form, "monthly")
          }).pipe(
            Effect.mapError(() => invalid("budget", "amounts must be numbers of at least 0, or empty for no cap"))
          )
          yield* settings.updateBudget(session.principal.customerId, update)
          return backTo("settings")
        }))
    )

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
          if (!isDateTime(since)) return yield* invalid("since", "must be a date and time (UTC)")
          const queued = yield* webhooks.recover(session.principal.customerId, WebhookId.make(webhookId), since)
          return yield* render(
            session,
            html`<section class="card notice ok section-wide" role="status">
<h2>${queued === 1 ? "1 missed event is on its way" : `${queued} missed events are on their way`}</h2>
<p>The subscription is enabled; its deliveries appear under Webhooks.</p></section>`
          )
        }))
    )

    yield* router.add(
      "POST",
      "/dashboard/team/invite",
      change("admin", (session, form) =>
        Effect.gen(function*() {
          const email = (form.get("email") ?? "").trim()
          const role = form.get("role") ?? ""
          if (!isEmail(email)) return yield* invalid("email", "must be an email address")
          if (!isMemberRole(role)) return yield* invalid("role", "must be admin, editor or viewer")
          const member = yield* team.invite(session.principal.customerId, email, role)
          return yield* render(
            session,
            html`<section class="card notice ok section-wide" role="status">
<h2>${member.email} was invited as ${member.role}</h2>
<p>Give them this key now: it is shown only this once.</p><div class="copy-row"><code class="secret" id="invited-key">${member.apiKey}</code>
<button type="button" class="secondary" data-copy="invited-key" hidden>Copy key</button></div></section>`
          )
        }))
    )
  })
)
