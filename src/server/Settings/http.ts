import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { Settings } from "../Settings.ts"

export const SettingsHandlers = HttpApiBuilder.group(Api, "settings", Effect.fn(function*(handlers) {
  const settings = yield* Settings
  return handlers.handleAll({
    get: ({ params }) => settings.get(params.customerId),
    autonomy: ({ params, payload }) => settings.updateAutonomy(params.customerId, payload),
    budget: ({ params, payload }) => settings.updateBudget(params.customerId, payload)
  })
}))
