import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { Cursors } from "../../platform/Cursor.ts"
import { EventPosition, Events } from "../../platform/Events.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { Customers } from "./Customers.ts"

export const CustomersHandlers = leanGroup(Effect.gen(function*() {
  const customers = yield* Customers
  const events = yield* Events
  const cursors = yield* Cursors
  return HttpApiBuilder.group(Api, "customers", (handlers) =>
    handlers.handleAll({
      get: ({ params }) => customers.get(params.customerId),
      rotateKey: ({ params, request }) =>
        customers.rotateKey(params.customerId, { idempotencyKey: request.headers["idempotency-key"] }),
      events: Effect.fnUntraced(function*({ params, query }) {
        const after = query.cursor === undefined
          ? undefined
          : yield* cursors.decode("events", params.customerId, EventPosition, query.cursor)
        const page = yield* events.page(params.customerId, { limit: query.limit ?? 50, since: query.since, after })
        return {
          events: page.events,
          nextCursor: page.next === undefined ? null : cursors.encode("events", params.customerId, page.next)
        }
      })
    }))
}))
