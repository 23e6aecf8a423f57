import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { Customers } from "../customers/Customers.ts"

export const AdminHandlers = leanGroup(Effect.gen(function*() {
  const customers = yield* Customers
  return HttpApiBuilder.group(Api, "admin", (handlers) =>
    handlers.handleAll({
      provision: Effect.fn(function*({ payload }) {
        const { customer, apiKey } = yield* customers.provisionUnique(payload)
        return {
          customerId: customer.id,
          email: customer.email,
          apiKey,
          mcpEndpoint: customers.mcpEndpointFor(apiKey)
        }
      }),
      findCustomers: ({ query }) => Effect.map(customers.findByEmail(query.email), (list) => ({ customers: list })),
      rotateCustomerKey: ({ params }) => customers.recoverKey(params.customerId)
    }))
}))
