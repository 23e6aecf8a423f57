import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { Analytics } from "./Analytics.ts"

export const AnalyticsHandlers = leanGroup(Effect.gen(function*() {
  const analytics = yield* Analytics
  return HttpApiBuilder.group(Api, "analytics", (handlers) =>
    handlers.handleAll({
      report: ({ params, query }) => analytics.report(params.customerId, query.period ?? "last_7_days")
    }))
}))
