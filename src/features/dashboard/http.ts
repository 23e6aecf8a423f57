import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { CurrentPrincipal } from "../../api/Security.ts"
import { pageHeaders } from "../../platform/http/Html.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { addResponseHeaders } from "../../platform/http/RequestContext.ts"
import { Dashboard } from "./Dashboard.ts"

export const DashboardHandlers = leanGroup(Effect.gen(function*() {
  const dashboard = yield* Dashboard
  return HttpApiBuilder.group(Api, "dashboard", (handlers) =>
    handlers.handleAll({
      get: () =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const page = yield* dashboard.page(principal, undefined)
          yield* addResponseHeaders(pageHeaders())
          return `<!doctype html>\n${page.value}`
        })
    }))
}))
