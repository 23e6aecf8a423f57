import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { CurrentPrincipal } from "../../api/Security.ts"
import { NotFound } from "../../domain/Errors.ts"
import { roleAllows } from "../../domain/Identity.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { OAuth } from "./OAuth.ts"

const iso = (value: Date | string) => new Date(value).toISOString()

export const ConnectedAppsHandlers = leanGroup(Effect.gen(function*() {
  const oauth = yield* OAuth
  return HttpApiBuilder.group(Api, "connectedApps", (handlers) =>
    handlers.handleAll({
      list: ({ params }) =>
        Effect.map(oauth.grants(params.customerId, 100), (grants) => ({
          apps: grants.map((grant) => ({
            grantId: grant.id,
            clientId: grant.clientId,
            clientName: grant.clientName,
            role: grant.role,
            memberId: grant.memberId,
            createdAt: iso(grant.createdAt),
            lastRenewedAt: grant.lastUsedAt === null ? null : iso(grant.lastUsedAt)
          }))
        })),
      revoke: ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          // An admin disconnects any app; anyone else only those they approved.
          const own = roleAllows(principal.role, "admin") ? undefined : (principal.memberId ?? undefined)
          const revoked = yield* oauth.revokeGrant(params.customerId, params.grantId, own)
          if (!revoked) return yield* new NotFound({ error: "Connected app not found" })
          return { revoked: true }
        })
    }))
}))
