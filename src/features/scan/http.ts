import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { Scanner } from "./Scanner.ts"

export const ScanHandlers = leanGroup(Effect.gen(function*() {
  const scanner = yield* Scanner
  return HttpApiBuilder.group(Api, "scan", (handlers) =>
    handlers.handleAll({
      scan: ({ params, payload }) => scanner.scanOrRefuse(params.customerId, payload.url),
      list: ({ params, query }) => scanner.list(params.customerId, query),
      get: ({ params }) => scanner.get(params.customerId, params.scanId),
      screenshot: ({ params }) => scanner.screenshot(params.customerId, params.scanId)
    }))
}))
