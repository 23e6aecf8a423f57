import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import {
  AccountInactive,
  AuthRequired,
  Conflict,
  Forbidden,
  InvalidApiKey,
  RateLimited,
  ValidationError
} from "../domain/Errors.ts"
import type { Role } from "../domain/Identity.ts"
import type { CustomerId } from "../domain/Ids.ts"

export interface Principal {
  readonly customerId: CustomerId
  /** `null` for the customer's own (owner) key. */
  readonly memberId: string | null
  readonly keyId: string
  readonly role: Role
}

export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("herald/api/CurrentPrincipal") {}

/**
 * The least role an endpoint needs. Unannotated endpoints need `viewer` for
 * GET and `admin` for anything that changes state.
 */
export const RequiredRole = Context.Reference<Role | undefined>("herald/api/RequiredRole", {
  defaultValue: () => undefined
})

/**
 * Marks the one endpoint (the owner's rotate-key) whose exact replay, by
 * `Idempotency-Key`, is accepted with the key that request revoked.
 */
export const AcceptsRotationReplay = Context.Reference<boolean>("herald/api/AcceptsRotationReplay", {
  defaultValue: () => false
})

/**
 * Bearer-key authentication for every customer route: pre-auth and REST rate
 * limits, key and status checks, tenant isolation on the path's customerId,
 * the endpoint's role, and `Idempotency-Key` replay on POST.
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication, {
  provides: CurrentPrincipal
}>()("herald/api/Authentication", {
  security: { bearer: HttpApiSecurity.bearer },
  error: [AuthRequired, InvalidApiKey, AccountInactive, Forbidden, RateLimited, Conflict, ValidationError]
}) {}
