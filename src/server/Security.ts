import { Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { AdminAuthentication } from "../api/Admin.ts"
import { Authentication, CurrentPrincipal, RequiredRole } from "../api/Security.ts"
import { AppConfig } from "../Config.ts"
import { parseBearer } from "../domain/ApiKeys.ts"
import { AccountInactive, AdminAuthRequired, AuthRequired, Forbidden, InvalidApiKey, NotFound } from "../domain/Errors.ts"
import { type Role, roleAllows } from "../domain/Identity.ts"
import { matchesAdminSecret } from "./AdminSecret.ts"
import { Customers } from "./Customers.ts"
import { Idempotency } from "./Idempotency.ts"
import { requireUtf8Json } from "./JsonBody.ts"
import { policies, RateLimits } from "./RateLimits.ts"
import { addResponseHeaders, currentRequest } from "./RequestContext.ts"

/** The least role an endpoint needs: its annotation, else viewer to read and admin to change. */
export const requiredRole = (endpoint: HttpApiEndpoint.Top): Role => {
  const annotated = endpoint.annotations.mapUnsafe.get(RequiredRole.key) as Role | undefined
  if (annotated !== undefined) return annotated
  return endpoint.method === "GET" || endpoint.method === "HEAD" ? "viewer" : "admin"
}

export const AuthenticationLive = Layer.effect(Authentication, Effect.gen(function*() {
  const customers = yield* Customers
  const limits = yield* RateLimits
  const idempotency = yield* Idempotency
  const config = yield* AppConfig
  const challenge = {
    "www-authenticate":
      `Bearer realm="herald", resource_metadata="${config.baseUrl}/.well-known/oauth-protected-resource"`
  }

  return Authentication.of({
    bearer: Effect.fnUntraced(function*(httpEffect, { endpoint }) {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { clientIp } = yield* currentRequest
      const preAuth = yield* limits.check(policies.preAuth, clientIp)

      const failed = <E>(error: E) =>
        Effect.andThen(
          Effect.andThen(limits.enforce(policies.preAuth, clientIp), addResponseHeaders(challenge)),
          Effect.fail(error)
        )
      const parsed = parseBearer(request.headers.authorization)
      if (parsed._tag === "Missing") return yield* failed(new AuthRequired())
      if (parsed._tag === "Malformed") return yield* failed(new InvalidApiKey())
      const found = yield* Effect.result(customers.authenticate(parsed.key))
      if (found._tag === "Failure") return yield* failed(found.failure)
      const { principal, status } = found.success
      if (status !== "active" && status !== "onboarding") {
        // Not a failed authentication (the key is genuine), but a 401 of a REST
        // route still shows the pre-auth policy, uncounted.
        yield* limits.show(preAuth)
        yield* addResponseHeaders(challenge)
        return yield* new AccountInactive()
      }

      yield* limits.enforce(policies.rest, principal.customerId)
      const route = yield* HttpRouter.RouteContext
      const pathCustomer = route.params.customerId
      if (pathCustomer !== undefined && pathCustomer.toLowerCase() !== principal.customerId) {
        return yield* new Forbidden({ error: "This key does not belong to that customer" })
      }
      if (!roleAllows(principal.role, requiredRole(endpoint))) {
        return yield* new Forbidden({ error: `This action needs the ${requiredRole(endpoint)} role` })
      }
      return yield* idempotency.wrap(
        principal.customerId,
        requireUtf8Json(Effect.provideService(httpEffect, CurrentPrincipal, principal))
      )
    })
  })
}))

export const AdminAuthenticationLive = Layer.effect(AdminAuthentication, Effect.gen(function*() {
  const limits = yield* RateLimits
  const idempotency = yield* Idempotency
  const config = yield* AppConfig
  return AdminAuthentication.of({
    adminSecret: Effect.fnUntraced(function*(httpEffect) {
      if (Option.isNone(config.adminSecret)) return yield* new NotFound()
      const request = yield* HttpServerRequest.HttpServerRequest
      const { clientIp } = yield* currentRequest
      yield* limits.enforce(policies.admin, clientIp)
      if (!matchesAdminSecret(config.adminSecret, request.headers["x-admin-secret"])) return yield* new AdminAuthRequired()
      return yield* idempotency.wrap("admin", requireUtf8Json(httpEffect))
    })
  })
}))
