import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { Customers } from "../Customers.ts"
import { Events } from "../Events.ts"
import { leanGroup } from "../LeanGroup.ts"

export const CustomersHandlers = leanGroup(Effect.gen(function*() {
  const customers = yield* Customers
  const events = yield* Events
  return HttpApiBuilder.group(Api, "customers", (handlers) =>
    handlers.handleAll({
      get: ({ params }) => customers.get(params.customerId),
      rotateKey: ({ params }) => customers.rotateKey(params.customerId),
      events: ({ params, query }) =>
        Effect.map(
          events.list(params.customerId, { limit: query.limit ?? 50, since: query.since }),
          (list) => ({ events: list })
        )
    })
  )
}))
