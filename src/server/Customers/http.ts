import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { Customers } from "../Customers.ts"
import { Events } from "../Events.ts"

export const CustomersHandlers = HttpApiBuilder.group(Api, "customers", Effect.fn(function*(handlers) {
  const customers = yield* Customers
  const events = yield* Events
  return handlers.handleAll({
    get: ({ params }) => customers.get(params.customerId),
    rotateKey: ({ params }) => customers.rotateKey(params.customerId),
    events: ({ params, query }) =>
      Effect.map(
        events.list(params.customerId, { limit: query.limit ?? 50, since: query.since }),
        (list) => ({ events: list })
      )
  })
}))
