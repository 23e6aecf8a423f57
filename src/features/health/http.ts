import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { AppConfig } from "../../Config.ts"
import { NotReady } from "../../domain/Health.ts"
import { matchesAdminSecret } from "../../platform/AdminSecret.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { currentRequest } from "../../platform/http/RequestContext.ts"
import { policies, RateLimits } from "../../platform/RateLimits.ts"
import { Health } from "./Health.ts"

export const HealthHandlers = leanGroup(Effect.gen(function*() {
  const health = yield* Health
  const config = yield* AppConfig
  const limits = yield* RateLimits
  return HttpApiBuilder.group(Api, "health", (handlers) =>
    handlers.handleAll({
      health: () => Effect.succeed({ service: "herald", status: "ok", timestamp: new Date().toISOString() } as const),
      ready: Effect.fn(function*({ headers }) {
        // A secret guess is an admin request: limited like one, so readiness cannot be used to guess secrets.
        if (headers["x-admin-secret"] !== undefined) {
          yield* limits.enforce(policies.admin, (yield* currentRequest).clientIp)
        }
        const components = yield* health.components
        const admin = matchesAdminSecret(config.adminSecret, headers["x-admin-secret"])
        const detail = admin ? { components } : {}
        const timestamp = new Date().toISOString()
        // A database that answers reads but refuses writes leaves the service up, degraded.
        if (components.some((c) => c.name === "database" && c.status === "down")) {
          return yield* new NotReady({ service: "herald", status: "degraded", timestamp, ...detail })
        }
        const status = components.every((c) => c.status === "ok") ? "ok" : "degraded"
        return { service: "herald", status, timestamp, ...detail } as const
      }),
      status: () => health.publicStatus
    }))
}))
