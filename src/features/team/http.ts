import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { Team } from "./Team.ts"

export const TeamHandlers = leanGroup(Effect.gen(function*() {
  const team = yield* Team
  return HttpApiBuilder.group(Api, "team", (handlers) =>
    handlers.handleAll({
      invite: ({ params, payload }) => team.invite(params.customerId, payload.email, payload.role),
      list: ({ params }) => Effect.map(team.list(params.customerId), (members) => ({ members })),
      remove: ({ params }) => Effect.as(team.remove(params.customerId, params.memberId), { deleted: true })
    }))
}))
