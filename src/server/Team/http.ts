import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { Team } from "../Team.ts"

export const TeamHandlers = HttpApiBuilder.group(Api, "team", Effect.fn(function*(handlers) {
  const team = yield* Team
  return handlers.handleAll({
    invite: ({ params, payload }) => team.invite(params.customerId, payload.email, payload.role),
    list: ({ params }) => Effect.map(team.list(params.customerId), (members) => ({ members })),
    remove: ({ params }) => Effect.as(team.remove(params.customerId, params.memberId), { deleted: true })
  })
}))
