import { Context, Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { AdminAuthentication } from "../api/Admin.ts"
import {
  AcceptsRotationReplay,
  Authentication,
  CurrentPrincipal,
  type Principal,
  RequiredRole
} from "../api/Security.ts"
import { AppConfig } from "../Config.ts"
import { parseBearer } from "../domain/ApiKeys.ts"
import {
  AccountInactive,
  AdminAuthRequired,
  AuthRequired,
  Forbidden,
  InvalidApiKey,
  NotFound
} from "../domain/Errors.ts"
import { type Role, roleAllows } from "../domain/Identity.ts"
import { matchesAdminSecret } from "./AdminSecret.ts"
import { requireUtf8Json } from "./http/JsonBody.ts"
import { addResponseHeaders, currentRequest, requestStateIn } from "./http/RequestContext.ts"
import { Idempotency } from "./Idempotency.ts"
import { Keys } from "./Keys.ts"
import { policies, RateLimits } from "./RateLimits.ts"

/** The least role an endpoint needs: its annotation, else viewer to read and admin to change. */
export const requiredRole = (endpoint: HttpApiEndpoint.Top): Role => {
  const annotated = endpoint.annotations.mapUnsafe.get(RequiredRole.key) as Role | undefined
  if (annotated !== undefined) return annotated
  return endpoint.method === "GET" || endpoint.method === "HEAD" ? "viewer" : "admin"
}

/**
 * The scope an Idempotency-Key is kept under for a Bearer request: the API
 * key that sent it (docs/api-rules.md, "Idempotency"), so another key of the customer
 * never gets a replay. The rotation replay (below) uses it too, so a replay
 * with the revoked key finds the reply its request kept.
 */
const idempotencyScope = (principal: Principal): string => `key:${principal.keyId}`

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const keys = yield* Keys
    const limits = yield* RateLimits
    const idempotency = yield* Idempotency
    const config = yield* AppConfig
    const challenge = {
      "www-authenticate":
        `Bearer realm="herald", resource_metadata="${config.baseUrl}/.well-known/oauth-protected-resource"`
    }

    /**
     * A rotation whose answer was lost must not lock its owner out: the exact
     * request (same customer, path, body and Idempotency-Key) replayed with the
     * key it revoked gets the kept reply. Nothing else runs for that key: when
     * no reply is kept the request fails as the revoked key it is.
     */
    const rotationReplay = (key: string, request: HttpServerRequest.HttpServerRequest, endpoint: HttpApiEndpoint.Top) =>
      Effect.gen(function*() {
        const idempotencyKey = request.headers["idempotency-key"]
        if (request.method !== "POST" || idempotencyKey === undefined) return undefined
        if (endpoint.annotations.mapUnsafe.get(AcceptsRotationReplay.key) !== true) return undefined
        const principal = yield* keys.revokedByRotation(key, idempotencyKey)
        if (Option.isNone(principal)) return undefined
        const route = yield* HttpRouter.RouteContext
        if (route.params.customerId?.toLowerCase() !== principal.value.customerId) return undefined
        yield* limits.enforce(policies.rest, principal.value.customerId)
        return idempotency.wrap(idempotencyScope(principal.value), Effect.fail(new InvalidApiKey()), request)
      })

    return Authentication.of({
      bearer: Effect.fnUntraced(function*(httpEffect, { endpoint }) {
        // The request's own services read in one step (each `yield*` of a service is a run-loop step of its own).
        const context = yield* Effect.context<HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext>()
        const request = Context.get(context, HttpServerRequest.HttpServerRequest)
        const { clientIp } = requestStateIn(context)
        const preAuth = yield* limits.check(policies.preAuth, clientIp)

        const failed = <E>(error: E) =>
          Effect.andThen(
            Effect.andThen(limits.enforce(policies.preAuth, clientIp), addResponseHeaders(challenge)),
            Effect.fail(error)
          )
        const parsed = parseBearer(request.headers.authorization)
        if (parsed._tag === "Missing") return yield* failed(new AuthRequired())
        if (parsed._tag === "Malformed") return yield* failed(new InvalidApiKey())
        const found = yield* Effect.result(keys.authenticate(parsed.key))
        if (found._tag === "Failure") {
          const replayed = yield* rotationReplay(parsed.key, request, endpoint)
          if (replayed !== undefined) return yield* Effect.catchTag(replayed, "InvalidApiKey", failed)
          return yield* failed(found.failure)
        }
        const { principal, status } = found.success
        if (status !== "active" && status !== "onboarding") {
          // Not a failed authentication (the key is genuine), but a 401 of a REST
          // route still shows the pre-auth policy, uncounted.
          yield* limits.show(preAuth)
          yield* addResponseHeaders(challenge)
          return yield* new AccountInactive()
        }

        yield* limits.enforce(policies.rest, principal.customerId)
        const route = Context.get(context, HttpRouter.RouteContext)
        const pathCustomer = route.params.customerId
        if (pathCustomer !== undefined && pathCustomer.toLowerCase() !== principal.customerId) {
          return yield* new Forbidden({ error: "This key does not belong to that customer" })
        }
        if (!roleAllows(principal.role, requiredRole(endpoint))) {
          return yield* new Forbidden({ error: `This action needs the ${requiredRole(endpoint)} role` })
        }
        // Scoped to the presenting key: another key of the same customer (a
        // member's, say) never receives the replay of a reply meant for this one.
        return yield* idempotency.wrap(
          idempotencyScope(principal),
          requireUtf8Json(Effect.provideService(httpEffect, CurrentPrincipal, principal), request),
          request
        )
      })
    })
  })
)

export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  Effect.gen(function*() {
    const limits = yield* RateLimits
    const idempotency = yield* Idempotency
    const config = yield* AppConfig
    return AdminAuthentication.of({
      adminSecret: Effect.fnUntraced(function*(httpEffect) {
        if (Option.isNone(config.adminSecret)) return yield* new NotFound()
        const request = yield* HttpServerRequest.HttpServerRequest
        const { clientIp } = yield* currentRequest
        yield* limits.enforce(policies.admin, clientIp)
        if (
          !matchesAdminSecret(config.adminSecret, request.headers["x-admin-secret"])
        ) return yield* new AdminAuthRequired()
        return yield* idempotency.wrap("admin", requireUtf8Json(httpEffect, request), request)
      })
    })
  })
)
