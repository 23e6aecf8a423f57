// dprint-ignore-file: dprint-plugin-typescript 0.96 does not reach a fixed point on this file (it formats it differently on every pass)
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AppConfig } from "../../Config.ts"
import { Forbidden, NotFound } from "../../domain/Errors.ts"
import { roleAllows, scopesByRole } from "../../domain/Identity.ts"
import { isStorableText } from "../../domain/Text.ts"
import { errorPage, htmlPage, htmlResponse, readForm, sameOrigin } from "../../platform/http/Html.ts"
import { discoveryHeaders } from "../../platform/http/JsonDocument.ts"
import { currentRequest } from "../../platform/http/RequestContext.ts"
import { Keys } from "../../platform/Keys.ts"
import { policies, RateLimits } from "../../platform/RateLimits.ts"
import { backTo, dashboardChange } from "../dashboard/Change.ts"
import { DashboardAuth } from "../dashboard/Session.ts"
import { clientBounds, isRole, OAuth, OAuthProblem } from "./OAuth.ts"
import { type Approver, consentHeaders, consentPage } from "./pages.ts"

export const oauthPaths = {
  authorizationServer: "/.well-known/oauth-authorization-server",
  protectedResourceMcp: "/.well-known/oauth-protected-resource/mcp",
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
  revoke: "/oauth/revoke",
  dashboardRevoke: "/dashboard/apps/:grantId/revoke"
} as const

/** Every scope a role maps to: what the metadata documents publish. */
export const allScopes = () => [...new Set(Object.values(scopesByRole).flat())]

/** RFC 8414 authorization-server metadata. */
export const authorizationServerMetadata = (baseUrl: string) => ({
  issuer: baseUrl,
  authorization_endpoint: `${baseUrl}${oauthPaths.authorize}`,
  token_endpoint: `${baseUrl}${oauthPaths.token}`,
  registration_endpoint: `${baseUrl}${oauthPaths.register}`,
  revocation_endpoint: `${baseUrl}${oauthPaths.revoke}`,
  response_types_supported: ["code"],
  response_modes_supported: ["query"],
  grant_types_supported: ["authorization_code", "refresh_token"],
  code_challenge_methods_supported: ["S256"],
  token_endpoint_auth_methods_supported: ["none"],
  revocation_endpoint_auth_methods_supported: ["none"],
  client_id_metadata_document_supported: true,
  authorization_response_iss_parameter_supported: true,
  scopes_supported: allScopes(),
  service_documentation: `${baseUrl}/docs`
})

/** Token answers carry credentials (RFC 6749 §5.1) and may be read by a browser-based client of any origin (no cookie is involved). */
const apiHeaders = { "cache-control": "no-store", pragma: "no-cache", "access-control-allow-origin": "*" }

const oauthError = (failure: OAuthProblem) =>
  Effect.map(currentRequest, ({ requestId }) =>
    HttpServerResponse.jsonUnsafe(
      { error: failure.error, error_description: failure.description, requestId },
      {
        status: failure.status,
        headers: failure.status === 401 ? { ...apiHeaders, "www-authenticate": `Bearer realm="herald", error="${failure.error}"` } : apiHeaders
      }
    ))

const rateLimited = Effect.map(currentRequest, ({ requestId }) =>
  HttpServerResponse.jsonUnsafe({ error: "Rate limit exceeded", code: "E_RATE_LIMITED", requestId }, { status: 429, headers: apiHeaders }))

/** An OAuth problem met before the service is asked (media type, size, syntax). */
const OAuthProblemOf = (status: number, error: string, description: string) => new OAuthProblem({ status, error, description })

const isForm = (contentType: string | undefined) =>
  (contentType ?? "").split(";")[0].trim().toLowerCase() === "application/x-www-form-urlencoded"

const queryOf = (url: string) => {
  const q = url.indexOf("?")
  return new URLSearchParams(q === -1 ? "" : url.slice(q + 1))
}

/**
 * The authorization server's routes: metadata, registration, the consent page
 * (authorization endpoint), token and revocation endpoints, and the
 * dashboard's revoke button. Pre-auth budget per client address: every
 * registration and every failed sign-in or token request counts.
 */
export const OAuthRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const oauth = yield* OAuth
    const auth = yield* DashboardAuth
    const keys = yield* Keys
    const limits = yield* RateLimits
    const config = yield* AppConfig
    const change = yield* dashboardChange

    const metadata = JSON.stringify(authorizationServerMetadata(config.baseUrl))
    yield* router.add("GET", oauthPaths.authorizationServer, HttpServerResponse.text(metadata, { contentType: "application/json", headers: discoveryHeaders }))

    const preflight = HttpServerResponse.empty({
      status: 204,
      headers: {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "POST",
        "access-control-allow-headers": "content-type, mcp-protocol-version",
        "access-control-max-age": "600"
      }
    })
    for (const path of [oauthPaths.token, oauthPaths.register, oauthPaths.revoke]) yield* router.add("OPTIONS", path, preflight)

    yield* router.add("POST", oauthPaths.register, (request) =>
      Effect.gen(function*() {
        const { clientIp } = yield* currentRequest
        // Registration is open to anyone: each one counts in the address's pre-auth budget.
        yield* limits.enforce(policies.preAuth, clientIp)
        if (!(request.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")) {
          return yield* oauthError(OAuthProblemOf(400, "invalid_client_metadata", "The body must be application/json"))
        }
        const text = yield* Effect.orElseSucceed(request.text, () => "")
        if (Buffer.byteLength(text) > clientBounds.registrationBytes) {
          return yield* oauthError(OAuthProblemOf(413, "invalid_client_metadata", `The body is over ${clientBounds.registrationBytes} bytes`))
        }
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch {
          return yield* oauthError(OAuthProblemOf(400, "invalid_client_metadata", "The body is not JSON"))
        }
        const registered = yield* Effect.result(oauth.register(body))
        if (registered._tag === "Failure") return yield* oauthError(registered.failure)
        return HttpServerResponse.jsonUnsafe(registered.success, { status: 201, headers: apiHeaders })
      }).pipe(Effect.catchTag("RateLimited", () => rateLimited)))

    const tokenLike = (run: (form: URLSearchParams) => Effect.Effect<HttpServerResponse.HttpServerResponse, OAuthProblem>) =>
      (request: HttpServerRequest.HttpServerRequest) =>
        Effect.gen(function*() {
          const { clientIp } = yield* currentRequest
          yield* limits.check(policies.preAuth, clientIp)
          if (!isForm(request.headers["content-type"])) {
            return yield* oauthError(OAuthProblemOf(400, "invalid_request", "The body must be application/x-www-form-urlencoded"))
          }
          const form = yield* readForm
          const answered = yield* Effect.result(run(form))
          if (answered._tag === "Success") return answered.success
          // A failed grant is a failed authentication: it counts as one.
          yield* limits.enforce(policies.preAuth, clientIp)
          return yield* oauthError(answered.failure)
        }).pipe(Effect.catchTag("RateLimited", () => rateLimited))

    yield* router.add("POST", oauthPaths.token, tokenLike((form) =>
      Effect.map(oauth.token(form), (answer) => HttpServerResponse.jsonUnsafe(answer, { headers: apiHeaders }))))

    yield* router.add("POST", oauthPaths.revoke, tokenLike((form) =>
      Effect.as(oauth.revoke(form), HttpServerResponse.empty({ status: 200, headers: apiHeaders }))))

    /**
     * Fetching a client's metadata document is an outbound request anyone can
     * cause: each one counts in the address's pre-auth budget (a kept copy costs nothing).
     */
    const fetchBudget = Effect.flatMap(currentRequest, ({ clientIp }) =>
      limits.enforce(policies.preAuth, clientIp).pipe(
        Effect.asVoid,
        Effect.mapError(() => OAuthProblemOf(429, "temporarily_unavailable", "Too many requests from this address; try again in a minute."))
      ))

    /** The request checked, or the answer to a bad one: a page, or the client told at its redirect URI. */
    const checked = (params: URLSearchParams) =>
      Effect.flatMap(currentRequest, ({ requestId }) =>
        Effect.mapError(oauth.checkAuthorization(params, fetchBudget), (failure) =>
          failure._tag === "Redirect"
            ? HttpServerResponse.redirect(failure.location, { status: 303 })
            : htmlResponse(errorPage(failure.status ?? 400, failure.message, requestId), { status: failure.status ?? 400 })))

    const approverOf = (cookie: string | undefined) =>
      Effect.map(auth.current(cookie), (session): Approver | undefined =>
        session === undefined ? undefined : { role: session.principal.role, csrf: session.csrf, memberId: session.principal.memberId })

    yield* router.add("GET", oauthPaths.authorize, (request) =>
      htmlPage(Effect.gen(function*() {
        const found = yield* Effect.result(checked(queryOf(request.url)))
        if (found._tag === "Failure") return found.failure
        const approver = yield* approverOf(request.headers.cookie)
        return htmlResponse(consentPage(found.success, approver), { headers: consentHeaders(found.success.redirectUri) })
      })))

    yield* router.add("POST", oauthPaths.authorize, (request) =>
      htmlPage(Effect.gen(function*() {
        const form = yield* readForm
        const found = yield* Effect.result(checked(form))
        if (found._tag === "Failure") return found.failure
        const authorization = found.success
        if (!sameOrigin(request, config.baseUrl)) return yield* new Forbidden({ error: "Approve from Herald's own page." })
        if (form.get("decision") === "deny") return HttpServerResponse.redirect(oauth.deny(authorization), { status: 303 })
        if (form.get("decision") !== "approve") return yield* new Forbidden({ error: "Choose Allow or Deny." })
        const again = (message: string, status: number, approver?: Approver) =>
          htmlResponse(consentPage(authorization, approver, message), { status, headers: consentHeaders(authorization.redirectUri) })

        const apiKey = (form.get("apiKey") ?? "").trim()
        let principal
        let approver: Approver | undefined
        if (apiKey === "") {
          const session = yield* auth.current(request.headers.cookie)
          if (session === undefined) return again("Enter your API key to approve.", 401)
          approver = { role: session.principal.role, csrf: session.csrf, memberId: session.principal.memberId }
          if (!auth.checkCsrf(session, form.get("_csrf") ?? undefined)) return yield* new Forbidden({ error: "This form has expired; reload and try again." })
          principal = session.principal
        } else {
          const { clientIp } = yield* currentRequest
          yield* limits.check(policies.preAuth, clientIp)
          const signed = yield* Effect.result(keys.authenticate(apiKey))
          // An assistant's token cannot approve another assistant: only a person's key can.
          if (signed._tag === "Failure" || signed.success.audience !== undefined) {
            yield* limits.enforce(policies.preAuth, clientIp)
            return again("Invalid API key", 401)
          }
          if (signed.success.status !== "active" && signed.success.status !== "onboarding") return again("Customer account is not active", 401)
          principal = signed.success.principal
        }
        const role = form.get("role") ?? ""
        if (!isRole(role)) return again("Choose the role the app gets.", 400, approver)
        if (!roleAllows(principal.role, role)) {
          return again(`You cannot give an app more than your own role (${principal.role}).`, 403, approver)
        }
        const location = yield* oauth.approve(authorization, {
          customerId: principal.customerId,
          memberId: principal.memberId,
          keyId: principal.keyId,
          role
        })
        return HttpServerResponse.redirect(location, { status: 303 })
      })))

    yield* router.add("POST", oauthPaths.dashboardRevoke, change("editor", (session) =>
      Effect.gen(function*() {
        const grantId = (yield* HttpRouter.params).grantId ?? ""
        if (!isStorableText(grantId)) return yield* new NotFound({ error: "Connected app not found" })
        // An admin disconnects any app of the customer; anyone else only those they connected.
        const own = roleAllows(session.principal.role, "admin") ? undefined : (session.principal.memberId ?? undefined)
        const revoked = yield* oauth.revokeGrant(session.principal.customerId, grantId, own)
        if (!revoked) return yield* new NotFound({ error: "Connected app not found" })
        return backTo("apps")
      })))
  })
)

