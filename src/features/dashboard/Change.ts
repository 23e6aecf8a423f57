import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { CurrentPrincipal } from "../../api/Security.ts"
import { AppConfig } from "../../Config.ts"
import { Forbidden, ValidationError } from "../../domain/Errors.ts"
import { type Role, roleAllows } from "../../domain/Identity.ts"
import { type Html, html, htmlPage, htmlResponse, layout, readForm, sameOrigin } from "../../platform/http/Html.ts"
import { policies, RateLimits } from "../../platform/RateLimits.ts"
import { Dashboard } from "./Dashboard.ts"
import { DashboardAuth, type SignedIn } from "./Session.ts"

/** The dashboard's sign-in page, with an optional message. */
export const signInPage = (message?: string) =>
  layout({
    title: "Sign in",
    referrer: "same-origin",
    body: html`<section class="card narrow"><h1>Sign in to your dashboard</h1>
<p class="lead">Paste the API key you received at sign-up (or a team member key).</p>
${message === undefined ? "" : html`<p class="notice error" role="alert">${message}</p>`}
<form method="post" action="/dashboard" class="stack">
<label>API key<input type="password" name="apiKey" autocomplete="current-password" required maxlength="200" spellcheck="false"></label>
<button type="submit" class="big">Sign in</button></form>
<p class="muted small">No account yet? Start a free trial with <code>POST /api/checkout</code>.</p></section>`
  })

/**
 * The sign-in page as a response. It keeps every page's `Referrer-Policy:
 * no-referrer` header, and its document sets `same-origin` for itself (a meta
 * tag, which takes over from the header), so its form names this origin when
 * it posts (under `no-referrer` a form post says `Origin: null`): signing in
 * needs a same-origin `Origin`, and the policy still sends nothing to other sites.
 */
export const signInResponse = (message?: string, status = 200) =>
  Effect.succeed(htmlResponse(signInPage(message), { status }))

/**
 * Whether a sign-in post came from a page of this origin: its `Origin`, or
 * without one its `Referer`, names exactly this origin. Neither (or `null`,
 * or a value that is not a URL) is not proof of anything.
 */
export const signInFromOurOrigin = (request: HttpServerRequest.HttpServerRequest, baseUrl: string): boolean => {
  const ours = new URL(baseUrl).origin
  const origin = request.headers.origin
  if (origin !== undefined) return origin === ours
  const referer = request.headers.referer
  if (referer === undefined || !URL.canParse(referer)) return false
  return new URL(referer).origin === ours
}

/** A form field error, answered as a 400 HTML page. */
export const invalidField = (field: string, message: string) =>
  new ValidationError({ error: `Invalid ${field}: ${message}`, details: [{ path: field, message }] })

/** Back to a section of the dashboard after a change (303, so a reload does not post again). */
export const backTo = (anchor: string) => HttpServerResponse.redirect(`/dashboard#${anchor}`, { status: 303 })

/**
 * Answers a change with the dashboard itself and a notice on top, for what
 * must be shown once and so cannot survive a redirect (an invited member's
 * key) or what says how much a change did.
 */
export const dashboardNotice = Effect.map(
  Effect.service(Dashboard),
  (dashboard) => (session: SignedIn, heading: string, body: Html) =>
    Effect.map(
      dashboard.page(
        session.principal,
        session.csrf,
        html`<section class="card notice ok section-wide" role="status">
<h2>${heading}</h2>
${body}</section>`
      ),
      (page) => htmlResponse(page)
    )
)

export type ChangeHandler = (
  role: Role,
  run: (
    session: SignedIn,
    form: URLSearchParams
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpRouter.RouteContext>
) => Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  HttpRouter.RouteContext | HttpServerRequest.HttpServerRequest
>

/**
 * Builds the handler of a dashboard form post, for the dashboard's own routes
 * and every capability's section routes: it needs the session cookie, the
 * customer's REST limit, its CSRF token (`_csrf` field or `X-CSRF-Token`), a
 * same-site request and the role; then `run` answers, as the signed-in
 * principal (so what it records names the owner or member who did it).
 * Errors answer as HTML pages with their status.
 */
export const dashboardChange: Effect.Effect<ChangeHandler, never, DashboardAuth | RateLimits | AppConfig> = Effect.gen(
  function*() {
    const auth = yield* DashboardAuth
    const limits = yield* RateLimits
    const config = yield* AppConfig
    return (role, run) =>
      htmlPage(Effect.gen(function*() {
        const req = yield* HttpServerRequest.HttpServerRequest
        const session = yield* auth.current(req.headers.cookie)
        if (session === undefined) return yield* signInResponse("Your session has ended; sign in again.", 401)
        // The failure order of docs/api-rules.md: the limit (429) before the CSRF and role refusals (403).
        yield* limits.enforce(policies.rest, session.principal.customerId)
        const form = yield* readForm
        const token = form.get("_csrf") ?? req.headers["x-csrf-token"]
        if (!auth.checkCsrf(session, token ?? undefined) || !sameOrigin(req, config.baseUrl)) {
          return yield* new Forbidden({
            error: "This form has expired or did not come from the dashboard; reload and try again."
          })
        }
        if (!roleAllows(session.principal.role, role)) {
          return yield* new Forbidden({ error: `This action needs the ${role} role` })
        }
        // The signed-in owner or member is who made the change, as with a Bearer request: the event log's actor.
        return yield* run(session, form).pipe(Effect.provideService(CurrentPrincipal, session.principal))
      }))
  }
)
