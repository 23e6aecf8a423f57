import { Effect } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { Principal } from "../../api/Security.ts"
import { AppConfig } from "../../Config.ts"
import { parseBearer } from "../../domain/ApiKeys.ts"
import { AccountInactive, Forbidden, InvalidApiKey, McpTokenRequired, RateLimited } from "../../domain/Errors.ts"
import type { CustomerId } from "../../domain/Ids.ts"
import { mcpResource } from "../../domain/OAuth.ts"
import { errorResponse } from "../../platform/http/ErrorResponses.ts"
import { addResponseHeaders, currentRequest } from "../../platform/http/RequestContext.ts"
import { Keys } from "../../platform/Keys.ts"
import { policies, RateLimits } from "../../platform/RateLimits.ts"

/** An MCP route's refusal: the Error body with its status (the core middleware adds X-Request-ID and limit headers). */
export type Refusal = HttpServerResponse.HttpServerResponse

const statusOf = (error: { readonly _tag: string }): number =>
  error._tag === "Forbidden" ? 403 : error._tag === "RateLimited" ? 429 : error._tag === "SessionNotFound" ? 400 : 401

/** Fails with the Error response of a domain error (its own `error` text and `code`). */
export const refuse = (
  error: { readonly _tag: string; readonly error: string; readonly code: string },
  status = statusOf(error),
  headers?: Record<string, string>
): Effect.Effect<never, Refusal> =>
  Effect.flatMap(
    currentRequest,
    ({ requestId }) => Effect.fail(errorResponse(status, { error: error.error, code: error.code, requestId }, headers))
  )

/** Where a request's key came from: the `token` query (for SSE clients that cannot set headers) or an Authorization header. */
export type Credential =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Malformed" }
  | { readonly _tag: "Key"; readonly key: string }

export const credentialOf = (request: HttpServerRequest.HttpServerRequest): Credential => {
  const q = request.url.indexOf("?")
  const token = q === -1 ? null : new URLSearchParams(request.url.slice(q + 1)).get("token")
  if (token !== null && token.length > 0) return { _tag: "Key", key: token }
  return parseBearer(request.headers.authorization)
}

export interface Authenticated {
  readonly principal: Principal
  readonly key: string
}

/**
 * Authentication and limits of the MCP routes, the same rules as REST
 * (src/platform/Security.ts): pre-auth budget per client address for failed
 * authentications, the key, the customer status gate, then the MCP limit per
 * customer; and the Origin rule (DNS-rebinding guard) of the MCP transports.
 */
export const makeGate = Effect.gen(function*() {
  const keys = yield* Keys
  const limits = yield* RateLimits
  const config = yield* AppConfig
  const resource = mcpResource(config.baseUrl)
  const allowedOrigins = new Set([new URL(config.baseUrl).origin, ...config.mcpAllowedOrigins])
  const challenge = {
    "www-authenticate":
      `Bearer realm="herald", resource_metadata="${config.baseUrl}/.well-known/oauth-protected-resource"`
  }

  const rateLimited = (effect: Effect.Effect<unknown, RateLimited>) =>
    Effect.catchTag(effect, "RateLimited", (error) => refuse(error))

  /** A browser page of another origin must not drive a session (MCP transports: validate Origin when present). */
  const checkOrigin = (request: HttpServerRequest.HttpServerRequest) => {
    const origin = request.headers.origin
    if (origin === undefined || allowedOrigins.has(origin)) return Effect.void
    return refuse(new Forbidden({ error: `Origin not allowed: ${origin.slice(0, 200)}` }))
  }

  /**
   * The caller's key as a principal of an active or onboarding customer.
   * `bearerRoute` adds the RFC 9728 challenge to 401s (Streamable HTTP takes
   * Bearer headers); a missing key there is E_MCP_TOKEN_REQUIRED too.
   */
  const authenticate = (credential: Credential, bearerRoute: boolean) =>
    Effect.gen(function*() {
      const { clientIp } = yield* currentRequest
      yield* rateLimited(limits.check(policies.preAuth, clientIp))
      const failed = (error: McpTokenRequired | InvalidApiKey) =>
        Effect.andThen(
          rateLimited(limits.enforce(policies.preAuth, clientIp)),
          refuse(error, 401, bearerRoute ? challenge : undefined)
        )
      if (credential._tag === "Missing") return yield* failed(new McpTokenRequired())
      if (credential._tag === "Malformed") return yield* failed(new InvalidApiKey())
      const found = yield* Effect.result(keys.authenticate(credential.key))
      if (found._tag === "Failure") return yield* failed(found.failure)
      const { principal, status, audience } = found.success
      // An OAuth token is good here only if it was issued for this resource (RFC 8707 audience).
      if (audience !== undefined && audience !== resource) return yield* failed(new InvalidApiKey())
      if (status !== "active" && status !== "onboarding") {
        if (bearerRoute) yield* addResponseHeaders(challenge)
        return yield* refuse(new AccountInactive())
      }
      return { principal, key: credential.key } satisfies Authenticated
    })

  /** Every POST counts (whatever its JSON-RPC method); other requests show the usage without counting. */
  const countMcp = (customerId: CustomerId, counts: boolean) =>
    counts
      ? rateLimited(limits.enforce(policies.mcp, customerId))
      : Effect.flatMap(limits.count(policies.mcp, customerId, 0), limits.show)

  return { checkOrigin, authenticate, countMcp, rateLimited }
})

export type Gate = Effect.Success<typeof makeGate>
