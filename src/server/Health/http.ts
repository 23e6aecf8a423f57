import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { NotReady } from "../../domain/Health.ts"
import { AppConfig } from "../../Config.ts"
import { matchesAdminSecret } from "../AdminSecret.ts"
import { Health } from "../Health.ts"
import { leanGroup } from "../LeanGroup.ts"

export const HealthHandlers = leanGroup(Effect.gen(function*() {
  const health = yield* Health
  const config = yield* AppConfig
  return HttpApiBuilder.group(Api, "health", (handlers) =>
    handlers.handleAll({
      health: () => Effect.succeed({ service: "herald", status: "ok", timestamp: new Date().toISOString() } as const),
      ready: Effect.fn(function*({ headers }) {
        const components = yield* health.components
        const admin = matchesAdminSecret(config.adminSecret, headers["x-admin-secret"])
        const detail = admin ? { components } : {}
        const timestamp = new Date().toISOString()
        if (components.some((c) => c.name === "database" && c.status !== "ok")) {
          return yield* new NotReady({ service: "herald", status: "degraded", timestamp, ...detail })
        }
        const status = components.every((c) => c.status === "ok") ? "ok" : "degraded"
        return { service: "herald", status, timestamp, ...detail } as const
      }),
      status: () => health.publicStatus
    })
  )
}))
