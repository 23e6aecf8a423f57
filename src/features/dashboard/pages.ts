import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AppConfig } from "../../Config.ts"
import { AccountInactive, Forbidden, InvalidApiKey } from "../../domain/Errors.ts"
import { htmlPage, htmlResponse, readForm } from "../../platform/http/Html.ts"
import { currentRequest } from "../../platform/http/RequestContext.ts"
import { policies, RateLimits } from "../../platform/RateLimits.ts"
import { dashboardChange, signInFromOurOrigin, signInResponse } from "./Change.ts"
import { Dashboard } from "./Dashboard.ts"
import { DashboardAuth } from "./Session.ts"

/**
 * The cookie-signed-in dashboard: the page, sign-in and sign-out. The
 * changes its sections' forms post are their capabilities' routes, built
 * with `dashboardChange` (session, CSRF token, same site, role); errors
 * answer as HTML pages.
 */
export const DashboardRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const auth = yield* DashboardAuth
    const dashboard = yield* Dashboard
    const limits = yield* RateLimits
    const config = yield* AppConfig

    const request = Effect.service(HttpServerRequest.HttpServerRequest)
    const signedIn = Effect.flatMap(request, (req) => auth.current(req.headers.cookie))

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
        const page = yield* dashboard.page(
          session.principal,
          session.csrf,
          undefined,
          new URLSearchParams(q === -1 ? "" : url.slice(q + 1))
        )
        return htmlResponse(page)
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
  })
)
