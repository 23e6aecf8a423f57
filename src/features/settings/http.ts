import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { Settings } from "./Settings.ts"

export const SettingsHandlers = leanGroup(Effect.gen(function*() {
  const settings = yield* Settings
  return HttpApiBuilder.group(Api, "settings", (handlers) =>
    handlers.handleAll({
      get: ({ params }) => settings.get(params.customerId),
      autonomy: ({ params, payload }) => settings.updateAutonomy(params.customerId, payload),
      budget: ({ params, payload }) => settings.updateBudget(params.customerId, payload),
      tracking: ({ params, payload }) => settings.updateTracking(params.customerId, payload)
    }))
}))
