import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { Content } from "./Content.ts"

export const ContentHandlers = leanGroup(Effect.gen(function*() {
  const content = yield* Content
  return HttpApiBuilder.group(Api, "content", (handlers) =>
    handlers.handleAll({
      list: ({ params, query }) => content.list(params.customerId, { ...query, limit: query.limit ?? 25 }),
      // A person's piece is never queued at creation, so no budget charge can refuse it.
      create: ({ params, payload }) => Effect.orDie(content.create(params.customerId, payload, { actor: "person" })),
      get: ({ params }) => content.get(params.customerId, params.contentId),
      update: ({ params, payload }) => content.update(params.customerId, params.contentId, payload),
      review: ({ params, payload }) =>
        content.review(params.customerId, params.contentId, payload.action, payload.note),
      submit: ({ params }) => content.submit(params.customerId, params.contentId),
      remove: ({ params }) => Effect.as(content.remove(params.customerId, params.contentId), { deleted: true })
    }))
}))
