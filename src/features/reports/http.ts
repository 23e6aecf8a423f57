import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { Reports } from "./Reports.ts"

export const ReportsHandlers = leanGroup(Effect.gen(function*() {
  const reports = yield* Reports
  return HttpApiBuilder.group(Api, "reports", (handlers) =>
    handlers.handleAll({
      list: ({ params, query }) => reports.list(params.customerId, { limit: query.limit ?? 25, cursor: query.cursor }),
      get: ({ params }) => reports.get(params.customerId, params.reportId)
    })
  )
}))
