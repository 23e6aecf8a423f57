import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { Customers } from "../Customers.ts"

export const AdminHandlers = HttpApiBuilder.group(Api, "admin", Effect.fn(function*(handlers) {
  const customers = yield* Customers
  return handlers.handleAll({
    provision: Effect.fn(function*({ payload }) {
      const { customer, apiKey } = yield* customers.provision(payload)
      return {
        customerId: customer.id,
        email: customer.email,
        apiKey,
        mcpEndpoint: customers.mcpEndpointFor(apiKey)
      }
    })
  })
}))
