import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { leanGroup } from "../../platform/http/LeanGroup.ts"
import { Social } from "./Social.ts"

export const SocialHandlers = leanGroup(Effect.gen(function*() {
  const social = yield* Social
  return HttpApiBuilder.group(Api, "social", (handlers) =>
    handlers.handleAll({
      connections: ({ params }) =>
        Effect.map(social.connections(params.customerId), (connections) => ({ connections })),
      publish: ({ params, payload }) => social.publish(params.customerId, payload),
      attempts: ({ params }) =>
        Effect.map(social.attempts(params.customerId, params.contentId), (attempts) => ({ attempts })),
      publishPiece: ({ params, payload }) =>
        social.publishPiece(params.customerId, params.contentId, {
          platform: payload?.platform,
          scheduledAt: payload?.scheduledAt
        }),
      retry: ({ params }) => social.retry(params.customerId, params.contentId),
      cancel: ({ params }) => social.cancel(params.customerId, params.contentId)
    }))
}))

export const ConnectionsHandlers = leanGroup(Effect.gen(function*() {
  const social = yield* Social
  return HttpApiBuilder.group(Api, "connections", (handlers) =>
    handlers.handleAll({
      list: ({ params }) =>
        Effect.map(
          social.connections(params.customerId),
          (connections) => ({ customerId: params.customerId, connections })
        ),
      connect: ({ params, payload }) => social.connect(params.customerId, payload?.platforms)
    }))
}))

export const IntegrationHandlers = leanGroup(Effect.gen(function*() {
  const social = yield* Social
  return HttpApiBuilder.group(Api, "integration", (handlers) =>
    handlers.handleAll({
      callback: ({ query }) =>
        Effect.map(social.completeCallback(query), (location) =>
          HttpServerResponse.redirect(location, {
            status: 302,
            headers: { "cache-control": "no-store", "referrer-policy": "no-referrer" }
          }))
    }))
}))
